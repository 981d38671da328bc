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

/// A tree with 10,000 and with 20,000 `[[tests]]`: checking them once
/// cloned the whole tree per test (14.6 s and 49 s, on every start). Each
/// test now walks a session over the shared tree.
fn bench_many_tests(c: &mut Criterion) {
    let mut group = c.benchmark_group("hostile");
    group.sample_size(10);
    for n in [10_000, 20_000] {
        let dir = tempfile::tempdir().unwrap();
        let mut text = String::from(
            "[tree]\nid = \"many\"\ntitle = \"t\"\nsummary = \"s\"\nstart = \"q0\"\n\
             [nodes.q0]\nkind = \"question\"\ntext = \"q\"\nwhy = \"w\"\n\
             [[nodes.q0.options]]\nid = \"a\"\nlabel = \"a\"\nnext = \"q1\"\n\
             [[nodes.q0.options]]\nid = \"b\"\nlabel = \"b\"\nnext = \"yes\"\n\
             [nodes.q1]\nkind = \"question\"\ntext = \"q\"\nwhy = \"w\"\n\
             [[nodes.q1.options]]\nid = \"a\"\nlabel = \"a\"\nnext = \"yes\"\n\
             [[nodes.q1.options]]\nid = \"b\"\nlabel = \"b\"\nnext = \"no\"\n\
             [nodes.yes]\nkind = \"outcome\"\ntitle = \"y\"\nverdict = \"v\"\n\
             [nodes.no]\nkind = \"outcome\"\ntitle = \"n\"\nverdict = \"v\"\n",
        );
        for i in 0..n {
            text.push_str(match i % 3 {
                0 => "[[tests]]\nanswers = { q0 = \"b\" }\nexpect = \"yes\"\n",
                1 => "[[tests]]\nanswers = { q0 = \"a\", q1 = \"a\" }\nexpect = \"yes\"\n",
                _ => "[[tests]]\nanswers = { q0 = \"a\", q1 = \"b\" }\nexpect = \"no\"\n",
            });
        }
        std::fs::write(dir.path().join("many.toml"), text).unwrap();
        let sources = SourceSet {
            builtin: None,
            overlays: vec![dir.path().to_path_buf()],
        };
        let corpus = Corpus::default();
        group.bench_function(format!("load_and_validate_{n}_tests"), |b| {
            b.iter(|| {
                let loaded = decide::load(&sources, &corpus);
                assert_eq!(loaded.trees.len(), 1, "{:?}", loaded.diagnostics);
                assert!(loaded.diagnostics.is_empty(), "{:?}", loaded.diagnostics);
                loaded
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_long_chain, bench_many_tests);
criterion_main!(benches);
