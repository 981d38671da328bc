//! What `lore diagnose` costs past the search: finding the causes of the
//! first hits (parsing their blocks) and judging them against the probes of
//! this machine and of the pip fixture root, in process. The whole process
//! (search index from the cache, probes, output) is measured with hyperfine;
//! see the README's Performance section.

use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use lore::corpus::Corpus;
use lore::diagnose;
use lore::probe::ProbeOptions;
use lore::search::SearchIndex;
use lore::search::query;
use lore::sources::SourceSet;

const MESSAGE: &str =
    "RuntimeError: CUDA error: no kernel image is available for execution on the device";

fn bench(c: &mut Criterion) {
    let corpus = Corpus::load(&SourceSet::builtin_knowledge());
    let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
    let hits = index.query_parsed(&query::parse(MESSAGE), 10);
    c.bench_function("diagnose/causes-of-hits", |b| {
        b.iter(|| diagnose::section_causes(&hits, MESSAGE, |p| corpus.get(p)))
    });
    // What a message states, read from 1 MB pastes: a hostile one of
    // openings that never close (each once read to the end of the text:
    // seconds), out-of-memory openings each followed by a few fields, GPU
    // indices a traceback could name, and pip refusing wheels.
    let pastes = [
        ("hostile-1mb", "Value 'x ".repeat(120_000)),
        (
            "oom-1mb",
            "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 1.00 GiB of which 0 bytes is free. Process 1 has 1.00 GiB memory in use. "
                .repeat(8_000),
        ),
        ("devices-1mb", "x.to(\"cuda:1\") set_device(2) ".repeat(35_000)),
        (
            "wheels-1mb",
            "ERROR: a-1.0-cp311-cp311-manylinux_2_28_x86_64.whl is not a supported wheel on this platform.\n"
                .repeat(10_000),
        ),
    ];
    for (name, text) in &pastes {
        c.bench_function(&format!("diagnose/message-facts/{name}"), |b| {
            b.iter(|| diagnose::message::facts(text))
        });
    }
    // 1 MB of site-packages paths a traceback could name.
    let paths = "  File \"/e/lib/python3.12/site-packages/m.py\", line 1\n".repeat(20_000);
    c.bench_function("diagnose/python-envs/paths-1mb", |b| {
        b.iter(|| diagnose::message::python_envs(&paths))
    });
    let root = ProbeOptions {
        root: Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/probe/pip-root")),
        dockerfile: None,
        dockerfile_line: None,
    };
    for (name, options) in [
        ("machine", ProbeOptions::default()),
        ("pip-fixture-root", root),
    ] {
        c.bench_function(&format!("diagnose/probe-and-judge/{name}"), |b| {
            b.iter(|| {
                let (_, ctx) = diagnose::probe_context(&options).unwrap();
                let sections = diagnose::section_causes(&hits, MESSAGE, |p| corpus.get(p));
                diagnose::diagnose(sections, &ctx)
            })
        });
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
