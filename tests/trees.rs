//! Decision trees: one invalid fixture per validation message (the exact text
//! and where it points, through `lore check`), and the shipped trees: they
//! validate, their `[[tests]]` pass, and every path ends at an outcome a user
//! can act on.

mod common;

use common::{fixture, home, lore};
use lore::corpus::Corpus;
use lore::decide::{self, DecisionTree, Session, Step};
use lore::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceSet};

/// `lore check` over one fixture folder of trees, run in that folder
/// (`--trees .`, so files are named `tree.toml`), with the small fixture
/// knowledge that evidence links resolve against. Returns (exit code, stdout).
fn check_trees(case: &str) -> (i32, String) {
    let home = home();
    let out = lore(&home)
        .current_dir(fixture(&format!("trees/{case}")))
        .args(["check", "--no-builtin", "--knowledge"])
        .arg(fixture("trees/knowledge"))
        .args(["--trees", "."])
        .output()
        .expect("lore runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[track_caller]
fn assert_reports(case: &str, code: i32, expected: &str) {
    let (actual, out) = check_trees(case);
    assert!(
        out.lines().any(|l| l == expected),
        "{case}: expected line\n  {expected}\nin output:\n{out}"
    );
    assert_eq!(actual, code, "{case}: exit code\n{out}");
}

#[test]
fn a_valid_tree_checks_clean() {
    let (code, out) = check_trees("clean");
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "checked 2 files: 0 errors, 0 warnings\n");
}

#[test]
fn broken_toml_names_the_line() {
    assert_reports(
        "invalid-toml",
        1,
        "tree.toml:3: error: invalid TOML: invalid basic string, expected `\"`",
    );
}

#[test]
fn file_shape_errors() {
    assert_reports(
        "unknown-section",
        1,
        "tree.toml:33: error: unknown section `extra`: a tree file has [tree], [nodes.<id>] and [[tests]]",
    );
    assert_reports(
        "missing-tree",
        1,
        "tree.toml:1: error: missing [tree] table (id, title, summary, start)",
    );
    assert_reports(
        "tree-missing-field",
        1,
        "tree.toml:1: error: [tree]: missing field `start`",
    );
    assert_reports(
        "no-nodes",
        1,
        "tree.toml:1: error: no nodes: add [nodes.<id>] tables",
    );
    assert_reports(
        "nodes-not-tables",
        1,
        "tree.toml:1: error: `nodes` must be tables: [nodes.<id>]",
    );
    assert_reports(
        "tests-not-tables",
        1,
        "tree.toml:1: error: `tests` must be [[tests]] tables",
    );
    assert_reports(
        "test-missing-field",
        1,
        "tree.toml:29: error: test 2: missing field `expect`",
    );
}

#[test]
fn node_shape_errors() {
    assert_reports(
        "unknown-field",
        1,
        "tree.toml:24: error: node `done`: unknown field `verdit`, expected one of `kind`, `text`, `why`, `help`, `options`, `title`, `verdict`, `body`, `actions`, `related`, `evidence`, `probe`",
    );
    assert_reports(
        "unknown-kind",
        1,
        "tree.toml:21: error: node `done`: unknown kind `result` (expected `question` or `outcome`)",
    );
    assert_reports(
        "question-missing-why",
        1,
        "tree.toml:7: error: node `q`: a question needs `why`",
    );
    assert_reports(
        "question-with-outcome-field",
        1,
        "tree.toml:7: error: node `q`: `verdict` belongs to outcomes; a question has text, why, help, evidence, probe and options",
    );
    assert_reports(
        "outcome-missing-verdict",
        1,
        "tree.toml:20: error: node `done`: an outcome needs `verdict`",
    );
    assert_reports(
        "outcome-with-question-field",
        1,
        "tree.toml:20: error: node `done`: `why` belongs to questions; an outcome has title, verdict, body, actions, evidence and related",
    );
}

#[test]
fn ids_are_unique_and_usable_on_a_command_line() {
    assert_reports(
        "duplicate-node",
        1,
        "tree.toml:33: error: node `q` is defined twice",
    );
    assert_reports(
        "duplicate-option",
        1,
        "tree.toml:16: error: node `q`: option id `a` is used twice",
    );
    assert_reports(
        "duplicate-tree-id",
        1,
        "b.toml:2: error: tree id `fixture` is already used by `a.toml` in the same folder; this file is skipped",
    );
    assert_reports(
        "bad-node-id",
        1,
        "tree.toml:20: error: node id `all done` must use only letters, digits, `-` and `_`",
    );
    assert_reports(
        "bad-option-id",
        1,
        "tree.toml:12: error: node `q`: option id `a=1` must use only letters, digits, `-` and `_`",
    );
    assert_reports(
        "bad-tree-id",
        1,
        "tree.toml:2: error: tree id `my tree` must use only letters, digits, `-` and `_`",
    );
}

#[test]
fn references_resolve_every_node_is_reachable_and_every_path_ends() {
    assert_reports(
        "start-missing",
        1,
        "tree.toml:5: error: [tree] start `first` is not a node",
    );
    assert_reports(
        "next-missing",
        1,
        "tree.toml:14: error: node `q`: option `a` leads to `finish`, which is not a node",
    );
    assert_reports(
        "unreachable",
        1,
        "tree.toml:25: error: node `orphan` cannot be reached from start `q`",
    );
    assert_reports(
        "cycle",
        1,
        "tree.toml:27: error: node `r`: option `back` leads back to `q`, a cycle: q → r → q",
    );
    assert_reports(
        "dead-end",
        1,
        "tree.toml:7: error: node `q`: a question without options ends its path without an outcome",
    );
}

#[test]
fn evidence_must_open_a_heading_in_the_knowledge() {
    assert_reports(
        "evidence-no-file",
        1,
        "tree.toml:11: error: node `q`: evidence `cuda/missing.md#anything`: no knowledge file `cuda/missing.md`",
    );
    assert_reports(
        "evidence-no-anchor",
        1,
        "tree.toml:11: error: node `q`: evidence `cuda/a.md#no-such-heading`: `cuda/a.md` has no heading with anchor `#no-such-heading`",
    );
    assert_reports(
        "evidence-not-a-link",
        1,
        "tree.toml:24: error: node `done`: evidence `https://example.com/page` is not a knowledge link such as `cuda/x.md#anchor`",
    );
}

#[test]
fn tests_must_be_paths_that_reach_their_outcome() {
    assert_reports(
        "test-unknown-question",
        1,
        "tree.toml:25: error: test 1: no question `r` in this tree (questions: q)",
    );
    assert_reports(
        "test-unknown-option",
        1,
        "tree.toml:29: error: test 2: question `q` has no option `c` (options: a, b)",
    );
    assert_reports(
        "test-stops-early",
        1,
        "tree.toml:34: error: test 1: stops at question `r`, which it does not answer",
    );
    assert_reports(
        "test-wrong-outcome",
        1,
        "tree.toml:34: error: test 2: reaches `other`, expected `done`",
    );
    assert_reports(
        "test-unused-answer",
        1,
        "tree.toml:34: error: test 1: answers `r`, which its path never asks",
    );
    assert_reports(
        "test-expects-a-question",
        1,
        "tree.toml:29: error: test 2: expects `q`, which is not an outcome",
    );
}

#[test]
fn warnings_keep_the_tree_usable() {
    assert_reports(
        "uncovered-edge",
        0,
        "tree.toml:16: warning: node `q`: option `b` → `done` is not covered by any test",
    );
    assert_reports(
        "related-not-loaded",
        0,
        "tree.toml:24: warning: node `done`: related tree `no-such-tree` is not loaded",
    );
    // A tree with only warnings is still offered.
    let home = home();
    let out = lore(&home)
        .args(["decide", "--no-builtin", "--trees"])
        .arg(fixture("trees/uncovered-edge"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("fixture  Fixture\n"));
}

#[test]
fn an_invalid_tree_is_skipped_and_the_others_load() {
    let dir = tempfile::tempdir().unwrap();
    let good = std::fs::read_to_string(fixture("trees/clean/tree.toml")).unwrap();
    std::fs::write(dir.path().join("good.toml"), &good).unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        good.replace("id = \"fixture\"", "id = \"broken\"")
            .replace("start = \"q\"", "start = \"nowhere\""),
    )
    .unwrap();
    let corpus = Corpus::default();
    let (trees, diagnostics) = decide::load_trees(
        &SourceSet {
            builtin: None,
            overlays: vec![dir.path().to_path_buf()],
        },
        &corpus,
    );
    let ids: Vec<&str> = trees.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["fixture"]);
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!(diagnostics[0].path, "bad.toml");
    assert_eq!(
        diagnostics[0].to_string(),
        format!(
            "{}/bad.toml:5: error: [tree] start `nowhere` is not a node",
            dir.path().display()
        )
    );

    // The CLI says what was skipped and still walks the good tree.
    let home = home();
    lore(&home)
        .args(["decide", "fixture", "--no-builtin", "--answer", "q=a", "--trees"])
        .arg(dir.path())
        .assert()
        .code(0)
        .stderr(predicates::str::contains(format!(
            "lore: warning: 1 decision tree file with errors skipped ({}/bad.toml); `lore check` shows why",
            dir.path().display()
        )));
}

