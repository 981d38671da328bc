//! The decision-tree file format: one TOML file per tree, read with serde and
//! every unknown field rejected, then turned into a `DecisionTree` that keeps the
//! line of every id so later checks can point at it. This module only parses;
//! whether the graph makes sense is `validate`'s job.
//!
//! ```toml
//! [tree]
//! id = "need-cupti"
//! title = "Do I need CUPTI?"
//! summary = "One line for the list of trees"
//! start = "profiling"
//!
//! [nodes.profiling]
//! kind = "question"
//! text = "Which profiling will you run in this image?"
//! why = "Why the answer changes the outcome"       # Markdown; an indented line is a command
//! help = "How to find out, e.g. the command that tells"   # optional, written as `why`
//! evidence = ["cuda/20-cupti-deep-dive-arr-coc.md#who-loads-cupti"]   # optional
//! [[nodes.profiling.options]]
//! id = "torch-profiler"
//! label = "torch.profiler with CUDA activities"
//! next = "torch-install"
//!
//! [nodes.not-needed]
//! kind = "outcome"
//! title = "…"
//! verdict = "one line"
//! body = "Markdown"                                   # optional
//! evidence = ["cuda/…md#anchor"]                      # optional
//! related = ["devel-as-runtime"]                      # optional, tree ids
//! [[nodes.not-needed.actions]]                        # optional
//! label = "What the snippet does"
//! lang = "dockerfile"
//! code = "RUN …"
//!
//! [[tests]]
//! answers = { profiling = "none" }
//! expect = "not-needed"
//! ```
//!
//! Growing the format: every field added later is optional, so existing tree
//! files stay valid unchanged. `probe = "name"` on a question names one of
//! the built-in probes (`super::probes`) that may answer it from a machine, an
//! image or a Dockerfile; a tree can name a probe, never define one.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue, ValueDeserializer};

use crate::corpus::LineIndex;
use crate::diagnostic::Diagnostic;
use crate::sources::{Origin, SourceFile};

/// One decision tree, parsed. Node order is file order.
#[derive(Debug, Clone)]
pub struct DecisionTree {
    pub id: String,
    pub title: String,
    /// One line, for lists of trees.
    pub summary: String,
    /// Id of the first node.
    pub start: String,
    pub nodes: Vec<Node>,
    pub tests: Vec<TreeTest>,
    /// The file's id (relative to its trees folder), for messages.
    pub path: String,
    pub origin: Origin,
    /// Line of `id` in `[tree]`.
    pub id_line: usize,
    /// Line of `start` in `[tree]`.
    pub start_line: usize,
    by_id: HashMap<String, usize>,
}

/// A node: a question to answer or an outcome to act on.
#[derive(Debug, Clone)]
pub enum Node {
    Question(Question),
    Outcome(Outcome),
}

#[derive(Debug, Clone)]
pub struct Question {
    pub id: String,
    /// The question as the user reads it.
    pub text: String,
    /// Why the answer matters.
    pub why: String,
    /// How to find out (often the command that tells), if the tree says.
    pub help: Option<String>,
    pub evidence: Vec<Evidence>,
    pub options: Vec<AnswerOption>,
    /// The built-in probe that may answer this question, if the tree names one.
    pub probe: Option<ProbeRef>,
    /// Line of the node's `[nodes.<id>]` header.
    pub line: usize,
}

/// `probe = "name"` on a question, with its line for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeRef {
    pub name: String,
    pub line: usize,
}

/// One possible answer to a question and the node it leads to.
#[derive(Debug, Clone)]
pub struct AnswerOption {
    pub id: String,
    pub label: String,
    pub next: String,
    /// Line of the option's `id`.
    pub line: usize,
    /// Line of the option's `next`.
    pub next_line: usize,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: String,
    pub title: String,
    /// The answer in one line.
    pub verdict: String,
    /// Markdown: the explanation.
    pub body: String,
    pub actions: Vec<Action>,
    pub evidence: Vec<Evidence>,
    /// Ids of other trees worth walking next.
    pub related: Vec<Related>,
    pub line: usize,
}

/// A command or snippet to run, with the language it is written in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// What the snippet does, in one line.
    pub label: String,
    /// `bash`, `dockerfile`, `python` …: the fence language in transcripts.
    pub lang: String,
    pub code: String,
}

