//! The layout pass: pulldown-cmark events of a document's body become styled
//! lines, with the maps the reader needs (headings, links, code blocks and
//! the file line of every screen line).
//!
//! Blocks are laid out top to bottom through a stack of containers (quotes,
//! list items, footnotes) that each add a prefix to the lines inside them.
//! Every piece of file text is sanitized before it is measured, so control
//! characters can neither reach the terminal nor upset the widths.

use std::collections::VecDeque;
use std::sync::Arc;

use pulldown_cmark::{BlockQuoteKind, Event, LinkType, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::Span;

use super::highlight::Highlighter;
use super::shortcodes::without_shortcode_lines;
use super::table::{self, Row};
use super::wrap::{self, Frag, Inline, WrappedLine, break_preformatted, wrap};
use super::{RenderOptions, Rendered, RenderedCode, RenderedFootnote, RenderedLink};
use crate::corpus::{
    Document, LinkTarget, anchor_tag, bare_url, causes, chunks, comments, fence_language,
    footnote_anchor, footnote_reference, resolve, slug,
};
use crate::text::sanitize;
use crate::theme::Theme;

/// Narrowest layout: a smaller width is laid out at this one.
pub const MIN_WIDTH: usize = 10;
const BULLETS: [&str; 3] = ["•", "◦", "▪"];
/// Starts each continuation of a wrapped code or HTML line.
const CONTINUATION: &str = "↪ ";
const CONTINUATION_WIDTH: usize = 2;
/// In front of a link to a file in the knowledge: lore can open it.
const FOLLOWABLE: &str = "→";
/// Widest footnote label kept as a hanging marker (`[12] `).
const MAX_FOOTNOTE_MARKER: usize = 6;
/// Widest horizontal rule (`---`), so unwrapped output stays readable.
const MAX_RULE: usize = 200;
/// Narrowest code frame, so a one-word block still looks like a block.
const MIN_FRAME: usize = 16;
/// Lines of one wrapped link that get a `RenderedLink` piece. Each piece
/// carries the link's text and target, so a link that wraps onto thousands
/// of lines (a 100 KB URL in a hostile file) would copy them thousands of
/// times: gigabytes. Past this many lines the text is still shown and
/// styled, just not mapped; a real link never gets near it.
pub const MAX_LINK_PIECES: usize = 8;

pub fn render(doc: &Document, options: &RenderOptions<'_>) -> Rendered {
    render_in_parts(doc, options, chunks::PART_BYTES)
}

/// `render`, parsing the body in parts of about `part_bytes`.
fn render_in_parts(doc: &Document, options: &RenderOptions<'_>, part_bytes: usize) -> Rendered {
    let width = usize::from(options.width).max(MIN_WIDTH);
    let highlighter = options.highlighter.filter(|_| options.theme.has_color());
    if let Some(highlighter) = highlighter {
        // Colour the code blocks first, on every core; the layout below
        // then finds each one remembered.
        highlighter.prepare(doc, options.theme);
    }
    let index = LineIndex::new(&doc.text);
    let file_lines = index.starts.len();
    let mut r = Renderer {
        doc,
        theme: options.theme,
        highlighter,
        width,
        wrap_code: options.wrap_code,
        lines: index,
        out: Rendered::with_room_for(doc, file_lines),
        containers: Vec::new(),
        lists: Vec::new(),
        need_blank: false,
        inline: Vec::new(),
        block_styles: Vec::new(),
        inline_styles: Vec::new(),
        link_infos: Vec::new(),
        current_link: None,
        image: None,
        heading: None,
        heading_anchor_open: false,
        headings_seen: 0,
        footnotes_seen: 0,
        code_blocks_seen: 0,
        code: None,
        table: None,
        html: None,
        lead: None,
    };
    let body = doc.body();
    // A big body is parsed a part at a time (see `chunks`); the parts then
    // share the document's link reference definitions.
    let parts = chunks::chunks(body, part_bytes);
    let definitions = chunks::shared_definitions(body, &parts);
    for part in &parts {
        // Events are taken as they come, with the two the layout looks
        // ahead at: collected whole, they took more memory than the
        // rendered lines (about 100 bytes an event, several events a line).
        let mut events = chunks::events(part, &definitions);
        let mut ahead: VecDeque<Spanned<'_>> = events.by_ref().take(LOOKAHEAD + 1).collect();
        while let Some((event, range)) = ahead.pop_front() {
            ahead.extend(events.by_ref().take(LOOKAHEAD - ahead.len()));
            let at = |offset: usize| r.lines.line(doc.body_offset + part.body_offset(offset));
            let line = at(range.start);
            let end_line = at(range.end.saturating_sub(1).max(range.start));
            r.event(&event, line, end_line, ahead.make_contiguous());
        }
    }
    r.flush_inline();
    r.finish()
}

/// Events after the current one that the layout may look at.
const LOOKAHEAD: usize = 2;

/// An event and the byte range of the body it came from.
type Spanned<'a> = (Event<'a>, std::ops::Range<usize>);

/// 1-based line numbers of byte offsets in the whole file (files lore reads
/// are far below 4 GiB; offsets past that count as the last line).
struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    fn new(text: &str) -> Self {
        let mut starts = Vec::with_capacity(text.bytes().filter(|&b| b == b'\n').count() + 1);
        starts.push(0);
        starts.extend(
            text.match_indices('\n')
                .map_while(|(i, _)| u32::try_from(i + 1).ok()),
        );
        Self { starts }
    }

    fn line(&self, offset: usize) -> usize {
        self.starts
            .partition_point(|&s| s as usize <= offset)
            .max(1)
    }
}

