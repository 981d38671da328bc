#!/usr/bin/env bash
# lore on a real corpus no one here wrote: the tldr-pages repository (about
# 38,000 Markdown files in 40 languages, with its `pages.en -> pages` symlink),
# and on a generated 100,000-file overlay. Cold build, whole-process search
# against `rg -i`, peak RSS.
# Needs hyperfine and ripgrep. Usage: bash benches/tldr.sh TLDR_CHECKOUT
# (a checkout of https://github.com/tldr-pages/tldr, outside this repository).
set -euo pipefail
tldr=$(realpath "$1")
cd "$(dirname "$0")/.."
cargo build --release --quiet
cargo build --release --quiet --example gen_corpus
lore=$PWD/target/release/lore
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LORE_HOME=$work/home

measure() { # label, folder, query...
    local label=$1 folder=$2; shift 2
    echo "== $label: cold build"
    /usr/bin/time -f "%e s wall, peak RSS %M KB" "$lore" --no-builtin --knowledge "$folder" index --rebuild | grep -E 'documents|sections|build time'
    "$lore" --no-builtin --knowledge "$folder" search x >/dev/null || true # record the scan
    for query in "$@"; do
        hyperfine -N -i --warmup 3 --min-runs 20 \
            "$lore --no-builtin --knowledge $folder search '$query'" \
            "rg -i '$query' $folder" | grep -E 'Time|±|faster|search|rg'
        /usr/bin/time -f "peak RSS of lore search '$query': %M KB" "$lore" --no-builtin --knowledge "$folder" search "$query" >/dev/null
    done
    echo "== $label: check"
    "$lore" --no-builtin --knowledge "$folder" check | tail -1
}

measure tldr "$tldr" 'tar' 'extract a compressed archive'
"$PWD/target/release/examples/gen_corpus" "$work/gen100k" 100000 >/dev/null
sleep 3
measure generated-100000 "$work/gen100k" 'cupti' 'ImportError: libcupti.so.12: cannot open shared object file'
