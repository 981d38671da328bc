//! A question's "why it matters" panel and an outcome page as Markdown, so the
//! TUI and `lore decide` on a terminal draw them with the same renderer as
//! the knowledge: inline code without backticks, text wrapped at word
//! boundaries, commands as code blocks that can be copied.
//!
//! Tree prose (`why`, `help`) is Markdown with one convention of the tree
//! format: a line indented by whitespace is a command, and a run of them is
//! shown as one `bash` code block ([`tree_text`]). Outcome bodies are plain
//! Markdown. Links: evidence is a knowledge link (`cuda/x.md#anchor`, the
//! page is placed at the knowledge root so it resolves as written); a
//! related tree is `decide:ID` ([`tree_link`]), which the TUI opens as a walk.
//!
//! Everything from the tree passes through `text::one_line` where it must stay
//! on one line; the renderer sanitises the rest.

use std::fmt::Write as _;

use super::session::Session;
use super::tree::{DecisionTree, Evidence, Outcome, Question};
use crate::corpus::Corpus;
use crate::text::one_line;

pub use crate::corpus::TREE_SCHEME;

/// The tree id a link names, if it is a `decide:` link.
pub fn tree_link(dest: &str) -> Option<&str> {
    dest.strip_prefix(TREE_SCHEME).filter(|id| !id.is_empty())
}

/// Names the Markdown uses for what the tree only refers to by id: the
/// heading an evidence link points at, the title of a related tree.
pub struct Names<'a> {
    pub corpus: &'a Corpus,
    pub trees: &'a [DecisionTree],
}

impl Names<'_> {
    fn evidence(&self, e: &Evidence) -> String {
        let title = self.corpus.get(e.path()).and_then(|doc| match e.anchor() {
            Some(anchor) => doc.section_by_anchor(anchor).map(|s| s.title.clone()),
            None => Some(doc.title.clone()),
        });
        link_text(&title.unwrap_or_else(|| e.link.clone()))
    }

    fn tree(&self, id: &str) -> String {
        let title = self.trees.iter().find(|t| t.id == id).map(|t| &t.title);
        link_text(title.map_or(id, |t| t.as_str()))
    }
}

/// Tree prose as Markdown: runs of indented lines become fenced `bash`
/// blocks (their common indent removed, deeper indents kept); everything
/// else is left as written.
pub fn tree_text(text: &str) -> String {
    let mut out = String::new();
    let mut commands: Vec<&str> = Vec::new();
    for line in text.trim_matches('\n').lines() {
        if line.starts_with([' ', '\t']) && !line.trim().is_empty() {
            commands.push(line.trim_end());
            continue;
        }
        push_commands(&mut out, &mut commands);
        out.push_str(line.trim_end());
        out.push('\n');
    }
    push_commands(&mut out, &mut commands);
    out
}

fn push_commands(out: &mut String, commands: &mut Vec<&str>) {
    if commands.is_empty() {
        return;
    }
    let indent = commands
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let code: Vec<&str> = commands.drain(..).map(|l| &l[indent..]).collect();
    let code = code.join("\n");
    let fence = fence_for(&code);
    // A blank line first: a fence right after a list item would belong to it.
    let _ = write!(out, "\n{fence}bash\n{code}\n{fence}\n\n");
}

/// A backtick fence longer than any run of backticks in `code` (at least three).
pub(super) fn fence_for(code: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in code.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat(longest.max(2) + 1)
}

/// Link text that cannot end the link early or start another one.
fn link_text(text: &str) -> String {
    one_line(text)
        .chars()
        .map(|c| match c {
            '[' | ']' => '\'',
            c => c,
        })
        .collect()
}

