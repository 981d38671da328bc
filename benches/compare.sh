#!/usr/bin/env bash
# Whole-process `lore search` against `rg -i` over the same files, warm cache,
# on the shipped knowledge and on generated corpora; peak RSS; cold build.
# Needs hyperfine and ripgrep (Debian: apt-get install -y hyperfine ripgrep).
# Usage: bash benches/compare.sh   (from the repository root)
set -euo pipefail
cd "$(dirname "$0")/.."

cargo build --release --quiet
cargo build --release --quiet --example gen_corpus
lore=$PWD/target/release/lore
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LORE_HOME=$work/home

error='ImportError: libcupti.so.12: cannot open shared object file'

compare() { # label, lore args..., -- rg folder
    local label=$1 folder=$2; shift 2
    echo "== $label"
    "$lore" "$@" index >/dev/null # warm the cache
    hyperfine -N -i --warmup 5 --min-runs 30 --export-markdown "$work/$label.md" \
        "$lore $* search '$error'" \
        "rg -i '$error' $folder" \
        "$lore $* search cupti" \
        "rg -i cupti $folder" >/dev/null
    cat "$work/$label.md"
    /usr/bin/time -f "peak RSS of lore search: %M KB" "$lore" "$@" search "$error" >/dev/null
}

compare shipped knowledge
for count in 1000 10000; do
    "$PWD/target/release/examples/gen_corpus" "$work/gen$count" "$count" >/dev/null
    # lore records a scan of a knowledge folder (and later checks that record
    # instead of walking) only once nothing in it is under 2 s old, as in a
    # folder people read from; freshly generated files are not yet.
    sleep 3
    echo "== cold build, $count documents"
    /usr/bin/time -f "%e s wall, peak RSS %M KB" "$lore" --no-builtin --knowledge "$work/gen$count" index --rebuild | grep -E 'sections|bytes|build time'
    compare "generated-$count" "$work/gen$count" --no-builtin --knowledge "$work/gen$count"
done