enum Container {
    /// A quote; a GitHub alert (`> [!NOTE]`) draws its bar in its colour.
    Quote(Style),
    /// A list item or footnote: a marker on its first line, its width in
    /// spaces on the others.
    Item {
        marker: Vec<Span<'static>>,
        width: usize,
        shown: bool,
    },
}

struct ListState {
    next: Option<u64>,
    tight: bool,
    items: usize,
}

struct LinkInfo {
    dest: String,
    target: LinkTarget,
    text: String,
    /// Pieces mapped so far (see `MAX_LINK_PIECES`).
    pieces: usize,
}

struct CodeState {
    lang: Option<String>,
    /// The code: the document's own copy of this block when it has one
    /// (the same block, found by its fence line), else collected here.
    shared: Option<Arc<str>>,
    raw: String,
    fence_line: usize,
    first_text_line: Option<usize>,
}

struct TableState {
    aligns: Vec<pulldown_cmark::Alignment>,
    rows: Vec<Row>,
}

struct Renderer<'a> {
    doc: &'a Document,
    theme: &'a Theme,
    highlighter: Option<&'a Highlighter>,
    width: usize,
    /// `RenderOptions::wrap_code`.
    wrap_code: bool,
    lines: LineIndex,
    out: Rendered,
    containers: Vec<Container>,
    lists: Vec<ListState>,
    /// A blank line is owed before the next block.
    need_blank: bool,
    inline: Vec<Inline>,
    block_styles: Vec<Style>,
    inline_styles: Vec<Style>,
    link_infos: Vec<LinkInfo>,
    current_link: Option<usize>,
    image: Option<String>,
    /// Level, and the title text for the slug fallback.
    heading: Option<(u8, String)>,
    /// The last event in the heading was an HTML anchor tag: its `</a>`
    /// is hidden with it.
    heading_anchor_open: bool,
    headings_seen: usize,
    /// Footnote definitions laid out so far: the next one's place in
    /// `Document::footnotes`.
    footnotes_seen: usize,
    /// Code blocks laid out so far: the next one's place in
    /// `Document::code_blocks`.
    code_blocks_seen: usize,
    code: Option<CodeState>,
    table: Option<TableState>,
    html: Option<(String, usize)>,
    /// Text to put before the next inline text (a long footnote label).
    lead: Option<Frag>,
}

