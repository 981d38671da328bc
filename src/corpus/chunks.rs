//! Big documents parsed a part at a time. pulldown-cmark builds a tree of all
//! of a text's blocks before it yields the first event; for a document of
//! many short blocks (one-line paragraphs, list items, table rows) that tree
//! alone took 7 to 13 times the text. A body longer than four times
//! [`PART_BYTES`] is therefore cut into parts of about that size, parsed
//! one after another:
//!
//! - where a block starts at the left margin after a blank line, or at the
//!   next item of a list whose items sit at the margin;
//! - between the rows of a long table, each later part repeating the
//!   table's header, which the reader then sees again every few thousand
//!   rows;
//! - never inside fenced code or an HTML comment.
//!
//! Link reference definitions apply to the whole document, so each part
//! resolves the ones it lacks from a scan of all of them. A shorter body
//! (every document people write) is one part and parses as before.

use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;

use pulldown_cmark::{BrokenLink, CowStr, Event, Parser};

use super::fences::Fence;

/// A body longer than four times this is parsed in parts of about this
/// size: small enough that a part's parse tree and, for a table, its rows
/// stay well below the rendered document.
pub const PART_BYTES: usize = 64 * 1024;

/// One part of a body.
#[derive(Debug)]
pub struct Chunk<'a> {
    pub text: Cow<'a, str>,
    /// Where `text` (after any header) starts in the body.
    offset: usize,
    /// A table part's repeated header: its length at the start of `text`
    /// and where it starts in the body.
    header: Option<(usize, usize)>,
}

impl Chunk<'_> {
    /// Where byte `at` of this part's text is in the body.
    pub fn body_offset(&self, at: usize) -> usize {
        match self.header {
            Some((len, start)) if at < len => start + at,
            Some((len, _)) => self.offset + (at - len),
            None => self.offset + at,
        }
    }
}

/// `body` in parts of about `limit` bytes if it is longer than four times
/// that (see the module documentation).
pub fn chunks(body: &str, limit: usize) -> Vec<Chunk<'_>> {
    if body.len() <= limit.saturating_mul(4) {
        return vec![part(body, 0, body.len(), None)];
    }
    let mut out = Vec::new();
    let mut scan = Scan::default();
    // The part being collected: where it starts, and its table header.
    let mut start = 0;
    let mut start_header: Option<(usize, usize)> = None;
    let mut previous: Option<&str> = None;
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        if at - start >= limit
            && let Some(cut) = scan.cut_before(line, previous)
        {
            out.push(part(body, start, at, start_header));
            start = at;
            start_header = match cut {
                Cut::Block => None,
                Cut::TableRow => scan.table,
            };
        }
        scan.take(line, previous, at);
        previous = Some(line);
        at += line.len();
    }
    out.push(part(body, start, body.len(), start_header));
    out
}

fn part(body: &str, start: usize, end: usize, header: Option<(usize, usize)>) -> Chunk<'_> {
    match header {
        None => Chunk {
            text: Cow::Borrowed(&body[start..end]),
            offset: start,
            header: None,
        },
        Some((from, to)) => {
            let mut text = String::with_capacity(to - from + end - start);
            text.push_str(&body[from..to]);
            text.push_str(&body[start..end]);
            Chunk {
                text: Cow::Owned(text),
                offset: start,
                header: Some((to - from, from)),
            }
        }
    }
}

enum Cut {
    /// Before a block at the margin.
    Block,
    /// Between two rows of a table; the next part repeats its header.
    TableRow,
}

/// What the lines so far leave open.
#[derive(Default)]
struct Scan {
    /// An open code fence.
    fence: Option<Fence>,
    /// Inside an HTML comment.
    comment: bool,
    /// Inside a table at the margin: its header and delimiter row, as a
    /// byte range of the body.
    table: Option<(usize, usize)>,
}

