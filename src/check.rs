//! `lore check`: every rule that keeps the corpus honest, as diagnostics. The
//! rules read the loaded corpus only; they never touch the file system.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::corpus::links::{FOLDER_PAGES, has_no_extension, names_folder};
use crate::corpus::{Corpus, Document, Kind, LinkTarget, anchor_tag, causes, footnote_label};
use crate::diagnostic::{self, Diagnostic};
use crate::probe;
use crate::sources::Origin;
use crate::text::{describe, escaped_chars, sanitize};

/// Front matter that marks a knowledge file no expansion created (it predates
/// the expansion plans), so it needs no drop: `drop: none`.
pub const NO_DROP_KEY: &str = "drop";

/// Front matter of a knowledge root's top-level `INDEX.md` that asks for a
/// drop for every file even before the root has one: `drops: required`.
pub const DROPS_KEY: &str = "drops";

/// The knowledge root a document was read from: `None` for the built-in
/// one, else the overlay folder as given.
fn root_of(doc: &Document) -> Option<&Path> {
    match &doc.origin {
        Origin::Builtin => None,
        Origin::Overlay { root, .. } => Some(root),
    }
}

/// The conventions each knowledge root follows. Drops and the index are
/// habits of a root that uses them (the built-in knowledge does); a folder
/// of plain notes, or a public doc set, has neither and must not get a
/// warning per file for it.
#[derive(Default)]
struct Conventions<'c> {
    /// Roots holding at least one drop, or whose `INDEX.md` says
    /// `drops: required`.
    with_drops: HashSet<Option<&'c Path>>,
}

