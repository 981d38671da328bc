//! What one search document is, and how a corpus `Document` becomes them: one
//! per section (its heading and its own text, up to the next heading), plus
//! one for text before the first heading. Sub-sections are documents of their
//! own, so a hit points at the smallest section that matches.
//!
//! This module must not parse Markdown: it slices the lines that `corpus`
//! already located (sections, code blocks, links).

use tantivy::TantivyDocument;
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions,
};

use super::tokenizer::TOKENIZER_NAME;
use crate::corpus::{Document, Kind, causes};

/// Bumped whenever the schema, the tokenizer or what goes into a field
/// changes: an index built by another version is rebuilt, never misread.
pub const SCHEMA_VERSION: u32 = 13;

/// The `heading_libs` value of every section whose heading names a shared
/// library (no library's name starts with `*`).
pub const NAMES_LIBRARIES: &str = "*";

/// The fast field that orders the sections of an index: their position in
/// the corpus sorted by path, then by line (see `index_settings`).
pub const ORDER_FIELD: &str = "order";

/// The fields of the index.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// The document id (`cuda/20-cupti-deep-dive-arr-coc.md`), exact.
    pub path: Field,
    /// The path lower-cased, for `path:` filters.
    pub path_key: Field,
    pub anchor: Field,
    pub line: Field,
    /// `knowledge`, `drop` or `index`.
    pub kind: Field,
    /// How much a hit in this kind of file counts (fast field).
    pub weight: Field,
    /// The section's position by path and line (fast field; set by the
    /// builder, which sees the whole corpus).
    pub order: Field,
    /// The document's title.
    pub title: Field,
    /// The section's own heading.
    pub heading: Field,
    /// The headings above the section, without the title.
    pub trail: Field,
    /// Prose of the section.
    pub body: Field,
    /// Code blocks of the section.
    pub code: Field,
    /// `Title › Section › Sub`, for display.
    pub heading_path: Field,
    /// The section's lines as written (links' targets removed), for snippets.
    pub text: Field,
    /// The section's questions (see `corpus::questions`): what a user
    /// would ask that it answers, one value each, searched and stored (a
    /// hit says which one matched).
    pub questions: Field,
    /// What the section is for, when it is not an explanation: `sources`
    /// for a document's list of sources ([`is_sources_heading`]).
    pub role: Field,
    /// The shared libraries the section's own heading names by soname
    /// (`libnvinfer` for `libnvinfer.so.N: cannot open …`), and
    /// [`NAMES_LIBRARIES`] when it names any: search ranks a section about
    /// other libraries than a pasted line's lower.
    pub heading_libs: Field,
}

/// The `role` of a section that lists a document's sources.
pub const SOURCES_ROLE: &str = "sources";

/// True for the heading of a section that lists where a document's claims
/// come from (`## Sources`, `## References`): links, which answer "where
/// does this come from", not the question a query asks.
pub fn is_sources_heading(heading: &str) -> bool {
    let h = heading.trim().trim_end_matches(':').to_lowercase();
    matches!(
        h.as_str(),
        "sources" | "source" | "references" | "bibliography" | "citations" | "further reading"
    )
}

/// Text fields searched by free-text terms.
pub const SEARCHED: usize = 6;

impl Fields {
    pub fn searched(&self) -> [Field; SEARCHED] {
        [
            self.heading,
            self.title,
            self.trail,
            self.code,
            self.body,
            self.questions,
        ]
    }

    /// Fields whose positions allow phrase matching.
    pub fn phrased(&self) -> [Field; 4] {
        [self.heading, self.code, self.body, self.questions]
    }
}

pub fn build_schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = |positions: bool| {
        let option = if positions {
            IndexRecordOption::WithFreqsAndPositions
        } else {
            IndexRecordOption::WithFreqs
        };
        TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(option),
        )
    };
    let fields = Fields {
        path: builder.add_text_field("path", STRING | STORED),
        path_key: builder.add_text_field("path_key", STRING),
        anchor: builder.add_text_field("anchor", STORED),
        line: builder.add_u64_field("line", STORED),
        kind: builder.add_text_field("kind", STRING | STORED),
        weight: builder.add_f64_field("weight", NumericOptions::default().set_fast()),
        order: builder.add_u64_field(ORDER_FIELD, NumericOptions::default().set_fast()),
        title: builder.add_text_field("title", text(false) | STORED),
        heading: builder.add_text_field("heading", text(true)),
        trail: builder.add_text_field("trail", text(false)),
        body: builder.add_text_field("body", text(true)),
        code: builder.add_text_field("code", text(true)),
        heading_path: builder.add_text_field("heading_path", STORED),
        text: builder.add_text_field("text", STORED),
        questions: builder.add_text_field("questions", text(true) | STORED),
        role: builder.add_text_field("role", STRING),
        heading_libs: builder.add_text_field("heading_libs", STRING),
    };
    (builder.build(), fields)
}

