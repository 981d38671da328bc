//! The library: every document grouped by folder, or the filter's ranked
//! matches, with titles, kinds and paths.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::{fit, fit_path, marked};
use crate::corpus::Kind;
use crate::text::{inline, sanitize};
use crate::tui::app::App;
use crate::tui::layout;
use crate::tui::library::Row;

pub fn draw(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let chrome = &app.chrome;
    let areas = layout::library(area, app.library_filter_shown());
    if let Some(filter_area) = areas.filter {
        let cursor = if app.library.filtering { "▏" } else { "" };
        let line = Line::from(vec![
            Span::styled(" filter: ", chrome.dim),
            Span::styled(
                format!("{}{cursor}", sanitize(&app.library.filter.text)),
                chrome.input,
            ),
        ]);
        frame.render_widget(Paragraph::new(line), filter_area);
    }
    let list = areas.list;
    let library = &app.library;
    if library.rows.is_empty() {
        let text = if library.filter.is_empty() {
            "No documents loaded. Add a folder with --knowledge DIR."
        } else {
            "No title matches the filter. Esc clears it; / searches the text."
        };
        frame.render_widget(
            Paragraph::new(Span::styled(format!(" {text}"), chrome.dim)),
            list,
        );
        return;
    }
    let width = list.width as usize;
    let mut lines = Vec::new();
    for (i, row) in library
        .rows
        .iter()
        .enumerate()
        .skip(library.cursor.offset)
        .take(list.height as usize)
    {
        let selected = i == library.cursor.selected;
        lines.push(match row {
            Row::Recent => Line::from(Span::styled(" recently read", chrome.heading)),
            Row::Folder {
                name,
                knowledge,
                drops,
                other,
            } => {
                let mut counts = Vec::new();
                for (n, one, many) in [
                    (*knowledge, "file", "files"),
                    (*drops, "drop", "drops"),
                    (*other, "index", "indexes"),
                ] {
                    if n > 0 {
                        counts.push(format!("{n} {}", if n == 1 { one } else { many }));
                    }
                }
                Line::from(vec![
                    Span::styled(format!(" {}", inline(name)), chrome.heading),
                    Span::styled(format!("  {}", counts.join(", ")), chrome.dim),
                ])
            }
            Row::Doc { doc, matched } => {
                let doc = &app.corpus.documents[*doc];
                doc_line(
                    app, &doc.title, &doc.path, doc.kind, matched, width, selected,
                )
            }
        });
    }
    frame.render_widget(Paragraph::new(lines), list);
}

/// `  Title …            kind  path` fitted to `width` (the path cut in its
/// middle, see `fit_path`), matched characters
/// marked, the whole line reversed when selected.
fn doc_line(
    app: &App,
    title: &str,
    path: &str,
    kind: Kind,
    matched: &[u32],
    width: usize,
    selected: bool,
) -> Line<'static> {
    let chrome = &app.chrome;
    let title = inline(title);
    let path = inline(path);
    let tag = match kind {
        Kind::Knowledge => "",
        Kind::Drop => "drop",
        Kind::Index => "index",
    };
    let path_room = (width / 3).clamp(12, 48).min(width.saturating_sub(8));
    // The folder and the file's number and first word tell `10-docker…`
    // from `10-performance…`; the end says the rest.
    let path_shown = fit_path(&path, path_room);
    let tag_room = if tag.is_empty() { 0 } else { tag.len() + 2 };
    let title_room = width.saturating_sub(3 + path_shown.width() + tag_room + 2);
    let title_shown = fit(&title, title_room);
    let shown =
        (title_shown.chars().count() as u32).saturating_sub(u32::from(title_shown != title));
    let title_hits: Vec<u32> = matched.iter().copied().filter(|&p| p < shown).collect();
    let row = chrome.row(selected);
    let (base, dim, hit) = (row.title, row.dim, row.matched);
    let mut spans = vec![Span::styled(if selected { " ▸ " } else { "   " }, base)];
    spans.extend(marked(&title_shown, &title_hits, base, hit));
    let gap = width.saturating_sub(3 + title_shown.width() + tag_room + path_shown.width());
    spans.push(Span::styled(" ".repeat(gap), base));
    if !tag.is_empty() {
        spans.push(Span::styled(format!("{tag}  "), dim));
    }
    spans.push(Span::styled(path_shown, dim));
    Line::from(spans)
}
