//! Word wrapping by display width: a run of styled text becomes lines no wider
//! than the width. CJK and emoji count two columns. A word narrower than the
//! width is never split; only a word wider than the whole width (a long URL,
//! a path) is broken, at grapheme boundaries, never inside an escape such as
//! `^[` or `<U+2066>` (`text::units`). Whitespace collapses to one
//! space and disappears at line ends, as in any Markdown viewer.
//!
//! Text given here must already be sanitized: this module measures, it does
//! not filter.

use std::borrow::Cow;

use ratatui::style::Style;
use ratatui::text::Span;
use unicode_segmentation::UnicodeSegmentation;
use unicode_width::UnicodeWidthStr;

use crate::text::units;

/// A piece of inline text with one style, maybe part of a link.
#[derive(Debug, Clone)]
pub struct Frag {
    pub text: String,
    pub style: Style,
    /// Index of the link this text belongs to (see `Rendered::links`).
    pub link: Option<usize>,
    /// The file line the text came from.
    pub source: usize,
    /// Kept on one line when it fits the width (inline code: a command, a
    /// path, an anchor); broken at its spaces only when it cannot fit.
    pub whole: bool,
}

/// Inline content: text, or a forced line break.
#[derive(Debug, Clone)]
pub enum Inline {
    Text(Frag),
    Break,
}

/// One wrapped line.
#[derive(Debug, Clone, Default)]
pub struct WrappedLine {
    pub spans: Vec<Span<'static>>,
    pub width: usize,
    /// Column ranges `[start, end)` covered by each link, in link order.
    pub links: Vec<(usize, usize, usize)>,
    /// File line of the first text on the line (0 when the line is empty).
    pub source: usize,
}

impl WrappedLine {
    fn push(&mut self, text: &str, width: usize, style: Style, link: Option<usize>, source: usize) {
        if text.is_empty() {
            return;
        }
        if self.source == 0 {
            self.source = source;
        }
        if let Some(id) = link {
            let start = self.width;
            match self.links.last_mut() {
                Some((_, end, last)) if *last == id && *end == start => *end = start + width,
                _ => self.links.push((start, start + width, id)),
            }
        }
        self.width += width;
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(text),
            _ => self.spans.push(Span::styled(text.to_string(), style)),
        }
    }
}

impl WrappedLine {
    /// Drops trailing spaces (table padding, a trailing empty cell).
    pub fn trim_end(&mut self) {
        while let Some(last) = self.spans.last_mut() {
            let trimmed = last.content.trim_end_matches(' ').len();
            let removed = last.content.len() - trimmed;
            self.width -= removed;
            if trimmed == 0 {
                self.spans.pop();
            } else {
                last.content.to_mut().truncate(trimmed);
                break;
            }
        }
        for link in &mut self.links {
            link.1 = link.1.min(self.width);
        }
    }
}

/// `n` spaces, borrowed when short: padding and indentation are many of a
/// document's spans, and an allocation each cost more than the text.
pub fn spaces(n: usize) -> Cow<'static, str> {
    const SPACES: &str = "                                                                                                                                ";
    match SPACES.get(..n) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(" ".repeat(n)),
    }
}

/// Display width of a string, counted the way the wrapper counts it: the sum
/// of its graphemes' widths.
pub fn width(text: &str) -> usize {
    if text.is_ascii() {
        return text.bytes().filter(|b| !b.is_ascii_control()).count();
    }
    text.graphemes(true).map(UnicodeWidthStr::width).sum()
}

/// Whitespace that separates words. No-break spaces do not.
fn is_break_space(ch: char) -> bool {
    ch.is_whitespace() && !matches!(ch, '\u{a0}' | '\u{2007}' | '\u{202f}')
}

/// A word being assembled: pieces of possibly different styles with no
/// whitespace between them.
#[derive(Default)]
struct Word<'a> {
    pieces: Vec<(&'a str, usize, Style, Option<usize>, usize)>,
    width: usize,
}

impl Word<'_> {
    fn clear(&mut self) {
        self.pieces.clear();
        self.width = 0;
    }
}

struct Wrapper {
    width: usize,
    lines: Vec<WrappedLine>,
    current: WrappedLine,
    /// A space waiting to be placed before the next word on the same line.
    space: Option<(Style, Option<usize>)>,
}

