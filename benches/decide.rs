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

/// A hostile tree: 20,000 questions in a row and one test answering them all
/// (6 MB of TOML). Checking it must stay linear: `Session::apply` once
/// scanned every answer per question.
fn bench_long_chain(c: &mut Criterion) {
    const N: usize = 20_000;
    let dir = tempfile::tempdir().unwrap();
    let mut text =
        String::from("[tree]\nid = \"chain\"\ntitle = \"t\"\nsummary = \"s\"\nstart = \"q0\"\n");
    for i in 0..N {
        let next = if i + 1 < N {
            format!("q{}", i + 1)
        } else {
            "end".to_string()
        };
        text.push_str(&format!(
            "[nodes.q{i}]\nkind = \"question\"\ntext = \"q\"\nwhy = \"w\"\n\
             [[nodes.q{i}.options]]\nid = \"a\"\nlabel = \"a\"\nnext = \"{next}\"\n"
        ));
    }
    text.push_str("[nodes.end]\nkind = \"outcome\"\ntitle = \"e\"\nverdict = \"v\"\n");
    let answers: Vec<String> = (0..N).map(|i| format!("q{i} = \"a\"")).collect();
    text.push_str(&format!(
        "[[tests]]\nanswers = {{ {} }}\nexpect = \"end\"\n",
        answers.join(", ")
    ));
    std::fs::write(dir.path().join("chain.toml"), text).unwrap();
    let sources = SourceSet {
        builtin: None,
        overlays: vec![dir.path().to_path_buf()],
    };
    let corpus = Corpus::default();
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    group.bench_function("load_and_validate_20000_question_chain", |b| {
        b.iter(|| {
            let loaded = decide::load(&sources, &corpus);
            assert_eq!(loaded.trees.len(), 1);
            loaded
        })
    });
    group.finish();
}

criterion_group!(benches, bench, bench_long_chain);
criterion_main!(benches);
