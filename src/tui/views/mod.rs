//! Drawing: pure functions from `&App` to a frame. One file per screen; this
//! file draws the frame around them (header, status bar, help overlay, the
//! "too small" notice). Nothing here changes state, and every piece of file
//! text drawn here has been through `sanitize` (document bodies are sanitised
//! by the Markdown renderer).

pub mod help;
pub mod library;
pub mod log;
pub mod reader;
pub mod search;
pub mod trees;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::app::{App, Level, Screen};
use super::keymap::Mode;
use super::layout::{self, MIN_HEIGHT, MIN_WIDTH};
use crate::text::{inline, sanitize};

/// Draws the whole screen for the app's current state.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let size = frame.area().as_size();
    if layout::too_small(size) {
        too_small(frame, app);
        return;
    }
    let bands = layout::bands(size);
    header(frame, app, bands.header);
    match app.screen {
        Screen::Library => library::draw(frame, app, bands.body),
        Screen::Search => search::draw(frame, app, bands.body),
        Screen::Reader => reader::draw(frame, app, bands.body),
        Screen::Trees => trees::draw_list(frame, app, bands.body),
        Screen::Walk => trees::draw_walk(frame, app, bands.body),
        Screen::Log => log::draw(frame, app, bands.body),
    }
    footer(frame, app, bands.footer);
    if app.help.is_some() {
        help::draw(frame, app, bands.body);
    }
}

fn too_small(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let text = vec![
        Line::from("too small"),
        Line::from(format!("{}×{}", area.width, area.height)),
        Line::from(format!("need {MIN_WIDTH}×{MIN_HEIGHT}")),
    ];
    frame.render_widget(
        Paragraph::new(text)
            .style(app.chrome.warning)
            .alignment(ratatui::layout::Alignment::Center)
            .wrap(Wrap { trim: true }),
        area,
    );
}

/// The screen's name and, after a dot, what it shows; on the right, where
/// the reader is in its document.
fn header(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let mut right = String::new();
    let (name, detail) = match app.screen {
        Screen::Library => (
            "Library",
            format!(
                "{} documents",
                if app.library.filter.is_empty() {
                    app.corpus.len().to_string()
                } else {
                    format!("{} of {}", app.library.doc_count(), app.corpus.len())
                }
            ),
        ),
        Screen::Reader => match &app.reader.page {
            Some(page) => {
                let height = layout::reader(layout::body(app.size), app.reader.toc.is_some())
                    .text
                    .height as usize;
                let position = reader::position(page, height);
                let path = fit_path(
                    &inline(&page.doc.path),
                    (area.width as usize).saturating_sub(position.len() + 3 + 28),
                );
                right = format!("{path}  {position} ");
                ("Reader", inline(&page.doc.title))
            }
            None => ("Reader", String::new()),
        },
        Screen::Search => (
            "Search",
            match &app.search.index {
                crate::tui::search::IndexState::Ready { sections, .. } => {
                    format!("{sections} sections")
                }
                crate::tui::search::IndexState::Opening => "indexing…".to_string(),
                crate::tui::search::IndexState::Failed(_) => "unavailable".to_string(),
            },
        ),
        Screen::Trees => ("Decision trees", format!("{} loaded", app.trees.list.len())),
        Screen::Walk => match &app.trees.walk {
            Some(walk) => {
                if walk.outcome.is_some()
                    && let Some(page) = &walk.outcome
                {
                    let height = layout::outcome(layout::body(app.size)).height as usize;
                    right = format!("outcome  {} ", reader::position(page, height));
                } else {
                    right = format!("question {} ", walk.session.path().len() + 1);
                }
                (
                    "Decision tree",
                    crate::text::one_line(&walk.session.tree().title),
                )
            }
            None => ("Decision tree", String::new()),
        },
        Screen::Log => (
            "Log",
            match app.warnings.len() {
                1 => "1 warning".to_string(),
                n => format!("{n} warnings"),
            },
        ),
    };
    let width = area.width as usize;
    let room = width.saturating_sub(right.width() + 1);
    let left = fit(&format!(" lore · {name} · {detail}"), room);
    let gap = width.saturating_sub(left.width() + right.width());
    frame.render_widget(
        Paragraph::new(format!("{left}{}{right}", " ".repeat(gap))).style(app.chrome.header),
        area,
    );
}

