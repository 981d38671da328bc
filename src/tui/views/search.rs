//! The search screen: the query box, then each hit as its heading path, its
//! file and line, and a snippet with the matched terms marked.

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use super::{Runs, fit, fit_left, fit_path};
use crate::diagnose::Verdict;
use crate::search::{QUESTION_LABEL, WEAK_NOTICE};
use crate::text::{inline, needs_escape, sanitize};
use crate::tui::app::App;
use crate::tui::layout;
use crate::tui::search::{IndexState, SHOWN_SEARCHED, searched_order};

pub fn draw(frame: &mut Frame<'_>, app: &App, body: Rect) {
    let chrome = &app.chrome;
    let search = &app.search;
    let areas = layout::search(body);
    let state = match &search.index {
        IndexState::Opening => "indexing…".to_string(),
        IndexState::Failed(_) => "search unavailable (w: log)".to_string(),
        IndexState::Ready { .. } if search.input.is_empty() => String::new(),
        IndexState::Ready { .. } if search.is_waiting() => "searching…".to_string(),
        IndexState::Ready { .. } => match search.hits.len() {
            0 => "no hits".to_string(),
            1 => "1 hit".to_string(),
            n if n >= crate::tui::search::HIT_LIMIT => format!("best {n} hits"),
            n => format!("{n} hits"),
        },
    };
    let width = areas.input.width as usize;
    let room = width.saturating_sub(state.width() + 12);
    let (before, after) = around_cursor(&search.input.text, search.input.cursor, room);
    let before = fit_left(&before, room);
    let after = fit(&after, room.saturating_sub(before.width()));
    let gap = width.saturating_sub(10 + before.width() + after.width() + state.width());
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(" search: ", chrome.dim),
            Span::styled(format!("{before}▏{after}"), chrome.input),
            Span::raw(" ".repeat(gap)),
            Span::styled(state, chrome.dim),
        ])),
        areas.input,
    );

    // Above the hits: which lines of a pasted log were searched, and whether
    // the best hit really answers.
    let header = app.search_header_rows();
    if header > 0 {
        let mut lines = Vec::new();
        let shown = search.searched.len().min(SHOWN_SEARCHED);
        // The deciding line first, in bold: it is what the hits answer.
        for (n, i) in searched_order(&search.searched)
            .into_iter()
            .take(shown)
            .enumerate()
        {
            let style = if n == 0 {
                chrome.title.add_modifier(Modifier::BOLD)
            } else {
                chrome.title
            };
            lines.push(Line::from(vec![
                Span::styled(" searched: ", chrome.dim),
                Span::styled(
                    // What the program printed, without `#8 6.560 `.
                    fit(
                        &sanitize(&crate::search::query::strip_markers(&search.searched[i])),
                        width.saturating_sub(12),
                    ),
                    style,
                ),
            ]));
        }
        if search.searched.len() > shown {
            lines.push(Line::from(Span::styled(
                format!(
                    "           and {} more lines",
                    search.searched.len() - shown
                ),
                chrome.dim,
            )));
        }
        if search.input.cut {
            lines.push(Line::from(Span::styled(
                " the paste was cut to its last 1 MB",
                chrome.dim,
            )));
        } else if search.hits.first().is_some_and(|h| !h.is_confident()) {
            lines.push(Line::from(Span::styled(
                format!(" {WEAK_NOTICE}"),
                chrome.dim,
            )));
        }
        frame.render_widget(Paragraph::new(lines), areas.hits);
    }
    let header = (header as u16).min(areas.hits.height);
    let areas = layout::SearchLayout {
        input: areas.input,
        hits: Rect::new(
            areas.hits.x,
            areas.hits.y + header,
            areas.hits.width,
            areas.hits.height - header,
        ),
    };

    if search.hits.is_empty() {
        let text = match &search.index {
            IndexState::Failed(message) => format!("The search index could not be opened: {}", sanitize(message)),
            _ if search.input.is_empty() => "Type words, an error message or an identifier (libcupti.so.12, \
                 COPY failed, TORCH_CUDA_ARCH_LIST). Enter opens a hit at its section with the words \
                 marked; Esc goes back and keeps the query. Paste an error line anywhere to search for it."
                .to_string(),
            IndexState::Opening => "Building the search index; results appear as soon as it is ready.".to_string(),
            _ if search.is_waiting() => String::new(),
            _ => "Nothing matches. Fewer or other words may; f in a document finds exact text.".to_string(),
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, chrome.dim)).wrap(Wrap { trim: true }),
            Rect::new(
                areas.hits.x + 1,
                areas.hits.y,
                areas.hits.width.saturating_sub(2),
                areas.hits.height,
            ),
        );
        return;
    }

    let per_page = app.hits_per_page();
    let cursor = search.cursor;
    let width = areas.hits.width as usize;
    let mut lines = Vec::new();
    for (i, hit) in search
        .hits
        .iter()
        .enumerate()
        .skip(cursor.offset)
        .take(per_page)
    {
        let selected = i == cursor.selected;
        let row = chrome.row(selected);
        let (base, dim, hit_style) = (row.title, row.dim, row.matched);
        let location = format!("{}:{} ", inline(&hit.path), hit.line);
        let location = fit_path(&location, width / 2);
        // The section says most about a hit, so it goes first and is cut
        // last; the document's title follows, dimmed.
        let heading = inline(&hit.heading);
        let title = inline(&hit.title);
        let section = heading
            .strip_prefix(title.as_str())
            .map(|rest| rest.trim_start_matches(" › ").to_string())
            .filter(|rest| !rest.is_empty());
        let room = width.saturating_sub(location.width() + 1);
        let marker = if selected { "▸ " } else { "  " };
        let mut spans = vec![Span::styled(marker, base)];
        let used = match section {
            Some(section) => {
                let shown = fit(&section, room.saturating_sub(2));
                let rest = room.saturating_sub(2 + shown.width());
                let title = if rest > 6 {
                    fit(&format!(" — {title}"), rest)
                } else {
                    String::new()
                };
                let used = 2 + shown.width() + title.width();
                spans.push(Span::styled(shown, base.add_modifier(Modifier::BOLD)));
                spans.push(Span::styled(title, dim));
                used
            }
            None => {
                let shown = fit(&title, room.saturating_sub(2));
                let used = 2 + shown.width();
                spans.push(Span::styled(shown, base.add_modifier(Modifier::BOLD)));
                used
            }
        };
        spans.push(Span::styled(
            " ".repeat(width.saturating_sub(used + location.width())),
            base,
        ));
        spans.push(Span::styled(location, dim));
        lines.push(Line::from(spans));
        let (snippet, ranges) = if hit.snippet.chars().any(needs_escape) {
            (sanitize(&hit.snippet), Vec::new())
        } else {
            (hit.snippet.clone(), hit.highlights.clone())
        };
        let mut spans = vec![Span::raw("   ")];
        spans.extend(fitted_spans(
            &snippet,
            &ranges,
            chrome.title,
            hit_style,
            width.saturating_sub(4),
        ));
        lines.push(Line::from(spans));
        // The selected hit says when it was found through one of its
        // section's questions, in the line that separates it from the next.
        match hit.question.as_deref().filter(|_| selected) {
            Some(question) => lines.push(Line::from(vec![
                Span::raw("   "),
                Span::styled(
                    fit(
                        &format!("{QUESTION_LABEL}{}", inline(question)),
                        width.saturating_sub(4),
                    ),
                    dim,
                ),
            ])),
            None => lines.push(Line::default()),
        }
    }
    let panel = (app.causes_rows() as u16).min(areas.hits.height);
    let hits = Rect::new(
        areas.hits.x,
        areas.hits.y,
        areas.hits.width,
        areas.hits.height - panel,
    );
    frame.render_widget(Paragraph::new(lines), hits);
    if panel > 0 {
        let area = Rect::new(areas.hits.x, hits.y + hits.height, areas.hits.width, panel);
        draw_causes(frame, app, area);
    }
}