impl Scan {
    /// Whether a part may end before `line`, and how.
    fn cut_before(&self, line: &str, previous: Option<&str>) -> Option<Cut> {
        if self.fence.is_some() || self.comment {
            return None;
        }
        let previous = previous?;
        if self.table.is_some() {
            // After a row, so no part is a header alone.
            let between_rows = line.starts_with('|') && !is_delimiter_row(previous);
            return between_rows.then_some(Cut::TableRow);
        }
        let at_margin = line.starts_with(|c: char| !c.is_whitespace());
        if at_margin && is_blank(previous) {
            return Some(Cut::Block);
        }
        let item = list_marker(line)?;
        (list_marker(previous) == Some(item)).then_some(Cut::Block)
    }

    /// Takes `line` (starting at byte `at` of the body) into the state.
    fn take(&mut self, line: &str, previous: Option<&str>, at: usize) {
        if let Some(fence) = self.fence {
            if fence.closed_by(line) {
                self.fence = None;
            }
            return;
        }
        if let Some(fence) = Fence::opened_by(line) {
            self.fence = Some(fence);
            self.table = None;
            return;
        }
        if let Some(open) = line.rfind("<!--") {
            self.comment = !line[open..].contains("-->");
        } else if self.comment && line.contains("-->") {
            self.comment = false;
        }
        if is_blank(line) {
            self.table = None;
        } else if self.table.is_none()
            && is_delimiter_row(line)
            && let Some(header) = previous
            && header.starts_with('|')
        {
            self.table = Some((at - header.len(), at + line.len()));
        }
    }
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// A table's delimiter row at the margin: `|---|:--:|`.
fn is_delimiter_row(line: &str) -> bool {
    let line = line.trim_end();
    line.starts_with('|')
        && line.contains('-')
        && line
            .chars()
            .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'))
}

/// The kind of list item `line` starts at the margin: `-`, `*` or `+`, or
/// `.` or `)` after digits.
pub(crate) fn list_marker(line: &str) -> Option<char> {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &line[digits..];
    let mut chars = rest.chars();
    let marker = chars.next()?;
    let bullet = digits == 0 && matches!(marker, '-' | '*' | '+');
    let number = (1..=9).contains(&digits) && matches!(marker, '.' | ')');
    ((bullet || number) && chars.next().is_some_and(|c| c == ' ' || c == '\t')).then_some(marker)
}

/// Link reference definitions by normalized label: destination and title.
pub type Definitions = HashMap<String, (String, String)>;

/// The definitions the parts of `body` share (none when it is one part,
/// which sees its own).
pub fn shared_definitions(body: &str, parts: &[Chunk<'_>]) -> Definitions {
    if parts.len() > 1 {
        reference_definitions(body)
    } else {
        Definitions::new()
    }
}

/// The events of one part with their byte ranges in its text; a reference
/// the part does not define is looked up in `definitions`.
pub fn events<'a>(
    part: &'a Chunk<'_>,
    definitions: &'a Definitions,
) -> impl Iterator<Item = (Event<'a>, Range<usize>)> + 'a {
    let defined = move |link: BrokenLink<'a>| {
        definitions
            .get(&normalize_label(&link.reference))
            .map(|(dest, title)| (CowStr::from(dest.clone()), CowStr::from(title.clone())))
    };
    Parser::new_with_broken_link_callback(&part.text, super::markdown_options(), Some(defined))
        .into_offset_iter()
}

/// Link reference definitions (`[label]: destination "title"`) written on
/// one line at the margin, by normalized label, for parts that use a label
/// another part defines. The first definition of a label wins, as in
/// CommonMark.
fn reference_definitions(body: &str) -> Definitions {
    let mut out = HashMap::new();
    let mut fence: Option<Fence> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if open.closed_by(line) {
                fence = None;
            }
            continue;
        }
        if let Some(open) = Fence::opened_by(line) {
            fence = Some(open);
            continue;
        }
        if line.len() - trimmed.len() > 3 {
            continue;
        }
        let Some((label, rest)) = trimmed.strip_prefix('[').and_then(|r| r.split_once("]:")) else {
            continue;
        };
        if label.starts_with('^') || label.trim().is_empty() {
            continue;
        }
        let rest = rest.trim();
        let (dest, title) = match rest.split_once(char::is_whitespace) {
            Some((dest, title)) => (dest, title.trim()),
            None => (rest, ""),
        };
        if dest.is_empty() {
            continue;
        }
        let dest = dest
            .strip_prefix('<')
            .and_then(|d| d.strip_suffix('>'))
            .unwrap_or(dest);
        let title = title
            .strip_prefix(['"', '\'', '('])
            .map_or(title, |t| &t[..t.len().saturating_sub(1)]);
        out.entry(normalize_label(label))
            .or_insert_with(|| (dest.to_string(), title.to_string()));
    }
    out
}

