//! Values for shell completion: document paths, `#anchors` after a path,
//! tree ids and `QUESTION=OPTION` answers. The shell runs `lore` with
//! `COMPLETE=<shell>` set for every Tab (clap_complete's dynamic completion),
//! and these read the same sources a plain `lore` would load: the built-in
//! knowledge, `LORE_KNOWLEDGE` and `knowledge_dirs` in `config.toml` (flags
//! on the half-typed command line are not seen). Errors complete nothing.
//!
//! The shell prints candidates as they come, so a value is escaped like any
//! name lore prints (`text::inline`): an overlay file named with an ESC or a
//! newline completes to `^[` or `^J`, never to a raw control sequence or a
//! forged extra candidate.

use std::ffi::OsStr;

use clap_complete::CompletionCandidate;

use crate::config::{Flags, Settings};
use crate::corpus::Corpus;
use crate::decide::{self, DecisionTree, Node};
use crate::text::{inline, one_line};

fn settings() -> Option<Settings> {
    Settings::resolve(Flags::default()).ok()
}

fn trees(settings: &Settings) -> Vec<DecisionTree> {
    let corpus = Corpus::load(&settings.knowledge);
    decide::load(&settings.trees, &corpus).trees
}

/// `lore show` / `lore open` targets: paths, then anchors once a `#` is typed.
pub fn targets(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(current) = current.to_str() else {
        return Vec::new();
    };
    let Some(settings) = settings() else {
        return Vec::new();
    };
    let corpus = Corpus::load(&settings.knowledge);
    target_candidates(&corpus, current)
}

fn target_candidates(corpus: &Corpus, current: &str) -> Vec<CompletionCandidate> {
    if let Some((path, partial)) = current.rsplit_once('#')
        && let crate::corpus::Lookup::Found(doc) = corpus.lookup(path)
    {
        return doc
            .sections
            .iter()
            .filter(|s| s.anchor.starts_with(partial))
            .map(|s| {
                CompletionCandidate::new(inline(&format!("{path}#{}", s.anchor)))
                    .help(Some(one_line(&s.title).into()))
            })
            .collect();
    }
    corpus
        .documents
        .iter()
        .filter(|d| d.path.starts_with(current))
        .map(|d| CompletionCandidate::new(inline(&d.path)).help(Some(one_line(&d.title).into())))
        .collect()
}

/// `lore decide TREE`.
pub fn tree_ids() -> Vec<CompletionCandidate> {
    let Some(settings) = settings() else {
        return Vec::new();
    };
    trees(&settings)
        .iter()
        .map(|t| CompletionCandidate::new(inline(&t.id)).help(Some(one_line(&t.title).into())))
        .collect()
}

/// `--answer QUESTION=OPTION`: question ids of every tree (the tree being
/// walked is not known to the completer), then that question's options.
pub fn answers(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(current) = current.to_str() else {
        return Vec::new();
    };
    let Some(settings) = settings() else {
        return Vec::new();
    };
    answer_candidates(&trees(&settings), current)
}

fn answer_candidates(trees: &[DecisionTree], current: &str) -> Vec<CompletionCandidate> {
    let questions = trees.iter().flat_map(|t| &t.nodes).filter_map(|n| match n {
        Node::Question(q) => Some(q),
        Node::Outcome(_) => None,
    });
    let mut out: Vec<CompletionCandidate> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for q in questions {
        for option in &q.options {
            let value = format!("{}={}", q.id, option.id);
            if value.starts_with(current) && seen.insert(value.clone()) {
                out.push(
                    CompletionCandidate::new(inline(&value))
                        .help(Some(one_line(&option.label).into())),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceSet};

    fn values(candidates: &[CompletionCandidate]) -> Vec<String> {
        candidates
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    fn builtin() -> Corpus {
        Corpus::load(&SourceSet {
            builtin: Some(&BUILTIN_KNOWLEDGE),
            overlays: Vec::new(),
        })
    }

    #[test]
    fn paths_complete_then_anchors_after_the_hash() {
        let corpus = builtin();
        let paths = values(&target_candidates(&corpus, "cuda/20-"));
        assert_eq!(paths, ["cuda/20-cupti-deep-dive-arr-coc.md"]);
        let anchors = values(&target_candidates(
            &corpus,
            "cuda/20-cupti-deep-dive-arr-coc.md#what-is",
        ));
        assert!(
            anchors.contains(&"cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti".to_string()),
            "{anchors:?}"
        );
        // A fragment that names one document completes its anchors too.
        let short = values(&target_candidates(&corpus, "20-cupti#what-is"));
        assert!(
            short.contains(&"20-cupti#what-is-cupti".to_string()),
            "{short:?}"
        );
    }

    #[test]
    fn answers_complete_question_then_option() {
        let corpus = builtin();
        let trees = decide::load(
            &SourceSet {
                builtin: Some(&BUILTIN_TREES),
                overlays: Vec::new(),
            },
            &corpus,
        )
        .trees;
        let all = values(&answer_candidates(&trees, "torch-install="));
        assert!(all.contains(&"torch-install=pip".to_string()), "{all:?}");
        assert!(all.iter().all(|v| v.starts_with("torch-install=")));
    }
}
