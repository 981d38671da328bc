//! What `lore probe` and the TUI's probe key cost: probing this machine (`/`),
//! the pip fixture root, and the fixture Dockerfile, in process. The whole
//! process, on a real Python environment, is measured with hyperfine (see the
//! README's Performance section).

use std::path::PathBuf;

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
    };
    c.bench_function("probe/pip-fixture-root", |b| b.iter(|| run(&root).unwrap()));
    let dockerfile = ProbeOptions {
        root: None,
        dockerfile: Some(fixture("source-build.Dockerfile")),
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

criterion_group!(benches, bench);
criterion_main!(benches);