impl Renderer<'_> {
    fn event(&mut self, event: &Event<'_>, line: usize, end_line: usize, ahead: &[Spanned<'_>]) {
        match event {
            Event::Start(tag) => self.start(tag, line, ahead),
            Event::End(tag) => self.end(*tag, end_line),
            Event::Text(text) => self.text(text, line),
            Event::Code(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                if let Some(alt) = self.image.as_mut() {
                    alt.push_str(text);
                    return;
                }
                self.collect_title(text);
                self.collect_link_text(text);
                let style = self.style().patch(self.theme.inline_code);
                let text = sanitize(text);
                if !text.is_empty() {
                    self.push_frag(text, style, line);
                    // A command, a path or an anchor: not split where it fits.
                    if let Some(Inline::Text(frag)) = self.inline.last_mut() {
                        frag.whole = true;
                    }
                }
            }
            Event::Html(text) => match self.html.as_mut() {
                Some((html, _)) => html.push_str(text),
                None => self.inline_html(text, line),
            },
            Event::InlineHtml(text) => {
                // `### <a name="attest"></a> Title`: the tag is an anchor
                // (`corpus::anchor_tag`), invisible on GitHub; so is its `</a>`.
                if self.heading.is_some() {
                    let anchor = anchor_tag::is_anchor_tag(text);
                    let closes = std::mem::replace(&mut self.heading_anchor_open, anchor);
                    if anchor || (closes && text.trim().eq_ignore_ascii_case("</a>")) {
                        return;
                    }
                }
                self.inline_html(text, line);
            }
            Event::FootnoteReference(label) => self.footnote_reference(label, line),
            Event::SoftBreak => {
                if let Some(alt) = self.image.as_mut() {
                    alt.push(' ');
                    return;
                }
                self.collect_title(" ");
                self.collect_link_text(" ");
                let style = self.style();
                self.push_frag(" ".into(), style, line);
            }
            Event::HardBreak => {
                self.collect_title(" ");
                self.inline.push(Inline::Break);
            }
            Event::Rule => {
                self.flush_inline();
                // Unwrapped output has no width to fill.
                let w = self.content_width().min(MAX_RULE);
                let spans = vec![Span::styled("─".repeat(w), self.theme.rule)];
                self.push_line(spans, line, &[]);
                self.need_blank = true;
            }
            Event::TaskListMarker(done) => self.set_task(*done),
        }
    }

    /// `ahead` holds the events after this one.
    fn start(&mut self, tag: &Tag<'_>, line: usize, ahead: &[Spanned<'_>]) {
        match tag {
            Tag::Paragraph => self.flush_inline(),
            Tag::Heading { level, .. } => {
                self.flush_inline();
                let level = *level as u8;
                self.heading = Some((level, String::new()));
                self.heading_anchor_open = false;
                self.block_styles.push(self.theme.heading(level));
                if level >= 3 {
                    let style = self.style();
                    self.push_frag(heading_marker(level), style, line);
                }
            }
            Tag::BlockQuote(kind) => {
                self.flush_inline();
                self.blank_if_needed();
                match kind {
                    None => {
                        self.containers
                            .push(Container::Quote(self.theme.quote_mark));
                        self.block_styles.push(self.theme.quote);
                    }
                    Some(kind) => {
                        // A GitHub alert: a callout with its kind as a title
                        // line, in the kind's colour, and plain text inside.
                        let (label, style) = alert(self.theme, *kind);
                        self.containers.push(Container::Quote(style));
                        self.block_styles.push(self.theme.text);
                        let title = if self.theme.has_color() {
                            style.add_modifier(ratatui::style::Modifier::BOLD)
                        } else {
                            style
                        };
                        self.push_frag(label.to_string(), title, line);
                        self.flush_inline();
                    }
                }
            }
            Tag::CodeBlock(kind) => {
                self.flush_inline();
                let lang = fence_language(kind);
                // The document parsed this block too: its copy is shared
                // rather than collected again (a big block was held twice).
                let shared = self
                    .doc
                    .code_blocks
                    .get(self.code_blocks_seen)
                    .filter(|block| block.line == line)
                    .map(|block| Arc::clone(&block.code));
                self.code_blocks_seen += 1;
                self.code = Some(CodeState {
                    lang,
                    shared,
                    raw: String::new(),
                    fence_line: line,
                    first_text_line: None,
                });
            }
            Tag::HtmlBlock => {
                self.flush_inline();
                self.html = Some((String::new(), line));
            }
            Tag::List(start) => {
                self.flush_inline();
                if self.lists.last().is_some_and(|l| l.tight) {
                    self.need_blank = false;
                }
                self.blank_if_needed();
                // Loose lists wrap item text in paragraphs; tight ones do not.
                let tight = !matches!(ahead.get(1), Some((Event::Start(Tag::Paragraph), _)));
                self.lists.push(ListState {
                    next: *start,
                    tight,
                    items: 0,
                });
            }
            Tag::Item => {
                self.flush_inline();
                let depth = self.lists.len().saturating_sub(1);
                let Some(list) = self.lists.last_mut() else {
                    return;
                };
                if list.tight && list.items > 0 {
                    self.need_blank = false;
                }
                list.items += 1;
                let marker = match list.next.as_mut() {
                    Some(n) => {
                        let m = format!("{n}. ");
                        *n += 1;
                        m
                    }
                    None => format!("{} ", BULLETS[depth % BULLETS.len()]),
                };
                self.blank_if_needed();
                let width = wrap::width(&marker);
                self.containers.push(Container::Item {
                    marker: vec![Span::styled(marker, self.theme.list_marker)],
                    width,
                    shown: false,
                });
            }
            Tag::FootnoteDefinition(label) => {
                self.flush_inline();
                self.blank_if_needed();
                // Its first line is the next one, marker and all.
                let anchor = match self.doc.footnotes.get(self.footnotes_seen) {
                    Some(footnote) if footnote.label == label.as_ref() => footnote.anchor.clone(),
                    _ => footnote_anchor(label),
                };
                self.footnotes_seen += 1;
                let line = self.out.lines.len();
                self.out.footnotes.push(RenderedFootnote {
                    anchor,
                    line,
                    end: line,
                });
                let marker = format!("[{}] ", sanitize(label));
                let width = wrap::width(&marker);
                if width <= MAX_FOOTNOTE_MARKER {
                    self.containers.push(Container::Item {
                        marker: vec![Span::styled(marker, self.theme.footnote)],
                        width,
                        shown: false,
                    });
                } else {
                    // A long label would eat the width as a hanging indent:
                    // it leads the note's first line instead.
                    self.containers.push(Container::Item {
                        marker: Vec::new(),
                        width: 0,
                        shown: false,
                    });
                    self.lead = Some(Frag {
                        text: marker,
                        style: self.theme.footnote,
                        link: None,
                        source: line,
                        whole: false,
                    });
                }
            }
            Tag::Table(aligns) => {
                self.flush_inline();
                self.table = Some(TableState {
                    aligns: aligns.clone(),
                    rows: Vec::new(),
                });
            }
            Tag::TableHead | Tag::TableRow => {
                let header = matches!(tag, Tag::TableHead);
                if header {
                    self.block_styles.push(self.theme.table_header);
                }
                if let Some(table) = self.table.as_mut() {
                    table.rows.push(Row {
                        cells: Vec::new(),
                        header,
                        source: line,
                    });
                }
            }
            Tag::TableCell => self.inline.clear(),
            Tag::Emphasis => self.inline_styles.push(self.theme.emphasis),
            Tag::Strong => self.inline_styles.push(self.theme.strong),
            Tag::Strikethrough => self.inline_styles.push(self.theme.strike),
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => {
                let id = self.link_infos.len();
                let target = match self.doc.links.get(id) {
                    _ if *link_type == LinkType::Email => {
                        LinkTarget::External(format!("mailto:{dest_url}"))
                    }
                    Some(link) if link.dest == dest_url.as_ref() => link.target.clone(),
                    _ => resolve(&self.doc.path, dest_url),
                };
                let dest = if matches!(link_type, LinkType::Autolink | LinkType::Email) {
                    String::new() // the text already is the destination
                } else {
                    dest_url.to_string()
                };
                self.link_infos.push(LinkInfo {
                    dest,
                    target,
                    text: String::new(),
                    pieces: 0,
                });
                self.current_link = Some(id);
                // Links lore can open carry a mark in front of their text.
                if self.link_infos[id].target.is_followable() {
                    let style = self.style().patch(self.theme.link_followable);
                    self.push_frag(FOLLOWABLE.into(), style, line);
                }
                self.inline_styles.push(self.theme.link);
            }
            Tag::Image { .. } if self.image.is_none() => self.image = Some(String::new()),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd, line: usize) {
        match tag {
            TagEnd::Paragraph => {
                self.flush_inline();
                self.need_blank = true;
            }
            TagEnd::Heading(_) => self.end_heading(),
            TagEnd::BlockQuote(_) => {
                self.flush_inline();
                self.containers.pop();
                self.block_styles.pop();
                self.need_blank = true;
            }
            TagEnd::CodeBlock => self.end_code(line),
            TagEnd::HtmlBlock => self.end_html(),
            TagEnd::List(_) => {
                self.flush_inline();
                self.lists.pop();
                self.need_blank = true;
            }
            TagEnd::Item | TagEnd::FootnoteDefinition => {
                if let Some(lead) = self.lead.take() {
                    self.inline.insert(0, Inline::Text(lead));
                }
                self.flush_inline();
                if let Some(Container::Item { shown: false, .. }) = self.containers.last() {
                    self.push_line(Vec::new(), line, &[]);
                }
                self.containers.pop();
                if tag == TagEnd::FootnoteDefinition {
                    self.need_blank = true;
                    if let Some(note) = self.out.footnotes.last_mut() {
                        note.end = self.out.lines.len();
                    }
                }
            }
            TagEnd::Table => self.end_table(),
            TagEnd::TableHead => {
                self.block_styles.pop();
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.inline);
                if let Some(row) = self.table.as_mut().and_then(|t| t.rows.last_mut()) {
                    row.cells.push(cell);
                }
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.inline_styles.pop();
            }
            TagEnd::Link => self.end_link(line),
            TagEnd::Image => {
                if let Some(alt) = self.image.take() {
                    let alt = sanitize(alt.trim());
                    let shown = if alt.is_empty() {
                        "[image]".to_string()
                    } else {
                        format!("[image: {alt}]")
                    };
                    self.collect_link_text(&shown);
                    let style = self.style().patch(self.theme.image);
                    self.push_frag(shown, style, line);
                }
            }
            _ => {}
        }
    }

    fn text(&mut self, text: &str, line: usize) {
        if let Some(code) = self.code.as_mut() {
            code.first_text_line.get_or_insert(line);
            if code.shared.is_none() {
                code.raw.push_str(text);
            }
            return;
        }
        if let Some(alt) = self.image.as_mut() {
            alt.push_str(text);
            return;
        }
        self.collect_title(text);
        self.collect_link_text(text);
        let style = self.style();
        if self.current_link.is_some() {
            self.push_frag(sanitize(text), style, line);
            return;
        }
        // A bare URL in prose is a link, as on GitHub.
        let mut rest = text;
        while let Some(url) = bare_url(rest) {
            let (before, after) = rest.split_at(url.start);
            self.push_frag(sanitize(before), style, line);
            let url_text = &after[..url.len()];
            self.link_infos.push(LinkInfo {
                dest: String::new(), // the text is the destination
                target: LinkTarget::External(url_text.to_string()),
                text: url_text.to_string(),
                pieces: 0,
            });
            self.current_link = Some(self.link_infos.len() - 1);
            self.push_frag(sanitize(url_text), style.patch(self.theme.link), line);
            self.current_link = None;
            rest = &after[url.len()..];
        }
        self.push_frag(sanitize(rest), style, line);
    }

    /// HTML in a paragraph or a table cell. A comment is hidden, as every
    /// Markdown viewer hides it; `<br>` (how GitHub tables put two lines in
    /// one cell) breaks the line; other tags are shown as written.
    fn inline_html(&mut self, html: &str, line: usize) {
        if comments::is_comment(html) {
            return;
        }
        if is_line_break(html) {
            if self.image.is_none() {
                self.collect_title(" ");
                self.inline.push(Inline::Break);
            }
            return;
        }
        let style = self.style().patch(self.theme.html);
        self.push_frag(sanitize(html), style, line);
    }

    /// `[label]`, a link to the note (as `Document::parse` records it),
    /// unless it sits inside a link's text or an image's alt text.
    fn footnote_reference(&mut self, label: &str, line: usize) {
        let style = self.style().patch(self.theme.footnote);
        let shown = format!("[{}]", sanitize(label));
        if self.current_link.is_some() || self.image.is_some() {
            self.push_frag(shown, style, line);
            return;
        }
        let id = self.link_infos.len();
        let target = match self.doc.links.get(id) {
            Some(link) if link.dest == footnote_reference(label) => link.target.clone(),
            _ => LinkTarget::Internal {
                path: self.doc.path.clone(),
                anchor: Some(footnote_anchor(label)),
            },
        };
        self.link_infos.push(LinkInfo {
            dest: String::new(), // nothing is written after the label
            target,
            text: label.to_string(),
            pieces: 0,
        });
        self.current_link = Some(id);
        self.push_frag(shown, style, line);
        self.current_link = None;
    }

    fn set_task(&mut self, done: bool) {
        if let Some(Container::Item {
            marker,
            width,
            shown: false,
        }) = self.containers.last_mut()
        {
            let (text, style) = if done {
                ("[✓] ", self.theme.task_done)
            } else {
                ("[ ] ", self.theme.task_open)
            };
            *marker = vec![Span::styled(text, style)];
            *width = wrap::width(text);
        }
    }

    fn collect_title(&mut self, text: &str) {
        if let Some((_, title)) = self.heading.as_mut() {
            title.push_str(text);
        }
    }

    fn collect_link_text(&mut self, text: &str) {
        if let Some(id) = self.current_link {
            self.link_infos[id].text.push_str(text);
        }
    }

    /// The style for text at this point: block styles, then inline ones.
    fn style(&self) -> Style {
        self.block_styles
            .iter()
            .chain(&self.inline_styles)
            .fold(self.theme.text, |acc, s| acc.patch(*s))
    }

    fn push_frag(&mut self, text: String, style: Style, source: usize) {
        if text.is_empty() {
            return;
        }
        if let Some(lead) = self.lead.take() {
            self.inline.push(Inline::Text(lead));
        }
        self.inline.push(Inline::Text(Frag {
            text,
            style,
            link: self.current_link,
            source,
            whole: false,
        }));
    }

    fn end_link(&mut self, line: usize) {
        self.inline_styles.pop();
        let Some(id) = self.current_link.take() else {
            return;
        };
        let info = &self.link_infos[id];
        if info.dest.is_empty() || info.dest == info.text {
            return;
        }
        let dest = sanitize(&info.dest);
        let style = self.style().patch(self.theme.link_target);
        self.current_link = Some(id);
        self.push_frag(format!(" ({dest})"), style, line);
        self.current_link = None;
    }

    fn end_heading(&mut self) {
        let Some((level, title)) = self.heading.take() else {
            return;
        };
        let inlines = std::mem::take(&mut self.inline);
        let width = self.content_width();
        let wrapped = wrap(&inlines, width);
        let mut first = None;
        let mut widest = 0;
        for line in wrapped {
            widest = widest.max(line.width);
            let index = self.push_wrapped(line);
            first.get_or_insert(index);
        }
        let style = self.theme.heading(level);
        let source = self.last_source(1);
        if level <= 2 && widest > 0 {
            let bar = if level == 1 { "═" } else { "─" };
            // A title line can pass the width (an escape is never cut); its
            // underline does not.
            let bar = bar.repeat(widest.min(width));
            self.push_line(vec![Span::styled(bar, style)], source, &[]);
        }
        let index = self.headings_seen;
        self.headings_seen += 1;
        let (anchor, title) = match self.doc.sections.get(index) {
            Some(section) => (section.anchor.clone(), section.title.clone()),
            None => (slug(title.trim()), title.trim().to_string()),
        };
        let line = first.unwrap_or_else(|| self.out.lines.len().saturating_sub(1));
        self.out
            .headings
            .push(&anchor, level, &sanitize(&title), line);
        self.block_styles.pop();
        self.need_blank = true;
    }

    fn end_code(&mut self, closing_line: usize) {
        let Some(mut code) = self.code.take() else {
            return;
        };
        let raw: Arc<str> = code
            .shared
            .take()
            .unwrap_or_else(|| std::mem::take(&mut code.raw).into());
        if code.lang.as_deref() == Some(causes::FENCE) {
            let first = code.first_text_line.unwrap_or(code.fence_line + 1);
            let block = causes::parse_block(&raw, first, code.fence_line);
            // A block that does not parse shows as code: `lore check` says why.
            if block.errors.is_empty() {
                self.render_causes(&block);
                return;
            }
        }
        let width = self.content_width();
        let highlighted = match (self.highlighter, &code.lang) {
            (Some(h), Some(lang)) => h.highlight(&raw, lang, self.theme),
            _ => None,
        };
        // Plain code is taken line by line from the raw text: a copy of a
        // block of 600,000 short lines as spans took 20 times its size.
        let plain = |line: &str| vec![Span::styled(sanitize(line), self.theme.code_block)];
        let widest = match &highlighted {
            Some(lines) => (0..lines.len()).map(|i| lines.width(i)).max(),
            None => raw.lines().map(|l| wrap::width(&sanitize(l))).max(),
        }
        .unwrap_or(0);

        // Top frame `┌─ bash ────`, as wide as the code (within the width).
        let mut top = vec![Span::styled("┌─", self.theme.code_border)];
        let mut used = 2;
        if let Some(lang) = &code.lang {
            let label = truncate(&sanitize(lang), width.saturating_sub(used + 2));
            used += 2 + wrap::width(&label);
            top.push(Span::styled(" ", self.theme.code_border));
            top.push(Span::styled(label, self.theme.code_label));
            top.push(Span::styled(" ", self.theme.code_border));
        }
        let frame = width.min(widest.max(used + 2).max(MIN_FRAME));
        if frame > used {
            top.push(Span::styled(
                "─".repeat(frame - used),
                self.theme.code_border,
            ));
        }
        self.push_line(top, code.fence_line, &[]);
        let top_index = self.out.lines.len() - 1;

        let start = code.first_text_line.unwrap_or(code.fence_line + 1);
        let count = highlighted
            .as_ref()
            .map_or_else(|| raw.lines().count(), |lines| lines.len());
        let mut raw_lines = raw.lines();
        for i in 0..count {
            let spans = match &highlighted {
                Some(lines) => owned(lines.line(i).spans),
                None => plain(raw_lines.next().unwrap_or_default()),
            };
            let source = start + i;
            if !self.wrap_code {
                self.push_line(spans, source, &[]);
                continue;
            }
            for (k, mut piece) in break_preformatted(&spans, width, CONTINUATION_WIDTH)
                .into_iter()
                .enumerate()
            {
                if k > 0 {
                    piece.insert(0, Span::styled(CONTINUATION, self.theme.continuation));
                }
                self.push_line(piece, source, &[]);
            }
        }
        let bottom = format!("└{}", "─".repeat(frame.saturating_sub(1)));
        self.push_line(
            vec![Span::styled(bottom, self.theme.code_border)],
            closing_line,
            &[],
        );
        self.out.code_blocks.push(RenderedCode {
            first_line: top_index,
            last_line: self.out.lines.len() - 1,
            lang: code.lang,
            raw,
        });
        self.need_blank = true;
    }

    /// A causes block as a numbered list: each cause, its check in words,
    /// its fix and the command that confirms it, not the TOML.
    fn render_causes(&mut self, block: &causes::CauseBlock) {
        let width = self.content_width();
        let title = "Likely causes (lore diagnose checks them against a machine):";
        for line in wrap(
            &[self.frag(title, self.theme.strong, block.line, false)],
            width,
        ) {
            self.push_wrapped(line);
        }
        for (i, cause) in block.causes.iter().enumerate() {
            let marker = format!("{:>2}. ", i + 1);
            let indent = marker.chars().count();
            let inner = width.saturating_sub(indent).max(1);
            let mut rows: Vec<(Vec<Inline>, usize)> = vec![(
                vec![self.frag(&cause.text, self.theme.text, cause.line, false)],
                cause.line,
            )];
            let label = |this: &Self, name: &str, line: usize| {
                this.frag(&format!("{name}: "), this.theme.emphasis, line, true)
            };
            if let Some(check) = &cause.check {
                rows.push((
                    vec![
                        label(self, "check", check.line),
                        self.frag(
                            &check.condition.describe(),
                            self.theme.text,
                            check.line,
                            false,
                        ),
                    ],
                    check.line,
                ));
            }
            if let Some(fix) = &cause.fix {
                rows.push((
                    vec![
                        label(self, "fix", cause.line),
                        self.frag(fix, self.theme.text, cause.line, false),
                    ],
                    cause.line,
                ));
            }
            if let Some(confirm) = &cause.confirm {
                rows.push((
                    vec![
                        label(self, "confirm", cause.line),
                        self.frag(confirm, self.theme.inline_code, cause.line, true),
                    ],
                    cause.line,
                ));
            }
            let mut first = true;
            for (inlines, source) in rows {
                for line in wrap(&inlines, inner) {
                    let lead = if first {
                        Span::styled(marker.clone(), self.theme.list_marker)
                    } else {
                        Span::raw(" ".repeat(indent))
                    };
                    first = false;
                    let mut spans = vec![lead];
                    spans.extend(line.spans);
                    let at = if line.source == 0 {
                        source
                    } else {
                        line.source
                    };
                    self.push_line(spans, at, &[]);
                }
            }
        }
        self.need_blank = true;
    }

    fn frag(&self, text: &str, style: Style, source: usize, whole: bool) -> Inline {
        Inline::Text(Frag {
            text: sanitize(text),
            style,
            link: None,
            source,
            whole,
        })
    }

    fn end_html(&mut self) {
        let Some((html, start)) = self.html.take() else {
            return;
        };
        // A section's questions are for search (`corpus::questions`): a
        // comment, hidden as every Markdown viewer hides it, as are all
        // comments and lines of Hugo shortcodes. Other HTML is shown as
        // written.
        if crate::corpus::questions::is_questions_comment(&html) {
            return;
        }
        let width = self.content_width();
        let style = self.style().patch(self.theme.html);
        let shortcodes = &self.doc.shortcode_lines;
        // `visible_lines` first: it understands CRLF, which sanitize would
        // show as `^M`.
        for (i, line) in comments::visible_lines(&html) {
            if shortcodes
                .binary_search_by_key(&(start + i), |l| l.line)
                .is_ok()
            {
                continue;
            }
            let spans = vec![Span::styled(sanitize(&line), style)];
            for (k, mut piece) in break_preformatted(&spans, width, CONTINUATION_WIDTH)
                .into_iter()
                .enumerate()
            {
                if k > 0 {
                    piece.insert(0, Span::styled(CONTINUATION, self.theme.continuation));
                }
                self.push_line(piece, start + i, &[]);
            }
        }
        self.need_blank = true;
    }

    fn end_table(&mut self) {
        let Some(table) = self.table.take() else {
            return;
        };
        let width = self.content_width();
        let theme = self.theme;
        table::layout(table.rows, &table.aligns, width, theme, &mut |line| {
            self.push_wrapped(line);
        });
        self.need_blank = true;
    }

    /// Lays out pending inline text as a paragraph.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() || self.table.is_some() {
            return;
        }
        if let Some(Container::Item { shown: false, .. }) = self.containers.last()
            && strip_literal_task(&mut self.inline)
        {
            self.set_task(true);
        }
        let inlines = without_shortcode_lines(
            std::mem::take(&mut self.inline),
            &self.doc.shortcode_lines,
            self.style().patch(self.theme.emphasis),
        );
        let width = self.content_width();
        for line in wrap(&inlines, width) {
            self.push_wrapped(line);
        }
    }

    fn push_wrapped(&mut self, line: WrappedLine) -> usize {
        let source = if line.source == 0 {
            self.last_source(1)
        } else {
            line.source
        };
        self.push_line(line.spans, source, &line.links)
    }

    /// Columns left for content inside the current containers.
    fn content_width(&self) -> usize {
        self.width - self.prefix_width()
    }

    fn prefix_budget(&self) -> usize {
        self.width - (self.width / 2).max(MIN_WIDTH / 2)
    }

    fn prefix_width(&self) -> usize {
        let raw: usize = self
            .containers
            .iter()
            .map(|c| match c {
                Container::Quote(_) => 2,
                Container::Item { width, .. } => *width,
            })
            .sum();
        raw.min(self.prefix_budget())
    }

    /// The prefix for the next line; `first` consumes list markers.
    fn prefix(&mut self, first: bool) -> Vec<Span<'static>> {
        let mut spans = Vec::new();
        for container in &mut self.containers {
            match container {
                Container::Quote(style) => spans.push(Span::styled("│ ", *style)),
                Container::Item {
                    marker,
                    width,
                    shown,
                } => {
                    if first && !*shown {
                        spans.extend(marker.iter().cloned());
                        *shown = true;
                    } else {
                        spans.push(Span::raw(wrap::spaces(*width)));
                    }
                }
            }
        }
        let budget = self.prefix_budget();
        let total: usize = spans.iter().map(|s| wrap::width(&s.content)).sum();
        if total > budget {
            spans = cut_left(spans, total - budget);
        }
        spans
    }

    fn blank_if_needed(&mut self) {
        if !self.need_blank {
            return;
        }
        self.need_blank = false;
        if self.out.lines.is_empty() {
            return;
        }
        let mut prefix = self.prefix(false);
        // No trailing spaces on blank lines.
        while let Some(last) = prefix.last_mut() {
            let trimmed = last.content.trim_end().to_string();
            if trimmed.is_empty() {
                prefix.pop();
            } else {
                last.content = trimmed.into();
                break;
            }
        }
        let source = self.last_source(1);
        self.out.lines.push(prefix);
        self.out.source_lines.push(file_line(source));
    }

    /// Appends one line inside the current containers; returns its index.
    fn push_line(
        &mut self,
        spans: Vec<Span<'static>>,
        source: usize,
        links: &[(usize, usize, usize)],
    ) -> usize {
        self.blank_if_needed();
        let mut line = self.prefix(true);
        let offset: usize = line.iter().map(|s| wrap::width(&s.content)).sum();
        line.extend(spans);
        let index = self.out.lines.len();
        for &(start, end, id) in links {
            let info = &mut self.link_infos[id];
            if info.pieces == MAX_LINK_PIECES {
                continue;
            }
            info.pieces += 1;
            self.out.links.push(RenderedLink {
                line: index,
                start_col: start + offset,
                end_col: end + offset,
                target: info.target.clone(),
                dest: info.dest.clone(),
                text: sanitize(&info.text),
                index: id,
            });
        }
        // Keep source lines monotonic so a binary search finds the first
        // screen line of any file line.
        let last = self.last_source(0);
        self.out.lines.push(line);
        self.out.source_lines.push(file_line(source.max(last)));
        index
    }

    /// The file line of the last rendered line, or `none`.
    fn last_source(&self, none: usize) -> usize {
        self.out
            .source_lines
            .last()
            .map_or(none, |&line| line as usize)
    }

    fn finish(mut self) -> Rendered {
        // No trailing blank line.
        while let Some(last) = self.out.lines.len().checked_sub(1)
            && self.out.lines.width(last) == 0
        {
            self.out.lines.pop();
            self.out.source_lines.pop();
        }
        self.out
    }
}