/// The status bar: a message (or the standing warnings) on the left, key hints
/// from the key table on the right.
fn footer(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let chrome = &app.chrome;
    let mut left: Vec<Span<'static>> = Vec::new();
    let mode = app.mode();
    if mode == Mode::Find {
        left.push(Span::styled(" find: ", chrome.status));
        left.push(Span::styled(
            format!("{}▏", sanitize(&app.reader.find.input.text)),
            chrome.status.patch(chrome.input),
        ));
        if let Some(count) = reader::match_count(app) {
            left.push(Span::styled(format!(" {count} "), chrome.status));
        }
    } else if let Some(status) = &app.status {
        let style = match status.level {
            Level::Info => chrome.status,
            Level::Ok => chrome.status.patch(chrome.ok),
            Level::Warning => chrome.status.patch(chrome.warning),
            Level::Error => chrome.status.patch(chrome.error),
        };
        // A message longer than the bar loses its middle, not its end
        // (which often says what to do next); the key hints give way.
        let room = (area.width as usize).saturating_sub(2);
        left.push(Span::styled(
            format!(" {}", crate::text::fit_middle(&status.text, room)),
            style,
        ));
    } else {
        if app.screen == Screen::Reader
            && let Some(count) = reader::match_count(app)
        {
            left.push(Span::styled(
                format!(
                    " `{}` {count} (n/N) ",
                    sanitize(&app.reader.find.input.text)
                ),
                chrome.status,
            ));
        }
        if app.search.index == crate::tui::search::IndexState::Opening {
            let text = match app.index_progress {
                Some((done, total)) if total > 0 => format!(" indexing… {done}/{total} "),
                _ => " indexing… ".to_string(),
            };
            left.push(Span::styled(text, chrome.status));
        }
        if !app.warnings.is_empty() {
            let n = app.warnings.len();
            left.push(Span::styled(
                format!(" ⚠ {n} warning{} (w) ", if n == 1 { "" } else { "s" }),
                chrome.status.patch(chrome.warning),
            ));
        }
    }
    let used: usize = left.iter().map(|s| s.content.width()).sum();
    let room = (area.width as usize).saturating_sub(used + 1);
    let hints = hint_spans(app, room);
    let hints_width: usize = hints.iter().map(|s| s.content.width()).sum();
    let gap = (area.width as usize).saturating_sub(used + hints_width);
    let mut spans = left;
    spans.push(Span::styled(" ".repeat(gap), chrome.status));
    spans.extend(hints);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(chrome.status), area);
}

/// As many `key action` hints of the current mode as fit in `room` columns.
/// A hint that does not fit whole names the action's main use, the part
/// before ` or ` (`Up previous hit`; help says `previous hit or search`).
fn hint_spans(app: &App, room: usize) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, mut description) in app.keys.hints(app.mode()) {
        let width_of = |d: &str| key.width() + 1 + d.width() + 2;
        if used + width_of(description) > room
            && let Some((main, _)) = description.split_once(" or ")
        {
            description = main;
        }
        let width = width_of(description);
        if used + width > room {
            break;
        }
        used += width;
        spans.push(Span::styled(key, app.chrome.status.patch(app.chrome.key)));
        spans.push(Span::styled(format!(" {description}  "), app.chrome.status));
    }
    spans
}

/// Cuts `text` to `width` columns, ending in `…` when cut.
pub fn fit(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    // By units, so an escape (`<U+2066>`) is kept whole or left out whole.
    let mut out = String::new();
    let mut used = 0;
    for unit in crate::text::units(text) {
        let w = unit.width();
        if used + w > width - 1 {
            break;
        }
        out.push_str(unit);
        used += w;
    }
    out.push('…');
    out
}

pub use crate::text::fit_left;

