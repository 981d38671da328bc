//! Relevance of search on the shipped knowledge: for each query of
//! `tests/relevance.toml` (pasted errors and plain questions), one of the
//! files that answer it must be among the first three hits, for at least 90%
//! of the queries. Prints the mean reciprocal rank and every miss, so a change
//! to ranking shows what it gained and lost.

use lore::corpus::Corpus;
use lore::search::SearchIndex;
use lore::sources::SourceSet;
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
    let corpus = Corpus::load(&SourceSet::builtin_knowledge());
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

/// Errors and questions from other domains: the knowledge has no answer.
const UNANSWERABLE: &[&str] = &[
    "ORA-12154: TNS:could not resolve the connect identifier specified",
    "npm ERR! code ERESOLVE unable to resolve dependency tree",
    "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"s\" is null",
    "SQLSTATE[HY000] [2002] Connection refused",
    "error[E0382]: borrow of moved value: `v`",
    "Uncaught TypeError: Cannot read properties of undefined (reading 'map')",
    "kubectl CrashLoopBackOff Back-off restarting failed container",
    "how do I center a div in css",
    "git merge conflict in package-lock.json",
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "ModuleNotFoundError: No module named 'flask_sqlalchemy'",
    "how to bake sourdough bread",
];

/// A best hit in a file that answers the query is confident; the best hit
/// of an unrelated error mostly is not (lore then says "no section answers
/// this confidently"). Since the confidence became the probability that the
/// first hit answers (issue #25), a weak first hit in a wrong file is the
/// notice doing its job, so only weak hits in an answering file count.
#[test]
fn weak_answers_are_told_apart() {
    let corpus = Corpus::load(&SourceSet::builtin_knowledge());
    let (index, _) = SearchIndex::build_in_memory(&corpus).expect("index builds");
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/relevance.toml"))
            .expect("tests/relevance.toml");
    let set: Set = toml::from_str(&text).expect("relevance.toml parses");
    let weak_answered: Vec<String> = set
        .query
        .iter()
        .filter(|c| {
            index
                .query(&c.q, 1)
                .first()
                .is_some_and(|h| !h.is_confident() && c.expect.contains(&h.path))
        })
        .map(|c| c.q.clone())
        .collect();
    let confident_unrelated: Vec<&str> = UNANSWERABLE
        .iter()
        .copied()
        .filter(|q| index.query(q, 1).first().is_some_and(|h| h.is_confident()))
        .collect();
    println!(
        "confidence: {}/{} queries whose first hit is in an answering file called weak, {}/{} unrelated queries called confident",
        weak_answered.len(),
        set.query.len(),
        confident_unrelated.len(),
        UNANSWERABLE.len()
    );
    println!(
        "weak but in an answering file: {weak_answered:?}\nconfident but unrelated: {confident_unrelated:?}"
    );
    // At most 5%: 3 of 228 (1.3%) on 2026-11-26 with the model refitted on
    // the 572-query set and its 0.25 threshold (14 of 228 with the first
    // fit and a 0.5 threshold; 5% was the bar for the share of weighted
    // words that the model replaced). The labels here name files, so some
    // of these first hits are the wrong section of a right file, where the
    // notice is right.
    assert!(
        weak_answered.len() * 100 <= set.query.len() * 5,
        "over 5% of queries with a first hit in an answering file are called weak"
    );
    assert!(
        confident_unrelated.len() * 3 <= UNANSWERABLE.len(),
        "over a third of unrelated queries are called confident"
    );
}
