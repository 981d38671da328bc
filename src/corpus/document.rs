//! One Markdown file understood: title, kind, heading tree with anchors, links,
//! code blocks. This is the only place that parses Markdown structure for the
//! corpus; search, rendering and checks all read `Document`.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, LinkType, Options, Tag, TagEnd};

use super::anchor_tag;
use super::chunks;
use super::comments;
use super::drop::DropInfo;
use super::mdx;
use super::questions::{self, Question, QuestionBlock};
use super::shortcodes::{self, ShortcodeLine};
use super::slug::Slugger;
use crate::sources::{Origin, SourceFile, Stamp};

/// What a file is for, from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Knowledge,
    /// `KNOWLEDGE-DROP-*.md`: the record of one expansion that created a file.
    Drop,
    /// `INDEX.md` at the top of a knowledge root: the table of contents of
    /// that root. An `index.md` in a folder (the landing page of a MkDocs,
    /// Hugo or Sphinx section) is an ordinary page.
    Index,
}

/// The name of a knowledge root's table of contents, at its top.
pub const INDEX_FILE: &str = "INDEX.md";

impl Kind {
    pub fn of(path: &str) -> Kind {
        let name = path.rsplit('/').next().unwrap_or(path);
        if name.starts_with("KNOWLEDGE-DROP-") {
            Kind::Drop
        } else if path == INDEX_FILE {
            Kind::Index
        } else {
            Kind::Knowledge
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Knowledge => "knowledge",
            Kind::Drop => "drop",
            Kind::Index => "index",
        }
    }

    pub fn parse(s: &str) -> Option<Kind> {
        match s {
            "knowledge" => Some(Kind::Knowledge),
            "drop" => Some(Kind::Drop),
            "index" => Some(Kind::Index),
            _ => None,
        }
    }
}

/// A heading and the text under it. Lines are 1-based and count the whole file,
/// front matter included, so they match what an editor shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    pub level: u8,
    pub title: String,
    pub anchor: String,
    /// Other anchors that lead here: the `name` or `id` of an HTML anchor
    /// tag in the heading (`### <a name="attest"></a> Create attestations`,
    /// docker's CLI reference), on a line of its own just above it, or on a
    /// line of its own in its text (see `anchor_tag`). GitHub makes each a
    /// link target; lore takes the reader to this heading.
    pub aliases: Vec<String>,
    /// The heading's line.
    pub line: usize,
    /// Last line before the next heading of the same or a higher level (or the
    /// file's last line): the section with its subsections.
    pub end_line: usize,
    /// Last line before the next heading of any level: the section's own text.
    pub own_end_line: usize,
    /// Index of the enclosing section in `Document::sections`.
    pub parent: Option<usize>,
    /// What a user would ask that this section answers, from its questions
    /// block (see `questions`), in the order written.
    pub questions: Vec<Question>,
}

/// Where a link points once resolved against its document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LinkTarget {
    /// A URL with a scheme (`https:`, `mailto:` …): shown, never followed by lore.
    External(String),
    /// A file in the corpus (an id) and an optional anchor in it. A bare `#x`
    /// link resolves to the document itself.
    Internal {
        path: String,
        anchor: Option<String>,
    },
    /// A relative path that climbs above the knowledge root.
    OutsideRoot(String),
}

/// The scheme of a link to a decision tree (`decide:need-cupti`): a related
/// decision on an outcome page, which lore opens as a walk.
pub const TREE_SCHEME: &str = "decide:";

impl LinkTarget {
    /// The decision tree a `decide:ID` link names.
    pub fn tree(&self) -> Option<&str> {
        match self {
            LinkTarget::External(url) => url.strip_prefix(TREE_SCHEME).filter(|id| !id.is_empty()),
            _ => None,
        }
    }

    /// Lore opens it: a file in the knowledge, or a decision tree.
    pub fn is_followable(&self) -> bool {
        matches!(self, LinkTarget::Internal { .. }) || self.tree().is_some()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub text: String,
    /// The destination as written.
    pub dest: String,
    pub target: LinkTarget,
    pub line: usize,
    /// For an inline link `[text](dest "title")`: the byte range of
    /// `(dest "title")` in the file. `None` for reference links and
    /// autolinks, whose destination is not written after the text.
    pub dest_span: Option<std::ops::Range<usize>>,
}

/// A footnote's definition (`[^label]: text`). Its references are links
/// (`Document::links`) to its anchor in the same document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footnote {
    /// The label as the definition writes it.
    pub label: String,
    /// See [`footnote_anchor`].
    pub anchor: String,
    /// The definition's line.
    pub line: usize,
}

/// What a footnote's definition is reached by, as a link's `#anchor`:
/// `fn:` and the label as the definition writes it (`[^source]:` is
/// `#fn:source`), the form kramdown, Python-Markdown and MultiMarkdown give
/// their notes. GitHub's `#fn-source` would share its namespace with
/// heading anchors (a heading `Fn source` is `#fn-source`); a heading's
/// anchor from its title never holds a `:` (see `slug`), so these never
/// collide. A heading given such an id by hand (`{#fn:source}`) keeps it:
/// anchors are looked up among headings first.
pub fn footnote_anchor(label: &str) -> String {
    format!("{FOOTNOTE_PREFIX}{label}")
}

