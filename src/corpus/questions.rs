//! Section questions: what a user would ask, in their own words, that a
//! section answers. They sit in an HTML comment directly under the heading,
//! which every Markdown viewer hides:
//!
//! ```markdown
//! ## Finding which process holds the GPU
//!
//! <!-- questions
//! - How do I see which program is using my GPU memory?
//! - nvidia-smi shows memory used but no processes, why?
//! -->
//! ```
//!
//! Search indexes them as a field of their own (a user's words are seldom
//! the knowledge's words), the reader never shows them, and `lore check`
//! reports a block that breaks the form. This module only reads the blocks
//! the parser found; it never renders or scores anything.

use super::Section;

/// What the first line of a block says after `<!--`.
const OPENING: &str = "<!-- questions";
/// The line that closes a block.
const CLOSING: &str = "-->";
/// How many questions a block holds.
pub const COUNT: std::ops::RangeInclusive<usize> = 2..=5;
/// How long a question is, in characters.
pub const LENGTH: std::ops::RangeInclusive<usize> = 12..=160;

/// One question of a section, and the file line it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub text: String,
    pub line: usize,
}

/// A questions block as found in a file: where it is, the section it is in,
/// its questions, and what is wrong with it (for `lore check`). A block that
/// breaks the rules still gives its questions to its section: search works
/// while an author fixes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QuestionBlock {
    /// Line of `<!-- questions`.
    pub line: usize,
    /// Line of the closing `-->` (or the block's last line, when unclosed).
    pub end_line: usize,
    /// The section the block is in (by line); `None` before the first heading.
    pub section: Option<usize>,
    pub questions: Vec<Question>,
    /// Line and reason for each rule the block breaks.
    pub problems: Vec<(usize, String)>,
}

/// True for an HTML comment meant as a questions block: `<!--`, then
/// `questions` (well formed or not; `lore check` says which).
pub fn is_questions_comment(html: &str) -> bool {
    html.trim_start()
        .strip_prefix("<!--")
        .is_some_and(|rest| rest.trim_start().starts_with("questions"))
}

/// Reads one HTML block that [`is_questions_comment`], starting at file line
/// `line`: its questions and the problems of its own text. Placement is
/// judged by [`place`], which sees the sections.
pub fn read_block(html: &str, line: usize) -> QuestionBlock {
    let mut block = QuestionBlock {
        line,
        end_line: line,
        section: None,
        questions: Vec::new(),
        problems: Vec::new(),
    };
    let mut rows = html.lines().map(|l| l.strip_suffix('\r').unwrap_or(l));
    let first = rows.next().unwrap_or_default().trim();
    if first != OPENING {
        let why = if first.ends_with(CLOSING) {
            "a questions block is several lines: `<!-- questions`, one `- ` line per question, then `-->` on a line of its own"
        } else {
            "a questions block opens with the line `<!-- questions` and nothing else on it"
        };
        block.problems.push((line, why.to_string()));
    }
    let mut closed = first.ends_with(CLOSING) && first != OPENING;
    for (i, row) in rows.enumerate() {
        let at = line + 1 + i;
        block.end_line = at;
        if closed {
            break;
        }
        let trimmed = row.trim();
        if trimmed == CLOSING {
            closed = true;
            continue;
        }
        let Some(question) = row.trim_start().strip_prefix("- ") else {
            let why = if trimmed.is_empty() {
                "a blank line inside a questions block: one `- ` line per question and nothing else"
                    .to_string()
            } else if trimmed.ends_with(CLOSING) {
                "`-->` goes on a line of its own after the last question".to_string()
            } else {
                "each line of a questions block is `- ` followed by a question".to_string()
            };
            block.problems.push((at, why));
            continue;
        };
        let text = question.trim().to_string();
        if let Some(why) = question_problem(&text) {
            block.problems.push((at, why));
        }
        if let Some(earlier) = block
            .questions
            .iter()
            .find(|q| q.text.eq_ignore_ascii_case(&text))
        {
            block
                .problems
                .push((at, format!("the same question as line {}", earlier.line)));
            continue;
        }
        block.questions.push(Question { text, line: at });
    }
    if !closed {
        block.problems.push((
            line,
            "this questions block is never closed: end it with a line `-->`".to_string(),
        ));
    }
    let count = block.questions.len();
    if !COUNT.contains(&count) {
        block.problems.push((
            line,
            format!(
                "a questions block holds {} to {} questions; this one has {count}",
                COUNT.start(),
                COUNT.end()
            ),
        ));
    }
    block
}

/// Why one question breaks the form, if it does: its length, its final
/// `?`, Markdown markup other than backticks.
fn question_problem(text: &str) -> Option<String> {
    let chars = text.chars().count();
    if !LENGTH.contains(&chars) {
        return Some(format!(
            "a question is {} to {} characters long; this one has {chars}",
            LENGTH.start(),
            LENGTH.end()
        ));
    }
    if !text.ends_with('?') {
        return Some("a question ends with `?`".to_string());
    }
    if text.matches('`').count() % 2 == 1 {
        return Some("a backtick in this question is never closed".to_string());
    }
    markup(text)
        .map(|found| format!("{found} in a question: no Markdown but backticks (for identifiers)"))
}