// ---- the shipped trees ---------------------------------------------------------------

fn shipped() -> (Corpus, Vec<DecisionTree>) {
    let corpus = Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![],
    });
    let loaded = decide::load(
        &SourceSet {
            builtin: Some(&BUILTIN_TREES),
            overlays: vec![],
        },
        &corpus,
    );
    assert!(
        loaded.diagnostics.is_empty(),
        "the shipped trees must validate without errors or warnings:\n{}",
        loaded
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n")
    );
    (corpus, loaded.trees)
}

#[test]
fn the_mission_trees_ship_and_validate() {
    let (_, trees) = shipped();
    let ids: Vec<&str> = trees.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "container-gpu",
            "cuda-install-method",
            "devel-as-runtime",
            "need-cupti",
            "torch-cuda-build"
        ]
    );
    for tree in &trees {
        assert!(!tree.tests.is_empty(), "{} has no [[tests]]", tree.id);
    }
}

#[test]
fn every_tree_test_reaches_its_expected_outcome() {
    // Validation already runs the tests; walk them again here so a change to
    // validation cannot silently stop checking them.
    let (_, trees) = shipped();
    for tree in &trees {
        for test in &tree.tests {
            let mut session = Session::new(tree);
            let unused = session.apply(&test.answers).unwrap();
            assert!(unused.is_empty(), "{} test {}", tree.id, test.number);
            match session.current() {
                Step::Outcome(o) => {
                    assert_eq!(o.id, test.expect, "{} test {}", tree.id, test.number)
                }
                Step::Question(q) => panic!("{} test {} stops at {}", tree.id, test.number, q.id),
            }
        }
    }
}