/// The label of a footnote anchor (`fn:source` → `source`), `None` for any
/// other anchor.
pub fn footnote_label(anchor: &str) -> Option<&str> {
    anchor.strip_prefix(FOOTNOTE_PREFIX)
}

const FOOTNOTE_PREFIX: &str = "fn:";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodeBlock {
    /// First word of the fence's info string, if any (`bash`, `dockerfile` …).
    pub lang: Option<String>,
    /// Line of the opening fence.
    pub line: usize,
    /// Line of the closing fence (or the last code line).
    pub end_line: usize,
    /// Shared with the rendered document's code block (`RenderedCode::raw`).
    pub code: std::sync::Arc<str>,
}

#[derive(Debug, Clone)]
pub struct Document {
    /// Path relative to its knowledge root with `/` separators: the id.
    pub path: String,
    pub title: String,
    pub kind: Kind,
    pub origin: Origin,
    pub stamp: Option<Stamp>,
    /// The whole file as read.
    pub text: String,
    /// Byte offset where the Markdown body starts (after any front matter).
    pub body_offset: usize,
    /// `key: value` (YAML) or `key = value` (TOML) pairs of the front matter.
    pub front_matter: Vec<(String, String)>,
    /// Why the front matter is not valid YAML or TOML (or never closed),
    /// and the line: for `lore check`. The file is still read.
    pub front_matter_error: Option<(usize, String)>,
    pub sections: Vec<Section>,
    /// Links in the order written: inline, reference and autolinks, bare
    /// URLs in prose and footnote references. The renderer relies on the
    /// order (`RenderedLink::index`).
    pub links: Vec<Link>,
    /// Footnote definitions in the order written.
    pub footnotes: Vec<Footnote>,
    pub code_blocks: Vec<CodeBlock>,
    /// The questions blocks (HTML comments under headings, see
    /// `questions`), in file order, with what is wrong with each.
    pub question_blocks: Vec<QuestionBlock>,
    /// Byte ranges of the file's HTML comments (`<!-- … -->`), questions
    /// blocks included, in order: never shown or indexed as text.
    pub comments: Vec<std::ops::Range<usize>>,
    /// Lines holding only Hugo shortcodes (see `shortcodes`), in order.
    pub shortcode_lines: Vec<ShortcodeLine>,
    pub line_count: usize,
    /// For drops: what the drop records.
    pub drop: Option<DropInfo>,
    /// For knowledge files: the id of the drop that describes this file. Set when
    /// the corpus is assembled.
    pub described_by: Option<String>,
}

/// The pulldown-cmark extensions every reader of the corpus uses.
pub fn markdown_options() -> Options {
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_HEADING_ATTRIBUTES
        | Options::ENABLE_GFM
}

impl Document {
    pub fn parse(file: SourceFile) -> Document {
        let SourceFile {
            rel,
            origin,
            mut text,
            stamp,
        } = file;
        let FrontMatter {
            body_offset,
            pairs: front_matter,
            title: front_matter_title,
            error: front_matter_error,
        } = split_front_matter(&text);
        // An MDX page's imports, comments and component tags are blanked
        // in place: everything below reads it as Markdown.
        let mut tag_labels = Vec::new();
        if mdx::is_mdx(&rel) {
            let cleaned = mdx::clean(&text, body_offset);
            text = cleaned.text;
            tag_labels = cleaned.labels;
        }
        let lines = LineIndex::new(&text);
        let body = &text[body_offset..];
        let mut parsed = Parsed::default();
        parse_body(
            &rel,
            body,
            body_offset,
            &lines,
            &mut parsed,
            chunks::PART_BYTES,
        );
        let line_count = lines.count();
        finish_sections(&mut parsed.sections, line_count);
        if !parsed.loose_anchors.is_empty() {
            place_loose_anchors(&text, &mut parsed);
        }
        if !parsed.question_blocks.is_empty() {
            let file_lines: Vec<&str> = text.lines().collect();
            questions::place(&mut parsed.question_blocks, &mut parsed.sections, |n| {
                file_lines
                    .get(n.wrapping_sub(1))
                    .copied()
                    .unwrap_or_default()
            });
        }
        // The page's own `# ` heading is what its reader sees on top; a
        // Hugo or MkDocs page has none, and its front matter's `title`
        // names it instead of the file (`_index`).
        let title = parsed
            .sections
            .iter()
            .find(|s| s.level == 1)
            .map(|s| s.title.clone())
            .or(front_matter_title)
            .unwrap_or_else(|| file_stem(&rel));
        let body_line = lines.line(body_offset);
        let mut shortcode_lines = shortcodes::find(&text, body_line, &parsed.code_blocks);
        if !tag_labels.is_empty() {
            shortcode_lines.extend(tag_labels);
            shortcode_lines.sort_by_key(|l| l.line);
            shortcode_lines.dedup_by_key(|l| l.line);
        }
        let kind = Kind::of(&rel);
        let mut doc = Document {
            path: rel,
            title,
            kind,
            origin,
            stamp,
            body_offset,
            front_matter,
            front_matter_error,
            sections: parsed.sections,
            links: parsed.links,
            footnotes: parsed.footnotes,
            code_blocks: parsed.code_blocks,
            question_blocks: parsed.question_blocks,
            comments: parsed.comments,
            shortcode_lines,
            line_count,
            drop: None,
            described_by: None,
            text,
        };
        if kind == Kind::Drop {
            doc.drop = Some(DropInfo::from_document(&doc));
        }
        doc
    }

