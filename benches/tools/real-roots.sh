#!/usr/bin/env bash
# Builds roots unpacked from real packages, laid out as an install lays them
# out, for `tests/probe_real_roots.rs` (and `lore probe --root` timings):
#
#   cu13-wheels/         pip's layout of CUDA 13's suffixless wheels in
#                        /usr/local/lib/python3.12/site-packages: the
#                        `cuda-toolkit` 13.0.2 metapackage and the wheels its
#                        cudart, cupti, cufile, nvtx and nvcc extras pin,
#                        Triton 3.6.0 (its own CUPTI) and nvidia-ml-py (an
#                        `nvidia_*` wheel with no library)
#   cu12-wheels/         the same for CUDA 12.4's `-cu12` wheels and
#                        `cuda-toolkit` 12.4.1
#   debian-trixie-cuda/  Debian 13's own toolkit (non-free
#                        nvidia-cuda-toolkit, libcupti12, libcupti-dev,
#                        libcudart12) and base-files, each .deb unpacked with
#                        `dpkg-deb -x` and recorded in /var/lib/dpkg/status
#   ubuntu-noble-cupti/  Ubuntu 24.04's libcupti12 and libcudart12
#                        (multiverse) and base-files: CUPTI with no toolkit
#
# Left out, and why: torch (PyPI's Linux torch 2.11.0 wheel is the CUDA
# build, 531 MB; its CPU wheels are on download.pytorch.org only);
# nvidia-cuda-dev (Debian's headers and libraries, /usr/include/cuda.h among
# them: 934 MB); Ubuntu's nvidia-cuda-toolkit (86 MB, the same layout as
# Debian's). Nothing here runs a maintainer script or ldconfig, so roots
# have no /etc/ld.so.cache and no alternatives links.
#
# Every file is pinned by version and sha256 (from PyPI's JSON API and the
# archives' Packages indexes, 2026-11-26); downloads (about 370 MB) are kept
# in OUT/cache and checked again on each run. A root is built in a temporary
# folder and moved into place when complete, so one that exists is whole.
#
# Usage: benches/tools/real-roots.sh [OUT]   (OUT defaults to target/real-roots)
# Needs: curl, sha256sum, dpkg-deb, tar, and python3 with pip.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${1:-$here/target/real-roots}
mkdir -p "$out/cache"
out=$(cd "$out" && pwd)
cache=$out/cache
python=${PYTHON:-python3}
site=usr/local/lib/python3.12/site-packages

pypi=https://files.pythonhosted.org/packages
debian=https://deb.debian.org/debian
ubuntu=http://archive.ubuntu.com/ubuntu

# (sha256, URL) of each file.
cuda_toolkit_13=(b198824cf2f54003f50d64ada3a0f184b42ca0846c1c94192fa269ecd97a66eb
    $pypi/57/b2/453099f5f3b698d7d0eab38916aac44c7f76229f451709e2eb9db6615dcd/cuda_toolkit-13.0.2-py2.py3-none-any.whl)
cupti_13=(4eb01c08e859bf924d222250d2e8f8b8ff6d3db4721288cf35d14252a4d933c8
    $pypi/33/6d/737d164b4837a9bbd202f5ae3078975f0525a55730fe871d8ed4e3b952b0/nvidia_cuda_cupti-13.0.85-py3-none-manylinux_2_25_x86_64.whl)
runtime_13=(7f82250d7782aa23b6cfe765ecc7db554bd3c2870c43f3d1821f1d18aebf0548
    $pypi/2e/24/d1558f3b68b1d26e706813b1d10aa1d785e4698c425af8db8edc3dced472/nvidia_cuda_runtime-13.0.96-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl)
cufile_13=(08a3ecefae5a01c7f5117351c64f17c7c62efa5fffdbe24fc7d298da19cd0b44
    $pypi/3f/70/4f193de89a48b71714e74602ee14d04e4019ad36a5a9f20c425776e72cd6/nvidia_cufile-1.15.1.6-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl)
nvtx_13=(4936d1d6780fbe68db454f5e72a42ff64d1fd6397df9f363ae786930fd5c1cd4
    $pypi/c2/f3/d86c845465a2723ad7e1e5c36dcd75ddb82898b3f53be47ebd429fb2fa5d/nvidia_nvtx-13.0.85-py3-none-manylinux1_x86_64.manylinux_2_5_x86_64.whl)
nvcc_13=(56fe502eb77625a12f25172caa3cdddb4e4c8ba2c8c17dba44b164761b380f03
    $pypi/71/8b/a546c12881fffeba927d810598987df25d74b8b241788c7db8dfc93b0173/nvidia_cuda_nvcc-13.0.88-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl)