/// Sections are stored in `ORDER_FIELD` order, whichever indexing thread
/// took them and however segments are merged: equal scores are then ranked by
/// path and line (tantivy breaks ties by document id), the same in every
/// build of the same knowledge.
pub fn index_settings() -> tantivy::IndexSettings {
    tantivy::IndexSettings {
        sort_by_field: Some(tantivy::IndexSortByField {
            field: ORDER_FIELD.to_string(),
            order: tantivy::Order::Asc,
        }),
        ..tantivy::IndexSettings::default()
    }
}

/// How much a match in a file of this kind counts. Drops and the index
/// describe files rather than explain things, so the file itself should win.
pub fn kind_weight(kind: Kind) -> f64 {
    match kind {
        Kind::Knowledge => 1.0,
        Kind::Drop => 0.6,
        Kind::Index => 0.6,
    }
}

/// The heading separator in `Hit::heading`.
pub const HEADING_SEPARATOR: &str = " › ";

/// One section's worth of search document, before it becomes a tantivy one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SectionText {
    pub anchor: String,
    pub line: usize,
    pub heading: String,
    pub trail: Vec<String>,
    pub heading_path: String,
    pub body: String,
    pub code: String,
    pub text: String,
    /// The section's questions, as written.
    pub questions: Vec<String>,
}

/// Byte offsets of line starts of a text, 1-based lines.
struct Lines<'a> {
    text: &'a str,
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Self { text, starts }
    }

    /// Line `n` (1-based) without its line ending; empty past the end.
    fn line(&self, n: usize) -> &'a str {
        let Some(&start) = self.starts.get(n.wrapping_sub(1)) else {
            return "";
        };
        let end = self.starts.get(n).map_or(self.text.len(), |&e| e);
        let line = &self.text[start..end];
        line.strip_suffix('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .unwrap_or(line)
    }
}