/// A link into the knowledge: `cuda/x.md#anchor`, relative to the knowledge root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// The link as written.
    pub link: String,
    pub line: usize,
}

impl Evidence {
    /// The knowledge file the link names, if it is a knowledge link at all.
    pub fn path(&self) -> &str {
        self.link.split('#').next().unwrap_or("")
    }

    /// The heading anchor, without `#`.
    pub fn anchor(&self) -> Option<&str> {
        self.link
            .split_once('#')
            .map(|(_, a)| a)
            .filter(|a| !a.is_empty())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    pub tree: String,
    pub line: usize,
}

/// A `[[tests]]` entry: answers by question id, and the outcome they must reach.
#[derive(Debug, Clone)]
pub struct TreeTest {
    /// 1-based position in the file, for messages.
    pub number: usize,
    pub answers: Vec<(String, String)>,
    pub expect: String,
    pub line: usize,
}

impl Node {
    pub fn id(&self) -> &str {
        match self {
            Node::Question(q) => &q.id,
            Node::Outcome(o) => &o.id,
        }
    }

    pub fn line(&self) -> usize {
        match self {
            Node::Question(q) => q.line,
            Node::Outcome(o) => o.line,
        }
    }

    pub fn evidence(&self) -> &[Evidence] {
        match self {
            Node::Question(q) => &q.evidence,
            Node::Outcome(o) => &o.evidence,
        }
    }
}

impl Question {
    pub fn option(&self, id: &str) -> Option<&AnswerOption> {
        self.options.iter().find(|o| o.id == id)
    }

    pub fn option_ids(&self) -> Vec<String> {
        self.options.iter().map(|o| o.id.clone()).collect()
    }
}

impl DecisionTree {
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.by_id.get(id).map(|&i| &self.nodes[i])
    }

    pub fn question(&self, id: &str) -> Option<&Question> {
        match self.node(id) {
            Some(Node::Question(q)) => Some(q),
            _ => None,
        }
    }

    pub fn outcome(&self, id: &str) -> Option<&Outcome> {
        match self.node(id) {
            Some(Node::Outcome(o)) => Some(o),
            _ => None,
        }
    }

    pub fn questions(&self) -> impl Iterator<Item = &Question> {
        self.nodes.iter().filter_map(|n| match n {
            Node::Question(q) => Some(q),
            Node::Outcome(_) => None,
        })
    }

    pub fn outcomes(&self) -> impl Iterator<Item = &Outcome> {
        self.nodes.iter().filter_map(|n| match n {
            Node::Outcome(o) => Some(o),
            Node::Question(_) => None,
        })
    }

    /// Question ids in file order, for "valid questions are …" messages.
    pub fn question_ids(&self) -> Vec<String> {
        self.questions().map(|q| q.id.clone()).collect()
    }
}

/// Ids appear on command lines (`--answer q=o`) and in file names, so they are
/// kept to letters, digits, `-` and `_`.
pub fn is_valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

const ID_RULE: &str = "must use only letters, digits, `-` and `_`";

// ---- the serde shapes of the file --------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHeader {
    id: Spanned<String>,
    title: String,
    summary: String,
    start: Spanned<String>,
}