impl Wrapper {
    fn new_line(&mut self) {
        let line = std::mem::take(&mut self.current);
        self.lines.push(line);
        self.space = None;
    }

    fn place(&mut self, word: &Word<'_>) {
        if word.width == 0 && word.pieces.is_empty() {
            return;
        }
        let room = self.width.saturating_sub(self.current.width);
        let space_width = usize::from(self.space.is_some() && self.current.width > 0);
        if self.current.width > 0 && space_width + word.width > room {
            self.new_line();
        } else if let Some((style, link)) = self.space.take()
            && self.current.width > 0
        {
            let source = word.pieces.first().map_or(0, |p| p.4);
            self.current.push(" ", 1, style, link, source);
        }
        self.space = None;
        if self.current.width + word.width <= self.width {
            for &(text, w, style, link, source) in &word.pieces {
                self.current.push(text, w, style, link, source);
            }
            return;
        }
        // Wider than the whole line: break it, after a `/`, `-`, `.` … late in
        // the line when there is one (paths and URLs), else anywhere.
        let cells: Vec<(&str, usize, Style, Option<usize>, usize)> = word
            .pieces
            .iter()
            .flat_map(|&(text, _, style, link, source)| {
                units(text).map(move |g| (g, UnicodeWidthStr::width(g), style, link, source))
            })
            .collect();
        let mut start = 0;
        while start < cells.len() {
            let room = self.width.saturating_sub(self.current.width);
            let mut end = start;
            let mut used = 0;
            while end < cells.len() && used + cells[end].1 <= room {
                used += cells[end].1;
                end += 1;
            }
            if end == start {
                if self.current.width > 0 {
                    self.new_line();
                    continue;
                }
                end = start + 1; // wider than the whole line: place it anyway
            } else if end < cells.len() {
                let half = start + (end - start) / 2;
                if let Some(i) = (half..end).rev().find(|&i| is_word_joint(cells[i].0)) {
                    end = i + 1;
                }
            }
            for &(g, w, style, link, source) in &cells[start..end] {
                self.current.push(g, w, style, link, source);
            }
            start = end;
            if start < cells.len() {
                self.new_line();
            }
        }
    }
}

/// Places inside a long word where a break reads naturally.
fn is_word_joint(grapheme: &str) -> bool {
    matches!(
        grapheme,
        "/" | "-" | "_" | "." | "," | ":" | ";" | "=" | "&" | "?"
    )
}

/// Wraps inline content to `width` columns (at least 1).
pub fn wrap(inlines: &[Inline], width: usize) -> Vec<WrappedLine> {
    let mut wrapper = Wrapper {
        width: width.max(1),
        lines: Vec::new(),
        current: WrappedLine::default(),
        space: None,
    };
    let mut word = Word::default();
    let mut any = false;
    for inline in inlines {
        let frag = match inline {
            Inline::Break => {
                wrapper.place(&word);
                word.clear();
                wrapper.new_line();
                any = true;
                continue;
            }
            Inline::Text(frag) => frag,
        };
        if frag.whole && width_of(&frag.text) <= wrapper.width {
            let w = width_of(&frag.text);
            word.pieces
                .push((&frag.text, w, frag.style, frag.link, frag.source));
            word.width += w;
            any = true;
            continue;
        }
        let mut rest = frag.text.as_str();
        while !rest.is_empty() {
            let split = rest.find(is_break_space).unwrap_or(rest.len());
            if split > 0 {
                let (text, tail) = rest.split_at(split);
                let w = width_of(text);
                word.pieces
                    .push((text, w, frag.style, frag.link, frag.source));
                word.width += w;
                any = true;
                rest = tail;
            }
            if rest.is_empty() {
                break;
            }
            let end = rest.find(|c| !is_break_space(c)).unwrap_or(rest.len());
            wrapper.place(&word);
            word.clear();
            if wrapper.current.width > 0 {
                wrapper.space = Some((frag.style, frag.link));
            }
            rest = &rest[end..];
        }
    }
    wrapper.place(&word);
    if wrapper.current.width > 0 || !wrapper.current.spans.is_empty() {
        wrapper.new_line();
    }
    if !any {
        return Vec::new();
    }
    wrapper.lines
}

fn width_of(text: &str) -> usize {
    width(text)
}

