//! Search speed: building the index of the shipped corpus, and query latency
//! over the relevance queries (`tests/relevance.toml`) on the shipped corpus
//! and on generated corpora of 1,000 and 10,000 documents
//! (`lore::search::synthetic`, deterministic).
//!
//! Besides criterion's means, it prints p50/p99 query latency and the build
//! time of each corpus, which criterion does not report:
//! `cargo bench --bench search`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lore::corpus::Corpus;
use lore::search::{SearchIndex, synthetic};
use lore::sources::SourceSet;

fn shipped() -> Corpus {
    Corpus::load(&SourceSet::builtin_knowledge())
}

/// `count` generated documents of about 4 KB, in memory.
fn generated(count: usize) -> Corpus {
    synthetic::corpus(&shipped(), count, 1)
}

fn queries() -> Vec<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relevance.toml"))
            .expect("tests/relevance.toml");
    let table: toml::Table = toml::from_str(&text).expect("relevance.toml parses");
    table["query"]
        .as_array()
        .expect("[[query]]")
        .iter()
        .map(|q| q["q"].as_str().expect("q").to_string())
        .collect()
}

/// Runs every query `rounds` times and returns the sorted latencies.
fn latencies(index: &SearchIndex, queries: &[String], rounds: usize) -> Vec<Duration> {
    let mut all = Vec::with_capacity(queries.len() * rounds);
    for _ in 0..rounds {
        for q in queries {
            let started = Instant::now();
            black_box(index.query(q, 10));
            all.push(started.elapsed());
        }
    }
    all.sort();
    all
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn report(name: &str, corpus: &Corpus, index: &SearchIndex, build: Duration, queries: &[String]) {
    let sorted = latencies(index, queries, 5);
    let bytes: usize = corpus.documents.iter().map(|d| d.text.len()).sum();
    println!(
        "search/{name}: {} documents, {} sections, {:.1} MB; build {:.2} s; query p50 {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} queries",
        corpus.len(),
        index.sections(),
        bytes as f64 / 1e6,
        build.as_secs_f64(),
        percentile(&sorted, 0.5).as_secs_f64() * 1e3,
        percentile(&sorted, 0.99).as_secs_f64() * 1e3,
        sorted.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
        sorted.len()
    );
}

/// A 10 KB `docker build` log ending in an apt error, as a user would paste it.
fn pasted_log() -> String {
    let mut log = String::new();
    let mut i = 0;
    while log.len() < 10_000 {
        log.push_str(&format!(
            "#11 {i}.{:03} Get:{i} http://archive.ubuntu.com/ubuntu jammy/main amd64 libpackage{i} amd64 1.{i}-1 [{} kB]\n",
            i * 7 % 1000,
            i * 13 % 900
        ));
        i += 1;
    }
    log.push_str("#11 95.21 E: Unable to locate package libcupti-dev-12-4\n");
    log.push_str("#11 ERROR: process \"/bin/sh -c apt-get install -y libcupti-dev-12-4\" did not complete successfully: exit code: 100\n");
    log
}

fn bench(c: &mut Criterion) {
    let queries = queries();
    let log = pasted_log();
    let corpus = shipped();

    let mut group = c.benchmark_group("build");
    group.sample_size(10);
    group.bench_function("shipped", |b| {
        b.iter(|| SearchIndex::build_in_memory(black_box(&corpus)).expect("builds"))
    });
    group.finish();

    let mut corpora = vec![("shipped".to_string(), corpus)];
    for count in [1_000, 10_000] {
        corpora.push((format!("generated-{count}"), generated(count)));
    }
    let mut group = c.benchmark_group("query");
    for (name, corpus) in &corpora {
        let started = Instant::now();
        let (index, _) = SearchIndex::build_in_memory(corpus).expect("builds");
        report(name, corpus, &index, started.elapsed(), &queries);
        group.bench_function(format!("{name}/pasted-10k-log"), |b| {
            b.iter(|| index.query(black_box(&log), 10))
        });
        let mut next = 0;
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                next = (next + 1) % queries.len();
                index.query(black_box(&queries[next]), 10)
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