/// Every field a node may have; which ones a node must or must not have depends
/// on `kind` and is checked by hand so the message can say so plainly.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNode {
    kind: Spanned<String>,
    text: Option<String>,
    why: Option<String>,
    help: Option<String>,
    options: Option<Vec<RawOption>>,
    title: Option<String>,
    verdict: Option<String>,
    body: Option<String>,
    actions: Option<Vec<RawAction>>,
    related: Option<Vec<Spanned<String>>>,
    evidence: Option<Vec<Spanned<String>>>,
    probe: Option<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOption {
    id: Spanned<String>,
    label: String,
    next: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAction {
    label: String,
    lang: String,
    code: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTest {
    answers: BTreeMap<Spanned<String>, Spanned<String>>,
    expect: Spanned<String>,
}

// ---- parsing -----------------------------------------------------------------

/// Turns toml's byte spans into lines.
struct Lines(LineIndex);

impl Lines {
    fn new(text: &str) -> Lines {
        Lines(LineIndex::new(text))
    }

    fn of(&self, span: &Range<usize>) -> usize {
        self.0.line(span.start)
    }
}

/// Reads one tree file. Returns the tree if the file has the right shape (its
/// graph may still be wrong: see `validate`), and a diagnostic per problem.
pub fn parse(file: &SourceFile) -> (Option<DecisionTree>, Vec<Diagnostic>) {
    let text = file.text.as_str();
    let lines = Lines::new(text);
    let mut out = Vec::new();
    let error = |out: &mut Vec<Diagnostic>, line: usize, msg: String| {
        out.push(Diagnostic::error(&file.rel, Some(line), msg));
    };

    let table = match DeTable::parse(text) {
        Ok(table) => table.into_inner(),
        Err(err) => {
            let line = err.span().map(|s| lines.of(&s)).unwrap_or(1);
            error(&mut out, line, syntax_message(text, &err));
            return (None, out);
        }
    };

    let mut header = None;
    let mut raw_nodes = None;
    let mut raw_tests = None;
    for (key, value) in table {
        match key.get_ref().as_ref() {
            "tree" => header = Some(value),
            "nodes" => raw_nodes = Some(value),
            "tests" => raw_tests = Some(value),
            other => error(
                &mut out,
                lines.of(&key.span()),
                format!(
                    "unknown section `{other}`: a tree file has [tree], [nodes.<id>] and [[tests]]"
                ),
            ),
        }
    }

    let header = match header {
        None => {
            error(
                &mut out,
                1,
                "missing [tree] table (id, title, summary, start)".to_string(),
            );
            None
        }
        Some(value) => match RawHeader::deserialize(ValueDeserializer::from(value)) {
            Ok(h) => Some(h),
            Err(err) => {
                let line = err.span().map(|s| lines.of(&s)).unwrap_or(1);
                error(&mut out, line, format!("[tree]: {}", serde_message(&err)));
                None
            }
        },
    };
    if let Some(h) = &header
        && !is_valid_id(h.id.get_ref())
    {
        error(
            &mut out,
            lines.of(&h.id.span()),
            format!("tree id `{}` {ID_RULE}", h.id.get_ref()),
        );
    }

    let mut nodes = Vec::new();
    match raw_nodes {
        None => error(&mut out, 1, "no nodes: add [nodes.<id>] tables".to_string()),
        Some(value) => {
            let span = value.span();
            match value.into_inner() {
                DeValue::Table(table) if table.is_empty() => error(
                    &mut out,
                    lines.of(&span),
                    "no nodes: add [nodes.<id>] tables".to_string(),
                ),
                DeValue::Table(table) => {
                    for (key, value) in table {
                        let id = key.get_ref().to_string();
                        let line = lines.of(&key.span());
                        if let Some(node) = parse_node(&file.rel, &lines, id, line, value, &mut out)
                        {
                            nodes.push(node);
                        }
                    }
                }
                _ => error(
                    &mut out,
                    lines.of(&span),
                    "`nodes` must be tables: [nodes.<id>]".to_string(),
                ),
            }
        }
    }
    nodes.sort_by_key(Node::line);

    let mut tests = Vec::new();
    if let Some(value) = raw_tests {
        let span = value.span();
        match value.into_inner() {
            DeValue::Array(entries) => {
                for (i, entry) in entries.into_iter().enumerate() {
                    let number = i + 1;
                    let line = lines.of(&entry.span());
                    match RawTest::deserialize(ValueDeserializer::from(entry)) {
                        Ok(raw) => tests.push(TreeTest {
                            number,
                            answers: raw
                                .answers
                                .into_iter()
                                .map(|(q, o)| (q.into_inner(), o.into_inner()))
                                .collect(),
                            expect: raw.expect.into_inner(),
                            line,
                        }),
                        Err(err) => {
                            let at = err.span().map(|s| lines.of(&s)).unwrap_or(line);
                            error(
                                &mut out,
                                at,
                                format!("test {number}: {}", serde_message(&err)),
                            );
                        }
                    }
                }
            }
            _ => error(
                &mut out,
                lines.of(&span),
                "`tests` must be [[tests]] tables".to_string(),
            ),
        }
    }

    let has_errors = out.iter().any(Diagnostic::is_error);
    match header {
        Some(h) if !has_errors => {
            let by_id = nodes
                .iter()
                .enumerate()
                .map(|(i, n)| (n.id().to_string(), i))
                .collect();
            let tree = DecisionTree {
                id_line: lines.of(&h.id.span()),
                start_line: lines.of(&h.start.span()),
                id: h.id.into_inner(),
                title: h.title,
                summary: h.summary,
                start: h.start.into_inner(),
                nodes,
                tests,
                path: file.rel.clone(),
                origin: file.origin.clone(),
                by_id,
            };
            (Some(tree), out)
        }
        _ => (None, out),
    }
}

fn parse_node(
    path: &str,
    lines: &Lines,
    id: String,
    line: usize,
    value: Spanned<DeValue>,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let mut error = |at: usize, msg: String| {
        out.push(Diagnostic::error(
            path,
            Some(at),
            format!("node `{id}`: {msg}"),
        ));
    };
    if !is_valid_id(&id) {
        out.push(Diagnostic::error(
            path,
            Some(line),
            format!("node id `{id}` {ID_RULE}"),
        ));
        return None;
    }
    let raw = match RawNode::deserialize(ValueDeserializer::from(value)) {
        Ok(raw) => raw,
        Err(err) => {
            let at = err.span().map(|s| lines.of(&s)).unwrap_or(line);
            error(at, serde_message(&err));
            return None;
        }
    };
    let evidence: Vec<Evidence> = raw
        .evidence
        .unwrap_or_default()
        .into_iter()
        .map(|e| Evidence {
            line: lines.of(&e.span()),
            link: e.into_inner(),
        })
        .collect();
    let kind_line = lines.of(&raw.kind.span());
    match raw.kind.get_ref().as_str() {
        "question" => {
            let mut ok = fields_fit(
                &mut error,
                line,
                "a question",
                &[
                    ("text", raw.text.is_some()),
                    ("why", raw.why.is_some()),
                    ("options", raw.options.is_some()),
                ],
                &[
                    ("title", raw.title.is_some()),
                    ("verdict", raw.verdict.is_some()),
                    ("body", raw.body.is_some()),
                    ("actions", raw.actions.is_some()),
                    ("related", raw.related.is_some()),
                ],
                "belongs to outcomes; a question has text, why, help, evidence, probe and options",
            );
            let mut options = Vec::new();
            for o in raw.options.unwrap_or_default() {
                let option_line = lines.of(&o.id.span());
                if !is_valid_id(o.id.get_ref()) {
                    error(
                        option_line,
                        format!("option id `{}` {ID_RULE}", o.id.get_ref()),
                    );
                    ok = false;
                }
                options.push(AnswerOption {
                    line: option_line,
                    next_line: lines.of(&o.next.span()),
                    id: o.id.into_inner(),
                    label: o.label,
                    next: o.next.into_inner(),
                });
            }
            ok.then(|| {
                Node::Question(Question {
                    id: id.clone(),
                    text: raw.text.unwrap_or_default(),
                    why: raw.why.unwrap_or_default(),
                    help: raw.help,
                    evidence,
                    options,
                    probe: raw.probe.map(|p| ProbeRef {
                        line: lines.of(&p.span()),
                        name: p.into_inner(),
                    }),
                    line,
                })
            })
        }
        "outcome" => {
            let ok = fields_fit(
                &mut error,
                line,
                "an outcome",
                &[
                    ("title", raw.title.is_some()),
                    ("verdict", raw.verdict.is_some()),
                ],
                &[
                    ("text", raw.text.is_some()),
                    ("why", raw.why.is_some()),
                    ("help", raw.help.is_some()),
                    ("options", raw.options.is_some()),
                    ("probe", raw.probe.is_some()),
                ],
                "belongs to questions; an outcome has title, verdict, body, actions, evidence and related",
            );
            let related = raw
                .related
                .unwrap_or_default()
                .into_iter()
                .map(|r| Related {
                    line: lines.of(&r.span()),
                    tree: r.into_inner(),
                })
                .collect();
            let actions = raw
                .actions
                .unwrap_or_default()
                .into_iter()
                .map(|a| Action {
                    label: a.label,
                    lang: a.lang,
                    code: a.code,
                })
                .collect();
            ok.then(|| {
                Node::Outcome(Outcome {
                    id: id.clone(),
                    title: raw.title.unwrap_or_default(),
                    verdict: raw.verdict.unwrap_or_default(),
                    body: raw.body.unwrap_or_default(),
                    actions,
                    evidence,
                    related,
                    line,
                })
            })
        }
        other => {
            error(
                kind_line,
                format!("unknown kind `{other}` (expected `question` or `outcome`)"),
            );
            None
        }
    }
}

/// Reports each required field that is missing and each field of the other
/// kind that is present, by name. True when the node has the right shape.
fn fields_fit(
    error: &mut impl FnMut(usize, String),
    line: usize,
    kind: &str,
    required: &[(&str, bool)],
    foreign: &[(&str, bool)],
    foreign_note: &str,
) -> bool {
    let mut ok = true;
    for (field, present) in foreign {
        if *present {
            error(line, format!("`{field}` {foreign_note}"));
            ok = false;
        }
    }
    for (field, present) in required {
        if !present {
            error(line, format!("{kind} needs `{field}`"));
            ok = false;
        }
    }
    ok
}

/// toml's message for a syntax error, with the key named when it is a
/// duplicate: a node defined twice is the usual cause.
fn syntax_message(text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim();
    if message == "duplicate key"
        && let Some(key) = err.span().and_then(|s| text.get(s))
    {
        let line_start = err
            .span()
            .map(|s| text[..s.start].rfind('\n').map_or(0, |i| i + 1))
            .unwrap_or(0);
        if text[line_start..].trim_start().starts_with("[nodes.") {
            return format!("node `{key}` is defined twice");
        }
        return format!("invalid TOML: duplicate key `{key}`");
    }
    format!("invalid TOML: {message}")
}

fn serde_message(err: &toml::de::Error) -> String {
    err.message().trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> SourceFile {
        SourceFile {
            rel: "t.toml".into(),
            origin: Origin::Builtin,
            text: text.into(),
            stamp: None,
        }
    }

    const SMALL: &str = r#"[tree]
id = "small"
title = "Small"
summary = "A small tree"
start = "q"

[nodes.q]
kind = "question"
text = "Yes or no?"
why = "Because"
evidence = ["cuda/a.md#b"]

[[nodes.q.options]]
id = "yes"
label = "Yes"
next = "done"

[[nodes.q.options]]
id = "no"
label = "No"
next = "done"

[nodes.done]
kind = "outcome"
title = "Done"
verdict = "All done"

[[nodes.done.actions]]
label = "Say it"
lang = "bash"
code = "echo done"

[[tests]]
answers = { q = "yes" }
expect = "done"
"#;

    #[test]
    fn a_small_tree_parses_with_lines() {
        let (tree, diags) = parse(&file(SMALL));
        assert!(diags.is_empty(), "{diags:?}");
        let tree = tree.unwrap();
        assert_eq!(tree.id, "small");
        assert_eq!(tree.start_line, 5);
        let q = tree.question("q").unwrap();
        assert_eq!(q.line, 7);
        assert_eq!(q.evidence[0].line, 11);
        assert_eq!(q.evidence[0].path(), "cuda/a.md");
        assert_eq!(q.evidence[0].anchor(), Some("b"));
        assert_eq!(q.options[1].id, "no");
        assert_eq!(q.options[1].line, 19);
        assert_eq!(q.options[1].next_line, 21);
        let done = tree.outcome("done").unwrap();
        assert_eq!(done.actions[0].lang, "bash");
        assert_eq!(tree.tests[0].answers, vec![("q".into(), "yes".into())]);
        assert_eq!(tree.tests[0].line, 33);
        assert_eq!(
            tree.nodes.iter().map(Node::id).collect::<Vec<_>>(),
            ["q", "done"]
        );
    }

    #[test]
    fn every_bad_node_is_reported_not_only_the_first() {
        let text = SMALL
            .replace("why = \"Because\"", "why = \"Because\"\nverdict = \"x\"")
            .replace(
                "verdict = \"All done\"",
                "verdict = \"All done\"\ncolour = 1",
            );
        let (tree, mut diags) = parse(&file(&text));
        assert!(tree.is_none());
        crate::diagnostic::sort(&mut diags);
        let messages: Vec<String> = diags.iter().map(ToString::to_string).collect();
        assert_eq!(messages.len(), 2, "{messages:#?}");
        assert!(
            messages[0].starts_with("t.toml:7: error: node `q`: `verdict` belongs to outcomes")
        );
        assert!(
            messages[1].starts_with("t.toml:28: error: node `done`: unknown field `colour`"),
            "{messages:?}"
        );
    }
}