/// Breaks one preformatted line (code, raw HTML) into pieces of at most
/// `width` columns. Each piece after the first is `width - mark_width` wide,
/// leaving room for a continuation mark. A break goes after the last space in
/// the second half of the piece when there is one, else mid-token (the mark
/// makes that visible).
pub fn break_preformatted(
    spans: &[Span<'static>],
    width: usize,
    mark_width: usize,
) -> Vec<Vec<Span<'static>>> {
    let width = width.max(mark_width + 1);
    let total: usize = spans.iter().map(|s| width_of(&s.content)).sum();
    if total <= width {
        return vec![spans.to_vec()];
    }
    // Graphemes with their style, to cut anywhere.
    let cells: Vec<(&str, usize, Style)> = spans
        .iter()
        .flat_map(|s| units(&s.content).map(move |g| (g, UnicodeWidthStr::width(g), s.style)))
        .collect();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut limit = width;
    while start < cells.len() {
        let mut used = 0;
        let mut end = start;
        while end < cells.len() && used + cells[end].1 <= limit {
            used += cells[end].1;
            end += 1;
        }
        if end == start {
            end = start + 1; // a grapheme wider than the room: place it anyway
        } else if end < cells.len() {
            // Prefer to break after a space in the second half of the piece.
            let half = start + (end - start) / 2;
            if let Some(space) = (half..end).rev().find(|&i| cells[i].0 == " ") {
                end = space + 1;
            }
        }
        pieces.push(collect_spans(&cells[start..end]));
        start = end;
        limit = width - mark_width;
    }
    pieces
}

