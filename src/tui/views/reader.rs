//! The reader: the rendered document with search terms, find matches and the
//! focused link marked; the table of contents panel; the code block picker.
//! Document lines come from the Markdown renderer, already sanitised.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthChar;

use super::{fit, popup};
use crate::text::{inline, sanitize};
use crate::tui::app::App;
use crate::tui::layout;
use crate::tui::page::Page;

pub fn draw(frame: &mut Frame<'_>, app: &App, body: Rect) {
    let Some(page) = &app.reader.page else {
        return;
    };
    let areas = layout::reader(body, app.reader.toc.is_some());
    draw_page(frame, app, page, areas.text, true);
    if let Some(toc) = areas.toc {
        draw_toc(frame, app, page, toc);
    }
    if app.reader.picker.is_some() {
        draw_picker(frame, app, page, body);
    }
}

/// The visible lines of a page with every mark applied. `with_find` adds the
/// reader's find matches (an outcome page has none).
pub fn draw_page(frame: &mut Frame<'_>, app: &App, page: &Page, area: Rect, with_find: bool) {
    let chrome = &app.chrome;
    let height = area.height as usize;
    let visible = page.visible(height);
    let find = &app.reader.find;
    let focused = page.focused().map(|l| l.index);
    let mut lines = Vec::with_capacity(height);
    for i in visible {
        let mut marks: Vec<(usize, usize, Style)> = Vec::new();
        for m in page.term_marks.iter().filter(|m| m.line == i) {
            marks.push((m.start, m.end, chrome.found));
        }
        if with_find {
            for (n, m) in find.marks.iter().enumerate().filter(|(_, m)| m.line == i) {
                let style = if find.current == Some(n) {
                    chrome.found_current
                } else {
                    chrome.found
                };
                marks.push((m.start, m.end, style));
            }
        }
        if let Some(index) = focused {
            for l in page
                .rendered
                .links
                .iter()
                .filter(|l| l.line == i && l.index == index)
            {
                marks.push((l.start_col, l.end_col, chrome.link_focus));
            }
        }
        let line = page.rendered.lines.line(i);
        lines.push(if marks.is_empty() {
            line
        } else {
            overlay(&line, &marks)
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// `line` with the styles of `marks` (display-column ranges) patched over
/// its own; later marks win where they overlap.
pub fn overlay(line: &Line<'_>, marks: &[(usize, usize, Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut col = 0;
    for span in &line.spans {
        let base = line.style.patch(span.style);
        let mut run = String::new();
        let mut run_style = base;
        for c in span.content.chars() {
            let mut style = base;
            for &(start, end, patch) in marks {
                if (start..end).contains(&col) {
                    style = style.patch(patch);
                }
            }
            if style != run_style && !run.is_empty() {
                spans.push(Span::styled(std::mem::take(&mut run), run_style));
            }
            run_style = style;
            run.push(c);
            col += c.width().unwrap_or(0);
        }
        if !run.is_empty() {
            spans.push(Span::styled(run, run_style));
        }
    }
    Line::from(spans).alignment_opt(line.alignment)
}

trait AlignmentOpt {
    fn alignment_opt(self, alignment: Option<ratatui::layout::Alignment>) -> Self;
}

impl AlignmentOpt for Line<'static> {
    fn alignment_opt(self, alignment: Option<ratatui::layout::Alignment>) -> Self {
        match alignment {
            Some(a) => self.alignment(a),
            None => self,
        }
    }
}

fn draw_toc(frame: &mut Frame<'_>, app: &App, page: &Page, area: Rect) {
    let chrome = &app.chrome;
    let block = Block::default()
        .borders(Borders::RIGHT)
        .border_style(chrome.border)
        .title(Span::styled(" Contents ", chrome.heading));
    let inner = block.inner(area);
    frame.render_widget(ratatui::widgets::Clear, area);
    frame.render_widget(block, area);
    let Some(cursor) = app.reader.toc else {
        return;
    };
    let headings = &page.rendered.headings;
    let current = headings.iter().rposition(|h| h.line <= page.top);
    let width = inner.width as usize;
    // One row for the title; the cursor was kept in view for the full height.
    let rows = (inner.height as usize).saturating_sub(1);
    let offset = if cursor.selected >= cursor.offset + rows {
        cursor.selected + 1 - rows
    } else {
        cursor.offset.min(cursor.selected)
    };
    let mut lines = vec![Line::default()];
    for (i, h) in headings.iter().enumerate().skip(offset).take(rows) {
        let indent = "  ".repeat(usize::from(h.level.saturating_sub(1)).min(4));
        let marker = if Some(i) == current { "•" } else { " " };
        let text = fit(
            &format!("{marker}{indent}{}", inline(h.title)),
            width.saturating_sub(1),
        );
        let style = if i == cursor.selected {
            chrome.selected
        } else if h.level <= 2 {
            chrome.title
        } else {
            chrome.dim
        };
        lines.push(Line::from(Span::styled(
            format!("{text:<w$}", w = width.saturating_sub(1)),
            style,
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

fn draw_picker(frame: &mut Frame<'_>, app: &App, page: &Page, body: Rect) {
    let Some((blocks, cursor)) = &app.reader.picker else {
        return;
    };
    let chrome = &app.chrome;
    let height = (blocks.len() as u16 + 2).min(body.height);
    let area = layout::centered(body, 70, height);
    let inner = popup(frame, app, area, "Copy which block? 1-9 or Enter");
    let width = inner.width as usize;
    let mut lines = Vec::new();
    for (n, &b) in blocks.iter().enumerate() {
        let Some(code) = page.rendered.code_blocks.get(b) else {
            continue;
        };
        let first = sanitize(
            code.raw
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or(""),
        );
        let count = code.raw.lines().count();
        let label = format!(
            "{} {:<10} {:>3} line{}  {}",
            n + 1,
            code.lang.as_deref().map(sanitize).unwrap_or_default(),
            count,
            if count == 1 { " " } else { "s" },
            first.trim()
        );
        let style = if n == cursor.selected {
            chrome.selected
        } else {
            chrome.title
        };
        lines.push(Line::from(Span::styled(
            format!("{:<width$}", fit(&label, width)),
            style,
        )));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// `3/12` when find has matches, for the status bar.
pub fn match_count(app: &App) -> Option<String> {
    let find = &app.reader.find;
    if find.input.is_empty() {
        return None;
    }
    Some(match find.current {
        Some(c) => format!("{}/{}", c + 1, find.marks.len()),
        None => "no match".to_string(),
    })
}

/// Where the window is in the document: `Top`, `42%`, `End`, or `All`.
pub fn position(page: &Page, height: usize) -> String {
    let max = page.max_top(height);
    if max == 0 {
        "All".to_string()
    } else if page.top == 0 {
        "Top".to_string()
    } else if page.top >= max {
        "End".to_string()
    } else {
        format!("{}%", page.top * 100 / max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Modifier;

    #[test]
    fn overlay_patches_columns_across_spans() {
        let line = Line::from(vec![
            Span::raw("ab"),
            Span::styled("cd", Style::new().italic()),
        ]);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        let out = overlay(&line, &[(1, 3, bold)]);
        let parts: Vec<(&str, Style)> = out
            .spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style))
            .collect();
        assert_eq!(
            parts,
            vec![
                ("a", Style::new()),
                ("b", bold),
                ("c", Style::new().italic().add_modifier(Modifier::BOLD)),
                ("d", Style::new().italic()),
            ]
        );
    }

    #[test]
    fn wide_characters_count_two_columns() {
        let line = Line::from("日本x");
        let out = overlay(&line, &[(4, 5, Style::new().bold())]);
        assert_eq!(out.spans.last().unwrap().content, "x");
        assert_eq!(out.spans.last().unwrap().style, Style::new().bold());
    }
}