impl<'c> Conventions<'c> {
    fn of(corpus: &'c Corpus) -> Conventions<'c> {
        let mut conventions = Conventions::default();
        for doc in &corpus.documents {
            let opted_in = doc.kind == Kind::Index && doc.meta(DROPS_KEY) == Some("required");
            if doc.kind == Kind::Drop || opted_in {
                conventions.with_drops.insert(root_of(doc));
            }
        }
        conventions
    }

    fn needs_drop(&self, doc: &Document) -> bool {
        self.with_drops.contains(&root_of(doc))
    }
}

/// All diagnostics for a corpus, loading warnings included, sorted by file/line.
/// Each names its file by id (`path`) and, for an overlay file, as the user
/// can open it (`file`: the overlay folder as given joined with the id).
pub fn check_corpus(corpus: &Corpus) -> Vec<Diagnostic> {
    let mut out = corpus.warnings.clone();
    out.extend(
        corpus
            .hidden
            .iter()
            .map(crate::sources::Hidden::to_diagnostic),
    );
    let mut anchors = Anchors::default();
    let conventions = Conventions::of(corpus);
    for doc in &corpus.documents {
        let mut found = Vec::new();
        check_links(corpus, doc, &mut anchors, &mut found);
        check_hidden_characters(doc, &mut found);
        check_heading_brackets(doc, &mut found);
        check_causes(doc, &mut found);
        check_questions(doc, &mut found);
        if let Some((line, message)) = &doc.front_matter_error {
            found.push(Diagnostic::warning(&doc.path, Some(*line), message.clone()));
        }
        match doc.kind {
            Kind::Drop => check_drop(corpus, doc, &mut found),
            Kind::Knowledge => {
                if doc.described_by.is_none()
                    && doc.meta(NO_DROP_KEY) != Some("none")
                    && conventions.needs_drop(doc)
                {
                    found.push(Diagnostic::warning(
                        &doc.path,
                        Some(1),
                        "no KNOWLEDGE DROP describes this file (add one under drops/, or `drop: none` front matter if no expansion created it)",
                    ));
                }
            }
            Kind::Index => {}
        }
        // Named as the user can open them: `notes/a.md`, not `a.md` of
        // whichever overlay folder.
        out.extend(found.into_iter().map(|d| d.in_file(doc.origin.file())));
    }
    check_index(corpus, &mut out);
    diagnostic::sort(&mut out);
    out
}

/// Causes blocks: their TOML and conditions parse, and every fact a check
/// names is one the probes report (`probe::FACT_NAMES`, `env.NAME`).
fn check_causes(doc: &Document, out: &mut Vec<Diagnostic>) {
    for block in causes::blocks(doc) {
        for err in &block.errors {
            out.push(Diagnostic::error(
                &doc.path,
                Some(err.line),
                err.message.clone(),
            ));
        }
        for cause in &block.causes {
            let Some(check) = &cause.check else { continue };
            for name in check.condition.facts() {
                if probe::is_fact_name(name) {
                    continue;
                }
                let message = if let Some(var) = name.strip_prefix(probe::ENV_PREFIX) {
                    format!(
                        "check `{}`: lore does not read the variable {var}; env.NAME takes one of {}",
                        sanitize(&check.source),
                        probe::ENV_NAMES.join(", ")
                    )
                } else {
                    let hint = probe::closest(name)
                        .map(|n| format!(" (did you mean `{n}`?)"))
                        .unwrap_or_default();
                    format!(
                        "check `{}`: unknown fact `{}`{hint}; the facts are listed in the README (lore's probe vocabulary)",
                        sanitize(&check.source),
                        sanitize(name)
                    )
                };
                out.push(Diagnostic::error(&doc.path, Some(check.line), message));
            }
        }
    }
}

/// Questions blocks (see `corpus::questions`): each rule a block breaks, at
/// the line that breaks it. The messages quote nothing from the file.
fn check_questions(doc: &Document, out: &mut Vec<Diagnostic>) {
    for block in &doc.question_blocks {
        for (line, message) in &block.problems {
            out.push(Diagnostic::error(&doc.path, Some(*line), message.clone()));
        }
    }
}

/// Control characters, bidirectional overrides and invisible format
/// characters have no business in a Markdown file: lore shows them escaped, and other tools may not (an ESC
/// can restyle a terminal, an override can make a command display in
/// another order than it runs). One warning per line; tabs and the CR of
/// CRLF line ends are fine.
fn check_hidden_characters(doc: &Document, out: &mut Vec<Diagnostic>) {
    for (i, line) in doc.text.lines().enumerate() {
        let mut hidden = escaped_chars(line).filter(|&c| c != '\t');
        let Some(first) = hidden.next() else {
            continue;
        };
        let what = describe(first);
        let more = match hidden.count() {
            0 => String::new(),
            n => format!(" (and {n} more on this line)"),
        };
        out.push(Diagnostic::warning(
            &doc.path,
            Some(i + 1),
            format!(
                "{what} U+{:04X} in the text{more}: lore shows it as `{}`; remove it unless it is meant to be seen",
                first as u32,
                sanitize(&first.to_string())
            ),
        ));
    }
}

/// A heading that quotes a message with angle brackets in it
/// (`gemm<at::Half>`) loses them: Markdown reads `<at::Half>` as a link and
/// `<T>` as an HTML tag, so the heading shows, and search indexes,
/// `gemmat::Half`. Compared on the `<` the heading's source has (outside
/// code spans, not escaped) against those its text kept. An HTML anchor
/// tag (`### <a name="attest"></a> Title`, docker's CLI reference) is
/// meant: it is an anchor, hidden as on GitHub, and not counted.
fn check_heading_brackets(doc: &Document, out: &mut Vec<Diagnostic>) {
    let lines: Vec<&str> = doc.text.lines().collect();
    for section in &doc.sections {
        let Some(source) = section.line.checked_sub(1).and_then(|i| lines.get(i)) else {
            continue;
        };
        if !source.trim_start().starts_with('#') {
            // A setext heading (`Title` over `===`): its own rules; rare.
            continue;
        }
        let written = plain_brackets(source) - anchor_tags(source);
        let shown = section.title.matches('<').count();
        if written > shown {
            out.push(Diagnostic::warning(
                &doc.path,
                Some(section.line),
                "the heading's `<…>` is read as a link or an HTML tag and left out of its text: write `\\<` and `\\>`, or put the message in backticks",
            ));
        }
    }
}

/// How many `<` of a heading line open or close an HTML anchor tag
/// (`<a name="x">`, `</a>` after one).
fn anchor_tags(line: &str) -> usize {
    let opened = line
        .match_indices('<')
        .filter(|(at, _)| {
            let tag = &line[*at..];
            anchor_tag::is_anchor_tag(&tag[..tag.find('>').map_or(tag.len(), |e| e + 1)])
        })
        .count();
    let closed = line.matches("</a>").count().min(opened);
    opened + closed
}

/// How many `<` of a Markdown line are neither escaped (`\<`) nor inside a
/// code span.
fn plain_brackets(line: &str) -> usize {
    let mut count = 0;
    let mut ticks = 0;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if ticks == 0 => {
                chars.next();
            }
            '`' => {
                let mut run = 1;
                while chars.peek() == Some(&'`') {
                    chars.next();
                    run += 1;
                }
                ticks = if ticks == 0 {
                    run
                } else if ticks == run {
                    0
                } else {
                    ticks
                };
            }
            '<' if ticks == 0 => count += 1,
            _ => {}
        }
    }
    count
}