fn collect_spans(cells: &[(&str, usize, Style)]) -> Vec<Span<'static>> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    for &(g, _, style) in cells {
        match spans.last_mut() {
            Some(last) if last.style == style => last.content.to_mut().push_str(g),
            _ => spans.push(Span::styled(g.to_string(), style)),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Inline {
        Inline::Text(Frag {
            text: s.to_string(),
            style: Style::new(),
            link: None,
            source: 1,
            whole: false,
        })
    }

    fn plain(lines: &[WrappedLine]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    #[test]
    fn words_are_never_split_when_they_fit() {
        let lines = wrap(&[text("the quick brown fox jumps over the lazy dog")], 10);
        assert_eq!(
            plain(&lines),
            vec!["the quick", "brown fox", "jumps over", "the lazy", "dog"]
        );
    }

    #[test]
    fn words_longer_than_the_width_are_broken() {
        let lines = wrap(&[text("see https://example.org/a/very/long/path ok")], 12);
        assert_eq!(
            plain(&lines),
            vec!["see", "https://", "example.org/", "a/very/long/", "path ok"]
        );
    }

    #[test]
    fn wide_characters_count_double() {
        let lines = wrap(&[text("漢字 漢字漢字 🚀🚀 ok")], 6);
        assert_eq!(plain(&lines), vec!["漢字", "漢字漢", "字", "🚀🚀", "ok"]);
        assert!(lines.iter().all(|l| l.width <= 6));
    }

    #[test]
    fn styles_join_within_a_word_and_links_get_columns() {
        let bold = Style::new().add_modifier(ratatui::style::Modifier::BOLD);
        let lines = wrap(
            &[
                text("a "),
                Inline::Text(Frag {
                    text: "link text".into(),
                    style: bold,
                    link: Some(0),
                    source: 2,
                    whole: false,
                }),
                text(", end"),
            ],
            80,
        );
        assert_eq!(plain(&lines), vec!["a link text, end"]);
        assert_eq!(lines[0].links, vec![(2, 11, 0)]);
        assert_eq!(lines[0].source, 1);
    }

    #[test]
    fn inline_code_stays_on_one_line_where_it_fits() {
        let code = |s: &str| {
            Inline::Text(Frag {
                text: s.into(),
                style: Style::new(),
                link: None,
                source: 1,
                whole: true,
            })
        };
        // Wider than the width: broken at its spaces, as other text.
        let lines = wrap(
            &[
                text("run "),
                code("lore decide devel-as-runtime"),
                text(" now"),
            ],
            20,
        );
        assert_eq!(
            plain(&lines),
            vec!["run lore decide", "devel-as-runtime now"]
        );
        let lines = wrap(&[text("then run "), code("lore decide x"), text(".")], 20);
        assert_eq!(plain(&lines), vec!["then run", "lore decide x."]);
    }

    #[test]
    fn hard_breaks_and_blank_input() {
        let lines = wrap(&[text("one"), Inline::Break, text("two")], 80);
        assert_eq!(plain(&lines), vec!["one", "two"]);
        assert!(wrap(&[], 10).is_empty());
    }

    #[test]
    fn preformatted_lines_break_at_spaces_late_in_the_piece() {
        let spans = vec![Span::raw("docker build --build-arg CUDA=12.4 -t image .")];
        let pieces = break_preformatted(&spans, 20, 2);
        let text: Vec<String> = pieces
            .iter()
            .map(|p| p.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(
            text,
            vec!["docker build ", "--build-arg ", "CUDA=12.4 -t ", "image ."]
        );
        let token = vec![Span::raw("x".repeat(25))];
        let pieces = break_preformatted(&token, 10, 2);
        assert_eq!(pieces.len(), 3); // 10 + 8 + 7 columns
    }

    /// Byte offsets where `text` may be cut: between its units.
    fn cuts(text: &str) -> Vec<usize> {
        let mut at = 0;
        let mut cuts = vec![0];
        for unit in crate::text::units(text) {
            at += unit.len();
            cuts.push(at);
        }
        cuts
    }

    #[test]
    fn escapes_are_never_split() {
        // An outcome title showed `^` at a line end and `[` on the next.
        let title = crate::text::sanitize("abcdefghi\x1b[31mred");
        let lines = wrap(&[text(&title)], 10);
        assert_eq!(plain(&lines), vec!["abcdefghi", "^[[31mred"]);
        let isolate = crate::text::sanitize("abcdefg\u{2066}txt");
        let lines = wrap(&[text(&isolate)], 10);
        assert_eq!(plain(&lines), vec!["abcdefg", "<U+2066>tx", "t"]);
        let pieces = break_preformatted(&[Span::raw(isolate.clone())], 10, 2);
        let pieces: Vec<String> = pieces
            .iter()
            .map(|p| p.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(pieces, vec!["abcdefg", "<U+2066>", "txt"]);
    }

    /// A character `sanitize` should have escaped. A joiner that spells a
    /// word stays raw, and a wrap may leave it at a line's end, where it
    /// still joins nothing visible.
    fn shown_raw_by_mistake(c: char) -> bool {
        crate::text::needs_escape(c) && !matches!(c, '\u{200c}' | '\u{200d}')
    }

    proptest::proptest! {
        /// Any text, sanitized, wraps into lines that hold no control or
        /// hidden character and cut it only between whole units.
        #[test]
        fn sanitized_text_wraps_into_whole_escapes(
            raw in "[a-z ^<>U+0-9\\x00-\\x1f\\x7f-\\u{9f}\\u{200b}-\\u{200f}\\u{2028}-\\u{202e}\\u{2060}-\\u{2069}\\u{feff}漢🚀]{0,60}",
            width in 1usize..24,
        ) {
            let safe = crate::text::sanitize(&raw);
            // Without spaces the lines put back together are the text.
            let word: String = safe.chars().filter(|c| !c.is_whitespace()).collect();
            let cuts = cuts(&word);
            let preformatted: Vec<String> = break_preformatted(&[Span::raw(word.clone())], width, 2)
                .iter()
                .map(|p| p.iter().map(|s| s.content.as_ref()).collect())
                .collect();
            for lines in [plain(&wrap(&[text(&word)], width)), preformatted] {
                proptest::prop_assert_eq!(lines.concat(), word.clone());
                let mut at = 0;
                for line in &lines {
                    proptest::prop_assert!(
                        !line.chars().any(|c| c.is_control() || shown_raw_by_mistake(c)),
                        "{:?}", line
                    );
                    at += line.len();
                    proptest::prop_assert!(cuts.contains(&at), "{:?} cut inside a unit: {:?}", word, lines);
                }
            }
            // With spaces: every line is whole units of the text.
            let folded = safe.split_whitespace().collect::<Vec<_>>().join(" ");
            for line in plain(&wrap(&[text(&safe)], width)) {
                proptest::prop_assert!(!line.chars().any(|c| c.is_control() || shown_raw_by_mistake(c)));
                proptest::prop_assert!(folded.contains(line.trim()), "{:?} not in {:?}", line, folded);
            }
        }
    }
}
