//! A rendered Markdown document in a window: what scrolling, `Tab` through
//! links, find, term highlighting and copying a code block work on. The
//! reader shows knowledge files in one; a decision tree's outcome is one too.
//! Pure state with no drawing; changed only from `App::update`.

use std::ops::Range;
use std::sync::Arc;

use unicode_width::UnicodeWidthChar;

use crate::corpus::Document;
use crate::markdown::{Rendered, RenderedCode, RenderedLink};

/// A stretch of one rendered line, in display columns: a find match or a
/// search term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Mark {
    pub line: usize,
    pub start: usize,
    pub end: usize,
}

#[derive(Debug, Clone)]
pub struct Page {
    pub doc: Arc<Document>,
    pub rendered: Arc<Rendered>,
    /// First rendered line on screen.
    pub top: usize,
    /// The focused link: an index into `rendered.links` (its first piece).
    pub focus: Option<usize>,
    /// Words from a search hit, highlighted wherever they occur.
    pub terms: Vec<String>,
    pub term_marks: Vec<Mark>,
}

impl Page {
    pub fn new(doc: Arc<Document>, rendered: Arc<Rendered>) -> Page {
        Page {
            doc,
            rendered,
            top: 0,
            focus: None,
            terms: Vec::new(),
            term_marks: Vec::new(),
        }
    }

    pub fn len(&self) -> usize {
        self.rendered.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rendered.lines.is_empty()
    }

    /// The largest `top` that still fills the window.
    pub fn max_top(&self, height: usize) -> usize {
        self.len().saturating_sub(height.max(1))
    }

    pub fn visible(&self, height: usize) -> Range<usize> {
        self.top..(self.top + height).min(self.len())
    }

    pub fn scroll_by(&mut self, delta: isize, height: usize) {
        let top = self.top as isize + delta;
        self.top = top.clamp(0, self.max_top(height) as isize) as usize;
    }

    pub fn scroll_to(&mut self, line: usize, height: usize) {
        self.top = line.min(self.max_top(height));
    }

    /// Scrolls only if `line` is off screen, then puts it a third of the way
    /// down, so what comes before it gives context.
    pub fn reveal(&mut self, line: usize, height: usize) {
        if !self.visible(height).contains(&line) {
            self.scroll_to(line.saturating_sub(height / 3), height);
        }
    }

    /// The file line at the top of the window, to come back to after a
    /// re-render at another width.
    pub fn source_line(&self) -> usize {
        self.rendered
            .source_lines
            .get(self.top)
            .map_or(1, |&line| line as usize)
    }

    /// Swaps in a new rendering (another width, or now highlighted), keeping
    /// the same file line at the top and the same link focused.
    /// A page read to its end stays at its end.
    pub fn rerendered(&mut self, rendered: Arc<Rendered>, height: usize) {
        let source = self.source_line();
        let focused = self.focused().map(|l| l.index);
        let at_end = self.top > 0 && self.top >= self.max_top(height);
        self.rendered = rendered;
        let line = if self.top == 0 {
            0
        } else if at_end {
            usize::MAX
        } else {
            self.rendered.line_for_source_line(source)
        };
        self.scroll_to(line, height);
        self.focus = focused.and_then(|i| self.rendered.links.iter().position(|l| l.index == i));
        self.term_marks = find_terms(&self.rendered, &self.terms);
    }

    pub fn set_terms(&mut self, terms: Vec<String>) {
        self.term_marks = find_terms(&self.rendered, &terms);
        self.terms = terms;
    }

    pub fn focused(&self) -> Option<&RenderedLink> {
        self.focus.and_then(|i| self.rendered.links.get(i))
    }

    /// First pieces of the links with a piece on screen, in screen order.
    pub fn links_on_screen(&self, height: usize) -> Vec<usize> {
        let visible = self.visible(height);
        self.link_firsts(|line| visible.contains(&line))
    }

