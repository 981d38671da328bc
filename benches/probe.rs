//! What `lore probe` and the TUI's probe key cost: probing this machine (`/`),
//! the pip fixture root, the root laid out like issue #27's H100 (a uv venv
//! under /opt found by the bounded search, CUDA 13 wheels read through their
//! RECORD, a toolkit without version.json), and the fixture Dockerfile, in
//! process. The whole
//! process, on a real Python environment, is measured with hyperfine (see the
//! README's Performance section).

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use lore::probe::{ProbeOptions, run};

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
    };
    c.bench_function("probe/pip-fixture-root", |b| b.iter(|| run(&root).unwrap()));
    let h100 = ProbeOptions {
        root: Some(fixture("h100-root")),
        dockerfile: None,
    };
    c.bench_function("probe/h100-fixture-root", |b| {
        b.iter(|| run(&h100).unwrap())
    });
    let dockerfile = ProbeOptions {
        root: None,
        dockerfile: Some(fixture("source-build.Dockerfile")),
    };
    c.bench_function("probe/dockerfile", |b| b.iter(|| run(&dockerfile).unwrap()));
}

criterion_group!(benches, bench);
criterion_main!(benches);