/// A link destination with nothing that ends it early.
fn destination(dest: &str) -> String {
    one_line(dest)
        .replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

/// The panel beside a question: why the answer matters, how to find out,
/// answers a probe gave on the way here, and the evidence to read.
/// `probe_hint` is shown when the question names a probe and nothing was
/// probed yet (the TUI's `p`; `lore decide` has `--probe`).
pub fn question_panel(
    session: &Session,
    question: &Question,
    names: &Names<'_>,
    probe_hint: Option<&str>,
) -> String {
    let mut md = tree_text(&question.why);
    if let Some(help) = &question.help {
        let _ = write!(md, "\n### How to find out\n\n{}", tree_text(help));
    }
    let probed: Vec<_> = session
        .history()
        .into_iter()
        .filter(|a| a.source.is_probe())
        .collect();
    if !probed.is_empty() {
        let _ = writeln!(md, "\n### Probed answers (Backspace changes them)\n");
        for a in probed {
            let _ = writeln!(
                md,
                "- {} **{}**",
                one_line(&a.question.text),
                one_line(&a.option.label)
            );
            for e in a.source.evidence() {
                let _ = writeln!(md, "  - {}", code_span(e));
            }
        }
    } else if question.probe.is_some()
        && let Some(hint) = probe_hint
    {
        let _ = writeln!(md, "\n{hint}");
    }
    if !question.evidence.is_empty() {
        let _ = writeln!(md, "\n### Read more\n");
        for e in &question.evidence {
            let _ = writeln!(md, "- [{}]({})", names.evidence(e), destination(&e.link));
        }
    }
    md
}

/// How an outcome names related trees: as `decide:ID` links (the TUI opens
/// them) or as the `lore decide ID` command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelatedAs {
    Links,
    Commands,
}

/// An outcome: verdict first, then how the answers led here, the
/// explanation, the commands, the evidence and related trees.
pub fn outcome_page(
    session: &Session,
    outcome: &Outcome,
    names: &Names<'_>,
    related: RelatedAs,
) -> String {
    let mut md = String::new();
    let _ = writeln!(md, "# {}\n", one_line(&outcome.title));
    let _ = writeln!(md, "**Verdict:** {}\n", one_line(&outcome.verdict));
    let history = session.history();
    if !history.is_empty() {
        let _ = writeln!(md, "## How we got here\n");
        for (i, step) in history.iter().enumerate() {
            let _ = writeln!(
                md,
                "{}. {} — **{}**{}",
                i + 1,
                one_line(&step.question.text),
                one_line(&step.option.label),
                if step.source.is_probe() {
                    " (probed)"
                } else {
                    ""
                }
            );
            for e in step.source.evidence() {
                let _ = writeln!(md, "   - {}", code_span(e));
            }
        }
        md.push('\n');
    }
    if !outcome.body.trim().is_empty() {
        let _ = writeln!(md, "## Why\n\n{}\n", outcome.body.trim_end());
    }
    if !outcome.actions.is_empty() {
        let _ = writeln!(md, "## What to do\n");
        for action in &outcome.actions {
            let code = action.code.trim_end_matches('\n');
            let fence = fence_for(code);
            let _ = writeln!(
                md,
                "{}:\n\n{fence}{}\n{code}\n{fence}\n",
                one_line(&action.label),
                one_line(&action.lang)
            );
        }
    }
    if !outcome.evidence.is_empty() {
        let _ = writeln!(md, "## Evidence\n");
        for e in &outcome.evidence {
            let _ = writeln!(md, "- [{}]({})", names.evidence(e), destination(&e.link));
        }
        md.push('\n');
    }
    if !outcome.related.is_empty() {
        let _ = writeln!(md, "## Related decisions\n");
        for r in &outcome.related {
            let _ = match related {
                RelatedAs::Links => writeln!(
                    md,
                    "- [{}]({TREE_SCHEME}{})",
                    names.tree(&r.tree),
                    destination(&r.tree)
                ),
                RelatedAs::Commands => writeln!(
                    md,
                    "- {}: {}",
                    names.tree(&r.tree),
                    code_span(&format!("lore decide {}", r.tree))
                ),
            };
        }
    }
    md
}

/// Text as one inline code span, whatever backticks it holds.
fn code_span(text: &str) -> String {
    format!("`{}`", one_line(text).replace('`', "'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indented_lines_become_one_code_block_with_their_relative_indent() {
        let text = "\nRun this:\n  docker run x \\\n    sh -c 'a'\n  pip check   # names it\nthen read `x`.\n";
        assert_eq!(
            tree_text(text),
            "Run this:\n\n```bash\ndocker run x \\\n  sh -c 'a'\npip check   # names it\n```\n\nthen read `x`.\n"
        );
    }

    #[test]
    fn a_fence_is_longer_than_any_backticks_in_the_code() {
        let md = tree_text("  echo ```\n");
        assert!(md.contains("````bash\necho ```\n````"), "{md}");
    }

    #[test]
    fn link_text_and_destinations_cannot_break_out() {
        assert_eq!(link_text("a ] b [c"), "a ' b 'c");
        assert_eq!(destination("x y(1).md"), "x%20y%281%29.md");
        assert_eq!(tree_link("decide:need-cupti"), Some("need-cupti"));
        assert_eq!(tree_link("decide:"), None);
        assert_eq!(tree_link("https://x"), None);
    }
}
