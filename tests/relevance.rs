//! Relevance of search on the shipped knowledge: for each query of
//! `tests/relevance.toml` (pasted errors and plain questions), one of the
//! files that answer it must be among the first three hits, for at least 90%
//! of the queries. Prints the mean reciprocal rank and every miss, so a change
//! to ranking shows what it gained and lost.

use lore::corpus::Corpus;
use lore::search::SearchIndex;
use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};
use serde::Deserialize;

#[derive(Deserialize)]
struct Set {
    query: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    q: String,
    expect: Vec<String>,
}

/// Hits looked at for the reciprocal rank.
const DEPTH: usize = 10;

#[test]
fn expected_files_rank_in_the_top_three() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relevance.toml"))
            .expect("tests/relevance.toml");
    let set: Set = toml::from_str(&text).expect("relevance.toml parses");
    assert!(set.query.len() >= 30, "at least 30 queries");
    let corpus = Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: Vec::new(),
    });
    for case in &set.query {
        for path in &case.expect {
            assert!(
                corpus.get(path).is_some(),
                "{path} (expected for {:?}) is not in the corpus",
                case.q
            );
        }
    }
    let (index, _) = SearchIndex::build_in_memory(&corpus).expect("index builds");

    let mut top3 = 0;
    let mut reciprocal = 0.0;
    let mut misses = Vec::new();
    for case in &set.query {
        let hits = index.query(&case.q, DEPTH);
        let rank = hits.iter().position(|h| case.expect.contains(&h.path));
        if let Some(r) = rank {
            reciprocal += 1.0 / (r + 1) as f64;
        }
        if rank.is_some_and(|r| r < 3) {
            top3 += 1;
        } else {
            let got: Vec<String> = hits
                .iter()
                .take(3)
                .map(|h| format!("{} ({:.2})", h.heading, h.score))
                .collect();
            misses.push(format!(
                "  {:?}\n    rank {}; want {}\n    got {}",
                case.q,
                rank.map_or("-".to_string(), |r| (r + 1).to_string()),
                case.expect.join(", "),
                got.join(" | ")
            ));
        }
    }
    let n = set.query.len();
    let share = top3 as f64 / n as f64;
    println!(
        "relevance: {top3}/{n} queries with an expected file in the top 3 ({:.1}%), MRR@{DEPTH} {:.3}",
        share * 100.0,
        reciprocal / n as f64
    );
    if !misses.is_empty() {
        println!("misses:\n{}", misses.join("\n"));
    }
    assert!(
        share >= 0.9,
        "only {:.1}% of queries rank an expected file in the top 3",
        share * 100.0
    );
}
