//! What `lore probe` and the TUI's probe key cost: probing this machine (`/`),
//! the pip fixture root, the root laid out like issue #27's H100 (a uv venv
//! under /opt found by the bounded search, CUDA 13 wheels read through their
//! RECORD, a toolkit without version.json), and the fixture Dockerfile, in
//! process. The whole
//! process, on a real Python environment, is measured with hyperfine (see the
//! README's Performance section).
//!
//! `cargo bench --bench probe -- hostile`: the red team's roots (issue #30),
//! which must each probe in under a second: a crafted 16 MiB loader cache
//! whose entries all point into one long unterminated string (minutes when
//! each string was scanned on its own), and 2,000 symlinks
//! `/usr/local/cuda-N` to one toolkit whose `targets` holds 2,000 folders
//! (89 s and 771 MB when every link was expanded).

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use lore::probe::{ProbeOptions, parse_dockerfile, run};

fn fixture(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/probe")
        .join(rel)
}

fn bench(c: &mut Criterion) {
    let machine = ProbeOptions::default();
    c.bench_function("probe/machine", |b| b.iter(|| run(&machine).unwrap()));
    let root = ProbeOptions {
        root: Some(fixture("pip-root")),
        dockerfile: None,
        dockerfile_line: None,
    };
    c.bench_function("probe/pip-fixture-root", |b| b.iter(|| run(&root).unwrap()));
    let h100 = ProbeOptions {
        root: Some(fixture("h100-root")),
        dockerfile: None,
        dockerfile_line: None,
    };
    c.bench_function("probe/h100-fixture-root", |b| {
        b.iter(|| run(&h100).unwrap())
    });
    let dockerfile = ProbeOptions {
        root: None,
        dockerfile: Some(fixture("source-build.Dockerfile").into()),
        dockerfile_line: None,
    };
    c.bench_function("probe/dockerfile", |b| b.iter(|| run(&dockerfile).unwrap()));
    // Issue #30 item 4: `FROM ${${${…` with no closing brace took 20 s at
    // 1 MiB (every `$` searched the rest of the line); one pass now.
    let mut unclosed = String::from("FROM ");
    unclosed.push_str(&"${".repeat(512 * 1024));
    c.bench_function("probe/dockerfile-unclosed-substitution-1MiB", |b| {
        b.iter(|| parse_dockerfile("Dockerfile", unclosed.as_bytes()))
    });
    // `${A:-${A:-…` nested to the end of a 1 MiB line and never closed.
    let mut nested = String::from("ARG A\nFROM ");
    nested.push_str(&"${A:-".repeat(200 * 1024));
    nested.push_str("ubuntu");
    c.bench_function("probe/dockerfile-nested-substitution-1MiB", |b| {
        b.iter(|| parse_dockerfile("Dockerfile", nested.as_bytes()))
    });
}

/// A root whose `/etc/ld.so.cache` is 16 MiB (the cap) of entries whose
/// soname and path all point into one unterminated `libcupti.so…` run.
fn crafted_ld_cache_root(dir: &Path) -> PathBuf {
    const SIZE: usize = 16 * 1024 * 1024;
    let entries = SIZE / 2 / 24;
    let table = 48 + 24 * entries;
    let mut data = b"glibc-ld.so.cache1.1".to_vec();
    data.extend((entries as u32).to_le_bytes());
    data.extend(((SIZE - table) as u32).to_le_bytes());
    data.extend([0u8; 20]);
    for i in 0..entries {
        data.extend(1u32.to_le_bytes());
        data.extend((table as u32).to_le_bytes());
        data.extend((table as u32 + 11 + i as u32).to_le_bytes());
        data.extend([0u8; 12]);
    }
    data.extend(b"libcupti.so");
    data.resize(SIZE, b'a');
    let root = dir.join("ld-cache-root");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/ld.so.cache"), data).unwrap();
    root
}

/// A root with `k` symlinks `/usr/local/cuda-N` to `/opt/cuda`, whose
/// `targets` holds `k` folders.
#[cfg(unix)]
fn symlinked_cuda_root(dir: &Path, k: usize) -> PathBuf {
    let root = dir.join("cuda-root");
    let toolkit = root.join("opt/cuda");
    for t in 0..k {
        std::fs::create_dir_all(toolkit.join(format!("targets/t{t}/lib"))).unwrap();
    }
    std::fs::write(
        toolkit.join("version.json"),
        r#"{"cuda": {"version": "12.4.1"}}"#,
    )
    .unwrap();
    std::fs::create_dir_all(root.join("usr/local")).unwrap();
    for n in 0..k {
        std::os::unix::fs::symlink("/opt/cuda", root.join(format!("usr/local/cuda-{n}"))).unwrap();
    }
    root
}

fn hostile(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    let ld_cache = ProbeOptions {
        root: Some(crafted_ld_cache_root(dir.path())),
        dockerfile: None,
        dockerfile_line: None,
    };
    group.bench_function("ld-cache-16MiB-crafted", |b| {
        b.iter(|| run(&ld_cache).unwrap())
    });
    #[cfg(unix)]
    {
        let cuda = ProbeOptions {
            root: Some(symlinked_cuda_root(dir.path(), 2_000)),
            dockerfile: None,
            dockerfile_line: None,
        };
        group.bench_function("symlinked-cuda-2000x2000", |b| {
            b.iter(|| run(&cuda).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench, hostile);
criterion_main!(benches);
