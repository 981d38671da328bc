//! Decision trees: the list, a question with its numbered options and the
//! why/how-to-find-out panel, and the outcome page. Tree text is untrusted and
//! sanitised here before it is drawn (the outcome page by the renderer).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use unicode_width::UnicodeWidthStr;

use super::{fit, fit_left};
use crate::decide::Step;
use crate::text::{inline, one_line, sanitize};
use crate::tui::app::App;
use crate::tui::layout;

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
            one_line(&tree.title)
        );
        let head = fit(&head, width.saturating_sub(id.width() + 3));
        let gap = width.saturating_sub(head.width() + id.width() + 1);
        lines.push(Line::from(vec![
            Span::styled(head, title_style),
            Span::styled(" ".repeat(gap), title_style),
            Span::styled(format!("{id} "), dim),
        ]));
        lines.push(Line::from(Span::styled(
            fit(&format!("     {}", one_line(&tree.summary)), width),
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
    let Step::Question(question) = walk.session.current() else {
        return;
    };
    let chrome = &app.chrome;
    let areas = layout::walk(body);

    // Breadcrumbs: the answers so far, the most recent kept when cut.
    let crumbs: Vec<String> = walk
        .session
        .history()
        .iter()
        .map(|a| {
            let label = one_line(&a.option.label);
            if a.source.is_probe() {
                format!("{label} (probed)")
            } else {
                label
            }
        })
        .collect();
    let crumbs = if crumbs.is_empty() {
        "first question".to_string()
    } else {
        crumbs.join(" › ")
    };
    let step = walk.session.path().len() + 1;
    let crumb_line = format!("{step}. {crumbs}");
    frame.render_widget(
        Paragraph::new(Span::styled(
            fit_left(&crumb_line, areas.crumbs.width as usize),
            chrome.dim,
        )),
        areas.crumbs,
    );

    let mut lines = vec![
        Line::default(),
        Line::from(Span::styled(one_line(&question.text), chrome.heading)),
        Line::default(),
    ];
    for (i, option) in question.options.iter().enumerate() {
        let selected = i == walk.option;
        let style = chrome.row(selected).title;
        let number = if i < 9 {
            format!("{}", i + 1)
        } else {
            " ".to_string()
        };
        lines.push(Line::from(vec![
            Span::styled(
                format!(" {} {number} ", if selected { "▸" } else { " " }),
                if selected { style } else { chrome.key },
            ),
            Span::styled(one_line(&option.label), style),
        ]));
    }
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }),
        areas.question,
    );

    let block = Block::default()
        .borders(Borders::TOP | Borders::LEFT)
        .border_style(chrome.border)
        .title(Span::styled(" Why it matters ", chrome.heading));
    let inner = block.inner(areas.why);
    frame.render_widget(block, areas.why);
    let mut why: Vec<Line<'static>> = text_lines(&question.why);
    if let Some(help) = &question.help {
        why.push(Line::default());
        why.push(Line::from(Span::styled("How to find out", chrome.heading)));
        why.extend(text_lines(help));
    }
    let probed: Vec<_> = walk
        .session
        .history()
        .into_iter()
        .filter(|a| a.source.is_probe())
        .collect();
    if !probed.is_empty() {
        why.push(Line::default());
        why.push(Line::from(Span::styled(
            "Probed answers (Backspace changes them)",
            chrome.heading,
        )));
        for a in probed {
            why.push(Line::from(format!(
                "  {} → {}",
                one_line(&a.question.text),
                one_line(&a.option.label)
            )));
            for e in a.source.evidence() {
                why.push(Line::from(Span::styled(
                    format!("    {}", sanitize(e)),
                    chrome.dim,
                )));
            }
        }
    } else if question.probe.is_some() {
        why.push(Line::default());
        why.push(Line::from(Span::styled(
            "p: answer from evidence (built-in probe)",
            chrome.dim,
        )));
    }
    if !question.evidence.is_empty() {
        why.push(Line::default());
        why.push(Line::from(Span::styled("Read more", chrome.heading)));
        for e in &question.evidence {
            why.push(Line::from(Span::styled(
                format!("  {}", inline(&e.link)),
                chrome.dim,
            )));
        }
    }
    let inner = Rect::new(
        inner.x + 1,
        inner.y,
        inner.width.saturating_sub(1),
        inner.height,
    );
    frame.render_widget(Paragraph::new(why).wrap(Wrap { trim: false }), inner);
}

/// Tree text as lines for a wrapping paragraph, sanitised: the hard line
/// breaks inside a paragraph are joined (the panel wraps to its own width),
/// while indented lines (commands) and blank lines stay as written.
fn text_lines(text: &str) -> Vec<Line<'static>> {
    reflow(&sanitize(text.trim_matches('\n')))
        .into_iter()
        .map(Line::from)
        .collect()
}

pub fn reflow(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut joinable = false;
    for line in text.lines() {
        let line = line.trim_end();
        let indented = line.starts_with(' ');
        if line.is_empty() || indented {
            out.push(line.to_string());
            joinable = false;
        } else if joinable && let Some(last) = out.last_mut() {
            last.push(' ');
            last.push_str(line);
        } else {
            out.push(line.to_string());
            joinable = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::reflow;

    #[test]
    fn paragraphs_join_and_commands_stay() {
        let text = "A missing\nCUPTI breaks\nthe import.\n  pip check\n  python -c x\n\nNext one.";
        assert_eq!(
            reflow(text),
            vec![
                "A missing CUPTI breaks the import.",
                "  pip check",
                "  python -c x",
                "",
                "Next one.",
            ]
        );
    }
}