    /// True when the title is the front matter's `title`: the page has no
    /// `# ` heading of its own (Hugo, MkDocs).
    pub fn titled_by_front_matter(&self) -> bool {
        !self.sections.iter().any(|s| s.level == 1) && self.title != file_stem(&self.path)
    }

    /// The Markdown body without front matter.
    pub fn body(&self) -> &str {
        &self.text[self.body_offset..]
    }

    /// The section an anchor leads to: its own anchor, else an HTML anchor
    /// tag's (`Section::aliases`).
    pub fn section_by_anchor(&self, anchor: &str) -> Option<&Section> {
        self.sections
            .iter()
            .find(|s| s.anchor == anchor)
            .or_else(|| {
                self.sections
                    .iter()
                    .find(|s| s.aliases.iter().any(|a| a == anchor))
            })
    }

    /// The anchor lore shows and renders for `anchor`: a heading's or a
    /// footnote's own, or for an HTML anchor tag's, its heading's.
    pub fn anchor_for<'d>(&'d self, anchor: &'d str) -> Option<&'d str> {
        let own = self
            .sections
            .iter()
            .map(|s| s.anchor.as_str())
            .chain(self.footnotes.iter().map(|f| f.anchor.as_str()))
            .find(|a| *a == anchor);
        own.or_else(|| self.section_by_anchor(anchor).map(|s| s.anchor.as_str()))
    }

    /// A front-matter value by key.
    pub fn meta(&self, key: &str) -> Option<&str> {
        self.front_matter
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// `Title › Parent › Section` for the section at `index`.
    pub fn heading_path(&self, index: usize) -> Vec<&str> {
        let mut path = Vec::new();
        let mut at = Some(index);
        while let Some(i) = at {
            let section = &self.sections[i];
            path.push(section.title.as_str());
            at = section.parent;
        }
        path.reverse();
        path
    }

    /// The file's text of lines `first..=last` (1-based).
    pub fn lines(&self, first: usize, last: usize) -> impl Iterator<Item = &str> {
        self.text
            .lines()
            .skip(first.saturating_sub(1))
            .take(last.saturating_sub(first) + 1)
    }
}

fn file_stem(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    super::links::strip_markdown_extension(name)
        .unwrap_or(name)
        .to_string()
}

/// Byte offsets of line starts, for turning parser offsets into line numbers.
/// Byte offsets to 1-based lines, for anything that reports `file:line`.
pub(crate) struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if starts.len() > 1 && *starts.last().unwrap_or(&0) == text.len() {
            starts.pop();
        }
        Self {
            starts,
            len: text.len(),
        }
    }

    /// 1-based line of a byte offset.
    pub(crate) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset.min(self.len))
    }

    fn count(&self) -> usize {
        if self.len == 0 { 0 } else { self.starts.len() }
    }
}

/// What `split_front_matter` found.
struct FrontMatter {
    /// Where the Markdown body starts.
    body_offset: usize,
    /// The simple `key: value` / `key = value` pairs.
    pairs: Vec<(String, String)>,
    /// The `title`, read as YAML or TOML reads it.
    title: Option<String>,
    /// Line and reason, when the block is not valid or never closed.
    error: Option<(usize, String)>,
}

/// Finds YAML (`---`) or TOML (`+++`) front matter at the very start of a file,
/// and checks that it parses as what its fence says: a typo there would
/// otherwise silently drop keys (`drop: none`) the checks rely on.
fn split_front_matter(text: &str) -> FrontMatter {
    let mut found = FrontMatter {
        body_offset: 0,
        pairs: Vec::new(),
        title: None,
        error: None,
    };
    let fence = if text.starts_with("---\n") || text.starts_with("---\r\n") {
        "---"
    } else if text.starts_with("+++\n") || text.starts_with("+++\r\n") {
        "+++"
    } else {
        return found;
    };
    let start = text.find('\n').map_or(text.len(), |i| i + 1);
    let mut offset = start;
    for line in text[start..].split_inclusive('\n') {
        let block_end = offset;
        offset += line.len();
        let trimmed = line.trim_end();
        if trimmed == fence || (fence == "---" && trimmed == "...") {
            found.body_offset = offset;
            let (title, error) = read_front_matter(fence, &text[start..block_end]);
            // A block that does not parse still names its page by its
            // simple `title` line.
            let title = match error {
                Some(_) => found
                    .pairs
                    .iter()
                    .find(|(k, _)| k == "title")
                    .map(|(_, v)| v.clone()),
                None => title,
            };
            found.error = error.map(|(line, message)| (line + 1, message));
            found.title = title
                .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
                .filter(|t| !t.is_empty());
            return found;
        }
        let sep = if fence == "---" { ':' } else { '=' };
        if let Some((key, value)) = trimmed.split_once(sep)
            && !key.starts_with([' ', '\t', '#', '-'])
        {
            let value = value.trim().trim_matches('"').trim_matches('\'');
            found
                .pairs
                .push((key.trim().to_string(), value.to_string()));
        }
    }
    // An opening fence with no closing one is not front matter; it may be
    // a thematic break, but more likely a forgotten fence.
    found.pairs.clear();
    found.error = Some((
        1,
        format!(
            "front matter opened with `{fence}` is never closed: the file is read as Markdown without it"
        ),
    ));
    found
}