/// Every path through every shipped tree, by depth-first search over sessions.
fn all_paths(tree: &DecisionTree) -> Vec<Session> {
    let mut done = Vec::new();
    let mut stack = vec![Session::new(tree)];
    while let Some(session) = stack.pop() {
        match session.current() {
            Step::Outcome(_) => done.push(session),
            Step::Question(q) => {
                for i in 0..q.options.len() {
                    let mut next = session.clone();
                    next.choose(i).unwrap();
                    stack.push(next);
                }
            }
        }
    }
    done
}

#[test]
fn every_path_ends_at_an_outcome_a_user_can_act_on() {
    let (corpus, trees) = shipped();
    let mut paths = 0;
    for tree in &trees {
        for session in all_paths(tree) {
            paths += 1;
            let Step::Outcome(o) = session.current() else {
                unreachable!()
            };
            let at = format!("{} → {}", tree.id, o.id);
            assert!(!o.verdict.trim().is_empty(), "{at}: no verdict");
            assert!(!o.body.trim().is_empty(), "{at}: no explanation");
            assert!(!o.actions.is_empty(), "{at}: no command to run");
            for action in &o.actions {
                assert!(
                    ["bash", "dockerfile", "python"].contains(&action.lang.as_str()),
                    "{at}: action language `{}`",
                    action.lang
                );
                assert!(!action.code.trim().is_empty(), "{at}: empty action");
            }
            assert!(!o.evidence.is_empty(), "{at}: no evidence");
            for e in &o.evidence {
                let doc = corpus
                    .get(e.path())
                    .unwrap_or_else(|| panic!("{at}: {}", e.link));
                if let Some(anchor) = e.anchor() {
                    assert!(doc.section_by_anchor(anchor).is_some(), "{at}: {}", e.link);
                }
            }
            // The session's transcript carries the outcome and every answer.
            let md = session.transcript("2026-11-22");
            assert!(md.contains("## Outcome: "), "{at}");
            assert_eq!(
                md.matches("   - Answer: ").count(),
                session.path().len(),
                "{at}"
            );
        }
    }
    assert!(paths >= 30, "only {paths} paths");
}

