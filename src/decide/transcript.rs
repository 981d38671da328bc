//! A session as Markdown, to paste into a bug report or a pull request: the
//! tree, the date, each question with the answer and why it mattered, then the
//! outcome with its actions as fenced code and its evidence links. Tree text is
//! untrusted, so every string from the tree passes through `text::sanitize`
//! here; a transcript can be `cat` to a terminal safely.

use std::fmt::Write;

use super::markdown::fence_for;
use super::session::{Session, Step};
use crate::text::{one_line, sanitize};

impl Session {
    /// The session so far as Markdown. `date` is printed as given (`YYYY-MM-DD`
    /// from [`super::today`] in practice), so output is reproducible in tests.
    pub fn transcript(&self, date: &str) -> String {
        let tree = self.tree();
        let mut md = String::new();
        // Writing into a String cannot fail.
        let _ = writeln!(md, "# {}\n", one_line(&tree.title));
        let _ = writeln!(
            md,
            "- Decision tree: `{}` — {}",
            tree.id,
            one_line(&tree.summary)
        );
        let _ = writeln!(md, "- Date: {date}");
        let status = match self.current() {
            Step::Outcome(o) => format!("outcome `{}` reached", o.id),
            Step::Question(q) => format!("in progress, at question `{}`", q.id),
        };
        let _ = writeln!(md, "- Status: {status}");

        let history = self.history();
        if !history.is_empty() {
            let _ = writeln!(md, "\n## How we got here\n");
            for (i, step) in history.iter().enumerate() {
                let _ = writeln!(md, "{}. **{}**", i + 1, one_line(&step.question.text));
                let _ = writeln!(
                    md,
                    "   - Answer: {} (`{}`)",
                    one_line(&step.option.label),
                    step.option.id
                );
                if step.source.is_probe() {
                    let evidence: Vec<String> = step
                        .source
                        .evidence()
                        .iter()
                        .map(|e| format!("`{}`", one_line(e).replace('`', "'")))
                        .collect();
                    let _ = writeln!(md, "   - Probed from: {}", evidence.join(", "));
                }
                let _ = writeln!(
                    md,
                    "   - Why it matters: {}",
                    indented(&step.question.why, 5)
                );
            }
        }

        match self.current() {
            Step::Outcome(o) => {
                let _ = writeln!(md, "\n## Outcome: {}\n", one_line(&o.title));
                let _ = writeln!(md, "**Verdict:** {}", one_line(&o.verdict));
                if !o.body.trim().is_empty() {
                    let _ = writeln!(md, "\n{}", sanitize(o.body.trim_end()));
                }
                if !o.actions.is_empty() {
                    let _ = writeln!(md, "\n### Actions");
                    for action in &o.actions {
                        let _ = writeln!(md, "\n{}:\n", one_line(&action.label));
                        let code = sanitize(action.code.trim_end_matches('\n'));
                        let fence = fence_for(&code);
                        let _ = writeln!(md, "{fence}{}\n{code}\n{fence}", one_line(&action.lang));
                    }
                }
                if !o.evidence.is_empty() {
                    let _ = writeln!(md, "\n### Evidence\n");
                    for e in &o.evidence {
                        let _ = writeln!(md, "- `{}`", one_line(&e.link));
                    }
                }
                if !o.related.is_empty() {
                    let _ = writeln!(md, "\n### Related decisions\n");
                    for r in &o.related {
                        let _ = writeln!(md, "- `lore decide {}`", one_line(&r.tree));
                    }
                }
            }
            Step::Question(q) => {
                let _ = writeln!(md, "\n## Next question\n");
                let _ = writeln!(md, "**{}**\n", one_line(&q.text));
                let _ = writeln!(md, "Why it matters: {}\n", indented(&q.why, 0));
                for option in &q.options {
                    let _ = writeln!(md, "- {} (`{}`)", one_line(&option.label), option.id);
                }
            }
        }
        md
    }
}

/// Multi-line text continued under a list item.
fn indented(text: &str, spaces: usize) -> String {
    let pad = " ".repeat(spaces);
    sanitize(text.trim())
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 || line.is_empty() {
                line.to_string()
            } else {
                format!("{pad}{line}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::session::tests::sample;

    #[test]
    fn transcript_of_a_finished_session() {
        let tree = sample();
        let mut s = Session::new(&tree);
        s.answer("first", "a").unwrap();
        s.answer("second", "right").unwrap();
        let md = s.transcript("2026-11-22");
        assert_eq!(
            md,
            "# Sample\n\n\
             - Decision tree: `sample` — Two questions\n\
             - Date: 2026-11-22\n\
             - Status: outcome `out-b` reached\n\
             \n## How we got here\n\n\
             1. **First?**\n   - Answer: A (`a`)\n   - Why it matters: It decides the branch\n\
             2. **Second?**\n   - Answer: Right (`right`)\n   - Why it matters: It decides the outcome\n\
             \n## Outcome: Outcome B\n\n\
             **Verdict:** B it is\n"
        );
    }

    #[test]
    fn transcript_in_progress_names_the_next_question() {
        let tree = sample();
        let s = Session::new(&tree);
        let md = s.transcript("2026-11-22");
        assert!(
            md.contains("- Status: in progress, at question `first`\n"),
            "{md}"
        );
        assert!(md.contains("\n## Next question\n\n**First?**\n"), "{md}");
        assert!(md.contains("- A (`a`)\n- B (`b`)\n"), "{md}");
        assert!(!md.contains("How we got here"));
    }

    #[test]
    fn probed_answers_carry_their_evidence() {
        let tree = sample();
        let mut s = Session::new(&tree);
        s.answer_from(
            "first",
            "a",
            crate::decide::AnswerSource::Probe {
                evidence: vec!["/etc/os-release:3".into()],
            },
        )
        .unwrap();
        s.answer("second", "left").unwrap();
        let md = s.transcript("2026-11-22");
        assert!(
            md.contains("   - Answer: A (`a`)\n   - Probed from: `/etc/os-release:3`\n"),
            "{md}"
        );
        assert_eq!(md.matches("Probed from").count(), 1, "{md}");
    }

    #[test]
    fn fences_outgrow_backticks_in_code() {
        assert_eq!(fence_for("echo hi"), "```");
        assert_eq!(fence_for("a ```` b"), "`````");
    }
}
