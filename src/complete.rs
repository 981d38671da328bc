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
    target_forms(&corpus, current)
}

/// Targets for what users type: a path's start completes as before; a
/// fragment `lore show` accepts (`20-cu`, `docker`, `knowledge/cuda/20-`)
/// completes to the documents it names. A fragment's candidates are file
/// names where one is unique (`lore show` takes those) and paths where it
/// is not, so the shell gets values that start with what was typed where it
/// can: bash replaces the word with the candidates' common start, and zsh
/// keeps only candidates that start with the word.
fn target_forms(corpus: &Corpus, current: &str) -> Vec<CompletionCandidate> {
    let direct = target_candidates(corpus, current);
    if !direct.is_empty() || current.contains('#') {
        return direct;
    }
    // `./x` and `knowledge/x` are paths with a prefix lore ignores: keep
    // the prefix the user typed.
    for prefix in ["./", "knowledge/"] {
        if let Some(rest) = current.strip_prefix(prefix)
            && !rest.is_empty()
        {
            return target_forms(corpus, rest)
                .into_iter()
                .map(|c| {
                    let value = format!("{prefix}{}", c.get_value().to_string_lossy());
                    CompletionCandidate::new(value).help(c.get_help().cloned())
                })
                .collect();
        }
    }
    if !current.chars().any(char::is_alphanumeric) {
        return Vec::new();
    }
    let needle = current.to_lowercase();
    let name = |path: &str| path.rsplit('/').next().unwrap_or(path).to_string();
    let unique_name = |path: &str| {
        let n = name(path);
        corpus
            .documents
            .iter()
            .filter(|d| name(&d.path) == n)
            .count()
            == 1
    };
    // File names that start with the fragment first, then paths that hold it.
    let mut found: Vec<(bool, &crate::corpus::Document)> = corpus
        .documents
        .iter()
        .filter(|d| d.path.to_lowercase().contains(&needle))
        .map(|d| (!name(&d.path).to_lowercase().starts_with(&needle), d))
        .collect();
    found.sort_by(|a, b| (a.0, &a.1.path).cmp(&(b.0, &b.1.path)));
    found
        .into_iter()
        .map(|(_, d)| {
            let value = if unique_name(&d.path) {
                name(&d.path)
            } else {
                d.path.clone()
            };
            CompletionCandidate::new(inline(&value)).help(Some(one_line(&d.title).into()))
        })
        .collect()
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
    let trees = trees(&settings);
    let words: Vec<String> = std::env::args().collect();
    answer_forms(&trees, &words, current)
}

/// `--answer` values for the tree named on the command line being
/// completed (`lore decide TREE … --answer <Tab>`): that tree's own
/// `QUESTION=OPTION` pairs, leaving out questions another `--answer` on the
/// line already settles. With no tree named (or one not loaded), every
/// tree's pairs.
fn answer_forms(
    trees: &[DecisionTree],
    words: &[String],
    current: &str,
) -> Vec<CompletionCandidate> {
    let line = decide_line(words);
    let Some(tree) = line.tree.and_then(|id| trees.iter().find(|t| t.id == id)) else {
        return answer_candidates(trees, current);
    };
    answer_candidates(std::slice::from_ref(tree), current)
        .into_iter()
        .filter(|c| {
            let value = c.get_value().to_string_lossy();
            let question = value.split_once('=').map_or(&*value, |(q, _)| q);
            !line.answered.contains(&question)
        })
        .collect()
}

/// What a `lore decide` command line names: its tree and the questions its
/// `--answer`s settle (the word being completed is the last one and is not
/// counted).
#[derive(Debug, Default, PartialEq)]
struct DecideLine<'a> {
    tree: Option<&'a str>,
    answered: Vec<&'a str>,
}

