//! Tables fitted to the width. Columns that fit keep their natural width; the
//! rest share what is left equally (max-min fair), and cells wrap inside their
//! column. When the columns would be so narrow that words break, each row is
//! shown as `Header: value` lines instead, which reads well on a phone-sized
//! SSH window.

use std::borrow::Cow;

use pulldown_cmark::Alignment;
use ratatui::style::Style;

use super::wrap::{Frag, Inline, WrappedLine, spaces, wrap};
use crate::theme::Theme;

/// Narrowest column worth a grid: below this, and narrower than its longest
/// word, the table is stacked.
const MIN_COLUMN: usize = 10;
const SEPARATOR: &str = " │ ";
const SEPARATOR_WIDTH: usize = 3;

#[derive(Debug, Default)]
pub struct Row {
    pub cells: Vec<Vec<Inline>>,
    pub header: bool,
    pub source: usize,
}

/// Lays out a table in `width` columns, handing each line to `emit` as it is
/// made: a table of hundreds of thousands of rows is never held twice.
pub fn layout(
    rows: Vec<Row>,
    aligns: &[Alignment],
    width: usize,
    theme: &Theme,
    emit: &mut dyn FnMut(WrappedLine),
) {
    let columns = rows.iter().map(|r| r.cells.len()).max().unwrap_or(0);
    if columns == 0 {
        return;
    }
    let mut natural = vec![0usize; columns];
    let mut longest_word = vec![0usize; columns];
    for row in &rows {
        for (c, cell) in row.cells.iter().enumerate() {
            let lines = wrap(cell, usize::MAX / 2);
            let w = lines.iter().map(|l| l.width).max().unwrap_or(0);
            natural[c] = natural[c].max(w);
            longest_word[c] = longest_word[c].max(longest(cell));
        }
    }
    let separators = SEPARATOR_WIDTH * (columns - 1);
    let budget = width.saturating_sub(separators);
    let widths = fair_widths(&natural, budget);
    let grid_fits = budget >= columns
        && widths
            .iter()
            .zip(&longest_word)
            .all(|(&w, &word)| w >= word.min(MIN_COLUMN));
    if grid_fits {
        grid(rows, aligns, &widths, theme, emit);
    } else {
        stacked(&rows, width, theme, emit);
    }
}

/// Gives every column `min(natural, T)` for the largest `T` that fits, then
/// hands out what is left one column at a time.
fn fair_widths(natural: &[usize], budget: usize) -> Vec<usize> {
    let total: usize = natural.iter().sum();
    if total <= budget {
        return natural.to_vec();
    }
    let fits = |t: usize| natural.iter().map(|&n| n.min(t)).sum::<usize>() <= budget;
    let (mut lo, mut hi) = (0usize, natural.iter().copied().max().unwrap_or(0));
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(mid) { lo = mid } else { hi = mid - 1 }
    }
    let mut widths: Vec<usize> = natural.iter().map(|&n| n.min(lo)).collect();
    let mut left = budget - widths.iter().sum::<usize>();
    for (w, &n) in widths.iter_mut().zip(natural) {
        if left == 0 {
            break;
        }
        if n > *w {
            *w += 1;
            left -= 1;
        }
    }
    widths
}

fn longest(cell: &[Inline]) -> usize {
    cell.iter()
        .filter_map(|i| match i {
            Inline::Text(f) => Some(f),
            Inline::Break => None,
        })
        .flat_map(|f| f.text.split_whitespace())
        .map(super::wrap::width)
        .max()
        .unwrap_or(0)
}

