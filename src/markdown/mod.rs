//! Markdown to styled terminal lines: a document, a width and a theme in;
//! ratatui lines and the maps the reader needs out (heading → line, link →
//! line and columns, code block → lines, screen line → file line).
//!
//! Pure functions over `corpus::Document`: nothing here reads files, prints or
//! knows about the TUI. The document's own parse (sections, anchors, links)
//! is reused, so an anchor here is always the anchor `lore check` validated.

mod ansi;
mod headings;
mod highlight;
mod lines;
mod render;
mod shortcodes;
mod table;
mod wrap;

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

pub use ansi::{to_ansi, write_ansi};
pub use headings::{Headings, RenderedHeading};
pub use highlight::{
    FENCE_ALIASES, HighlightedLines, Highlighter, INTERACTIVE_LINES, PLAIN_FENCES,
};
pub use lines::Lines;
pub use render::{MAX_LINK_PIECES, MIN_WIDTH};
pub use wrap::width as display_width;

use crate::corpus::{Document, LinkTarget};
use crate::sources::Stamp;
use crate::theme::{Theme, ThemeKey};

/// Inline Markdown (an option's label, a title) as a reader sees it, for a
/// place that shows plain text on one line (a breadcrumb): `code` without
/// its backticks, emphasis without its stars, a link as its text. Sanitized.
pub fn inline_text(markdown: &str) -> String {
    use pulldown_cmark::{Event, Parser};
    let mut out = String::new();
    for event in Parser::new(markdown) {
        match event {
            Event::Text(t) | Event::Code(t) | Event::InlineHtml(t) | Event::Html(t) => {
                out.push_str(&t)
            }
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    crate::text::one_line(&out)
}

/// How to render.
#[derive(Clone, Copy)]
pub struct RenderOptions<'a> {
    /// Columns available; below `MIN_WIDTH` the layout uses `MIN_WIDTH`.
    pub width: u16,
    pub theme: &'a Theme,
    /// `None` renders code plain (the TUI does so until the syntaxes load).
    pub highlighter: Option<&'a Highlighter>,
    /// Break code lines wider than the width with a `↪` mark; when false
    /// they run past the width, so copied code is the code.
    pub wrap_code: bool,
}

/// A width that never wraps: for output to a pipe or a file.
pub const UNWRAPPED: u16 = u16::MAX;

/// A document laid out for one width and theme.
#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub lines: Lines,
    /// The file line (1-based, front matter counted) each rendered line comes
    /// from; never decreasing.
    pub source_lines: Vec<u32>,
    pub headings: Headings,
    /// Link pieces in screen order; a link that wraps has one piece per line.
    /// Footnote references are links to their notes' anchors.
    pub links: Vec<RenderedLink>,
    pub code_blocks: Vec<RenderedCode>,
    /// Footnote definitions, in the order written.
    pub footnotes: Vec<RenderedFootnote>,
}