/// The anchors of each linked document (its headings' and its footnotes'),
/// gathered on first use: looking each link's anchor up among all headings
/// was quadratic (100,000 links into a file of 200,000 headings took 40 s).
#[derive(Default)]
struct Anchors<'c> {
    by_path: HashMap<&'c str, HashSet<&'c str>>,
}

impl<'c> Anchors<'c> {
    fn has(&mut self, doc: &'c Document, anchor: &str) -> bool {
        self.by_path
            .entry(doc.path.as_str())
            .or_insert_with(|| {
                let headings = doc.sections.iter().map(|s| s.anchor.as_str());
                let tags = doc.sections.iter().flat_map(|s| &s.aliases);
                headings
                    .chain(tags.map(String::as_str))
                    .chain(doc.footnotes.iter().map(|f| f.anchor.as_str()))
                    .collect()
            })
            .contains(anchor)
    }
}

fn check_links<'c>(
    corpus: &'c Corpus,
    doc: &Document,
    anchors: &mut Anchors<'c>,
    out: &mut Vec<Diagnostic>,
) {
    for link in &doc.links {
        match &link.target {
            LinkTarget::External(_) => {}
            LinkTarget::OutsideRoot(dest) => out.push(Diagnostic::error(
                &doc.path,
                Some(link.line),
                format!("link `{dest}` leaves the knowledge root"),
            )),
            LinkTarget::Internal { path, anchor } => {
                let markdown = crate::corpus::links::is_markdown_path(path);
                let folder = names_folder(&link.dest);
                let bare = has_no_extension(path);
                if !markdown && !folder && !bare {
                    // Not a document (an image, a script): nothing lore can open.
                    continue;
                }
                match corpus.get(path) {
                    None if let Some(hidden) = hidden_folder(path) => {
                        out.push(Diagnostic::warning(
                            &doc.path,
                            Some(link.line),
                            format!(
                                "link `{}` is in the hidden folder `{hidden}/`, which lore does not read",
                                link.dest
                            ),
                        ));
                    }
                    // `LICENSE`, or a folder with no page: there, but no document.
                    None if !markdown && corpus.others.contains(path) => {}
                    None if doc.kind == Kind::Index => out.push(Diagnostic::warning(
                        &doc.path,
                        Some(link.line),
                        format!("index entry `{path}` has no file"),
                    )),
                    None => out.push(Diagnostic::error(
                        &doc.path,
                        Some(link.line),
                        format!(
                            "broken link `{}`: {}",
                            link.dest,
                            no_target(path, folder, markdown)
                        ),
                    )),
                    Some(target) => {
                        if let Some(anchor) = anchor
                            && !anchors.has(target, anchor)
                        {
                            let what = match footnote_label(anchor) {
                                Some(label) => format!(
                                    "no footnote `[^{label}]` (nor a heading with anchor `#{anchor}`)"
                                ),
                                None => format!("no heading with anchor `#{anchor}`"),
                            };
                            out.push(Diagnostic::error(
                                &doc.path,
                                Some(link.line),
                                format!("broken link `{}`: `{path}` has {what}", link.dest),
                            ));
                        }
                    }
                }
            }
        }
    }
}

