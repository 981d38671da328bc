//! The rendered lines of a document, kept compactly: one buffer holds the
//! text of every span end to end, each span is where its text ends and which
//! style it has (eight bytes), each line is where its spans end (four), and
//! each distinct style is stored once. A ratatui `Line` of `Span`s costs
//! 150–250 bytes of structure and an allocation per span before its text;
//! documents of many short lines took 30–55 times their size that way.
//!
//! `Line`s that borrow the buffer are made only when a line is drawn or
//! printed.

use std::collections::HashMap;
use std::ops::Range;

use ratatui::style::Style;
use ratatui::text::{Line, Span};

/// Rendered lines (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct Lines {
    /// Every span's text, end to end.
    text: String,
    /// Each span: where its text ends in `text`, and its style's place in
    /// `styles`.
    spans: Vec<(u32, u32)>,
    /// Each line: where its spans end in `spans`.
    ends: Vec<u32>,
    styles: Vec<Style>,
    style_ids: HashMap<Style, u32>,
}

impl Lines {
    /// Room for about `lines` lines holding `text` bytes in all, so that a
    /// big document's buffers are not copied as they grow.
    pub fn with_capacity(lines: usize, text: usize) -> Lines {
        Lines {
            text: String::with_capacity(text),
            spans: Vec::with_capacity(lines * 2),
            ends: Vec::with_capacity(lines),
            ..Lines::default()
        }
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends a line. Empty spans are dropped and neighbours of one style
    /// become one span, which draws the same. Text past 4 GiB in all (far
    /// beyond any document lore reads) is left out rather than wrapped
    /// around.
    pub fn push<'a>(&mut self, spans: impl IntoIterator<Item = Span<'a>>) {
        let first = self.ends.last().map_or(0, |&e| e as usize);
        for span in spans {
            if span.content.is_empty() {
                continue;
            }
            let Some(end) = u32::try_from(self.text.len() + span.content.len()).ok() else {
                break;
            };
            let style = self.style_id(span.style);
            self.text.push_str(&span.content);
            let joins = self.spans.len() > first;
            match self.spans.last_mut() {
                Some(last) if joins && last.1 == style => last.0 = end,
                _ => self.spans.push((end, style)),
            }
        }
        self.ends
            .push(u32::try_from(self.spans.len()).unwrap_or(u32::MAX));
    }

    /// Removes the last line.
    pub fn pop(&mut self) {
        if self.ends.pop().is_some() {
            let spans = self.ends.last().map_or(0, |&e| e as usize);
            self.spans.truncate(spans);
            let text = self.spans.last().map_or(0, |&(end, _)| end as usize);
            self.text.truncate(text);
        }
    }

    /// Line `i`, borrowing this store's text; `None` past the end.
    pub fn get(&self, i: usize) -> Option<Line<'_>> {
        let spans = self.span_range(i)?;
        let mut start = self.text_start(spans.start);
        let mut out = Vec::with_capacity(spans.len());
        for &(end, style) in &self.spans[spans] {
            let end = end as usize;
            out.push(Span::styled(
                &self.text[start..end],
                self.styles[style as usize],
            ));
            start = end;
        }
        Some(Line::from(out))
    }

    /// Line `i`; panics past the end, like indexing.
    pub fn line(&self, i: usize) -> Line<'_> {
        self.get(i)
            .unwrap_or_else(|| panic!("line {i} of {} rendered lines", self.len()))
    }

    /// The text of line `i` without its styles; empty past the end.
    pub fn text(&self, i: usize) -> &str {
        match self.span_range(i) {
            Some(spans) if !spans.is_empty() => {
                let end = self.spans[spans.end - 1].0 as usize;
                &self.text[self.text_start(spans.start)..end]
            }
            _ => "",
        }
    }

    /// Display width of line `i`.
    pub fn width(&self, i: usize) -> usize {
        super::wrap::width(self.text(i))
    }

    /// Every line, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = Line<'_>> + ExactSizeIterator + Clone {
        self.range(0..self.len())
    }

    /// The lines in `range` (clamped to the lines there are), made as they
    /// are taken.
    pub fn range(
        &self,
        range: Range<usize>,
    ) -> impl DoubleEndedIterator<Item = Line<'_>> + ExactSizeIterator + Clone {
        let end = range.end.min(self.len());
        (range.start.min(end)..end).map(|i| self.line(i))
    }

    fn span_range(&self, i: usize) -> Option<Range<usize>> {
        let end = *self.ends.get(i)? as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        Some(start..end)
    }

    /// Where span `span`'s text starts.
    fn text_start(&self, span: usize) -> usize {
        if span == 0 {
            0
        } else {
            self.spans[span - 1].0 as usize
        }
    }

    fn style_id(&mut self, style: Style) -> u32 {
        if let Some(&id) = self.style_ids.get(&style) {
            return id;
        }
        let id = u32::try_from(self.styles.len()).unwrap_or(u32::MAX);
        self.styles.push(style);
        self.style_ids.insert(style, id);
        id
    }
}

/// Equal when every line shows the same text in the same styles.
impl PartialEq for Lines {
    fn eq(&self, other: &Lines) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Lines {}

#[cfg(test)]
mod tests {
    use ratatui::style::{Color, Modifier};

    use super::*;

    #[test]
    fn lines_come_back_as_pushed_with_neighbours_of_one_style_joined() {
        let red = Style::new().fg(Color::Red);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let mut lines = Lines::default();
        lines.push(vec![
            Span::styled("│ ", red),
            Span::styled("echo", bold),
            Span::styled(" hi", bold),
            Span::raw(""),
        ]);
        lines.push(Vec::<Span>::new());
        lines.push(vec![Span::styled("é wide 字", red)]);
        assert_eq!(lines.len(), 3);
        assert_eq!(
            lines.line(0),
            Line::from(vec![Span::styled("│ ", red), Span::styled("echo hi", bold)])
        );
        assert_eq!(lines.line(1), Line::default());
        assert_eq!(lines.text(2), "é wide 字");
        assert_eq!(lines.width(2), 9);
        assert_eq!(lines.get(3), None);
        assert_eq!(lines.text(3), "");
        assert_eq!(lines.styles.len(), 2, "each style is kept once");

        lines.pop();
        assert_eq!(lines.len(), 2);
        lines.push(vec![Span::styled("again", red)]);
        assert_eq!(lines.text(2), "again");
        assert_eq!(lines.text(0), "│ echo hi");
        let all: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        assert_eq!(all, ["│ echo hi", "", "again"]);
        let some: Vec<String> = lines.range(1..9).map(|l| l.to_string()).collect();
        assert_eq!(some, ["", "again"]);
        // A line's first span is not joined to the previous line's last.
        lines.push(vec![Span::styled("more", red)]);
        assert_eq!(lines.text(3), "more");
        assert_eq!(lines.line(2).spans.len(), 1);
    }
}