/// Cuts a path to `width` columns keeping what tells files apart: the folder
/// and a file's number and first word (`cuda/10-docker…ptimization.md`, so
/// `10-docker…` and `10-performance…` differ) and its end. A file name with
/// no number in front (a drop) keeps its end (`…packaging-2026-11-23.md`).
pub fn fit_path(path: &str, width: usize) -> String {
    if path.width() <= width {
        return path.to_string();
    }
    let name_at = path.rfind('/').map_or(0, |i| i + 1);
    let name = &path[name_at..];
    let digits = name.chars().take_while(char::is_ascii_digit).count();
    if digits == 0 || !name[digits..].starts_with('-') {
        return fit_left(path, width);
    }
    let word_end = name[digits + 1..]
        .find(['-', '.', '_'])
        .map_or(name.len(), |i| digits + 1 + i);
    let head = &path[..name_at + word_end];
    // The head and at least a few characters of the end.
    if head.width() + 5 > width {
        return crate::text::fit_middle(path, width);
    }
    let tail = fit_left(&path[name_at + word_end..], width - head.width());
    format!("{head}{tail}")
}

/// Spans for `text` with the characters at `positions` (char indices, sorted)
/// in `hit` and the rest in `base`.
pub fn marked(text: &str, positions: &[u32], base: Style, hit: Style) -> Vec<Span<'static>> {
    let mut runs = Runs::new(base, hit);
    let mut next = positions.iter().peekable();
    for (i, c) in text.chars().enumerate() {
        let is_hit = next.peek().is_some_and(|&&p| p as usize == i);
        if is_hit {
            next.next();
        }
        runs.push(c, is_hit);
    }
    runs.finish()
}

/// Characters gathered into spans of two styles, a new span wherever the
/// style changes: the one way marked text (search terms, filter matches)
/// becomes spans.
pub struct Runs {
    spans: Vec<Span<'static>>,
    run: String,
    run_hit: bool,
    base: Style,
    hit: Style,
}

impl Runs {
    pub fn new(base: Style, hit: Style) -> Runs {
        Runs {
            spans: Vec::new(),
            run: String::new(),
            run_hit: false,
            base,
            hit,
        }
    }

    pub fn push(&mut self, c: char, is_hit: bool) {
        if is_hit != self.run_hit && !self.run.is_empty() {
            self.flush();
        }
        self.run_hit = is_hit;
        self.run.push(c);
    }

    /// Adds a span in the base style after the runs (an ellipsis, say).
    pub fn push_base(&mut self, text: &'static str) {
        self.flush();
        self.spans.push(Span::styled(text, self.base));
    }

    pub fn finish(mut self) -> Vec<Span<'static>> {
        self.flush();
        self.spans
    }

    fn flush(&mut self) {
        if !self.run.is_empty() {
            let style = if self.run_hit { self.hit } else { self.base };
            self.spans
                .push(Span::styled(std::mem::take(&mut self.run), style));
        }
    }
}

/// A bordered box cleared of what was under it.
pub fn popup(frame: &mut Frame<'_>, app: &App, area: Rect, title: &str) -> Rect {
    use ratatui::widgets::{Block, BorderType, Borders};
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(app.chrome.border)
        .title(Span::styled(format!(" {title} "), app.chrome.heading));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    inner
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_cuts_by_display_width() {
        assert_eq!(fit("abcdef", 4), "abc…");
        assert_eq!(fit("abc", 3), "abc");
        assert_eq!(fit("日本語", 4), "日…");
        assert_eq!(fit_left("cuda/20-cupti.md", 9), "…cupti.md");
        // Library rows at 80 columns: the number and first word stay.
        assert_eq!(
            fit_path("cuda/10-docker-multistage-ml-optimization.md", 26),
            "cuda/10-docker…mization.md"
        );
        assert_eq!(
            fit_path("cuda/10-performance-debugging-profiling-expert.md", 26),
            "cuda/10-performance…ert.md"
        );
        assert_eq!(
            fit_path("drops/KNOWLEDGE-DROP-cuda-installation-2026-11-22.md", 26),
            "…nstallation-2026-11-22.md"
        );
        assert_eq!(fit_path("cuda/20-cupti.md", 40), "cuda/20-cupti.md");
        assert!(fit_path("cuda/10-docker-multistage.md", 12).width() <= 12);
        assert_eq!(fit("x", 0), "");
    }

    #[test]
    fn marked_splits_runs() {
        let base = Style::new();
        let hit = Style::new().bold();
        let spans = marked("cupti", &[0, 1, 4], base, hit);
        let parts: Vec<(&str, bool)> = spans
            .iter()
            .map(|s| (s.content.as_ref(), s.style == hit))
            .collect();
        assert_eq!(parts, vec![("cu", true), ("pt", false), ("i", true)]);
    }
}