fn decide_line(words: &[String]) -> DecideLine<'_> {
    // Flags of `lore` and `lore decide` that take a value as the next word.
    const TAKES_VALUE: &[&str] = &[
        "--answer",
        "--graph",
        "--transcript",
        "--knowledge",
        "--trees",
        "--color",
        "--theme",
        "--root",
        "--dockerfile",
    ];
    let mut line = DecideLine::default();
    let Some(verb) = words.iter().position(|w| w == "decide") else {
        return line;
    };
    let before_current = &words[verb + 1..words.len().saturating_sub(1).max(verb + 1)];
    let mut i = 0;
    while i < before_current.len() {
        let word = before_current[i].as_str();
        i += 1;
        if let Some(answer) = word.strip_prefix("--answer=") {
            line.answered
                .extend(answer.split_once('=').map(|(q, _)| q.trim()));
        } else if TAKES_VALUE.contains(&word) {
            if word == "--answer"
                && let Some(answer) = before_current.get(i)
            {
                line.answered
                    .extend(answer.split_once('=').map(|(q, _)| q.trim()));
            }
            i += 1;
        } else if !word.starts_with('-') && line.tree.is_none() {
            line.tree = Some(word);
        }
    }
    line
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
    use crate::sources::{BUILTIN_TREES, SourceSet};

    fn values(candidates: &[CompletionCandidate]) -> Vec<String> {
        candidates
            .iter()
            .map(|c| c.get_value().to_string_lossy().into_owned())
            .collect()
    }

    fn builtin() -> Corpus {
        Corpus::load(&SourceSet::builtin_knowledge())
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

    fn shipped_trees(corpus: &Corpus) -> Vec<DecisionTree> {
        decide::load(
            &SourceSet {
                builtin: Some(&BUILTIN_TREES),
                overlays: Vec::new(),
            },
            corpus,
        )
        .trees
    }

    fn words(line: &str) -> Vec<String> {
        line.split(' ').map(str::to_string).collect()
    }

    /// `lore show 20-cu<Tab>`: the number a user remembers, not the folder.
    #[test]
    fn a_fragment_completes_to_the_documents_it_names() {
        let corpus = builtin();
        assert_eq!(
            values(&target_forms(&corpus, "20-cu")),
            ["20-cupti-deep-dive-arr-coc.md"]
        );
        // `lore show` takes what was completed.
        assert!(matches!(
            corpus.lookup("20-cupti-deep-dive-arr-coc.md"),
            crate::corpus::Lookup::Found(_)
        ));
        // A word inside several names lists them all.
        let docker = values(&target_forms(&corpus, "docker"));
        assert!(docker.len() >= 2, "{docker:?}");
        assert!(docker.iter().all(|v| v.contains("docker")), "{docker:?}");
        // The prefixes lore ignores are kept as typed.
        assert_eq!(
            values(&target_forms(&corpus, "knowledge/cuda/20-")),
            ["knowledge/cuda/20-cupti-deep-dive-arr-coc.md"]
        );
        assert_eq!(
            values(&target_forms(&corpus, "./cuda/20-")),
            ["./cuda/20-cupti-deep-dive-arr-coc.md"]
        );
        // A path's start completes as before, and anchors after a fragment.
        assert_eq!(
            values(&target_forms(&corpus, "cuda/20-")),
            ["cuda/20-cupti-deep-dive-arr-coc.md"]
        );
        let anchors = values(&target_forms(&corpus, "20-cupti#what-is"));
        assert!(
            anchors.contains(&"20-cupti#what-is-cupti".to_string()),
            "{anchors:?}"
        );
        assert!(target_forms(&corpus, "no-such-thing").is_empty());
        assert!(target_forms(&corpus, "-").is_empty());
    }

    #[test]
    fn the_tree_on_the_line_is_found_past_flags_and_answers() {
        let line = words("lore decide --json need-cupti --answer torch-install=pip --answer ");
        assert_eq!(
            decide_line(&line),
            DecideLine {
                tree: Some("need-cupti"),
                answered: vec!["torch-install"],
            }
        );
        let line = words("lore --trees t decide --answer=a=b x --graph dot ");
        assert_eq!(
            decide_line(&line),
            DecideLine {
                tree: Some("x"),
                answered: vec!["a"],
            }
        );
        assert_eq!(decide_line(&words("lore show x")), DecideLine::default());
    }

    /// `lore decide need-cupti --answer <Tab>`: only need-cupti's questions,
    /// not those of every tree, and not one already answered on the line.
    #[test]
    fn answers_are_the_named_trees_own() {
        let corpus = builtin();
        let trees = shipped_trees(&corpus);
        let line = words("lore decide need-cupti --answer ");
        let offered = values(&answer_forms(&trees, &line, ""));
        let need_cupti = trees.iter().find(|t| t.id == "need-cupti").unwrap();
        let own: Vec<&str> = need_cupti
            .nodes
            .iter()
            .filter_map(|n| match n {
                Node::Question(q) => Some(q.id.as_str()),
                Node::Outcome(_) => None,
            })
            .collect();
        assert!(!offered.is_empty());
        for value in &offered {
            let question = value.split_once('=').unwrap().0;
            assert!(own.contains(&question), "{value} is not need-cupti's");
        }
        // `purpose` is a question of devel-as-runtime only.
        assert!(
            !offered.iter().any(|v| v.starts_with("purpose=")),
            "{offered:?}"
        );
        let line = words("lore decide need-cupti --answer torch-install=pip --answer ");
        let rest = values(&answer_forms(&trees, &line, ""));
        assert!(
            !rest.iter().any(|v| v.starts_with("torch-install=")),
            "{rest:?}"
        );
        assert!(rest.len() < offered.len());
        // No tree named: every tree's questions, as before.
        let all = values(&answer_forms(
            &trees,
            &words("lore decide --answer "),
            "pur",
        ));
        assert!(all.iter().any(|v| v.starts_with("purpose=")), "{all:?}");
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