/// The search documents of one corpus document, in order.
pub fn sections_of(doc: &Document) -> Vec<SectionText> {
    let text = searchable_text(doc);
    let lines = Lines::new(&text);
    let body_start = doc.text[..doc.body_offset].matches('\n').count() + 1;
    let last = doc.line_count;
    // Every code line, to tell prose from code. A `causes` block is data
    // for `lore diagnose` (its section's prose already names the causes):
    // its TOML is not searched and never shows in a snippet.
    let mut in_code = vec![false; last + 2];
    let mut hidden = vec![false; last + 2];
    // A questions block is the `questions` field's, never prose or a
    // snippet (the reader does not show it either).
    for block in &doc.question_blocks {
        for flag in hidden
            .iter_mut()
            .take(block.end_line.min(last) + 1)
            .skip(block.line)
        {
            *flag = true;
        }
    }
    // Hugo shortcode lines are markup, not prose (see `corpus::shortcodes`).
    for shortcode in &doc.shortcode_lines {
        if let Some(flag) = hidden.get_mut(shortcode.line) {
            *flag = true;
        }
    }
    for block in &doc.code_blocks {
        let flags = if causes::is_causes(block) {
            &mut hidden
        } else {
            &mut in_code
        };
        for flag in flags
            .iter_mut()
            .take(block.end_line.min(last) + 1)
            .skip(block.line)
        {
            *flag = true;
        }
    }
    // In file order, so a section finds its blocks by binary search: a
    // scan of every block per section was quadratic in a file of thousands.
    let mut blocks: Vec<&crate::corpus::CodeBlock> = doc
        .code_blocks
        .iter()
        .filter(|b| !causes::is_causes(b))
        .collect();
    blocks.sort_by_key(|b| b.line);
    let gather = |first: usize, end: usize| -> (String, String, String) {
        let mut body = String::new();
        let mut text = String::new();
        for n in first..=end {
            if hidden[n.min(last + 1)] {
                continue;
            }
            let line = lines.line(n);
            if !in_code[n.min(last + 1)] {
                body.push_str(line);
                body.push('\n');
            }
            text.push_str(line);
            text.push('\n');
        }
        let from = blocks.partition_point(|b| b.line < first);
        let to = blocks.partition_point(|b| b.line <= end);
        let code: String = blocks[from..to.max(from)]
            .iter()
            .map(|b| &*b.code)
            .collect::<Vec<_>>()
            .join("\n");
        (body, code, text)
    };

    let mut out = Vec::new();
    let first_heading = doc.sections.first().map_or(last + 1, |s| s.line);
    // A page titled by its front matter (Hugo, MkDocs) has no `# ` heading
    // whose section the title leads; its title is a section of its own,
    // even with nothing before the first heading, so a search for the
    // page's title finds the page rather than a page linking to it.
    let titled = doc.titled_by_front_matter();
    if first_heading > body_start || titled {
        let (body, code, text) = if first_heading > body_start {
            gather(body_start, first_heading - 1)
        } else {
            Default::default()
        };
        if !text.trim().is_empty() || titled {
            out.push(SectionText {
                anchor: String::new(),
                line: if text.trim().is_empty() {
                    1
                } else {
                    body_start
                },
                heading: doc.title.clone(),
                trail: Vec::new(),
                heading_path: doc.title.clone(),
                body,
                code,
                text,
                questions: Vec::new(),
            });
        }
    }
    for (i, section) in doc.sections.iter().enumerate() {
        let (body, code, text) = gather(section.line + 1, section.own_end_line);
        let mut path: Vec<&str> = doc.heading_path(i);
        if path.first() != Some(&doc.title.as_str()) {
            path.insert(0, &doc.title);
        }
        let trail = path[1..path.len().saturating_sub(1).max(1)]
            .iter()
            .map(|s| s.to_string())
            .collect();
        out.push(SectionText {
            anchor: section.anchor.clone(),
            line: section.line,
            heading: section.title.clone(),
            trail,
            heading_path: path.join(HEADING_SEPARATOR),
            body,
            code,
            text,
            questions: section.questions.iter().map(|q| q.text.clone()).collect(),
        });
    }
    out
}

/// The file's text with every `[text](dest)` cut to `[text]`, and every
/// HTML comment cut out. A link's target is an address, not what the
/// section says, and anchors such as `#pip-wheels-already-ship-cupti` would
/// otherwise make every section that links there look like a match; a
/// comment is hidden from readers (`<!---MARKER_GEN_START-->`, licence
/// headers), so a snippet or a match there would point at nothing they can
/// see. One pass over the text, using where the parser saw each
/// destination and comment (a search per link and line was quadratic:
/// 100,000 links on one line took 80 s to index). Destinations that span
/// lines stay, and a comment's line breaks stay, so line numbers do not
/// move.
fn searchable_text(doc: &Document) -> std::borrow::Cow<'_, str> {
    let mut spans: Vec<&std::ops::Range<usize>> = doc
        .links
        .iter()
        .filter_map(|l| l.dest_span.as_ref())
        .filter(|r| {
            doc.text
                .get(r.start..r.end)
                .is_some_and(|t| !t.contains('\n'))
        })
        .chain(&doc.comments)
        .collect();
    if spans.is_empty() {
        return std::borrow::Cow::Borrowed(&doc.text);
    }
    spans.sort_by_key(|r| r.start);
    let mut out = String::with_capacity(doc.text.len());
    let mut copied = 0;
    for span in spans {
        // Spans may overlap (a link inside a comment is never parsed, but
        // a hand-made range could): what is already cut stays cut.
        let start = span.start.max(copied);
        let Some(cut) = doc.text.get(start..span.end).filter(|_| span.end > copied) else {
            continue;
        };
        out.push_str(&doc.text[copied..start]);
        out.extend(std::iter::repeat_n('\n', cut.matches('\n').count()));
        copied = span.end;
    }
    out.push_str(&doc.text[copied..]);
    std::borrow::Cow::Owned(out)
}