/// Where a footnote's definition was laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFootnote {
    /// `fn:label` (see `corpus::footnote_anchor`).
    pub anchor: String,
    /// The rendered line showing its `[label]` marker.
    pub line: usize,
    /// The rendered line after its last one.
    pub end: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedLink {
    pub line: usize,
    /// Display columns `[start_col, end_col)` of this piece, text and shown
    /// target together.
    pub start_col: usize,
    pub end_col: usize,
    pub target: LinkTarget,
    /// The destination as written (empty for autolinks, whose text is the
    /// destination).
    pub dest: String,
    pub text: String,
    /// Which link of the document this is: the index in `Document::links`.
    /// Pieces of one wrapped link share it.
    pub index: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedCode {
    /// Rendered lines of the block's top and bottom frame lines (inclusive).
    pub first_line: usize,
    pub last_line: usize,
    pub lang: Option<String>,
    /// The code exactly as in the file, for copying. Not sanitized: never
    /// print it to a terminal as is.
    pub raw: Arc<str>,
}

/// Lays out `doc`'s body (front matter is never shown).
pub fn render(doc: &Document, options: &RenderOptions<'_>) -> Rendered {
    render::render(doc, options)
}

impl Rendered {
    /// An empty rendering with room for what `doc` is likely to need: twice
    /// its lines, three times its text. A big document's buffers then do not
    /// grow by copying, which left each old buffer's pages resident (memory
    /// reserved and never written costs nothing).
    fn with_room_for(doc: &Document, file_lines: usize) -> Rendered {
        let bytes: usize = doc
            .sections
            .iter()
            .map(|s| s.anchor.len() + s.title.len())
            .sum();
        Rendered {
            lines: Lines::with_capacity(file_lines * 2, doc.text.len() * 3),
            source_lines: Vec::with_capacity(file_lines * 2),
            headings: Headings::with_capacity(doc.sections.len(), bytes),
            ..Rendered::default()
        }
    }

    pub fn len(&self) -> usize {
        self.lines.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The rendered line of the heading, or else the footnote definition,
    /// with this anchor.
    pub fn line_for_anchor(&self, anchor: &str) -> Option<usize> {
        self.heading(anchor).map(|h| h.line).or_else(|| {
            let anchor = anchor.strip_prefix('#').unwrap_or(anchor);
            self.footnotes
                .iter()
                .find(|f| f.anchor == anchor)
                .map(|f| f.line)
        })
    }

    fn heading(&self, anchor: &str) -> Option<RenderedHeading<'_>> {
        let anchor = anchor.strip_prefix('#').unwrap_or(anchor);
        self.headings.iter().find(|h| h.anchor == anchor)
    }

    /// The first rendered line showing file line `line` or what follows it
    /// (a blank file line maps to the next block); past the end, the last line.
    pub fn line_for_source_line(&self, line: usize) -> usize {
        let i = self.source_lines.partition_point(|&s| (s as usize) < line);
        i.min(self.lines.len().saturating_sub(1))
    }

    /// The rendered lines of a section with its subsections: from its heading
    /// to the next heading of the same or a higher level. Empty if there is no
    /// such anchor.
    pub fn section_range(&self, anchor: &str) -> Range<usize> {
        let anchor = anchor.strip_prefix('#').unwrap_or(anchor);
        let mut headings = self.headings.iter();
        let Some(heading) = headings.find(|h| h.anchor == anchor) else {
            return 0..0;
        };
        let mut end = headings
            .find(|h| h.level <= heading.level)
            .map_or(self.lines.len(), |h| h.line);
        while end > heading.line + 1 && self.lines.width(end - 1) == 0 {
            end -= 1;
        }
        heading.line..end
    }

    /// The rendered lines of the footnote definition with this anchor
    /// (`fn:label`), its `[label]` line first. Empty if there is none.
    pub fn footnote_range(&self, anchor: &str) -> Range<usize> {
        let anchor = anchor.strip_prefix('#').unwrap_or(anchor);
        self.footnotes
            .iter()
            .find(|f| f.anchor == anchor)
            .map_or(0..0, |f| f.line..f.end.max(f.line))
    }

    /// The link piece at a screen position, if any.
    pub fn link_at(&self, line: usize, column: usize) -> Option<&RenderedLink> {
        self.links
            .iter()
            .find(|l| l.line == line && (l.start_col..l.end_col).contains(&column))
    }
}

/// What a cached rendering depends on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CacheKey {
    pub path: String,
    pub stamp: Option<Stamp>,
    pub text_len: usize,
    pub width: u16,
    pub theme: ThemeKey,
    pub highlighted: bool,
}

impl CacheKey {
    pub fn new(doc: &Document, options: &RenderOptions<'_>) -> CacheKey {
        CacheKey {
            path: doc.path.clone(),
            stamp: doc.stamp,
            text_len: doc.text.len(),
            width: options.width,
            theme: options.theme.key(),
            highlighted: options.highlighter.is_some() && options.theme.has_color(),
        }
    }
}

/// Recent renderings, so scrolling back to a document or toggling the
/// sidebar does not lay it out again. Least recently used goes first.
#[derive(Debug)]
pub struct RenderCache {
    entries: VecDeque<(CacheKey, Arc<Rendered>)>,
    capacity: usize,
}

impl Default for RenderCache {
    fn default() -> Self {
        RenderCache::new(16)
    }
}

impl RenderCache {
    pub fn new(capacity: usize) -> RenderCache {
        RenderCache {
            entries: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// The rendering for these options, from the cache or made now.
    pub fn get_or_render(&mut self, doc: &Document, options: &RenderOptions<'_>) -> Arc<Rendered> {
        let key = CacheKey::new(doc, options);
        if let Some(i) = self.entries.iter().position(|(k, _)| *k == key) {
            let entry = self.entries.remove(i).expect("index from position");
            let rendered = Arc::clone(&entry.1);
            self.entries.push_back(entry);
            return rendered;
        }
        let rendered = Arc::new(render(doc, options));
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((key, Arc::clone(&rendered)));
        rendered
    }

    /// True if this rendering is cached (it would not be laid out again).
    pub fn contains(&self, doc: &Document, options: &RenderOptions<'_>) -> bool {
        let key = CacheKey::new(doc, options);
        self.entries.iter().any(|(k, _)| *k == key)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// Forgets every rendering of the document with this path (its code has
    /// been coloured since).
    pub fn forget(&mut self, path: &str) {
        self.entries.retain(|(key, _)| key.path != path);
    }
}