/// A front matter block (between its fences) read as what its fence says:
/// its `title` when that is a string or a number, and why it does not
/// parse, with the 1-based line in the block.
fn read_front_matter(fence: &str, block: &str) -> (Option<String>, Option<(usize, String)>) {
    if block.trim().is_empty() {
        return (None, None);
    }
    if fence == "+++" {
        return match block.parse::<toml::Table>() {
            Ok(table) => {
                let title = match table.get("title") {
                    Some(toml::Value::String(s)) => Some(s.clone()),
                    Some(v @ (toml::Value::Integer(_) | toml::Value::Float(_))) => {
                        Some(v.to_string())
                    }
                    _ => None,
                };
                (title, None)
            }
            Err(err) => {
                let line = err.span().map_or(1, |span| {
                    block[..span.start.min(block.len())].matches('\n').count() + 1
                });
                let message = err.message().trim().to_string();
                (
                    None,
                    Some((line, format!("front matter is not valid TOML: {message}"))),
                )
            }
        };
    }
    match yaml_rust2::YamlLoader::load_from_str(block) {
        Ok(docs) => match docs.first() {
            Some(yaml @ yaml_rust2::Yaml::Hash(_)) => {
                let title = match &yaml["title"] {
                    yaml_rust2::Yaml::String(s) | yaml_rust2::Yaml::Real(s) => Some(s.clone()),
                    yaml_rust2::Yaml::Integer(i) => Some(i.to_string()),
                    _ => None,
                };
                (title, None)
            }
            None => (None, None),
            Some(_) => (
                None,
                Some((
                    1,
                    "front matter is not a YAML mapping of `key: value` lines".to_string(),
                )),
            ),
        },
        Err(err) => (
            None,
            Some((
                err.marker().line().max(1),
                format!("front matter is not valid YAML: {}", err.info()),
            )),
        ),
    }
}

/// A link whose end the parser has not reached yet.
struct OpenLink {
    dest: String,
    line: usize,
    text: String,
    /// `[text](dest)` rather than a reference link or an autolink.
    inline: bool,
    /// Body offset just past the last event inside the link so far.
    text_end: usize,
}

#[derive(Default)]
struct Parsed {
    sections: Vec<Section>,
    /// HTML anchor tags starting a line outside headings, and their lines:
    /// given to a section once all are known (`place_loose_anchors`).
    loose_anchors: Vec<(String, usize)>,
    links: Vec<Link>,
    footnotes: Vec<Footnote>,
    code_blocks: Vec<CodeBlock>,
    question_blocks: Vec<QuestionBlock>,
    comments: Vec<std::ops::Range<usize>>,
}

