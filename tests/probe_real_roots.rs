//! `lore probe --root` on roots unpacked from real packages: PyPI's CUDA 13
//! and CUDA 12 wheels as pip lays them out, Debian's and Ubuntu's own CUDA
//! packages as dpkg leaves them. The roots are downloaded and built by
//! `benches/tools/real-roots.sh` (pinned versions and sha256), never
//! committed, so these tests are ignored; run them on purpose with
//!
//! ```text
//! bash benches/tools/real-roots.sh && cargo test --test probe_real_roots -- --ignored
//! ```
//!
//! `LORE_REAL_ROOTS` names another folder the script built into. Each test
//! asserts what a user would check on that root: the wheels and their
//! versions, the libraries their `RECORD` installed, where CUPTI is, the
//! toolkit metapackage, the dpkg packages and the toolkit's version with its
//! evidence.

mod common;

use std::path::PathBuf;

use common::{facts, home, lore, values};
use serde_json::Value;

/// The built root `name`; a missing one fails, naming the command that
/// builds it.
fn real_root(name: &str) -> String {
    let dir = std::env::var_os("LORE_REAL_ROOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/real-roots"));
    let root = dir.join(name);
    assert!(
        root.is_dir(),
        "{} is missing: build it with `bash benches/tools/real-roots.sh{}`",
        root.display(),
        match std::env::var_os("LORE_REAL_ROOTS") {
            Some(d) => format!(" {}", PathBuf::from(d).display()),
            None => String::new(),
        }
    );
    root.display().to_string()
}