ml_py=(f13c72698edef492f985cc225f14faafe68ae065a2e407f45bdf6f4b9b43fde8
    $pypi/23/45/caa600acfab94560807a20a64b5830d2cd3c3202b7f1328644d70b7d6bd8/nvidia_ml_py-13.610.43-py3-none-any.whl)
triton=(74caf5e34b66d9f3a429af689c1c7128daba1d8208df60e81106b115c00d6fca
    $pypi/ab/a8/cdf8b3e4c98132f965f88c2313a4b493266832ad47fb52f23d14d4f86bb5/triton-3.6.0-cp312-cp312-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl)
cuda_toolkit_12=(5d60f1b4fedec4e798b08f4768a41ceb010cb842d5330499c6efe794570463c4
    $pypi/28/86/dcb8e5ad7670e77428239d4eca6f669e7a14f9bac07431f8a701669d2074/cuda_toolkit-12.4.1-py2.py3-none-any.whl)
cupti_12=(9dec60f5ac126f7bb551c055072b69d85392b13311fcc1bcda2202d172df30fb
    $pypi/67/42/f4f60238e8194a3106d06a058d494b18e006c10bb2b915655bd9f6ea4cb1/nvidia_cuda_cupti_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl)
runtime_12=(64403288fa2136ee8e467cdc9c9427e0434110899d07c779f25b5c068934faa5
    $pypi/ea/27/1795d86fe88ef397885f2e580ac37628ed058a92ed2c39dc8eac3adf0619/nvidia_cuda_runtime_cu12-12.4.127-py3-none-manylinux2014_x86_64.whl)
trixie_toolkit=(cd5fe85aee38d108b315f408a688641478f2402622a10c677478eb7a6c4e5319
    $debian/pool/non-free/n/nvidia-cuda-toolkit/nvidia-cuda-toolkit_12.4.131~12.4.1-2_amd64.deb)
trixie_cupti=(49f475278f108cf1b07d60b8d3d9d1711c0de3868e374f5ac481a08c6c51750d
    $debian/pool/non-free/n/nvidia-cuda-toolkit/libcupti12_12.4.127~12.4.1-2_amd64.deb)
trixie_cupti_dev=(09d56f110a9ab95de2674e6374aebcfce629e9a7de50480706c121cc56a34e67
    $debian/pool/non-free/n/nvidia-cuda-toolkit/libcupti-dev_12.4.127~12.4.1-2_amd64.deb)
trixie_cudart=(361b3721cf84bf068e111ff013c819de61cb475268b0d38db99839471f1b4130
    $debian/pool/non-free/n/nvidia-cuda-toolkit/libcudart12_12.4.127~12.4.1-2_amd64.deb)
trixie_base=(f5a0546098f38bad5843380521781fe7214e5a283d3bed63f79c505545f262af
    $debian/pool/main/b/base-files/base-files_13.8+deb13u8_amd64.deb)
noble_cupti=(7d60bde0de846b5b6ac9b62148c2a24c4213173ef91d5d05320094977a86d70e
    $ubuntu/pool/multiverse/n/nvidia-cuda-toolkit/libcupti12_12.0.146~12.0.1-4build4_amd64.deb)
noble_cudart=(cc431aede75f448c7ed735abe9e1ab4d1c88cc9ff52c8c900d4f658429c6dca0
    $ubuntu/pool/multiverse/n/nvidia-cuda-toolkit/libcudart12_12.0.146~12.0.1-4build4_amd64.deb)
noble_base=(cd06729c776397bb74779773f4dece372a1a3f795e5992804022bffab0278ffb
    $ubuntu/pool/main/b/base-files/base-files_13ubuntu10_amd64.deb)

die() {
    echo "real-roots.sh: $*" >&2
    exit 1
}

# fetch SHA256 URL: the cached file's path on stdout, downloaded if needed
# and checked against its pin every time.
fetch() {
    local sha=$1 url=$2
    local file
    file=$cache/$(basename "$url")
    if [[ ! -f $file ]]; then
        echo "downloading $(basename "$url")" >&2
        curl -fL --retry 3 --silent --show-error -o "$file.part" "$url" ||
            die "$url: download failed (a Debian point release may have replaced it: update the pin from the Packages index)"
        mv "$file.part" "$file"
    fi
    echo "$sha  $file" | sha256sum --check --quiet >&2 ||
        die "$file: sha256 is not the pinned $sha (delete it to download again)"
    echo "$file"
}

