//! The `?` overlay: the key table for where you are, then the keys that work
//! everywhere, then every other screen's keys. Generated from the same table
//! dispatch uses, so it cannot go stale.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use super::{fit, popup};
use crate::tui::app::App;
use crate::tui::keymap::Mode;
use crate::tui::layout;

/// The help text for `mode`, most relevant first.
pub fn lines(app: &App, mode: Mode) -> Vec<Line<'static>> {
    let chrome = &app.chrome;
    let mut order = vec![mode, Mode::Global];
    order.extend(
        Mode::ALL
            .into_iter()
            .filter(|m| *m != mode && *m != Mode::Global),
    );
    let key_width = Mode::ALL
        .iter()
        .flat_map(|m| app.keys.rows(*m))
        .map(|(keys, _)| keys.width())
        .max()
        .unwrap_or(8)
        .min(24);
    let mut lines = Vec::new();
    for m in order {
        let rows = app.keys.rows(m);
        if rows.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        let title = if m == mode && m != Mode::Global {
            format!("{} (here)", m.title())
        } else {
            m.title().to_string()
        };
        lines.push(Line::from(Span::styled(title, chrome.heading)));
        for (keys, description) in rows {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("  {:<key_width$}", fit(&keys, key_width)),
                    chrome.key,
                ),
                Span::raw(format!("  {description}")),
            ]));
        }
    }
    lines
}

pub fn draw(frame: &mut Frame<'_>, app: &App, body: Rect) {
    let under = app.mode_under_help();
    let lines = lines(app, under);
    let area = layout::centered(body, 72, body.height);
    let inner = popup(frame, app, area, "Keys — Esc closes");
    let max = lines.len().saturating_sub(inner.height as usize);
    let scroll = app.help.unwrap_or(0).min(max);
    frame.render_widget(Paragraph::new(lines).scroll((scroll as u16, 0)), inner);
}