fn probe_root(r: &str) -> Value {
    let home = home();
    let out = lore(&home)
        .args(["probe", "--root", r, "--json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).unwrap()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The line of `Package: name` in a root's dpkg status, as evidence gives it.
fn status_line(r: &str, package: &str) -> String {
    let path = format!("{r}/var/lib/dpkg/status");
    let text = std::fs::read_to_string(&path).unwrap();
    let line = text
        .lines()
        .position(|l| l == format!("Package: {package}"))
        .unwrap_or_else(|| panic!("{path} has no {package}"));
    format!("{path}:{}", line + 1)
}

const SITE: &str = "/usr/local/lib/python3.12/site-packages";

/// `pip install "cuda-toolkit[cudart,cupti,cufile,nvtx,nvcc]==13.0.2"
/// triton==3.6.0 nvidia-ml-py`: CUDA 13's suffixless wheels share
/// `nvidia/cu13/lib`, the metapackage names the toolkit release, Triton
/// brings its own (CUDA 12) CUPTI, and nvidia-ml-py is no CUDA wheel.
#[test]
#[ignore = "needs target/real-roots: bash benches/tools/real-roots.sh"]
fn cuda13_suffixless_wheels_their_libraries_and_the_toolkit_metapackage() {
    let r = real_root("cu13-wheels");
    let json = probe_root(&r);
    let site = format!("{r}{SITE}");
    let lib = format!("{site}/nvidia/cu13/lib");
    assert_eq!(
        values(&json, "python-env"),
        [format!("{r}/usr/local (system)")]
    );
    assert_eq!(values(&json, "torch"), Vec::<String>::new());
    assert_eq!(
        sorted(values(&json, "nvidia-wheel")),
        [
            "nvidia-cuda-cupti 13.0.85",
            "nvidia-cuda-nvcc 13.0.88",
            "nvidia-cuda-runtime 13.0.96",
            "nvidia-cufile 1.15.1.6",
            "nvidia-nvtx 13.0.85",
        ]
    );
    // The nvcc wheel's compiler, which no toolkit folder or $PATH shows.
    assert_eq!(
        values(&json, "nvcc.wheel"),
        [format!("{site}/nvidia/cu13/bin/nvcc")]
    );
    let libs = facts(&json, "nvidia-wheel.libs");
    let cupti = libs
        .iter()
        .find(|(v, _)| v.split(' ').any(|l| l == "libcupti.so.13"))
        .expect("the CUPTI wheel's libraries");
    assert_eq!(
        cupti.1,
        [
            lib.clone(),
            format!("{site}/nvidia_cuda_cupti-13.0.85.dist-info/RECORD")
        ]
    );
    assert!(
        libs.iter()
            .any(|(v, e)| v == "libcudart.so.13" && e[0] == lib),
        "{libs:?}"
    );
    assert!(
        libs.iter().all(|(_, e)| e[0] == lib),
        "every CUDA 13 library in nvidia/cu13/lib: {libs:?}"
    );
    assert_eq!(values(&json, "nvidia-wheel.missing"), Vec::<String>::new());
    assert_eq!(
        facts(&json, "cuda-toolkit-wheel"),
        [(
            "13.0.2".to_string(),
            vec![format!("{site}/cuda_toolkit-13.0.2.dist-info")]
        )]
    );
    let triton = format!("{site}/triton/backends/nvidia/lib/cupti");
    assert_eq!(
        sorted(values(&json, "libcupti")),
        [
            format!("{lib}/libcupti.so.13 (wheel)"),
            format!("{triton}/libcupti.so (triton)"),
            format!("{triton}/libcupti.so.12 (triton)"),
            format!("{triton}/libcupti.so.2025.1.1 (triton)"),
        ]
    );
}

/// `pip install "cuda-toolkit[cudart,cupti]==12.4.1"`: the `-cu12` wheels
/// torch's cu124 builds pin, each library in its own `nvidia/<pkg>/lib`.
#[test]
#[ignore = "needs target/real-roots: bash benches/tools/real-roots.sh"]
fn cuda12_cu12_wheels_in_their_own_folders() {
    let r = real_root("cu12-wheels");
    let json = probe_root(&r);
    let site = format!("{r}{SITE}");
    assert_eq!(
        sorted(values(&json, "nvidia-wheel")),
        [
            "nvidia-cuda-cupti-cu12 12.4.127",
            "nvidia-cuda-runtime-cu12 12.4.127"
        ]
    );
    let libs = facts(&json, "nvidia-wheel.libs");
    assert!(
        libs.iter()
            .any(|(v, e)| v.split(' ').any(|l| l == "libcupti.so.12")
                && e == &[
                    format!("{site}/nvidia/cuda_cupti/lib"),
                    format!("{site}/nvidia_cuda_cupti_cu12-12.4.127.dist-info/RECORD"),
                ]),
        "{libs:?}"
    );
    assert!(
        libs.iter()
            .any(|(v, e)| v == "libcudart.so.12"
                && e[0] == format!("{site}/nvidia/cuda_runtime/lib")),
        "{libs:?}"
    );
    assert_eq!(values(&json, "nvidia-wheel.missing"), Vec::<String>::new());
    assert_eq!(values(&json, "cuda-toolkit-wheel"), ["12.4.1"]);
    assert_eq!(
        values(&json, "libcupti"),
        [format!(
            "{site}/nvidia/cuda_cupti/lib/libcupti.so.12 (wheel)"
        )]
    );
}

/// Debian 13's own toolkit from non-free (`nvidia-cuda-toolkit`
/// 12.4.131~12.4.1-2, without `nvidia-cuda-dev`, so no `cuda.h`): the
/// version is the package's release, nvcc is `/usr/bin/nvcc`, CUPTI and the
/// runtime are in the multiarch folder and dpkg lists them all.
#[test]
#[ignore = "needs target/real-roots: bash benches/tools/real-roots.sh"]
fn debian_trixie_nvidia_cuda_toolkit_from_dpkg() {
    let r = real_root("debian-trixie-cuda");
    let json = probe_root(&r);
    assert_eq!(
        values(&json, "os"),
        ["debian 13 (Debian GNU/Linux 13 (trixie))"]
    );
    assert_eq!(
        sorted(values(&json, "apt-package")),
        [
            "libcudart12 12.4.127~12.4.1-2",
            "libcupti-dev 12.4.127~12.4.1-2",
            "libcupti12 12.4.127~12.4.1-2",
            "nvidia-cuda-toolkit 12.4.131~12.4.1-2",
        ]
    );
    assert_eq!(
        facts(&json, "cuda-toolkit"),
        [(
            format!("{r}/usr/lib/cuda 12.4.1"),
            vec![format!(
                "{} (nvidia-cuda-toolkit 12.4.131~12.4.1-2)",
                status_line(&r, "nvidia-cuda-toolkit")
            )]
        )]
    );
    assert_eq!(values(&json, "nvcc"), [format!("{r}/usr/bin/nvcc")]);
    let multiarch = format!("{r}/usr/lib/x86_64-linux-gnu");
    assert_eq!(
        sorted(values(&json, "libcupti")),
        [
            format!("{multiarch}/libcupti.so (system)"),
            format!("{multiarch}/libcupti.so.12 (system)"),
            format!("{multiarch}/libcupti.so.2024.1.1 (system)"),
        ]
    );
}

/// Ubuntu 24.04's `libcupti12` and `libcudart12` from multiverse with no
/// toolkit: CUPTI is there, and no toolkit is claimed.
#[test]
#[ignore = "needs target/real-roots: bash benches/tools/real-roots.sh"]
fn ubuntu_noble_cupti_without_a_toolkit() {
    let r = real_root("ubuntu-noble-cupti");
    let json = probe_root(&r);
    assert_eq!(values(&json, "os"), ["ubuntu 24.04 (Ubuntu 24.04 LTS)"]);
    assert_eq!(
        facts(&json, "apt-package"),
        [
            (
                "libcupti12 12.0.146~12.0.1-4build4".to_string(),
                vec![status_line(&r, "libcupti12")]
            ),
            (
                "libcudart12 12.0.146~12.0.1-4build4".to_string(),
                vec![status_line(&r, "libcudart12")]
            ),
        ]
    );
    assert_eq!(values(&json, "cuda-toolkit"), Vec::<String>::new());
    assert_eq!(values(&json, "nvcc"), Vec::<String>::new());
    let multiarch = format!("{r}/usr/lib/x86_64-linux-gnu");
    assert_eq!(
        sorted(values(&json, "libcupti")),
        [
            format!("{multiarch}/libcupti.so.12 (system)"),
            format!("{multiarch}/libcupti.so.2022.4.1 (system)"),
        ]
    );
}
