//! Decision trees: the list, a question with its numbered options and the
//! "Why it matters" panel, and the outcome page. Tree text is untrusted: the
//! list sanitises it here; the question, its options, the panel and the
//! outcome were laid out by the Markdown renderer, which sanitises.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::{fit, fit_left};
use crate::markdown::inline_text;
use crate::text::inline;
use crate::tui::app::App;
use crate::tui::layout;
use crate::tui::trees::QuestionView;

pub fn draw_list(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let chrome = &app.chrome;
    let trees = &app.trees;
    if trees.list.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled(
                " No decision trees loaded. Add a folder with --trees DIR; problems are in the log (w).",
                chrome.dim,
            ))
            .wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let width = area.width as usize;
    let per_page = (area.height as usize / 3).max(1);
    let offset = trees.cursor.selected.saturating_sub(per_page - 1);
    let mut lines = Vec::new();
    for (i, tree) in trees.list.iter().enumerate().skip(offset).take(per_page) {
        let selected = i == trees.cursor.selected;
        let row = chrome.row(selected);
        let (title_style, dim) = (row.title, row.dim);
        let progress = match trees.sessions.get(&tree.id) {
            Some(s) if s.is_finished() => "answered  ".to_string(),
            Some(s) => {
                let n = s.path().len();
                format!("in progress: {n} answer{}  ", if n == 1 { "" } else { "s" })
            }
            None => String::new(),
        };
        let id = format!("{progress}{}", inline(&tree.id));
        let head = format!(
            "{} {}. {}",
            if selected { "▸" } else { " " },
            i + 1,
            inline_text(&tree.title)
        );
        let head = fit(&head, width.saturating_sub(id.width() + 3));
        let gap = width.saturating_sub(head.width() + id.width() + 1);
        lines.push(Line::from(vec![
            Span::styled(head, title_style),
            Span::styled(" ".repeat(gap), title_style),
            Span::styled(format!("{id} "), dim),
        ]));
        lines.push(Line::from(Span::styled(
            fit(&format!("     {}", inline_text(&tree.summary)), width),
            chrome.dim,
        )));
        lines.push(Line::default());
    }
    frame.render_widget(Paragraph::new(lines), area);
}

pub fn draw_walk(frame: &mut Frame<'_>, app: &App, body: Rect) {
    let Some(walk) = &app.trees.walk else {
        return;
    };
    if let Some(page) = &walk.outcome {
        super::reader::draw_page(frame, app, page, layout::outcome(body), false);
        return;
    }
    let Some(view) = &walk.question else {
        return;
    };
    let chrome = &app.chrome;
    let areas = app.walk_layout();

    // Breadcrumbs: the tree's own question, then the answers so far, as the
    // options read (their Markdown rendered: no backticks); the most recent
    // are kept when the line is cut.
    let mut crumbs = vec![inline_text(&walk.session.tree().title)];
    crumbs.extend(walk.session.history().iter().map(|a| {
        let label = inline_text(&a.option.label);
        if a.source.is_probe() {
            format!("{label} (probed)")
        } else {
            label
        }
    }));
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit_left(&crumbs.join(" › "), areas.crumbs.width as usize),
            chrome.dim,
        )),
        areas.crumbs,
    );

    draw_head(frame, app, view, walk.option, areas.question);

    let panel = &view.panel;
    let height = areas.panel.height as usize;
    let mut block = Block::default()
        .borders(Borders::TOP | Borders::LEFT)
        .border_style(chrome.border)
        .title(Span::styled(" Why it matters ", chrome.heading));
    if panel.len() > height {
        let shown = panel.visible(height);
        let more = if shown.end < panel.len() {
            "PgDn more"
        } else {
            "PgUp back"
        };
        block = block.title_top(
            Line::from(Span::styled(
                format!(
                    " {}-{} of {} · {more} ",
                    shown.start + 1,
                    shown.end,
                    panel.len()
                ),
                chrome.dim,
            ))
            .right_aligned(),
        );
    }
    frame.render_widget(block, areas.why);
    super::reader::draw_page(frame, app, panel, areas.panel, false);
}

/// The question and its numbered options, scrolled so the selected option
/// is in view; `▲`/`▼` at the right edge say rows are hidden.
fn draw_head(frame: &mut Frame<'_>, app: &App, view: &QuestionView, selected: usize, area: Rect) {
    let chrome = &app.chrome;
    let height = area.height as usize;
    let top = view.head_top(selected, height);
    let mut lines: Vec<Line<'_>> = view.head.clone();
    for (i, rows) in view.options.iter().enumerate() {
        let chosen = i == selected;
        let row = chrome.row(chosen).title;
        for r in rows.clone() {
            let prefix = if r > rows.start {
                "     ".to_string()
            } else {
                let number = if i < 9 {
                    format!("{}", i + 1)
                } else {
                    " ".to_string()
                };
                format!(" {} {number} ", if chosen { "▸" } else { " " })
            };
            let mut spans = vec![Span::styled(prefix, if chosen { row } else { chrome.key })];
            let label = std::mem::take(&mut lines[r]);
            spans.extend(
                label.spans.into_iter().map(
                    |span| {
                        if chosen { span.patch_style(row) } else { span }
                    },
                ),
            );
            let mut line = Line::from(spans);
            if chosen {
                // The selected row is highlighted across the whole width.
                line = line.style(row);
            }
            lines[r] = line;
        }
    }
    let shown: Vec<Line<'_>> = lines.into_iter().skip(top).take(height).collect();
    let count = shown.len();
    frame.render_widget(Paragraph::new(shown), area);
    let mark = |frame: &mut Frame<'_>, y: u16, text: &'static str| {
        if area.width > 0 {
            let at = Rect::new(area.x + area.width - 1, y, 1, 1);
            frame.render_widget(Paragraph::new(Span::styled(text, chrome.dim)), at);
        }
    };
    if top > 0 && height > 0 {
        mark(frame, area.y, "▲");
    }
    if top + count < view.head.len() && count > 0 {
        mark(frame, area.y + count as u16 - 1, "▼");
    }
}