/// `<br>`, `<br/>`, `<BR />`: a line break in HTML.
fn is_line_break(html: &str) -> bool {
    html.strip_prefix('<')
        .and_then(|t| t.strip_suffix('>'))
        .map(|t| t.trim_end_matches([' ', '/']))
        .is_some_and(|t| t.eq_ignore_ascii_case("br"))
}

/// What shows the level of a heading below the second (the first two are
/// underlined): one `▸` per level past the second, the heading's style
/// saying the rest. The same with or without colour, so colour never
/// changes the text or the layout.
fn heading_marker(level: u8) -> String {
    format!("{} ", "▸".repeat(usize::from(level.saturating_sub(2))))
}

/// A file line as `Rendered::source_lines` keeps it.
fn file_line(line: usize) -> u32 {
    u32::try_from(line).unwrap_or(u32::MAX)
}

/// Spans that borrow, as spans that own their text.
fn owned(spans: Vec<Span<'_>>) -> Vec<Span<'static>> {
    spans
        .into_iter()
        .map(|s| Span::styled(s.content.into_owned(), s.style))
        .collect()
}

/// The corpus writes finished tasks as a literal `[✓]` (or `[✔]`) at the start
/// of an item; pulldown-cmark only knows `[x]`. Removes the mark (which the
/// parser may have split over several text events) and says if it was there.
fn strip_literal_task(inlines: &mut Vec<Inline>) -> bool {
    let mut text = String::new();
    for inline in inlines.iter() {
        match inline {
            Inline::Text(frag) if frag.link.is_none() => text.push_str(&frag.text),
            _ => break,
        }
        if text.chars().count() >= 4 {
            break;
        }
    }
    let Some(rest) = text
        .strip_prefix("[✓]")
        .or_else(|| text.strip_prefix("[✔]"))
    else {
        return false;
    };
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return false;
    }
    // Remove the mark's bytes and the space after it from the front.
    let mut remove = "[✓]".len() + usize::from(rest.starts_with(' '));
    while remove > 0 && !inlines.is_empty() {
        let Inline::Text(frag) = &mut inlines[0] else {
            break;
        };
        if frag.text.len() <= remove {
            remove -= frag.text.len();
            inlines.remove(0);
        } else {
            frag.text.drain(..remove);
            remove = 0;
        }
    }
    true
}