/// The tantivy documents of one corpus document.
pub fn tantivy_documents(doc: &Document, fields: &Fields) -> Vec<TantivyDocument> {
    sections_of(doc)
        .into_iter()
        .map(|s| {
            let mut d = TantivyDocument::new();
            d.add_text(fields.path, &doc.path);
            d.add_text(fields.path_key, doc.path.to_lowercase());
            d.add_text(fields.anchor, &s.anchor);
            d.add_u64(fields.line, s.line as u64);
            d.add_text(fields.kind, doc.kind.as_str());
            d.add_f64(fields.weight, kind_weight(doc.kind));
            d.add_text(fields.title, &doc.title);
            d.add_text(fields.trail, s.trail.join("\n"));
            d.add_text(fields.heading, &s.heading);
            d.add_text(fields.body, &s.body);
            d.add_text(fields.code, &s.code);
            d.add_text(fields.heading_path, &s.heading_path);
            d.add_text(fields.text, &s.text);
            for question in &s.questions {
                d.add_text(fields.questions, question);
            }
            if is_sources_heading(&s.heading) && !s.anchor.is_empty() {
                d.add_text(fields.role, SOURCES_ROLE);
            }
            let libraries = super::subject::subjects(&s.heading);
            if !libraries.is_empty() {
                d.add_text(fields.heading_libs, NAMES_LIBRARIES);
            }
            for library in libraries {
                d.add_text(fields.heading_libs, &library.name);
            }
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{Origin, SourceFile};

    fn doc(path: &str, text: &str) -> Document {
        Document::parse(SourceFile {
            rel: path.into(),
            origin: Origin::Builtin,
            text: text.into(),
            stamp: None,
        })
    }

    #[test]
    fn one_document_per_section_with_its_own_text() {
        let d = doc(
            "cuda/a.md",
            "intro line\n# Title\n\nfirst [link](b.md#x)\n\n## Part\ntext\n```bash\nnvcc -arch=sm_90\n```\n### Deeper\nmore\n",
        );
        let s = sections_of(&d);
        let summary: Vec<_> = s
            .iter()
            .map(|s| (s.anchor.as_str(), s.line, s.heading_path.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("", 1, "Title"),
                ("title", 2, "Title"),
                ("part", 6, "Title › Part"),
                ("deeper", 11, "Title › Part › Deeper"),
            ]
        );
        assert_eq!(s[1].body.trim(), "first [link]");
        assert_eq!(s[2].body, "text\n");
        assert_eq!(s[2].code, "nvcc -arch=sm_90\n");
        assert!(s[2].text.contains("```bash"));
        assert_eq!(s[3].trail, vec!["Part".to_string()]);
        assert!(s[2].trail.is_empty());
    }

    /// Stripping once searched every link's `](dest)` in its line (80 s
    /// for 100,000 links on one line); it now cuts where the parser saw
    /// each destination, whatever the link looks like.
    #[test]
    fn link_targets_are_cut_in_one_pass() {
        let many: String = (0..20_000).map(|i| format!("[w{i}](x.md#a{i}) ")).collect();
        let d = doc(
            "a.md",
            &format!(
                "# T\n\n{many}\n\n[*em* `c`](b.md \"Title\") [![img](i.png)](c.md) [ref][r] <https://x.org> [p](a(b)c)\n\n[r]: d.md\n"
            ),
        );
        let s = sections_of(&d);
        let body = &s[0].body;
        assert!(
            body.trim_start().starts_with("[w0] [w1] [w2] "),
            "{}",
            &body[..60]
        );
        assert!(!body.contains("x.md"));
        assert!(
            body.contains("\n[*em* `c`] [![img](i.png)] [ref][r] <https://x.org> [p]\n"),
            "{}",
            &body[body.len() - 120..]
        );
    }

    #[test]
    fn each_section_gets_only_its_own_code() {
        let text: String = (0..5_000)
            .map(|i| format!("## S{i}\n```\ncode{i}\n```\n"))
            .collect();
        let d = doc("c.md", &text);
        let s = sections_of(&d);
        assert_eq!(s.len(), 5_000);
        assert_eq!(s[0].code, "code0\n");
        assert_eq!(s[4_999].code, "code4999\n");
    }

    #[test]
    fn a_file_without_headings_is_one_document() {
        let d = doc("notes/plain.md", "just text\n");
        let s = sections_of(&d);
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].heading_path, "plain");
        assert_eq!(s[0].body, "just text\n");
    }
}