/// A reference label as CommonMark matches it: case-folded, inner
/// whitespace collapsed.
fn normalize_label(label: &str) -> String {
    label
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(body: &str, limit: usize) -> Vec<String> {
        chunks(body, limit)
            .into_iter()
            .map(|c| c.text.into_owned())
            .collect()
    }

    #[test]
    fn a_short_body_is_one_part() {
        let body = "# Title\n\ntext\n";
        assert_eq!(texts(body, PART_BYTES), [body]);
        assert_eq!(texts(body, body.len().div_ceil(4)), [body]);
    }

    #[test]
    fn parts_end_before_blocks_at_the_margin_and_never_inside_fences() {
        let body = "one\n\n```\ncode\n\nmore code\n```\n\ntwo\n\n  indented\n\nthree\n";
        assert_eq!(
            texts(body, 1),
            [
                "one\n\n",
                "```\ncode\n\nmore code\n```\n\n",
                "two\n\n  indented\n\n",
                "three\n"
            ]
        );
        let comment = "a\n\n<!-- x\n\ny -->\n\nb\n";
        assert_eq!(texts(comment, 1), ["a\n\n", "<!-- x\n\ny -->\n\n", "b\n"]);
    }

    #[test]
    fn tight_lists_are_cut_between_items_of_one_kind() {
        let body = "- a\n- b\n  more\n- c\n1. d\n2. e\n";
        assert_eq!(
            texts(body, 1),
            ["- a\n", "- b\n  more\n- c\n1. d\n", "2. e\n"]
        );
    }

    #[test]
    fn a_long_table_repeats_its_header_in_every_part() {
        let body = "intro\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\nafter\n";
        let parts = chunks(body, 1);
        let shown: Vec<&str> = parts.iter().map(|c| c.text.as_ref()).collect();
        assert_eq!(
            shown,
            [
                "intro\n\n",
                "| a | b |\n|---|---|\n| 1 | 2 |\n",
                "| a | b |\n|---|---|\n| 3 | 4 |\n\n",
                "after\n"
            ]
        );
        // Offsets in a part map back into the body, header included.
        let third = &parts[2];
        let header = body.find("| a").unwrap();
        assert_eq!(third.body_offset(0), header);
        let row = third.text.find("| 3").unwrap();
        assert_eq!(third.body_offset(row), body.find("| 3").unwrap());
        assert_eq!(parts[3].body_offset(0), body.find("after").unwrap());
    }

    #[test]
    fn reference_definitions_are_found_outside_code() {
        let body = "[One]: https://a.example \"A\"\n```\n[two]: https://b.example\n```\n  [Three  Words]: <https://c.example>\n[^note]: a footnote\n";
        let defs = reference_definitions(body);
        assert_eq!(
            defs.get("one"),
            Some(&("https://a.example".to_string(), "A".to_string()))
        );
        assert!(!defs.contains_key("two"));
        assert_eq!(defs["three words"].0, "https://c.example");
        assert_eq!(defs.len(), 2);
    }
}
