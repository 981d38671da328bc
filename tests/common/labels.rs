//! The development set of real queries (`tests/real_queries.toml`) as the
//! tests that measure search read it: the file, and whether a hit lands in
//! a labelled section. Shared by `real_queries.rs` and `confidence_fit.rs`,
//! so "answers" means the same in both.

use lore::corpus::{Corpus, Document};
use lore::search::Hit;
use serde::de::DeserializeOwned;

/// `tests/real_queries.toml`, parsed into the caller's view of it.
pub fn read_set<T: DeserializeOwned>() -> T {
    read_file("real_queries.toml")
}

/// A query file under `tests/` (`real_queries.toml`, `fresh_queries.toml`),
/// parsed into the caller's view of it.
pub fn read_file<T: DeserializeOwned>(name: &str) -> T {
    let path = format!("{}/tests/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    toml::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Whether `hit` lands in the labelled section `anchor` of `doc` or in one of
/// its subsections (a label may name a parent section whose children hold
/// the answer).
pub fn lands_in(doc: &Document, hit: &Hit, anchor: &str) -> bool {
    let Some(mut at) = doc.sections.iter().position(|s| s.anchor == hit.anchor) else {
        return false;
    };
    loop {
        if doc.sections[at].anchor == anchor {
            return true;
        }
        match doc.sections[at].parent {
            Some(parent) => at = parent,
            None => return false,
        }
    }
}

/// The labels a query is scored on: `expect` less those a later, blind
/// review judged not to answer (`dropped`), plus those it found (`also`).
pub fn completed<'a>(
    expect: &'a [String],
    also: &'a [String],
    dropped: &'a [String],
) -> Vec<&'a String> {
    expect
        .iter()
        .filter(|l| !dropped.contains(l))
        .chain(also)
        .collect()
}

/// Whether `hit` lands in one of `labels` (`path#anchor`).
pub fn answers(corpus: &Corpus, hit: &Hit, labels: &[&String]) -> bool {
    labels.iter().any(|label| {
        let (path, anchor) = label.split_once('#').expect("labels are path#anchor");
        path == hit.path && corpus.get(path).is_some_and(|d| lands_in(d, hit, anchor))
    })
}

/// The area under the ROC curve: the chance that a random right answer
/// scores above a random wrong one (ties count half). `None` without both.
pub fn auc(scored: &[(f64, bool)]) -> Option<f64> {
    let right = scored.iter().filter(|s| s.1).count();
    let wrong = scored.len() - right;
    if right == 0 || wrong == 0 {
        return None;
    }
    let mut above = 0.0;
    for &(p, _) in scored.iter().filter(|s| s.1) {
        for &(q, _) in scored.iter().filter(|s| !s.1) {
            above += if p > q {
                1.0
            } else if p == q {
                0.5
            } else {
                0.0
            };
        }
    }
    Some(above / (right * wrong) as f64)
}