/// Rows are wrapped one at a time as they are laid out: wrapping every cell
/// first kept the whole table twice over (a table of 28,000 rows took 15 MB
/// for the wrapped cells alone).
fn grid(
    rows: Vec<Row>,
    aligns: &[Alignment],
    widths: &[usize],
    theme: &Theme,
    emit: &mut dyn FnMut(WrappedLine),
) {
    let wrap_row = |row: &Row| -> Vec<Vec<WrappedLine>> {
        (0..widths.len())
            .map(|c| {
                row.cells
                    .get(c)
                    .map_or_else(Vec::new, |cell| wrap(cell, widths[c]))
            })
            .collect()
    };
    let body_wraps = rows.iter().filter(|row| !row.header).any(|row| {
        row.cells
            .iter()
            .zip(widths)
            .any(|(cell, &w)| wraps(cell, w))
    });
    let last_header = rows.iter().rposition(|r| r.header);
    for (r, row) in rows.into_iter().enumerate() {
        let cells = wrap_row(&row);
        if r > 0 && !row.header && body_wraps && Some(r - 1) != last_header {
            emit(rule(widths, row.source, theme.table_border));
        }
        let height = cells.iter().map(Vec::len).max().unwrap_or(0).max(1);
        for k in 0..height {
            let mut line = WrappedLine {
                source: row.source,
                ..WrappedLine::default()
            };
            for (c, &w) in widths.iter().enumerate() {
                if c > 0 {
                    append(
                        &mut line,
                        SEPARATOR.into(),
                        SEPARATOR_WIDTH,
                        theme.table_border,
                    );
                }
                let cell = cells[c].get(k);
                let used = cell.map_or(0, |l| l.width);
                let pad = w.saturating_sub(used);
                let last = c + 1 == widths.len();
                let (before, after) = match aligns.get(c).copied().unwrap_or(Alignment::None) {
                    Alignment::Right => (pad, 0),
                    Alignment::Center => (pad / 2, pad - pad / 2),
                    Alignment::Left | Alignment::None => (0, pad),
                };
                append(&mut line, spaces(before), before, Style::new());
                if let Some(cell) = cell {
                    let offset = line.width;
                    line.links.extend(
                        cell.links
                            .iter()
                            .map(|&(s, e, id)| (s + offset, e + offset, id)),
                    );
                    line.spans.extend(cell.spans.iter().cloned());
                    line.width += cell.width;
                }
                if !last {
                    append(&mut line, spaces(after), after, Style::new());
                }
            }
            line.trim_end();
            emit(line);
        }
        if Some(r) == last_header {
            emit(rule(widths, row.source, theme.table_border));
        }
    }
}

/// True when `cell` takes more than one line at width `w`.
fn wraps(cell: &[Inline], w: usize) -> bool {
    cell.iter().any(|i| matches!(i, Inline::Break)) || wrap(cell, w).len() > 1
}

fn rule(widths: &[usize], source: usize, style: Style) -> WrappedLine {
    let text = widths
        .iter()
        .map(|&w| "─".repeat(w))
        .collect::<Vec<_>>()
        .join("─┼─");
    let mut line = WrappedLine {
        source,
        ..WrappedLine::default()
    };
    let width = widths.iter().sum::<usize>() + SEPARATOR_WIDTH * (widths.len() - 1);
    append(&mut line, text.into(), width, style);
    line
}

fn append(line: &mut WrappedLine, text: Cow<'static, str>, width: usize, style: Style) {
    if text.is_empty() {
        return;
    }
    line.width += width;
    line.spans.push(ratatui::text::Span::styled(text, style));
}

/// One `Header: value` block per row, rows separated by a short rule.
fn stacked(rows: &[Row], width: usize, theme: &Theme, emit: &mut dyn FnMut(WrappedLine)) {
    let header: Option<&Row> = rows.iter().find(|r| r.header);
    let body: Vec<&Row> = rows.iter().filter(|r| !r.header).collect();
    if body.is_empty() {
        if let Some(header) = header {
            for cell in &header.cells {
                wrap(cell, width).into_iter().for_each(&mut *emit);
            }
        }
        return;
    }
    for (i, row) in body.iter().enumerate() {
        if i > 0 {
            let w = width.min(8);
            let mut line = WrappedLine {
                source: row.source,
                ..WrappedLine::default()
            };
            append(&mut line, "╌".repeat(w).into(), w, theme.table_border);
            emit(line);
        }
        for (c, cell) in row.cells.iter().enumerate() {
            let mut inlines: Vec<Inline> = Vec::new();
            if let Some(label) = header
                .and_then(|h| h.cells.get(c))
                .filter(|l| !l.is_empty())
            {
                inlines.extend(label.iter().cloned());
                inlines.push(Inline::Text(Frag {
                    text: ": ".into(),
                    style: theme.table_header,
                    link: None,
                    source: row.source,
                    whole: false,
                }));
            }
            inlines.extend(cell.iter().cloned());
            wrap(&inlines, width).into_iter().for_each(&mut *emit);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fair_widths_keep_narrow_columns_and_share_the_rest() {
        assert_eq!(fair_widths(&[5, 10], 40), vec![5, 10]);
        assert_eq!(fair_widths(&[50, 22, 70], 74), vec![26, 22, 26]);
        assert_eq!(fair_widths(&[30, 30, 30], 10), vec![4, 3, 3]);
    }
}