/// Reads `body` (starting at byte `base` of the file) in parts of about
/// `part_bytes` (see `chunks`).
fn parse_body(
    path: &str,
    body: &str,
    base: usize,
    lines: &LineIndex,
    out: &mut Parsed,
    part_bytes: usize,
) {
    let mut slugger = Slugger::default();
    let mut heading: Option<OpenHeading> = None;
    let mut link: Option<OpenLink> = None;
    let mut code: Option<(Option<String>, usize, String)> = None;
    let mut stack: Vec<usize> = Vec::new();
    // Inside an image: its alt text is not prose.
    let mut images = 0usize;
    // An HTML block being read: its first line and text so far.
    let mut html: Option<(usize, String)> = None;
    // Footnote references (indices in `out.links`), pointed at their
    // definitions once all are known.
    let mut references: Vec<usize> = Vec::new();

    // A big body is parsed in parts, as the renderer does (`chunks`).
    let parts = chunks::chunks(body, part_bytes);
    let definitions = chunks::shared_definitions(body, &parts);
    for part in &parts {
        let text: &str = &part.text;
        for (event, range) in chunks::events(part, &definitions) {
            let line = lines.line(base + part.body_offset(range.start));
            // Everything inside a link is its text: where the text ends, the
            // destination begins.
            if let Some(open) = link.as_mut()
                && !matches!(event, Event::End(TagEnd::Link))
            {
                open.text_end = open.text_end.max(range.end);
            }
            match event {
                Event::Start(Tag::Heading { level, id, .. }) => {
                    heading = Some(OpenHeading {
                        level: level_number(level),
                        line,
                        id: id.map(|s| s.to_string()),
                        title: String::new(),
                        aliases: Vec::new(),
                    });
                }
                Event::End(TagEnd::Heading(_)) => {
                    if let Some(OpenHeading {
                        level,
                        line,
                        id,
                        title,
                        aliases,
                    }) = heading.take()
                    {
                        let title = title.trim().to_string();
                        let anchor = match id {
                            Some(id) => {
                                slugger.unique(&id);
                                id
                            }
                            None => slugger.unique(&title),
                        };
                        let mut aliases = aliases;
                        aliases.retain(|a| *a != anchor);
                        while let Some(&top) = stack.last() {
                            if out.sections[top].level >= level {
                                stack.pop();
                            } else {
                                break;
                            }
                        }
                        out.sections.push(Section {
                            level,
                            title,
                            anchor,
                            aliases,
                            line,
                            end_line: line,
                            own_end_line: line,
                            parent: stack.last().copied(),
                            questions: Vec::new(),
                        });
                        stack.push(out.sections.len() - 1);
                    }
                }
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    ..
                }) => {
                    link = Some(OpenLink {
                        dest: dest_url.to_string(),
                        line,
                        text: String::new(),
                        inline: link_type == LinkType::Inline,
                        text_end: range.start + 1,
                    });
                }
                Event::End(TagEnd::Link) => {
                    if let Some(open) = link.take() {
                        // `[text](dest)`: `]` right after the text, then `(`.
                        let rest = &text.as_bytes()[open.text_end.min(range.end)..range.end];
                        let dest_span = (open.inline
                            && rest.starts_with(b"](")
                            && rest.ends_with(b")"))
                        .then(|| {
                            base + part.body_offset(open.text_end + 1)
                                ..base + part.body_offset(range.end)
                        });
                        let target = resolve(path, &open.dest);
                        out.links.push(Link {
                            text: open.text,
                            dest: open.dest,
                            target,
                            line: open.line,
                            dest_span,
                        });
                    }
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    code = Some((fence_language(&kind), line, String::new()));
                }
                Event::End(TagEnd::CodeBlock) => {
                    if let Some((lang, start, text)) = code.take() {
                        let end = lines
                            .line(base + part.body_offset(range.end.saturating_sub(1)))
                            .max(start);
                        out.code_blocks.push(CodeBlock {
                            lang,
                            line: start,
                            end_line: end,
                            code: text.into(),
                        });
                    }
                }
                Event::Start(Tag::HtmlBlock) => html = Some((line, String::new())),
                Event::Html(ref html_text) | Event::InlineHtml(ref html_text) => {
                    if let (Event::Html(_), Some((_, html))) = (&event, html.as_mut()) {
                        html.push_str(html_text);
                    }
                    if matches!(event, Event::InlineHtml(_)) && comments::is_comment(html_text) {
                        out.comments.push(
                            base + part.body_offset(range.start)
                                ..base + part.body_offset(range.end),
                        );
                    }
                    let found = anchor_tag::anchors(html_text);
                    if found.is_empty() {
                    } else if let Some(open) = heading.as_mut() {
                        open.aliases.extend(found);
                    } else if starts_line(text, range.start) {
                        out.loose_anchors
                            .extend(found.into_iter().map(|name| (name, line)));
                    }
                }
                Event::End(TagEnd::HtmlBlock) => {
                    // The block as written (a quote's `> ` included), so
                    // the comments' ranges are the file's.
                    let from = part.body_offset(range.start);
                    let written = body
                        .get(from..part.body_offset(range.end))
                        .unwrap_or_default();
                    out.comments.extend(
                        comments::comments(written)
                            .into_iter()
                            .map(|r| base + from + r.start..base + from + r.end),
                    );
                    if let Some((start, html)) = html.take()
                        && questions::is_questions_comment(&html)
                    {
                        out.question_blocks
                            .push(questions::read_block(&html, start));
                    }
                }
                Event::Start(Tag::Image { .. }) => images += 1,
                Event::End(TagEnd::Image) => images = images.saturating_sub(1),
                Event::Start(Tag::FootnoteDefinition(label)) => {
                    out.footnotes.push(Footnote {
                        anchor: footnote_anchor(&label),
                        label: label.to_string(),
                        line,
                    });
                }
                // The parser never puts a reference inside a link's text
                // or an image's alt text; were it to, the reference would be
                // part of that, as the renderer shows it.
                Event::FootnoteReference(label) if link.is_none() && images == 0 => {
                    references.push(out.links.len());
                    out.links.push(Link {
                        text: label.to_string(),
                        dest: footnote_reference(&label),
                        target: LinkTarget::Internal {
                            path: path.to_string(),
                            anchor: Some(footnote_anchor(&label)),
                        },
                        line,
                        dest_span: None,
                    });
                }
                Event::Text(ref text) | Event::Code(ref text) => {
                    // A bare URL in prose is a link, as the reader shows it.
                    if let Event::Text(prose) = &event
                        && link.is_none()
                        && code.is_none()
                        && images == 0
                    {
                        let mut rest: &str = prose;
                        while let Some(url) = bare_url(rest) {
                            let found = &rest[url.clone()];
                            out.links.push(Link {
                                text: found.to_string(),
                                dest: found.to_string(),
                                target: LinkTarget::External(found.to_string()),
                                line,
                                dest_span: None,
                            });
                            rest = &rest[url.end..];
                        }
                    }
                    if let Some(open) = heading.as_mut() {
                        open.title.push_str(text);
                    }
                    if let Some(open) = link.as_mut() {
                        open.text.push_str(text);
                    }
                    if let Some((_, _, code_text)) = code.as_mut() {
                        code_text.push_str(text);
                    }
                }
                Event::SoftBreak | Event::HardBreak => {
                    if let Some(open) = heading.as_mut() {
                        open.title.push(' ');
                    }
                    if let Some(open) = link.as_mut() {
                        open.text.push(' ');
                    }
                }
                _ => {}
            }
        }
    }
    point_at_definitions(&mut out.links, &references, &out.footnotes);
}

/// A heading whose end the parser has not reached yet.
struct OpenHeading {
    level: u8,
    line: usize,
    /// A `{#id}` attribute.
    id: Option<String>,
    title: String,
    /// HTML anchor tags in it.
    aliases: Vec<String>,
}