    /// First pieces of the links with a piece on a line `wanted` accepts,
    /// in order.
    fn link_firsts(&self, wanted: impl Fn(usize) -> bool) -> Vec<usize> {
        let mut seen = Vec::new();
        let mut firsts = Vec::new();
        for (i, link) in self.rendered.links.iter().enumerate() {
            if wanted(link.line) && !seen.contains(&link.index) {
                seen.push(link.index);
                firsts.push(i);
            }
        }
        firsts
    }

    /// Moves the focus to the next (or previous) link on screen, wrapping
    /// around. Returns false when there is no link on screen.
    pub fn cycle_link(&mut self, forward: bool, height: usize) -> bool {
        let on_screen = self.links_on_screen(height);
        self.cycle_among(&on_screen, forward)
    }

    /// Moves the focus to the next (or previous) link anywhere in the page,
    /// wrapping around, and scrolls it into view: for a small panel, where
    /// the links are seldom on screen. Returns false when there is none.
    pub fn cycle_all_links(&mut self, forward: bool, height: usize) -> bool {
        let all = self.link_firsts(|_| true);
        if !self.cycle_among(&all, forward) {
            return false;
        }
        if let Some(line) = self.focused().map(|l| l.line)
            && !self.visible(height).contains(&line)
        {
            self.scroll_to(line.saturating_sub(height.saturating_sub(1) / 2), height);
        }
        true
    }

    /// Focuses the link after (or before) the focused one among `firsts`,
    /// wrapping around; the first (or last) when none of them is focused.
    fn cycle_among(&mut self, firsts: &[usize], forward: bool) -> bool {
        if firsts.is_empty() {
            self.focus = None;
            return false;
        }
        let current = self.focused().map(|l| l.index).and_then(|index| {
            firsts
                .iter()
                .position(|&i| self.rendered.links[i].index == index)
        });
        let n = firsts.len();
        let next = match (current, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(at), true) => (at + 1) % n,
            (Some(at), false) => (at + n - 1) % n,
        };
        self.focus = Some(firsts[next]);
        true
    }

    /// Code blocks with a line on screen, top first.
    pub fn code_on_screen(&self, height: usize) -> Vec<&RenderedCode> {
        let visible = self.visible(height);
        self.rendered
            .code_blocks
            .iter()
            .filter(|c| c.last_line >= visible.start && c.first_line < visible.end)
            .collect()
    }
}

/// The text of a rendered line with each character's display column.
fn columns(text: &str) -> Vec<(usize, char)> {
    let mut out = Vec::new();
    let mut col = 0;
    for c in text.chars() {
        out.push((col, c));
        col += c.width().unwrap_or(0);
    }
    out
}