/// The first hidden folder of a path (`.github` of `.github/x.md`): lore
/// reads none, so it cannot tell whether a file there exists.
fn hidden_folder(path: &str) -> Option<&str> {
    let (folders, _) = path.rsplit_once('/')?;
    folders.split('/').find(|part| part.starts_with('.'))
}

/// What a broken link's target lacks, as the doc sites would have looked
/// for it (`corpus::links`).
fn no_target(path: &str, folder: bool, markdown: bool) -> String {
    let pages = format!(
        "a {} or {}",
        FOLDER_PAGES[..FOLDER_PAGES.len() - 1].join(", "),
        FOLDER_PAGES[FOLDER_PAGES.len() - 1]
    );
    if markdown {
        format!("no file `{path}`")
    } else if folder && path.is_empty() {
        format!("no {}", &pages[2..])
    } else if folder {
        format!("no folder `{path}/` with {pages}, nor a file `{path}.md`")
    } else {
        format!("no file `{path}.md`, nor a folder `{path}/` with {pages}")
    }
}

fn check_drop(corpus: &Corpus, doc: &Document, out: &mut Vec<Diagnostic>) {
    let Some(info) = &doc.drop else { return };
    match &info.target {
        None => out.push(Diagnostic::error(
            &doc.path,
            Some(info.target_line),
            "drop names no knowledge file: expected a line `- **File**: [cuda/x.md](../cuda/x.md)`",
        )),
        Some(target) => match corpus.get(target) {
            None => out.push(Diagnostic::error(
                &doc.path,
                Some(info.target_line),
                format!("drop describes `{target}`, which does not exist"),
            )),
            Some(file) => {
                if let Some(claimed) = info.lines
                    && claimed != file.line_count
                {
                    out.push(Diagnostic::warning(
                        &doc.path,
                        Some(info.lines_line),
                        format!(
                            "drop says `{target}` has {claimed} lines; it has {}",
                            file.line_count
                        ),
                    ));
                }
            }
        },
    }
}

/// Each root's top-level `INDEX.md` lists that root's knowledge files: a
/// file of another root (an overlay beside the built-in knowledge) is not
/// its to list, and a root without one has nothing to compare.
fn check_index(corpus: &Corpus, out: &mut Vec<Diagnostic>) {
    // Per root: its index and everything it links to.
    let mut roots: HashMap<Option<&Path>, (&Document, HashSet<&str>)> = HashMap::new();
    for index in corpus.documents.iter().filter(|d| d.kind == Kind::Index) {
        let listed = index.links.iter().filter_map(|l| match &l.target {
            LinkTarget::Internal { path, .. } => Some(path.as_str()),
            _ => None,
        });
        roots.insert(root_of(index), (index, listed.collect()));
    }
    for doc in &corpus.documents {
        if doc.kind != Kind::Knowledge {
            continue;
        }
        if let Some((index, listed)) = roots.get(&root_of(doc))
            && !listed.contains(doc.path.as_str())
        {
            out.push(
                Diagnostic::warning(
                    &index.path,
                    None,
                    format!("`{}` is not listed in the index", doc.path),
                )
                .in_file(index.origin.file()),
            );
        }
    }
}