/// Drops `columns` columns from the left of a prefix.
fn cut_left(spans: Vec<Span<'static>>, columns: usize) -> Vec<Span<'static>> {
    let mut left = columns;
    let mut out = Vec::new();
    for span in spans {
        if left == 0 {
            out.push(span);
            continue;
        }
        let mut kept = String::new();
        for ch in span.content.chars() {
            let w = wrap::width(ch.encode_utf8(&mut [0; 4]));
            if left >= w && left > 0 {
                left -= w;
            } else {
                kept.push(ch);
            }
        }
        if !kept.is_empty() {
            out.push(Span::styled(kept, span.style));
        }
    }
    out
}

/// The longest prefix of `text` no wider than `width` columns.
fn truncate(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for g in crate::text::units(text) {
        let w = wrap::width(g);
        if used + w > width {
            break;
        }
        used += w;
        out.push_str(g);
    }
    out
}

/// The title and colour of a GitHub alert (`> [!WARNING]`).
fn alert(theme: &Theme, kind: BlockQuoteKind) -> (&'static str, Style) {
    let [note, tip, important, warning, caution] = theme.alerts;
    match kind {
        BlockQuoteKind::Note => ("Note", note),
        BlockQuoteKind::Tip => ("Tip", tip),
        BlockQuoteKind::Important => ("Important", important),
        BlockQuoteKind::Warning => ("Warning", warning),
        BlockQuoteKind::Caution => ("Caution", caution),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::sources::{Origin, SourceFile, SourceSet};

    fn options(theme: &Theme) -> RenderOptions<'_> {
        RenderOptions {
            width: 100,
            theme,
            highlighter: None,
            wrap_code: true,
        }
    }

    /// The text a reader gets from a render, apart from what parsing in parts
    /// may change on purpose: blank lines (a list cut in two) and tables
    /// (each part fits its columns and repeats the header).
    fn prose(r: &Rendered) -> Vec<String> {
        (0..r.lines.len())
            .map(|i| r.lines.text(i).trim_end().to_string())
            .filter(|t| !t.is_empty() && !t.contains('│') && !t.contains('┼'))
            .collect()
    }

    fn links(r: &Rendered) -> Vec<(usize, String)> {
        let mut out: Vec<(usize, String)> =
            r.links.iter().map(|l| (l.index, l.dest.clone())).collect();
        out.dedup();
        out
    }

    #[test]
    fn parsing_in_parts_keeps_every_heading_link_code_block_and_line_of_prose() {
        let corpus = Corpus::load(&SourceSet::builtin_knowledge());
        let theme = Theme::plain();
        let mut split = 0;
        for doc in &corpus.documents {
            let whole = render_in_parts(doc, &options(&theme), usize::MAX);
            let parted = render_in_parts(doc, &options(&theme), 1024);
            split += usize::from(chunks::chunks(doc.body(), 1024).len() > 1);
            assert_eq!(whole.headings.len(), parted.headings.len(), "{}", doc.path);
            for (a, b) in whole.headings.iter().zip(parted.headings.iter()) {
                assert_eq!(
                    (&a.anchor, &a.title, a.level),
                    (&b.anchor, &b.title, b.level)
                );
            }
            let code = |r: &Rendered| -> Vec<(Option<String>, String)> {
                r.code_blocks
                    .iter()
                    .map(|c| (c.lang.clone(), c.raw.to_string()))
                    .collect()
            };
            assert_eq!(code(&whole), code(&parted), "{}", doc.path);
            assert_eq!(links(&whole), links(&parted), "{}", doc.path);
            assert_eq!(prose(&whole), prose(&parted), "{}", doc.path);
        }
        assert!(split > 30, "only {split} documents were parsed in parts");
    }

    #[test]
    fn a_code_block_is_shared_with_the_document_not_copied() {
        let doc = Document::parse(SourceFile {
            rel: "code.md".into(),
            origin: Origin::Builtin,
            text: "# Code\n\n```bash\necho one\n```\n\n- item\n\n      indented\n".into(),
            stamp: None,
        });
        let theme = Theme::plain();
        let rendered = render(&doc, &options(&theme));
        assert_eq!(rendered.code_blocks.len(), 2);
        for (shown, parsed) in rendered.code_blocks.iter().zip(&doc.code_blocks) {
            assert!(Arc::ptr_eq(&shown.raw, &parsed.code), "{:?}", shown.raw);
        }
        assert_eq!(&*rendered.code_blocks[0].raw, "echo one\n");
    }

    #[test]
    fn a_part_uses_reference_definitions_from_any_other_part() {
        let mut text = String::from("# Big\n\nSee [the guide][Guide] first.\n\n");
        for i in 0..200 {
            text.push_str(&format!("Paragraph {i} of filler text.\n\n"));
        }
        text.push_str("[guide]: https://example.org/guide \"The guide\"\n");
        let doc = Document::parse(SourceFile {
            rel: "big.md".into(),
            origin: Origin::Builtin,
            text,
            stamp: None,
        });
        assert!(chunks::chunks(doc.body(), 512).len() > 5);
        let theme = Theme::plain();
        let parted = render_in_parts(&doc, &options(&theme), 512);
        assert_eq!(
            links(&parted),
            [(0, "https://example.org/guide".to_string())]
        );
        assert_eq!(
            prose(&parted),
            prose(&render_in_parts(&doc, &options(&theme), usize::MAX))
        );
    }
}
