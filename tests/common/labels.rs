//! The development set of real queries (`tests/real_queries.toml`) as the
//! tests that measure search read it: the file, and whether a hit lands in
//! a labelled section. Shared by `real_queries.rs` and `confidence_fit.rs`,
//! so "answers" means the same in both.

use lore::corpus::{Corpus, Document};
use lore::search::Hit;
use serde::de::DeserializeOwned;

/// `tests/real_queries.toml`, parsed into the caller's view of it.
pub fn read_set<T: DeserializeOwned>() -> T {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/real_queries.toml");
    let text = std::fs::read_to_string(path).expect("tests/real_queries.toml");
    toml::from_str(&text).expect("real_queries.toml parses")
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
