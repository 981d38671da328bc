//! Rendering speed: the largest shipped document at width 100 with warm
//! syntaxes (goal: ≤ 5 ms, well inside a frame), the same document re-laid out
//! at a new width (a resize: highlighting is remembered per block), and what a
//! cold start costs: loading the syntax set, and loading it plus highlighting
//! the first code blocks (grammars compile lazily).
//!
//! Run: `cargo bench --bench render`

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use lore::config::ThemeName;
use lore::corpus::Corpus;
use lore::markdown::{Highlighter, RenderOptions, render};
use lore::sources::SourceSet;
use lore::theme::Theme;

fn benches(c: &mut Criterion) {
    let corpus = Corpus::load(&SourceSet::builtin_knowledge());
    let largest = corpus
        .documents
        .iter()
        .max_by_key(|d| d.text.len())
        .expect("the shipped corpus is not empty");
    eprintln!(
        "largest shipped document: {} ({} bytes, {} lines, {} code blocks)",
        largest.path,
        largest.text.len(),
        largest.line_count,
        largest.code_blocks.len()
    );
    let theme = Theme::for_name(ThemeName::Dark);
    let highlighter = Highlighter::global();
    let highlighted = RenderOptions {
        width: 100,
        theme: &theme,
        highlighter: Some(highlighter),
        wrap_code: true,
    };
    // Warm: the grammars this document uses are compiled once here.
    black_box(render(largest, &highlighted));
    c.bench_function(
        "render largest document, width 100, highlighted (warm syntaxes)",
        |b| {
            b.iter(|| {
                highlighter.clear_memo();
                render(black_box(largest), &highlighted)
            })
        },
    );
    c.bench_function(
        "render largest document, width 100, blocks prepared on a worker",
        |b| {
            highlighter.clear_memo();
            highlighter.prepare(largest, &theme);
            b.iter(|| render(black_box(largest), &highlighted))
        },
    );
    let mut width = 100;
    c.bench_function(
        "re-render largest document at a new width (highlighting remembered)",
        |b| {
            b.iter(|| {
                width = if width == 100 { 99 } else { 100 };
                let options = RenderOptions {
                    width,
                    ..highlighted
                };
                render(black_box(largest), &options)
            })
        },
    );
    let plain_code = RenderOptions {
        highlighter: None,
        ..highlighted
    };
    c.bench_function("render largest document, width 100, code plain", |b| {
        b.iter(|| render(black_box(largest), &plain_code))
    });

    let mut group = c.benchmark_group("cold");
    group.sample_size(20);
    group.bench_function("load syntax and theme sets", |b| {
        b.iter(|| black_box(Highlighter::load()))
    });
    let bash = "export CUDA_HOME=/usr/local/cuda\nnvcc -o app main.cu\n";
    let dockerfile = "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN apt-get update\n";
    group.bench_function(
        "load sets, then highlight a bash and a Dockerfile block",
        |b| {
            b.iter(|| {
                let h = Highlighter::load();
                black_box(h.highlight(bash, "bash", &theme));
                black_box(h.highlight(dockerfile, "dockerfile", &theme));
            })
        },
    );
    group.bench_function("render largest document with a cold highlighter", |b| {
        b.iter(|| {
            let h = Highlighter::load();
            let options = RenderOptions {
                highlighter: Some(&h),
                ..highlighted
            };
            black_box(render(largest, &options))
        })
    });
    group.finish();
}

criterion_group!(render_benches, benches);
criterion_main!(render_benches);