/// The Markdown markup a question would render with, other than code
/// spans: emphasis, a link, an image, HTML, a heading or a list. Read by the
/// same parser as the knowledge, so `CUDA_HOME`, `nvidia-*` or a lone `__`
/// (no emphasis without its pair) are plain text.
fn markup(text: &str) -> Option<&'static str> {
    use pulldown_cmark::{Event, Parser, Tag};
    for event in Parser::new_ext(text, super::markdown_options()) {
        let found = match event {
            Event::Start(Tag::Paragraph) => continue,
            Event::Start(Tag::Emphasis | Tag::Strong) => "emphasis",
            Event::Start(Tag::Strikethrough) => "strikethrough",
            Event::Start(Tag::Link { .. }) => "a link",
            Event::Start(Tag::Image { .. }) => "an image",
            Event::Html(_) | Event::InlineHtml(_) => "HTML",
            Event::Start(_) => "a block (heading, list or quote)",
            _ => continue,
        };
        return Some(found);
    }
    None
}

/// Finds each block's section and judges where it stands: directly under
/// the heading (blank lines only between), at most one per section, not
/// before the first heading, not inside a list or a quote. Then gives each
/// section the questions of its blocks. `line_text(n)` is file line `n`.
pub fn place<'t>(
    blocks: &mut [QuestionBlock],
    sections: &mut [Section],
    line_text: impl Fn(usize) -> &'t str,
) {
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for block in blocks.iter_mut() {
        let section = sections.iter().rposition(|s| s.line < block.line);
        block.section = section;
        let Some(index) = section else {
            block.problems.push((
                block.line,
                "a questions block goes directly under the heading of the section it is about; this one is before the first heading".to_string(),
            ));
            continue;
        };
        let heading = &sections[index];
        if !line_text(block.line).starts_with("<!--") {
            block.problems.push((
                block.line,
                "a questions block starts at the beginning of its line, outside lists and quotes"
                    .to_string(),
            ));
        } else if ((heading.line + 1)..block.line).any(|n| !line_text(n).trim().is_empty()) {
            block.problems.push((
                block.line,
                format!(
                    "a questions block is the first thing under its heading (line {}): move it above the section's text",
                    heading.line
                ),
            ));
        }
        if let Some(&(_, first)) = seen.iter().find(|(s, _)| *s == index) {
            block.problems.push((
                block.line,
                format!("a second questions block in this section (line {first} has one)"),
            ));
        } else {
            seen.push((index, block.line));
        }
        sections[index]
            .questions
            .extend(block.questions.iter().cloned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_well_formed_block_has_its_questions_and_lines() {
        let b = read_block(
            "<!-- questions\n- How do I see which program uses the GPU?\n- Why is `nvidia-smi` empty in a container?\n-->\n",
            7,
        );
        assert!(b.problems.is_empty(), "{:?}", b.problems);
        assert_eq!(b.end_line, 10);
        let got: Vec<(&str, usize)> = b
            .questions
            .iter()
            .map(|q| (q.text.as_str(), q.line))
            .collect();
        assert_eq!(
            got,
            vec![
                ("How do I see which program uses the GPU?", 8),
                ("Why is `nvidia-smi` empty in a container?", 9)
            ]
        );
    }

    #[test]
    fn each_rule_names_its_line() {
        let b = read_block(
            "<!-- questions\n- short?\n- Is this **bold** allowed here?\n- No question mark at the end\n\n- Is this **bold** allowed here?\n",
            1,
        );
        let lines: Vec<usize> = b.problems.iter().map(|p| p.0).collect();
        assert_eq!(lines, vec![2, 3, 4, 5, 6, 6, 1], "{:?}", b.problems);
        assert!(b.problems[6].1.contains("never closed"));
        let one_line = read_block("<!-- questions - Why? -->", 3);
        assert!(one_line.problems[0].1.contains("several lines"));
    }

    #[test]
    fn identifiers_are_not_markup() {
        for plain in [
            "Why is CUDA_HOME unset in my venv?",
            "What does `__nv_bfloat16` need?",
            "Should I use __trap() or assert to stop a kernel?",
            "Where do nvidia-*-cu12 wheels put their libraries?",
            "How do ** and ! patterns work in .dockerignore?",
            "Is a < b a problem?",
        ] {
            assert_eq!(markup(plain), None, "{plain}");
        }
        for (marked, what) in [
            ("What does *this* mean here?", "emphasis"),
            ("How do I call a __device__ function?", "emphasis"),
            ("Where is [the doc](x.md) for it?", "a link"),
            ("Is <b>this</b> allowed?", "HTML"),
            (
                "# Is a heading a question?",
                "a block (heading, list or quote)",
            ),
        ] {
            assert_eq!(markup(marked), Some(what), "{marked}");
        }
    }

    #[test]
    fn only_questions_comments_are_blocks() {
        assert!(is_questions_comment("<!-- questions\n"));
        assert!(is_questions_comment("<!--questions: x -->"));
        assert!(!is_questions_comment("<!-- TODO: questions -->"));
        assert!(!is_questions_comment("<div>questions</div>"));
    }
}
