//! Whether a parsed tree can be walked safely and says what it claims: ids
//! unique, every reference resolves, every node reachable, no cycles, every
//! path ends at an outcome, every evidence link opens a heading in the loaded
//! knowledge, and the tree's own `[[tests]]` pass and cover every edge. Each
//! message names the file, the line and the node. Reads the tree and the corpus
//! only.

use std::collections::{HashMap, HashSet};

use super::DecideError;
use super::session::{Session, Step};
use super::tree::{DecisionTree, Node};
use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;

/// All problems of one tree. Errors make the tree unusable; warnings do not.
pub fn validate(tree: &DecisionTree, corpus: &Corpus) -> Vec<Diagnostic> {
    let mut out = validate_structure(tree, corpus);
    if !out.iter().any(Diagnostic::is_error) {
        check_tests(tree, &mut out);
    }
    out
}

/// The problems of one tree's `[[tests]]`, for a tree whose structure is
/// valid: each test walked (in time linear in its answers), then the edges
/// no test covers.
pub fn validate_tests(tree: &DecisionTree) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    check_tests(tree, &mut out);
    out
}

/// Everything but the `[[tests]]`: what makes a tree safe to walk.
pub fn validate_structure(tree: &DecisionTree, corpus: &Corpus) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let error = |out: &mut Vec<Diagnostic>, line: usize, msg: String| {
        out.push(Diagnostic::error(&tree.path, Some(line), msg));
    };

    if tree.node(&tree.start).is_none() {
        error(
            &mut out,
            tree.start_line,
            format!("[tree] start `{}` is not a node", tree.start),
        );
    }
    for node in &tree.nodes {
        if let Node::Question(q) = node {
            let mut seen = HashSet::new();
            for option in &q.options {
                if !seen.insert(option.id.as_str()) {
                    error(
                        &mut out,
                        option.line,
                        format!("node `{}`: option id `{}` is used twice", q.id, option.id),
                    );
                }
                if tree.node(&option.next).is_none() {
                    error(
                        &mut out,
                        option.next_line,
                        format!(
                            "node `{}`: option `{}` leads to `{}`, which is not a node",
                            q.id, option.id, option.next
                        ),
                    );
                }
            }
            if let Some(probe) = &q.probe {
                check_probe(tree, q, probe, &mut out);
            }
            if q.options.is_empty() {
                error(
                    &mut out,
                    q.line,
                    format!(
                        "node `{}`: a question without options ends its path without an outcome",
                        q.id
                    ),
                );
            }
        }
        check_evidence(tree, node, corpus, &mut out);
    }
    // Reachability and cycles need a graph whose edges all resolve.
    let structure_ok = !out.iter().any(Diagnostic::is_error);
    if structure_ok {
        check_reachable(tree, &mut out);
        check_cycles(tree, &mut out);
    }
    out
}

/// A named probe must be built in, and every answer it can give must be an
/// option of the question, so a probed answer always leads somewhere.
fn check_probe(
    tree: &DecisionTree,
    q: &super::tree::Question,
    probe: &super::tree::ProbeRef,
    out: &mut Vec<Diagnostic>,
) {
    let Some(found) = super::probes::find(&probe.name) else {
        out.push(Diagnostic::error(
            &tree.path,
            Some(probe.line),
            format!(
                "node `{}`: unknown probe `{}` (built-in probes: {})",
                q.id,
                probe.name,
                super::probes::names().join(", ")
            ),
        ));
        return;
    };
    for answer in found.answers {
        if q.option(answer).is_none() {
            out.push(Diagnostic::error(
                &tree.path,
                Some(probe.line),
                format!(
                    "node `{}`: probe `{}` can answer `{answer}`, which is not an option of this question (options: {})",
                    q.id,
                    probe.name,
                    q.option_ids().join(", ")
                ),
            ));
        }
    }
}

fn check_evidence(tree: &DecisionTree, node: &Node, corpus: &Corpus, out: &mut Vec<Diagnostic>) {
    for evidence in node.evidence() {
        let path = evidence.path();
        let message = if path.is_empty()
            || path.starts_with('/')
            || path.contains("://")
            || !path.to_ascii_lowercase().ends_with(".md")
        {
            Some(format!(
                "evidence `{}` is not a knowledge link such as `cuda/x.md#anchor`",
                evidence.link
            ))
        } else {
            match corpus.get(path) {
                None => Some(format!(
                    "evidence `{}`: no knowledge file `{path}`",
                    evidence.link
                )),
                Some(doc) => evidence
                    .anchor()
                    .filter(|anchor| doc.section_by_anchor(anchor).is_none())
                    .map(|anchor| {
                        format!(
                            "evidence `{}`: `{path}` has no heading with anchor `#{anchor}`",
                            evidence.link
                        )
                    }),
            }
        };
        if let Some(message) = message {
            out.push(Diagnostic::error(
                &tree.path,
                Some(evidence.line),
                format!("node `{}`: {message}", node.id()),
            ));
        }
    }
}

