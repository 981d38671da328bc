//! The log screen: where the log file is, every warning from loading, and what
//! went wrong during this session.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::text::inline;
use crate::tui::app::App;

pub fn lines(app: &App) -> Vec<Line<'static>> {
    let chrome = &app.chrome;
    let mut lines = Vec::new();
    let log = match &app.log_path {
        Some(path) => inline(&path.display().to_string()),
        None => "(none: the state folder could not be written)".to_string(),
    };
    lines.push(Line::from(vec![
        Span::styled(" Log file: ", chrome.heading),
        Span::raw(log),
    ]));
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        format!(" Warnings from loading ({})", app.warnings.len()),
        chrome.heading,
    )));
    if app.warnings.is_empty() {
        lines.push(Line::from(Span::styled("   none", chrome.dim)));
    }
    for d in &app.warnings {
        let style = if d.is_error() {
            chrome.error
        } else {
            chrome.warning
        };
        let location = match d.line {
            Some(line) => format!("{}:{line}", d.location()),
            None => d.location().to_string(),
        };
        lines.push(Line::from(vec![
            Span::raw("   "),
            Span::styled(inline(&location), chrome.dim),
            Span::raw(": "),
            Span::styled(d.severity.to_string(), style),
            Span::raw(format!(": {}", inline(&d.message))),
        ]));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        format!(" This session ({})", app.log.events.len()),
        chrome.heading,
    )));
    if app.log.events.is_empty() {
        lines.push(Line::from(Span::styled(
            "   nothing went wrong",
            chrome.dim,
        )));
    }
    for event in &app.log.events {
        lines.push(Line::from(format!("   {event}")));
    }
    lines
}

/// Rows the log takes when wrapped to `width` columns.
pub fn rows(app: &App, width: u16) -> usize {
    let width = usize::from(width.max(1));
    lines(app)
        .iter()
        .map(|l| l.width().div_ceil(width).max(1))
        .sum()
}

pub fn draw(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let max = rows(app, area.width).saturating_sub(area.height as usize);
    frame.render_widget(
        Paragraph::new(lines(app))
            .wrap(Wrap { trim: false })
            .scroll((app.log.scroll.min(max) as u16, 0)),
        area,
    );
}