/// Whether only blanks stand before byte `at` on its line.
fn starts_line(text: &str, at: usize) -> bool {
    let before = &text[..at.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[line_start..].trim().is_empty()
}

/// Gives each HTML anchor tag standing on a line of its own to a section:
/// the heading right below it (only blank lines between: `<a id="x"></a>`
/// written above a heading), else the section it stands in. One above
/// every heading and not right above one leads nowhere lore can show.
fn place_loose_anchors(text: &str, parsed: &mut Parsed) {
    let lines: Vec<&str> = text.lines().collect();
    let blank = |n: usize| lines.get(n - 1).is_none_or(|l| l.trim().is_empty());
    for (name, line) in std::mem::take(&mut parsed.loose_anchors) {
        let sections = &parsed.sections;
        let below = sections
            .iter()
            .position(|s| s.line > line)
            .filter(|&i| (line + 1..sections[i].line).all(blank));
        let within = || sections.iter().rposition(|s| s.line <= line);
        if let Some(i) = below.or_else(within) {
            let section = &mut parsed.sections[i];
            if section.anchor != name && !section.aliases.contains(&name) {
                section.aliases.push(name);
            }
        }
    }
}

/// A footnote reference as written: `[^label]`, its link's `dest`.
pub(crate) fn footnote_reference(label: &str) -> String {
    format!("[^{label}]")
}

/// Points each footnote reference at its definition's anchor. The parser
/// matches labels without regard to case (`[^Note]` finds `[^note]:`), the
/// way it matches link labels; the anchor is the definition's.
fn point_at_definitions(links: &mut [Link], references: &[usize], footnotes: &[Footnote]) {
    for &i in references {
        let label = unicase::UniCase::new(links[i].text.as_str());
        let Some(footnote) = footnotes
            .iter()
            .find(|f| unicase::UniCase::new(f.label.as_str()) == label)
        else {
            continue;
        };
        if let LinkTarget::Internal { anchor, .. } = &mut links[i].target {
            *anchor = Some(footnote.anchor.clone());
        }
    }
}

/// The first bare `http://` or `https://` URL in `text`, as GitHub finds
/// them: up to whitespace, `<` or `>`, without trailing punctuation or a closing
/// parenthesis that opens nowhere in it.
pub fn bare_url(text: &str) -> Option<std::ops::Range<usize>> {
    let mut from = 0;
    loop {
        let start = from + text[from..].find("http")?;
        let tail = &text[start..];
        let scheme = ["https://", "http://"]
            .into_iter()
            .find(|s| tail.starts_with(s));
        let starts_word = text[..start]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric());
        let Some(scheme) = scheme.filter(|_| starts_word) else {
            from = start + 4;
            continue;
        };
        let mut end = tail
            .find(|c: char| c.is_whitespace() || c == '<' || c == '>')
            .unwrap_or(tail.len());
        loop {
            let url = &tail[..end];
            let Some(last) = url.chars().next_back() else {
                break;
            };
            let unbalanced = last == ')' && url.matches(')').count() > url.matches('(').count();
            if matches!(
                last,
                '.' | ',' | ':' | ';' | '!' | '?' | '"' | '\'' | '*' | '_' | '~'
            ) || unbalanced
            {
                end -= last.len_utf8();
            } else {
                break;
            }
        }
        if end > scheme.len() {
            return Some(start..start + end);
        }
        from = start + scheme.len();
    }
}

/// The language of a code block: the first word of a fence's info string
/// (`bash`, `dockerfile`, …), `None` for indented blocks and bare fences.
pub fn fence_language(kind: &CodeBlockKind<'_>) -> Option<String> {
    match kind {
        CodeBlockKind::Fenced(info) => info
            .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
            .next()
            .filter(|s| !s.is_empty())
            .map(str::to_string),
        CodeBlockKind::Indented => None,
    }
}

fn level_number(level: HeadingLevel) -> u8 {
    match level {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

fn finish_sections(sections: &mut [Section], line_count: usize) {
    let last = line_count.max(1);
    for i in 0..sections.len() {
        let level = sections[i].level;
        let line = sections[i].line;
        sections[i].own_end_line = sections
            .get(i + 1)
            .map_or(last, |next| next.line.saturating_sub(1).max(line));
        sections[i].end_line = sections[i + 1..]
            .iter()
            .find(|s| s.level <= level)
            .map_or(last, |next| next.line.saturating_sub(1).max(line));
    }
}

/// Resolves a link destination written in document `from` (an id).
pub fn resolve(from: &str, dest: &str) -> LinkTarget {
    let dest = dest.trim();
    if has_scheme(dest) {
        return LinkTarget::External(dest.to_string());
    }
    let (path_part, anchor) = match dest.split_once('#') {
        Some((p, a)) => (p, Some(percent_decode(a))),
        None => (dest, None),
    };
    let path_part = path_part.split('?').next().unwrap_or("");
    let anchor = anchor.filter(|a| !a.is_empty());
    if path_part.is_empty() {
        return LinkTarget::Internal {
            path: from.to_string(),
            anchor,
        };
    }
    let decoded = percent_decode(path_part);
    let mut parts: Vec<&str> = if decoded.starts_with('/') {
        Vec::new()
    } else {
        from.split('/').collect()
    };
    if !decoded.starts_with('/') {
        parts.pop(); // the document's own file name
    }
    for component in decoded.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return LinkTarget::OutsideRoot(dest.to_string());
                }
            }
            other => parts.push(other),
        }
    }
    LinkTarget::Internal {
        path: parts.join("/"),
        anchor,
    }
}

