//! Decision trees: guided troubleshooting as data. A tree is a TOML file of
//! questions and outcomes (`tree`), checked before use (`validate`), walked by a
//! `Session` (`session`), exported as Markdown (`transcript`) or as a graph
//! (`graph`), and kept between runs (`store`).
//!
//! This layer reads trees and the corpus and returns values and diagnostics. It
//! never prints, never reads the terminal, and does not know about the TUI or
//! the command line; those call into it, so both walk trees the same way.

mod graph;
pub mod markdown;
pub mod probes;
mod session;
mod store;
mod transcript;
mod tree;
mod validate;

pub use graph::{to_dot, to_mermaid};
pub use session::{AnswerSource, Answered, Session, Step};
pub use store::{Resumed, SavedSession, SessionStore, StoreError};
pub use tree::{
    Action, AnswerOption, DecisionTree, Evidence, Node, Outcome, ProbeRef, Question, Related,
    TreeTest, is_valid_id,
};

use std::collections::HashMap;

use crate::corpus::Corpus;
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::sources::{Origin, SourceSet};

/// A wrong tree, question or option id, or a move the session cannot make.
/// Messages name the valid choices so the user can correct the call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecideError {
    #[error("no decision tree `{id}` ({})", listing("trees", valid))]
    UnknownTree { id: String, valid: Vec<String> },
    #[error(
        "tree `{tree}` has no question `{question}` ({})",
        listing("questions", valid)
    )]
    UnknownQuestion {
        tree: String,
        question: String,
        valid: Vec<String>,
    },
    #[error(
        "question `{question}` has no option `{option}` ({})",
        listing("options", valid)
    )]
    UnknownOption {
        question: String,
        option: String,
        valid: Vec<String>,
    },
    #[error("question `{question}` is not the current question (the session is at `{current}`)")]
    NotAsked { question: String, current: String },
    #[error("question `{question}` has no choice {number} (choose 1 to {count})")]
    NoSuchChoice {
        question: String,
        number: usize,
        count: usize,
    },
    #[error("the session has reached outcome `{outcome}`; go back to change an answer")]
    Finished { outcome: String },
    #[error("question `{question}` is answered twice")]
    AnsweredTwice { question: String },
}

fn listing(what: &str, valid: &[String]) -> String {
    if valid.is_empty() {
        format!("no {what} loaded")
    } else {
        format!("{what}: {}", valid.join(", "))
    }
}

/// Everything `load` found: the usable trees, a diagnostic per problem, and how
/// many tree files were read (for `lore check`'s summary).
#[derive(Debug, Default)]
pub struct LoadedTrees {
    /// Valid trees, in file order.
    pub trees: Vec<DecisionTree>,
    /// Errors (the tree was skipped) and warnings (it was kept), sorted.
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
}

/// Whose `[[tests]]` [`load_with`] runs. Structure is always checked (a tree
/// must be safe to walk); the tests only say whether the tree's author got
/// the outcomes right, which matters to `lore check` and to the tree about to
/// be walked, not to the start of every other command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunTests<'a> {
    All,
    /// Only the tree with this id (`lore decide TREE`).
    Only(&'a str),
    /// None now: run [`check_tests`] before walking a tree (the TUI).
    Later,
}

/// Reads every `.toml` tree of `sources` and validates it against `corpus`.
/// An invalid tree is reported and skipped; the others load. Tree ids are
/// resolved by `one_tree_per_id`.
pub fn load(sources: &SourceSet, corpus: &Corpus) -> LoadedTrees {
    load_with(sources, corpus, RunTests::All)
}

/// The problems of `tree`'s own `[[tests]]` (for a tree loaded with
/// `RunTests::Later`): with an error, the tree must not be walked.
pub fn check_tests(tree: &DecisionTree) -> Vec<Diagnostic> {
    in_file_of(tree, validate::validate_tests(tree))
}

/// Problems of `tree`, naming its file as the user can open it (an overlay
/// folder's tree; a built-in one keeps its name).
fn in_file_of(tree: &DecisionTree, problems: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let file = tree.origin.file();
    problems.into_iter().map(|d| d.in_file(file)).collect()
}