fn check_reachable(tree: &DecisionTree, out: &mut Vec<Diagnostic>) {
    let mut seen = HashSet::new();
    let mut stack = vec![tree.start.as_str()];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if let Some(Node::Question(q)) = tree.node(id) {
            stack.extend(q.options.iter().map(|o| o.next.as_str()));
        }
    }
    for node in &tree.nodes {
        if !seen.contains(node.id()) {
            out.push(Diagnostic::error(
                &tree.path,
                Some(node.line()),
                format!(
                    "node `{}` cannot be reached from start `{}`",
                    node.id(),
                    tree.start
                ),
            ));
        }
    }
}

/// Depth-first search from the start; an edge back to a node on the current
/// path closes a cycle. Each such edge is reported once, with the loop spelled
/// out.
fn check_cycles(tree: &DecisionTree, out: &mut Vec<Diagnostic>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        OnPath,
        Done,
    }
    let mut marks: HashMap<&str, Mark> = HashMap::new();
    let mut path: Vec<&str> = Vec::new();
    // (node id, index of the next option to follow)
    let mut stack: Vec<(&str, usize)> = vec![(tree.start.as_str(), 0)];
    marks.insert(&tree.start, Mark::OnPath);
    path.push(&tree.start);
    while let Some((id, i)) = stack.pop() {
        let options = match tree.node(id) {
            Some(Node::Question(q)) => q.options.as_slice(),
            _ => &[],
        };
        let Some(option) = options.get(i) else {
            marks.insert(id, Mark::Done);
            path.pop();
            continue;
        };
        stack.push((id, i + 1));
        let next = option.next.as_str();
        match marks.get(next) {
            Some(Mark::OnPath) => {
                let from = path.iter().position(|&n| n == next).unwrap_or(0);
                let mut ring: Vec<&str> = path[from..].to_vec();
                ring.push(next);
                out.push(Diagnostic::error(
                    &tree.path,
                    Some(option.next_line),
                    format!(
                        "node `{id}`: option `{}` leads back to `{next}`, a cycle: {}",
                        option.id,
                        ring.join(" → ")
                    ),
                ));
            }
            Some(Mark::Done) => {}
            None => {
                marks.insert(next, Mark::OnPath);
                path.push(next);
                stack.push((next, 0));
            }
        }
    }
}

fn check_tests(tree: &DecisionTree, out: &mut Vec<Diagnostic>) {
    let mut covered: HashSet<(String, String)> = HashSet::new();
    for test in &tree.tests {
        let mut error = |msg: String| {
            out.push(Diagnostic::error(
                &tree.path,
                Some(test.line),
                format!("test {}: {msg}", test.number),
            ));
        };
        let mut session = Session::borrowing(tree);
        let unused = match session.apply(&test.answers) {
            Ok(unused) => unused,
            Err(DecideError::UnknownQuestion {
                question, valid, ..
            }) => {
                error(format!(
                    "no question `{question}` in this tree (questions: {})",
                    valid.join(", ")
                ));
                continue;
            }
            Err(err) => {
                error(err.to_string());
                continue;
            }
        };
        covered.extend(session.path().iter().cloned());
        if !unused.is_empty() {
            for question in unused {
                error(format!("answers `{question}`, which its path never asks"));
            }
            continue;
        }
        match session.current() {
            Step::Question(q) => {
                error(format!(
                    "stops at question `{}`, which it does not answer",
                    q.id
                ));
            }
            Step::Outcome(o) if o.id != test.expect => match tree.node(&test.expect) {
                Some(Node::Outcome(_)) => {
                    error(format!("reaches `{}`, expected `{}`", o.id, test.expect));
                }
                _ => error(format!(
                    "expects `{}`, which is not an outcome",
                    test.expect
                )),
            },
            Step::Outcome(_) => {}
        }
    }
    for q in tree.questions() {
        for option in &q.options {
            if !covered.contains(&(q.id.clone(), option.id.clone())) {
                out.push(Diagnostic::warning(
                    &tree.path,
                    Some(option.line),
                    format!(
                        "node `{}`: option `{}` → `{}` is not covered by any test",
                        q.id, option.id, option.next
                    ),
                ));
            }
        }
    }
}
