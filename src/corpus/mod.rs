//! The knowledge corpus: every Markdown file from the built-in folder and the
//! overlays, parsed into `Document`s, with drops linked to the files they
//! describe. Everything downstream (search, rendering, checks, the TUI) reads
//! from here and never touches the files again.

pub mod anchor_tag;
pub mod causes;
pub mod chunks;
pub mod comments;
mod document;
mod drop;
pub mod fences;
pub mod links;
mod lookup;
pub mod mdx;
pub mod questions;
mod shortcodes;
mod slug;

pub use document::{
    CodeBlock, Document, Footnote, Kind, Link, LinkTarget, Section, TREE_SCHEME, bare_url,
    fence_language, footnote_anchor, footnote_label, markdown_options, resolve,
};
pub(crate) use document::{LineIndex, footnote_reference};
pub use drop::DropInfo;
pub use lookup::Lookup;
pub use shortcodes::ShortcodeLine;
pub use slug::{Slugger, slug};

use std::collections::{BTreeSet, HashMap};

use crate::diagnostic::{Diagnostic, Severity};
use crate::sources::SourceSet;

#[derive(Debug, Default)]
pub struct Corpus {
    /// Sorted by path.
    pub documents: Vec<Document>,
    by_path: HashMap<String, usize>,
    /// Problems met while loading (unreadable files and the like).
    pub warnings: Vec<Diagnostic>,
    /// What else the knowledge folders hold that a link may name: folders
    /// and files with no extension (`LICENSE`), by id (see
    /// `sources::Collected::others`).
    pub others: BTreeSet<String>,
    /// Documents of a knowledge folder hidden by a later folder's
    /// same-named ones (see `sources::Hidden`): `lore check` warns of each
    /// pair. Kept apart from `warnings`, which say what could not be read.
    pub hidden: Vec<crate::sources::Hidden>,
}

impl Corpus {
    /// Loads every `.md` file of the sources. Never fails: a file that cannot be
    /// used is a warning and is skipped.
    pub fn load(sources: &SourceSet) -> Corpus {
        let collected = sources.collect_all("md", Severity::Warning);
        let documents = collected.files.into_iter().map(Document::parse).collect();
        let mut corpus = Corpus::from_documents(documents, collected.warnings);
        corpus.others = collected.others;
        corpus.hidden = collected.hidden;
        corpus
    }

    pub fn from_documents(mut documents: Vec<Document>, warnings: Vec<Diagnostic>) -> Corpus {
        documents.sort_by(|a, b| a.path.cmp(&b.path));
        let by_path: HashMap<String, usize> = documents
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.clone(), i))
            .collect();
        // Link each knowledge file to the drop that describes it. With several
        // drops for one file, the last by path (the newest date) wins.
        let mut described: Vec<(usize, String)> = Vec::new();
        for doc in &documents {
            if let Some(target) = doc.drop.as_ref().and_then(|d| d.target.as_ref())
                && let Some(&i) = by_path.get(target)
            {
                described.push((i, doc.path.clone()));
            }
        }
        for (i, drop_path) in described {
            documents[i].described_by = Some(drop_path);
        }
        links::resolve_all(&mut documents, &by_path);
        Corpus {
            documents,
            by_path,
            warnings,
            others: BTreeSet::new(),
            hidden: Vec::new(),
        }
    }

    pub fn get(&self, path: &str) -> Option<&Document> {
        self.by_path.get(path).map(|&i| &self.documents[i])
    }

    pub fn index_of(&self, path: &str) -> Option<usize> {
        self.by_path.get(path).copied()
    }

    pub fn len(&self) -> usize {
        self.documents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The drop describing `doc`, or, for a drop, the file it describes.
    pub fn companion(&self, doc: &Document) -> Option<&Document> {
        match doc.kind {
            Kind::Drop => doc
                .drop
                .as_ref()
                .and_then(|d| d.target.as_deref())
                .and_then(|p| self.get(p)),
            _ => doc.described_by.as_deref().and_then(|p| self.get(p)),
        }
    }

    /// Paths closest to `query`, best first: for "did you mean" messages. A
    /// path containing the query, or containing it with a typo or two, ranks
    /// first; shorter paths break ties.
    pub fn closest_paths(&self, query: &str, limit: usize) -> Vec<&str> {
        // The cost is query length × path lengths for every document; paths
        // are short, so a longer query (a pasted log as `lore show`'s
        // argument) only costs time: 100 KB took seconds per document.
        let query: Vec<char> = query
            .to_lowercase()
            .chars()
            .take(MAX_SUGGEST_QUERY)
            .collect();
        let mut scored: Vec<(usize, usize, &str)> = self
            .documents
            .iter()
            .map(|d| {
                let path: Vec<char> = d.path.to_lowercase().chars().collect();
                (distance(&query, &path), d.path.len(), d.path.as_str())
            })
            .collect();
        scored.sort();
        scored.into_iter().take(limit).map(|(_, _, p)| p).collect()
    }
}

/// Characters of a query that `closest_paths` compares with paths.
const MAX_SUGGEST_QUERY: usize = 256;

/// Edits needed to turn `query` into some substring of `text` (approximate
/// substring matching: skipping text before and after the match is free), so
/// `cuptii-deep` is one edit from `cuda/20-cupti-deep-dive-arr-coc.md`.
fn distance(query: &[char], text: &[char]) -> usize {
    let mut prev = vec![0usize; text.len() + 1];
    let mut cur = vec![0usize; text.len() + 1];
    for i in 1..=query.len() {
        cur[0] = i;
        for j in 1..=text.len() {
            let cost = usize::from(query[i - 1] != text[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.into_iter().min().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_is_free_outside_the_match() {
        let d = |q: &str, t: &str| {
            distance(
                &q.chars().collect::<Vec<_>>(),
                &t.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("cupti", "cuda/20-cupti-deep-dive.md"), 0);
        assert_eq!(d("cuptii-deep", "cuda/20-cupti-deep-dive.md"), 1);
        assert_eq!(d("xyz", "ab"), 3);
    }

    #[test]
    fn a_huge_query_is_cut_before_matching() {
        let doc = |path: &str| {
            Document::parse(crate::sources::SourceFile {
                rel: path.to_string(),
                origin: crate::sources::Origin::Builtin,
                text: "# T\n".to_string(),
                stamp: None,
            })
        };
        let corpus = Corpus::from_documents(vec![doc("cuda/a.md"), doc("notes/b.md")], vec![]);
        let query = format!("notes/b{}", "x".repeat(1_000_000));
        assert_eq!(corpus.closest_paths(&query, 1), vec!["notes/b.md"]);
    }
}