/// [`load`], running the `[[tests]]` of the trees `tests` names.
pub fn load_with(sources: &SourceSet, corpus: &Corpus, tests: RunTests<'_>) -> LoadedTrees {
    // A tree file lore cannot read (not UTF-8, too big) is a broken tree:
    // an error, and skipped like one that does not parse.
    let (files, mut diagnostics) = sources.collect_with("toml", Severity::Error);
    let mut candidates: Vec<(usize, DecisionTree)> = Vec::new();
    for file in &files {
        let (tree, parse_diagnostics) = tree::parse(file);
        let on_disk = file.origin.file();
        diagnostics.extend(parse_diagnostics.into_iter().map(|d| d.in_file(on_disk)));
        let Some(tree) = tree else { continue };
        let problems = match tests {
            RunTests::All => validate::validate(&tree, corpus),
            RunTests::Only(id) if id == tree.id => validate::validate(&tree, corpus),
            _ => validate::validate_structure(&tree, corpus),
        };
        let problems = in_file_of(&tree, problems);
        let ok = !problems.iter().any(Diagnostic::is_error);
        diagnostics.extend(problems);
        if ok {
            candidates.push((layer(sources, &file.origin), tree));
        }
    }
    let (trees, clashes) = one_tree_per_id(candidates);
    diagnostics.extend(clashes);
    let ids: HashMap<String, String> = trees
        .iter()
        .map(|t| (t.id.clone(), t.path.clone()))
        .collect();
    for tree in &trees {
        for outcome in tree.outcomes() {
            for related in &outcome.related {
                if !ids.contains_key(&related.tree) {
                    diagnostics.push(
                        Diagnostic::warning(
                            &tree.path,
                            Some(related.line),
                            format!(
                                "node `{}`: related tree `{}` is not loaded",
                                outcome.id, related.tree
                            ),
                        )
                        .in_file(tree.origin.file()),
                    );
                }
            }
        }
    }
    diagnostic::sort(&mut diagnostics);
    LoadedTrees {
        trees,
        diagnostics,
        files: files.len(),
    }
}

/// Which source a file came from: 0 for the built-in trees, then 1, 2… for
/// the overlay folders in order (a folder given twice counts where it comes
/// last).
fn layer(sources: &SourceSet, origin: &Origin) -> usize {
    match origin {
        Origin::Builtin => 0,
        Origin::Overlay { root, .. } => {
            1 + sources
                .overlays
                .iter()
                .rposition(|r| r == root)
                .unwrap_or(0)
        }
    }
}

/// One tree per id. A tree from a later source takes the id from every
/// earlier one whatever the files are called, as a knowledge file shadows
/// the file with the same path: an overlay folder over the built-in trees,
/// a later overlay over an earlier one. (Before, the file whose name sorted
/// first won, and the error blamed the other one, often the shipped file.)
/// Two valid trees of one source with the same id are an error on the
/// second in path order, naming the first; the first is kept. `candidates`
/// are valid trees with their source, in path order; so is the result.
fn one_tree_per_id(candidates: Vec<(usize, DecisionTree)>) -> (Vec<DecisionTree>, Vec<Diagnostic>) {
    let mut top: HashMap<String, usize> = HashMap::new();
    for (layer, tree) in &candidates {
        let best = top.entry(tree.id.clone()).or_insert(*layer);
        *best = (*best).max(*layer);
    }
    let mut taken: HashMap<String, String> = HashMap::new();
    let mut trees = Vec::new();
    let mut clashes = Vec::new();
    for (layer, tree) in candidates {
        if layer < top[&tree.id] {
            log::info!(
                "tree `{}` of {} is replaced by a later tree folder's",
                tree.id,
                tree.path
            );
            continue;
        }
        if let Some(first) = taken.get(&tree.id) {
            clashes.push(
                Diagnostic::error(
                    &tree.path,
                    Some(tree.id_line),
                    format!(
                        "tree id `{}` is already used by `{first}` in the same folder; this file is skipped",
                        tree.id
                    ),
                )
                .in_file(tree.origin.file()),
            );
            continue;
        }
        taken.insert(tree.id.clone(), tree.path.clone());
        trees.push(tree);
    }
    (trees, clashes)
}

/// The valid trees of `sources` and the problems found. See [`load`].
pub fn load_trees(sources: &SourceSet, corpus: &Corpus) -> (Vec<DecisionTree>, Vec<Diagnostic>) {
    let loaded = load(sources, corpus);
    (loaded.trees, loaded.diagnostics)
}

/// The tree with this id, or an error listing the ids there are.
pub fn find_tree<'a>(trees: &'a [DecisionTree], id: &str) -> Result<&'a DecisionTree, DecideError> {
    trees
        .iter()
        .find(|t| t.id == id)
        .ok_or_else(|| DecideError::UnknownTree {
            id: id.to_string(),
            valid: trees.iter().map(|t| t.id.clone()).collect(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_ids_list_the_valid_ones() {
        let err = find_tree(&[], "need-cupti").unwrap_err();
        assert_eq!(
            err.to_string(),
            "no decision tree `need-cupti` (no trees loaded)"
        );
    }
}
