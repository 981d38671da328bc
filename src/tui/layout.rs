//! Where things go on the screen, as pure functions of the terminal size.
//! `update` needs the same numbers as the views (how many rows a page is, how
//! many results fit), so both read them from here.

use ratatui::layout::{Rect, Size};

/// Below this the layout cannot show a header, a body and a status bar with
/// anything useful in them; the "too small" notice is drawn instead.
pub const MIN_WIDTH: u16 = 30;
pub const MIN_HEIGHT: u16 = 6;

pub fn too_small(size: Size) -> bool {
    size.width < MIN_WIDTH || size.height < MIN_HEIGHT
}

/// The three bands of every screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bands {
    pub header: Rect,
    pub body: Rect,
    pub footer: Rect,
}

pub fn bands(size: Size) -> Bands {
    let area = Rect::new(0, 0, size.width, size.height);
    if size.height < 3 {
        return Bands {
            header: Rect::new(0, 0, area.width, 0),
            body: area,
            footer: Rect::new(0, area.height, area.width, 0),
        };
    }
    Bands {
        header: Rect::new(0, 0, area.width, 1),
        body: Rect::new(0, 1, area.width, area.height - 2),
        footer: Rect::new(0, area.height - 1, area.width, 1),
    }
}

pub fn body(size: Size) -> Rect {
    bands(size).body
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LibraryLayout {
    pub filter: Option<Rect>,
    pub list: Rect,
}

pub fn library(body: Rect, filter_shown: bool) -> LibraryLayout {
    if !filter_shown || body.height < 2 {
        return LibraryLayout {
            filter: None,
            list: body,
        };
    }
    LibraryLayout {
        filter: Some(Rect::new(body.x, body.y, body.width, 1)),
        list: Rect::new(body.x, body.y + 1, body.width, body.height - 1),
    }
}

/// A box centred in `area`, at most `width`×`height`.
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let width = width.min(area.width);
    let height = height.min(area.height);
    Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReaderLayout {
    /// Where document lines go (inside a one-column margin on each side).
    pub text: Rect,
    /// The table of contents panel, when open.
    pub toc: Option<Rect>,
}

/// The reader's body: the text, and the table of contents on the left when
/// open. On a narrow terminal the panel takes the whole body instead of
/// squeezing the text.
pub fn reader(body: Rect, toc_open: bool) -> ReaderLayout {
    let margin = |r: Rect| Rect::new(r.x + 1, r.y, r.width.saturating_sub(2), r.height);
    if !toc_open {
        return ReaderLayout {
            text: margin(body),
            toc: None,
        };
    }
    if body.width < 60 {
        return ReaderLayout {
            text: margin(body),
            toc: Some(body),
        };
    }
    let toc_width = (body.width / 3).clamp(24, 40);
    let toc = Rect::new(body.x, body.y, toc_width, body.height);
    let text = Rect::new(
        body.x + toc_width,
        body.y,
        body.width - toc_width,
        body.height,
    );
    ReaderLayout {
        text: margin(text),
        toc: Some(toc),
    }
}

/// The text of a decision tree's outcome page (inside a one-column margin).
pub fn outcome(body: Rect) -> Rect {
    Rect::new(
        body.x + 1,
        body.y,
        body.width.saturating_sub(2),
        body.height,
    )
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkLayout {
    /// Breadcrumbs: the tree and the answers so far.
    pub crumbs: Rect,
    /// The question and its numbered options.
    pub question: Rect,
    /// The box for why the answer matters and how to find out.
    pub why: Rect,
    /// The text inside that box.
    pub panel: Rect,
}

/// A question: side by side on a wide terminal; stacked on a narrow one,
/// where the question gets the rows its text and options take (`head_rows`)
/// as long as the panel keeps a third of the height, at least four rows.
/// Widths never depend on `head_rows`, so the head can be laid out first.
pub fn walk(body: Rect, head_rows: usize) -> WalkLayout {
    let crumbs = Rect::new(
        body.x + 1,
        body.y,
        body.width.saturating_sub(2),
        1.min(body.height),
    );
    let rest = Rect::new(
        body.x,
        body.y + crumbs.height,
        body.width,
        body.height.saturating_sub(crumbs.height),
    );
    let (question, why) = if rest.width >= 100 {
        let left = rest.width * 11 / 20;
        (
            Rect::new(rest.x + 1, rest.y, left.saturating_sub(2), rest.height),
            Rect::new(rest.x + left, rest.y, rest.width - left, rest.height),
        )
    } else {
        let panel_min = (rest.height / 3).max(4).min(rest.height);
        let wanted = u16::try_from(head_rows + 1).unwrap_or(u16::MAX);
        let top = wanted.min(rest.height - panel_min);
        (
            Rect::new(rest.x + 1, rest.y, rest.width.saturating_sub(2), top),
            Rect::new(rest.x, rest.y + top, rest.width, rest.height - top),
        )
    };
    // Inside a border on the top and the left, and one column of margin.
    let panel = Rect::new(
        why.x + 2,
        why.y + 1.min(why.height),
        why.width.saturating_sub(2),
        why.height.saturating_sub(1),
    );
    WalkLayout {
        crumbs,
        question,
        why,
        panel,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLayout {
    /// The query box.
    pub input: Rect,
    /// The hits, three rows each.
    pub hits: Rect,
}

pub fn search(body: Rect) -> SearchLayout {
    let input = Rect::new(body.x, body.y, body.width, body.height.min(1));
    let skip = body.height.min(2);
    SearchLayout {
        input,
        hits: Rect::new(body.x, body.y + skip, body.width, body.height - skip),
    }
}