# pip_root NAME WHEEL...: one pip run installs the wheels, as pip lays them
# out, into NAME's /usr/local site-packages (one run, so the `nvidia/`
# folder they share is merged rather than skipped by pip's --target).
pip_root() {
    local name=$1
    shift
    local files=() platforms=() tmp=$out/$name.tmp
    while (($#)); do
        files+=("$(fetch "$1" "$2")")
        shift 2
    done
    # Each wheel's own platform tags, so pip installs the Linux x86_64
    # wheels whatever machine runs this script.
    local f tags
    for f in "${files[@]}"; do
        f=$(basename "$f" .whl)
        IFS=. read -ra tags <<<"${f##*-}"
        platforms+=("${tags[@]/#/--platform=}")
    done
    rm -rf "$tmp"
    mkdir -p "$tmp/$site"
    "$python" -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
        --no-index --no-deps --no-compile --only-binary=:all: --python-version=3.12 \
        --implementation=cp --abi=cp312 "${platforms[@]}" --target "$tmp/$site" "${files[@]}"
}

# The pins of a cuda-toolkit metapackage's extras must be the wheels
# installed beside it: check each against its METADATA.
check_extras() {
    local root=$1 toolkit=$2
    shift 2
    local metadata
    metadata=$(cat "$out/$root.tmp/$site"/cuda_toolkit-"$toolkit".dist-info/METADATA)
    local pin
    for pin in "$@"; do
        grep -q "^Requires-Dist: ${pin%==*}==${pin#*==}\.\*;.*extra == '" <<<"$metadata" ||
            die "cuda-toolkit $toolkit does not pin $pin in an extra"
    done
}

# deb_root NAME DEB...: each .deb unpacked with dpkg-deb -x, and a dpkg
# status record (its control fields, installed) with its file list and
# md5sums, as dpkg leaves them.
deb_root() {
    local name=$1
    shift
    local tmp=$out/$name.tmp
    rm -rf "$tmp"
    mkdir -p "$tmp/var/lib/dpkg/info"
    : >"$tmp/var/lib/dpkg/status"
    while (($#)); do
        local deb package arch list control
        deb=$(fetch "$1" "$2")
        shift 2
        dpkg-deb -x "$deb" "$tmp"
        package=$(dpkg-deb -f "$deb" Package)
        arch=$(dpkg-deb -f "$deb" Architecture)
        list=$package
        if [[ $(dpkg-deb -f "$deb" Multi-Arch) == same ]]; then
            list=$package:$arch
        fi
        {
            dpkg-deb -f "$deb" | sed '1a Status: install ok installed'
            echo
        } >>"$tmp/var/lib/dpkg/status"
        dpkg-deb --fsys-tarfile "$deb" | tar -t |
            sed -e 's|^\./|/|' -e 's|/$||' -e 's|^$|/.|' >"$tmp/var/lib/dpkg/info/$list.list"
        control=$(mktemp -d)
        dpkg-deb -e "$deb" "$control"
        if [[ -f $control/md5sums ]]; then
            cp "$control/md5sums" "$tmp/var/lib/dpkg/info/$list.md5sums"
        fi
        rm -rf "$control"
    done
}

# finish NAME: the complete root moves into place.
finish() {
    rm -rf "${out:?}/$1"
    mv "$out/$1.tmp" "$out/$1"
    echo "$out/$1: $(du -sh "$out/$1" | cut -f1)"
}

"$python" -m pip --version >/dev/null 2>&1 || die "$python has no pip (set PYTHON to one that has)"
for tool in curl sha256sum dpkg-deb tar; do
    command -v "$tool" >/dev/null || die "$tool is needed"
done

# `pip install "cuda-toolkit[cudart,cupti,cufile,nvtx,nvcc]==13.0.2" triton==3.6.0
# nvidia-ml-py==13.610.43`, every version pinned and the extras' pins checked.
pip_root cu13-wheels "${cuda_toolkit_13[@]}" "${cupti_13[@]}" "${runtime_13[@]}" \
    "${cufile_13[@]}" "${nvtx_13[@]}" "${nvcc_13[@]}" "${triton[@]}" "${ml_py[@]}"
check_extras cu13-wheels 13.0.2 nvidia-cuda-cupti==13.0.85 nvidia-cuda-runtime==13.0.96 \
    nvidia-cufile==1.15.1.6 nvidia-nvtx==13.0.85 nvidia-cuda-nvcc==13.0.88
finish cu13-wheels
# `pip install "cuda-toolkit[cudart,cupti]==12.4.1"`
pip_root cu12-wheels "${cuda_toolkit_12[@]}" "${cupti_12[@]}" "${runtime_12[@]}"
check_extras cu12-wheels 12.4.1 nvidia-cuda-cupti-cu12==12.4.127 nvidia-cuda-runtime-cu12==12.4.127
finish cu12-wheels
deb_root debian-trixie-cuda "${trixie_base[@]}" "${trixie_toolkit[@]}" \
    "${trixie_cupti[@]}" "${trixie_cupti_dev[@]}" "${trixie_cudart[@]}"
finish debian-trixie-cuda
deb_root ubuntu-noble-cupti "${noble_base[@]}" "${noble_cupti[@]}" "${noble_cudart[@]}"
finish ubuntu-noble-cupti
