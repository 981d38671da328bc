//! What `lore decide` pays before its first question: reading and validating the
//! shipped trees against the loaded knowledge, plus a full walk with its
//! transcript. Corpus loading is measured where the corpus is built.

use criterion::{Criterion, criterion_group, criterion_main};
use lore::corpus::Corpus;
use lore::decide::{self, Session, Step};
use lore::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceSet};

fn trees() -> SourceSet {
    SourceSet {
        builtin: Some(&BUILTIN_TREES),
        overlays: vec![],
    }
}

fn bench(c: &mut Criterion) {
    let corpus = Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![],
    });
    c.bench_function("load_and_validate_shipped_trees", |b| {
        b.iter(|| decide::load(&trees(), &corpus))
    });

    let loaded = decide::load(&trees(), &corpus);
    let tree = decide::find_tree(&loaded.trees, "need-cupti").unwrap();
    c.bench_function("walk_need_cupti_and_transcript", |b| {
        b.iter(|| {
            let mut s = Session::new(tree);
            while let Step::Question(q) = s.current() {
                let last = q.options.len() - 1;
                s.choose(last).unwrap();
            }
            s.transcript("2026-11-22")
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