/// Case-insensitive comparison that keeps one character for one character,
/// so positions in the folded text are positions in the line.
fn fold(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// Every occurrence of `needle` (case-insensitive) in the rendered lines.
/// Matches do not span lines.
pub fn find_all(rendered: &Rendered, needle: &str) -> Vec<Mark> {
    let needle: Vec<char> = needle.chars().map(fold).collect();
    if needle.is_empty() || needle.iter().all(|c| c.is_whitespace()) {
        return Vec::new();
    }
    let mut marks = Vec::new();
    for i in 0..rendered.lines.len() {
        let cols = columns(rendered.lines.text(i));
        if cols.len() < needle.len() {
            continue;
        }
        let folded: Vec<char> = cols.iter().map(|&(_, c)| fold(c)).collect();
        let mut at = 0;
        while at + needle.len() <= folded.len() {
            if folded[at..at + needle.len()] == needle[..] {
                let last = cols[at + needle.len() - 1];
                marks.push(Mark {
                    line: i,
                    start: cols[at].0,
                    end: last.0 + last.1.width().unwrap_or(0),
                });
                at += needle.len();
            } else {
                at += 1;
            }
        }
    }
    marks
}

/// Every occurrence of any of `terms`, sorted by position.
pub fn find_terms(rendered: &Rendered, terms: &[String]) -> Vec<Mark> {
    let mut marks: Vec<Mark> = terms.iter().flat_map(|t| find_all(rendered, t)).collect();
    marks.sort();
    marks.dedup();
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::markdown::{RenderOptions, render};
    use crate::sources::{Origin, SourceFile};
    use crate::theme::Theme;

    fn page(text: &str, width: u16) -> Page {
        let doc = Arc::new(Document::parse(SourceFile {
            rel: "cuda/a.md".into(),
            origin: Origin::Builtin,
            text: text.into(),
            stamp: None,
        }));
        let rendered = render(
            &doc,
            &RenderOptions {
                width,
                theme: &Theme::plain(),
                highlighter: None,
                wrap_code: true,
            },
        );
        Page::new(doc, Arc::new(rendered))
    }

    #[test]
    fn find_is_case_insensitive_and_counts_columns() {
        let p = page("# T\n\nlibcupti and LIBCUPTI — libcupti\n", 80);
        let marks = find_all(&p.rendered, "LibCupti");
        let line = marks[0].line;
        assert_eq!(marks.len(), 3);
        assert!(marks.iter().all(|m| m.line == line));
        assert_eq!((marks[0].start, marks[0].end), (0, 8));
        assert_eq!((marks[1].start, marks[1].end), (13, 21));
        assert_eq!((marks[2].start, marks[2].end), (24, 32));
        assert!(find_all(&p.rendered, "  ").is_empty());
    }

    #[test]
    fn tab_cycles_the_links_on_screen_and_wraps() {
        let text = "# T\n\n[a](b.md) and [c](https://x.org)\n\n".to_string()
            + &"filler\n\n".repeat(30)
            + "[far](d.md)\n";
        let mut p = page(&text, 80);
        assert_eq!(p.links_on_screen(10).len(), 2);
        assert!(p.cycle_link(true, 10));
        assert_eq!(p.focused().unwrap().text, "a");
        p.cycle_link(true, 10);
        assert_eq!(p.focused().unwrap().text, "c");
        p.cycle_link(true, 10);
        assert_eq!(p.focused().unwrap().text, "a");
        p.cycle_link(false, 10);
        assert_eq!(p.focused().unwrap().text, "c");
        p.scroll_to(20, 10);
        assert!(!p.cycle_link(true, 10), "no link on lines 20..30");
    }

    #[test]
    fn a_narrower_rendering_keeps_the_file_line_at_the_top() {
        let text = "# T\n\n".to_string() + &"word ".repeat(200) + "\n\n## Later\n\nend\n";
        let mut wide = page(&text, 100);
        let later = wide.rendered.line_for_anchor("later").unwrap();
        wide.scroll_to(later, 3);
        let narrow = page(&text, 30);
        wide.rerendered(Arc::clone(&narrow.rendered), 3);
        assert_eq!(Some(wide.top), narrow.rendered.line_for_anchor("later"));
    }

    /// Colours arriving (or any re-render) while the end of a page is on
    /// screen keep it there, even when the top line was the second half of
    /// a wrapped code line.
    #[test]
    fn a_page_read_to_its_end_stays_there_when_rendered_again() {
        let text = "# T\n\n".to_string()
            + &"line\n\n".repeat(30)
            + "```bash\n"
            + &"echo word ".repeat(30)
            + "\n```\n";
        let mut p = page(&text, 40);
        let height = 3;
        p.scroll_to(usize::MAX, height);
        // The window starts inside the wrapped command.
        assert!(
            p.rendered.lines.text(p.top).starts_with('↪'),
            "{}",
            p.rendered.lines.text(p.top)
        );
        let again = page(&text, 40);
        p.rerendered(Arc::clone(&again.rendered), height);
        assert_eq!(p.top, p.max_top(height));
    }

    #[test]
    fn scrolling_stops_at_the_ends() {
        let mut p = page(&"line\n\n".repeat(50), 40);
        p.scroll_by(-5, 10);
        assert_eq!(p.top, 0);
        p.scroll_by(1000, 10);
        assert_eq!(p.top, p.len() - 10);
        p.reveal(3, 10);
        assert_eq!(p.top, 0);
    }
}
