//! A tree as a graph, for review and documentation: Mermaid (renders on GitHub
//! and in most Markdown viewers) and Graphviz DOT. Questions are diamonds,
//! outcomes rounded boxes, edges carry the option labels. Labels are escaped for
//! each syntax and sanitized, since they come from the tree file.

use std::collections::{HashMap, HashSet};
use std::fmt::Write;

use super::tree::{DecisionTree, Node};
use crate::text::one_line;

/// Mermaid `flowchart TD` source for the tree.
pub fn to_mermaid(tree: &DecisionTree) -> String {
    let keys = mermaid_keys(tree);
    let key = |id: &str| keys.get(id).cloned().unwrap_or_else(|| id.to_string());
    let mut out = String::new();
    let _ = writeln!(out, "---\ntitle: \"{}\"\n---", dot_text(&tree.title));
    let _ = writeln!(out, "flowchart TD");
    for node in &tree.nodes {
        match node {
            Node::Question(q) => {
                let _ = writeln!(out, "    {}{{\"{}\"}}", key(&q.id), mermaid_text(&q.text));
            }
            Node::Outcome(o) => {
                let _ = writeln!(out, "    {}([\"{}\"])", key(&o.id), mermaid_text(&o.title));
            }
        }
    }
    for q in tree.questions() {
        for option in &q.options {
            let _ = writeln!(
                out,
                "    {} -->|\"{}\"| {}",
                key(&q.id),
                mermaid_text(&option.label),
                key(&option.next)
            );
        }
    }
    let _ = writeln!(out, "    classDef outcome fill:#e8f5e9,stroke:#2e7d32");
    let outcomes: Vec<String> = tree.outcomes().map(|o| key(&o.id)).collect();
    if !outcomes.is_empty() {
        let _ = writeln!(out, "    class {} outcome", outcomes.join(","));
    }
    out
}

/// Graphviz DOT source for the tree (`lore decide T --graph dot | dot -Tsvg`).
pub fn to_dot(tree: &DecisionTree) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", dot_text(&tree.id));
    let _ = writeln!(out, "    label=\"{}\";", dot_text(&tree.title));
    let _ = writeln!(out, "    labelloc=t;");
    let _ = writeln!(out, "    node [fontname=\"Helvetica\"];");
    let _ = writeln!(out, "    edge [fontname=\"Helvetica\", fontsize=10];");
    for node in &tree.nodes {
        match node {
            Node::Question(q) => {
                let _ = writeln!(
                    out,
                    "    \"{}\" [shape=diamond, label=\"{}\"];",
                    dot_text(&q.id),
                    dot_text(&q.text)
                );
            }
            Node::Outcome(o) => {
                let _ = writeln!(
                    out,
                    "    \"{}\" [shape=box, style=\"rounded,filled\", fillcolor=\"#e8f5e9\", label=\"{}\"];",
                    dot_text(&o.id),
                    dot_text(&o.title)
                );
            }
        }
    }
    for q in tree.questions() {
        for option in &q.options {
            let _ = writeln!(
                out,
                "    \"{}\" -> \"{}\" [label=\"{}\"];",
                dot_text(&q.id),
                dot_text(&option.next),
                dot_text(&option.label)
            );
        }
    }
    let _ = writeln!(out, "}}");
    out
}

/// Mermaid node keys: the id with `-` made `_` (Mermaid reads `-` as an edge
/// start in some positions), made unique if two ids fold to the same key.
fn mermaid_keys(tree: &DecisionTree) -> HashMap<String, String> {
    let mut used = HashSet::new();
    let mut keys = HashMap::new();
    for node in &tree.nodes {
        let base: String = node
            .id()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let base = format!("n_{base}");
        let mut key = base.clone();
        let mut n = 1;
        while !used.insert(key.clone()) {
            n += 1;
            key = format!("{base}_{n}");
        }
        keys.insert(node.id().to_string(), key);
    }
    keys
}

/// Text inside a quoted Mermaid label: one line; `#` (which starts Mermaid's
/// entity codes), `&` (an HTML one), quotes and angle brackets as Mermaid
/// entity codes, so the label shows the text as written.
fn mermaid_text(text: &str) -> String {
    one_line(text)
        .replace('#', "#35;")
        .replace('&', "#38;")
        .replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

/// Text inside a DOT double-quoted string, or a YAML one (the Mermaid front
/// matter's `title`, shown as it is: entity codes are for labels only).
fn dot_text(text: &str) -> String {
    one_line(text).replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::session::tests::sample;

    #[test]
    fn mermaid_has_every_node_and_edge() {
        let m = to_mermaid(&sample());
        assert_eq!(
            m,
            "---\ntitle: \"Sample\"\n---\nflowchart TD\n\
             \x20   n_first{\"First?\"}\n\
             \x20   n_second{\"Second?\"}\n\
             \x20   n_out_a([\"Outcome A\"])\n\
             \x20   n_out_b([\"Outcome B\"])\n\
             \x20   n_first -->|\"A\"| n_second\n\
             \x20   n_first -->|\"B\"| n_out_b\n\
             \x20   n_second -->|\"Left\"| n_out_a\n\
             \x20   n_second -->|\"Right\"| n_out_b\n\
             \x20   classDef outcome fill:#e8f5e9,stroke:#2e7d32\n\
             \x20   class n_out_a,n_out_b outcome\n"
        );
    }

    #[test]
    fn dot_escapes_quotes() {
        assert_eq!(dot_text("say \"hi\" \\ o"), "say \\\"hi\\\" \\\\ o");
        let d = to_dot(&sample());
        assert!(d.starts_with("digraph \"sample\" {\n"));
        assert!(
            d.contains("    \"first\" -> \"out-b\" [label=\"B\"];\n"),
            "{d}"
        );
        assert!(d.contains("    \"out-a\" [shape=box"), "{d}");
        assert!(d.ends_with("}\n"));
    }

    #[test]
    fn mermaid_labels_cannot_break_out() {
        assert_eq!(
            mermaid_text("a \"b\" <c>\nd"),
            "a #quot;b#quot; #lt;c#gt; d"
        );
    }

    /// A tree's text that looks like an entity code (`#35;`, `&amp;`, a
    /// C# or `#include` in a label) is shown as written, not decoded; a
    /// quote in the title is YAML's `\"`, since the front matter does not
    /// decode Mermaid's `#quot;`.
    #[test]
    fn mermaid_shows_entity_lookalikes_and_quoted_titles_as_written() {
        assert_eq!(mermaid_text("C# #35; &amp;"), "C#35; #35;35; #38;amp;");
        assert_eq!(
            dot_text("Use \"devel\" \\ not"),
            "Use \\\"devel\\\" \\\\ not"
        );
    }
}