/// The selected hit's causes, each with its verdict here (after the probe
/// key) or "not checked".
fn draw_causes(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let chrome = &app.chrome;
    let Some(causes) = &app.search.causes else {
        return;
    };
    let width = area.width as usize;
    let key = app
        .keys
        .key_for(
            crate::tui::keymap::Mode::Search,
            &crate::tui::action::Action::Probe,
        )
        .map_or_else(|| "the probe key".to_string(), |k| k.to_string());
    // Facts probed for another kind of query (the machine's, for a
    // `docker build` log) do not judge this one.
    // Where they were checked, when that is not what lore was started with
    // (a build log: its Dockerfile, or nothing).
    let checked = app
        .search
        .checked
        .as_ref()
        .and_then(|c| c.brief.as_deref())
        .unwrap_or("checked");
    let title = match (app.search.checked_applies, app.search.probing) {
        (_, true) => " causes listed here: probing…".to_string(),
        (true, false) => format!(" causes listed here, {checked} ({key}: again):"),
        (false, false) => format!(" causes listed here ({key}: check them against the probes):"),
    };
    let mut lines = vec![Line::from(Span::styled(fit(&title, width), chrome.heading))];
    let rows = area.height as usize - 1;
    let shown = causes.causes.len().min(rows);
    for (i, (verdict, text)) in causes.causes.iter().take(shown).enumerate() {
        let (label, style) = match verdict {
            Some(Verdict::Holds) => ("✔ holds     ", chrome.ok),
            Some(Verdict::Unknown) => ("? unknown   ", chrome.warning),
            Some(Verdict::RuledOut) => ("✘ ruled out ", chrome.dim),
            None => ("· unchecked ", chrome.dim),
        };
        let more = causes.causes.len() - shown;
        let text = if i + 1 == shown && more > 0 {
            format!("{} (and {more} more)", inline(text))
        } else {
            inline(text)
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {label}"), style),
            Span::styled(fit(&text, width.saturating_sub(14)), chrome.title),
        ]));
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The text just before and just after `cursor`, at most `room` characters
/// each way, line breaks shown as `⏎` and control characters made visible.
/// Only this window is looked at, so a 1 MB paste costs no more per frame
/// than a word.
fn around_cursor(text: &str, cursor: usize, room: usize) -> (String, String) {
    let mut cursor = cursor.min(text.len());
    while !text.is_char_boundary(cursor) {
        cursor -= 1;
    }
    let start = text[..cursor]
        .char_indices()
        .rev()
        .nth(room)
        .map_or(0, |(i, _)| i);
    let end = text[cursor..]
        .char_indices()
        .nth(room)
        .map_or(text.len(), |(i, _)| cursor + i);
    let show = |s: &str| sanitize(&s.replace('\n', "⏎"));
    (show(&text[start..cursor]), show(&text[cursor..end]))
}

/// `text` cut to `width` columns, the byte `ranges` in `hit` style.
pub fn fitted_spans(
    text: &str,
    ranges: &[Range<usize>],
    base: Style,
    hit: Style,
    width: usize,
) -> Vec<Span<'static>> {
    let cut = text.width() > width;
    let room = if cut { width.saturating_sub(1) } else { width };
    let mut runs = Runs::new(base, hit);
    let mut used = 0;
    for (at, c) in text.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        runs.push(c, ranges.iter().any(|r| r.contains(&at)));
    }
    if cut {
        runs.push_base("…");
    }
    runs.finish()
}