fn has_scheme(dest: &str) -> bool {
    let Some((scheme, _)) = dest.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reading_in_parts_finds_the_same_sections_links_and_code() {
        use crate::sources::SourceSet;
        let corpus = crate::corpus::Corpus::load(&SourceSet::builtin_knowledge());
        let mut split = 0;
        for doc in &corpus.documents {
            let lines = LineIndex::new(&doc.text);
            let read = |part_bytes: usize| {
                let mut parsed = Parsed::default();
                let body = &doc.text[doc.body_offset..];
                parse_body(
                    &doc.path,
                    body,
                    doc.body_offset,
                    &lines,
                    &mut parsed,
                    part_bytes,
                );
                parsed
            };
            let (whole, parted) = (read(usize::MAX), read(1024));
            split += usize::from(chunks::chunks(doc.body(), 1024).len() > 1);
            let sections = |p: &Parsed| -> Vec<(u8, String, String, usize)> {
                p.sections
                    .iter()
                    .map(|s| (s.level, s.title.clone(), s.anchor.clone(), s.line))
                    .collect()
            };
            assert_eq!(sections(&whole), sections(&parted), "{}", doc.path);
            assert_eq!(whole.links, parted.links, "{}", doc.path);
            assert_eq!(whole.code_blocks, parted.code_blocks, "{}", doc.path);
            assert_eq!(whole.comments, parted.comments, "{}", doc.path);
        }
        assert!(split > 30, "only {split} documents were read in parts");
    }

    #[test]
    fn bare_urls_are_found_as_github_finds_them() {
        fn found(text: &str) -> Option<&str> {
            bare_url(text).map(|r| &text[r])
        }
        assert_eq!(
            found("see https://docs.nvidia.com/cupti/index.html."),
            Some("https://docs.nvidia.com/cupti/index.html")
        );
        assert_eq!(
            found("(at http://example.org/a_(b)), then"),
            Some("http://example.org/a_(b)")
        );
        assert_eq!(found("x<https://a.example>"), Some("https://a.example"));
        assert_eq!(found("nothttps://a.example or https:// alone"), None);
        assert_eq!(found("no link here"), None);
    }

    fn doc(path: &str, text: &str) -> Document {
        Document::parse(SourceFile {
            rel: path.to_string(),
            origin: Origin::Builtin,
            text: text.to_string(),
            stamp: None,
        })
    }

    #[test]
    fn sections_have_levels_lines_and_parents() {
        let d = doc(
            "cuda/a.md",
            "# Title\n\nintro\n\n## What is CUPTI?\ntext\n### Deeper\nmore\n## CUDA 12.4 vs 12.6\nend\n",
        );
        assert_eq!(d.title, "Title");
        let s: Vec<_> = d
            .sections
            .iter()
            .map(|s| {
                (
                    s.level,
                    s.anchor.as_str(),
                    s.line,
                    s.end_line,
                    s.own_end_line,
                    s.parent,
                )
            })
            .collect();
        assert_eq!(
            s,
            vec![
                (1, "title", 1, 10, 4, None),
                (2, "what-is-cupti", 5, 8, 6, Some(0)),
                (3, "deeper", 7, 8, 8, Some(1)),
                (2, "cuda-124-vs-126", 9, 10, 10, Some(0)),
            ]
        );
        assert_eq!(d.heading_path(2), vec!["Title", "What is CUPTI?", "Deeper"]);
    }

    #[test]
    fn title_falls_back_to_front_matter_then_stem_and_front_matter_is_skipped() {
        let d = doc(
            "notes/x-y.md",
            "---\ntitle: From front matter\ndrop: none\n---\n## Only h2\n",
        );
        assert_eq!(d.title, "From front matter");
        assert_eq!(d.meta("drop"), Some("none"));
        assert_eq!(d.sections[0].line, 5);
        assert!(!d.body().contains("title: From"));
        let d = doc("notes/x-y.md", "---\ndrop: none\n---\n## Only h2\n");
        assert_eq!(d.title, "x-y");
        // YAML reads a quoted or folded title; a block that does not parse
        // still gives its `title:` line.
        let title = |text: &str| doc("a.md", text).title;
        assert_eq!(title("---\ntitle: 'It''s: here'\n---\n"), "It's: here");
        assert_eq!(title("---\ntitle: >-\n  Two\n  lines\n---\n"), "Two lines");
        assert_eq!(title("---\ntitle: 2024\n---\n"), "2024");
        assert_eq!(title("---\ntitle: ok\ntags: [a\n---\n"), "ok");
        assert_eq!(title("---\ntitle: \"\"\n---\n"), "a");
        assert_eq!(title("---\ntitle: [x]\n---\n"), "a");
        assert_eq!(title("+++\ntitle = 'T'\n+++\n# H1\n"), "H1");
    }

    /// Bad front matter is read past as before, but no longer silently:
    /// the reason and the file's line are kept for `lore check`.
    #[test]
    fn invalid_front_matter_is_reported_with_its_line() {
        let error = |text: &str| doc("a.md", text).front_matter_error;
        assert_eq!(error("---\ntitle: ok\ndrop: none\n---\n# T\n"), None);
        assert_eq!(error("+++\ntitle = \"ok\"\n+++\n# T\n"), None);
        assert_eq!(error("---\n---\n# T\n"), None);
        let (line, message) = error("+++\ntitle = \"ok\"\ndrop = none\n+++\n# T\n").unwrap();
        assert_eq!(line, 3, "{message}");
        assert!(
            message.starts_with("front matter is not valid TOML"),
            "{message}"
        );
        let (line, message) = error("---\ntitle: ok\ntags: [a, b\n---\n# T\n").unwrap();
        assert!(
            message.starts_with("front matter is not valid YAML"),
            "{message}"
        );
        assert!((3..=4).contains(&line), "line {line}: {message}");
        let (line, message) = error("---\ntitle: ok\n  bad: indent: here\n---\n").unwrap();
        assert_eq!(line, 3, "{message}");
        let (line, message) = error("---\ntitle: ok\n# T\n").unwrap();
        assert_eq!(line, 1);
        assert!(message.contains("never closed"), "{message}");
        let d = doc("a.md", "---\ntitle: ok\n# T\n");
        assert_eq!(d.body_offset, 0, "an unclosed block is read as Markdown");
        assert!(d.front_matter.is_empty());
    }

    #[test]
    fn links_resolve_relative_to_the_document() {
        let d = doc(
            "cuda/a.md",
            "see [b](b.md#x), [up](../investigations/c.md), [self](#t), [web](https://x.org/a#b),\n[out](../../etc/passwd.md), [abs](/cuda/d.md)\n",
        );
        let targets: Vec<_> = d.links.iter().map(|l| (l.target.clone(), l.line)).collect();
        let internal = |p: &str, a: Option<&str>| LinkTarget::Internal {
            path: p.into(),
            anchor: a.map(Into::into),
        };
        assert_eq!(
            targets,
            vec![
                (internal("cuda/b.md", Some("x")), 1),
                (internal("investigations/c.md", None), 1),
                (internal("cuda/a.md", Some("t")), 1),
                (LinkTarget::External("https://x.org/a#b".into()), 1),
                (LinkTarget::OutsideRoot("../../etc/passwd.md".into()), 2),
                (internal("cuda/d.md", None), 2),
            ]
        );
    }

    /// A footnote reference is a link to its note's `fn:` anchor, whatever
    /// case it writes the label in. A reference to no note is text
    /// (pulldown-cmark, as GitHub, leaves `[^missing]` as written), so no
    /// reference can point nowhere; nor can one sit inside a link's text
    /// (the parser then reads the brackets around it as text).
    #[test]
    fn footnote_references_link_to_their_definitions() {
        let d = doc(
            "cuda/a.md",
            "# T\n\nA claim[^src], again[^SRC], [a link[^n2]](b.md), and [^missing].\n\n[^src]: The source.\n[^n2]: Second.\n",
        );
        let footnotes: Vec<_> = d
            .footnotes
            .iter()
            .map(|f| (f.label.as_str(), f.anchor.as_str(), f.line))
            .collect();
        assert_eq!(footnotes, [("src", "fn:src", 5), ("n2", "fn:n2", 6)]);
        let links: Vec<_> = d
            .links
            .iter()
            .map(|l| (l.text.as_str(), l.dest.as_str(), l.target.clone()))
            .collect();
        let note = |anchor: &str| LinkTarget::Internal {
            path: "cuda/a.md".into(),
            anchor: Some(anchor.into()),
        };
        assert_eq!(
            links,
            [
                ("src", "[^src]", note("fn:src")),
                ("SRC", "[^SRC]", note("fn:src")),
                ("n2", "[^n2]", note("fn:n2")),
            ]
        );
        // A heading's anchor never looks like a footnote's.
        let d = doc("a.md", "# Fn: src\n\n## fn-src\n");
        let anchors: Vec<_> = d.sections.iter().map(|s| s.anchor.as_str()).collect();
        assert_eq!(anchors, ["fn-src", "fn-src-1"]);
        assert!(anchors.iter().all(|a| footnote_label(a).is_none()));
    }

    #[test]
    fn code_blocks_record_language_and_lines() {
        let d = doc(
            "a.md",
            "# T\n\n```dockerfile\nFROM x\nRUN y\n```\n\n    indented\n",
        );
        assert_eq!(d.code_blocks.len(), 2);
        assert_eq!(d.code_blocks[0].lang.as_deref(), Some("dockerfile"));
        assert_eq!((d.code_blocks[0].line, d.code_blocks[0].end_line), (3, 6));
        assert_eq!(&*d.code_blocks[0].code, "FROM x\nRUN y\n");
        assert_eq!(d.code_blocks[1].lang, None);
    }

    #[test]
    fn kinds_come_from_names() {
        assert_eq!(Kind::of("drops/KNOWLEDGE-DROP-x-2026-01-01.md"), Kind::Drop);
        assert_eq!(Kind::of("INDEX.md"), Kind::Index);
        // MkDocs / Hugo / Sphinx landing pages are pages.
        assert_eq!(Kind::of("docs/reference/index.md"), Kind::Knowledge);
        assert_eq!(Kind::of("docs/INDEX.md"), Kind::Knowledge);
        assert_eq!(Kind::of("index.md"), Kind::Knowledge);
        assert_eq!(Kind::of("cuda/12-x.md"), Kind::Knowledge);
    }
}