#[test]
fn the_cupti_tree_never_recommends_a_package_that_does_not_exist() {
    // Known-wrong claims from the fact sheet must not creep into the tree.
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("decision-trees/need-cupti.toml"),
    )
    .unwrap();
    let (_, trees) = shipped();
    let tree = decide::find_tree(&trees, "need-cupti").unwrap();
    for o in tree.outcomes() {
        for a in &o.actions {
            assert!(!a.code.contains("libcupti-dev-12"), "{}: {}", o.id, a.code);
            assert!(!a.code.contains("LIBKINETO_NOCUPTI=1"), "{}", o.id);
            assert!(!a.code.contains("USE_CUPTI=0"), "{}", o.id);
        }
    }
    assert!(text.contains("cuda-cupti-12-4"));
}

#[test]
fn dockerfile_actions_avoid_the_trailing_comment_trap() {
    // Docker reads `#` as a comment only at the start of a line, and a `\`
    // continuation must end its line: either mistake silently changes the
    // instruction (see the arr-coc case study).
    let (_, trees) = shipped();
    for tree in &trees {
        for o in tree.outcomes() {
            for action in o.actions.iter().filter(|a| a.lang == "dockerfile") {
                for line in action.code.lines() {
                    let trimmed = line.trim_start();
                    assert!(
                        trimmed.starts_with('#') || !trimmed.contains(" #"),
                        "{} → {}: comment after an instruction: {line}",
                        tree.id,
                        o.id
                    );
                    assert!(
                        !line.trim_end().ends_with('\\') || line.ends_with('\\'),
                        "{} → {}: spaces after a line continuation: {line:?}",
                        tree.id,
                        o.id
                    );
                }
            }
        }
    }
}

/// A tree names a built-in probe; it cannot name one that does not exist, one
/// whose answers its question does not offer, or put one on an outcome.
#[test]
fn probe_field_errors() {
    assert_reports(
        "unknown-probe",
        1,
        "tree.toml:11: error: node `q`: unknown probe `run-nvidia-smi` (built-in probes: torch-install, torch-wheel, cupti-import, final-base, install-target, host-driver, container-engine, container-toolkit, nvidia-cuda-base, custom-cuda, gpu-generation, driver-cuda)",
    );
    assert_reports(
        "probe-answer-not-option",
        1,
        "tree.toml:11: error: node `q`: probe `host-driver` can answer `no`, which is not an option of this question (options: yes, b)",
    );
    assert_reports(
        "probe-on-outcome",
        1,
        "tree.toml:20: error: node `done`: `probe` belongs to questions; an outcome has title, verdict, body, actions, evidence and related",
    );
}

/// A tree saved by an editor set to Latin-1 (one `é` in its title), or
/// as UTF-16 by Windows Notepad, cannot be read: it is reported and skipped
/// like any broken tree, in `lore decide`'s "skipped" warning and as an
/// error of `lore check`, with file and line (before, decide left it out
/// without a word and check passed with a warning).
#[test]
fn a_tree_lore_cannot_decode_is_a_skipped_tree_with_an_error() {
    let clean = std::fs::read_to_string(fixture("trees/clean/tree.toml")).unwrap();
    let latin1: Vec<u8> = clean
        .replacen("title = \"Fixture\"", "title = \"Caf\u{e9}\"", 1)
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap())
        .collect();
    let at = latin1.iter().position(|&b| b == 0xe9).unwrap();
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(clean.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    let cwd = tempfile::tempdir().unwrap();
    let dir = cwd.path().join("trees");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("cafe.toml"), latin1).unwrap();
    std::fs::write(dir.join("notepad.toml"), utf16).unwrap();

    let home = home();
    let out = lore(&home)
        .current_dir(cwd.path())
        .args(["check", "--no-builtin", "--trees", "trees"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let expected = format!("trees/cafe.toml:3: error: not valid UTF-8 (byte {at}), skipped");
    assert!(
        stdout.lines().any(|l| l == expected),
        "{expected}\n{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("trees/notepad.toml:1: error: not valid UTF-8")),
        "{stdout}"
    );

    for args in [&["decide"][..], &["decide", "fixture"][..]] {
        let out = lore(&home)
            .current_dir(cwd.path())
            .args(["--no-builtin", "--trees", "trees"])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(
                "warning: 2 decision tree files with errors skipped (trees/cafe.toml, trees/notepad.toml)"
            ),
            "{args:?}: {stderr}"
        );
    }
}
