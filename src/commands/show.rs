//! `lore show PATH[#ANCHOR]`: one document, or one section, rendered for the
//! terminal on stdout. Colour when stdout is a terminal (or `--color always`);
//! `--plain` guarantees text with no escape sequence at all.

use std::io::{IsTerminal, Write};

use crate::cli::ShowArgs;
use crate::config::Settings;
use crate::corpus::{Corpus, Document, Lookup, slug};
use crate::diagnostic::Diagnostic;
use crate::markdown::{Highlighter, RenderOptions, UNWRAPPED, render, write_ansi};
use crate::text::inline;
use crate::theme::{Theme, terminal_has_truecolor};

use super::{EXIT_OK, EXIT_USAGE, pager, stdout};

/// A target to show in usage messages.
const EXAMPLE: &str = "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti";
/// Width on a terminal whose size cannot be read.
const TERMINAL_FALLBACK_WIDTH: u16 = 100;
/// How many "did you mean" paths an unknown path lists.
const SUGGESTIONS: usize = 5;

pub fn run(settings: &Settings, args: &ShowArgs) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    let (doc, anchor): (&Document, Option<&str>) =
        match resolve_target(&corpus, &args.target) {
            Ok(found) => found,
            // A hit as `lore search` prints it: the section holding that line.
            Err(message) => match line_suffix(&args.target).and_then(|(path, line)| {
                match resolve_target(&corpus, path) {
                    Ok((doc, None)) => Some((doc, section_at(doc, line))),
                    _ => None,
                }
            }) {
                Some(found) => found,
                None => {
                    say!("{message}");
                    return Ok(EXIT_USAGE);
                }
            },
        };
    let color = settings.color && !args.plain;
    let theme = if color {
        let name = settings.theme_for_terminal();
        // An answer still on its way would be read by the pager or the
        // shell as keys, or echoed amid the text.
        crate::terminal_answer::drain();
        Theme::for_name(name).with_truecolor(terminal_has_truecolor())
    } else {
        Theme::plain()
    };
    let options = RenderOptions {
        width: args.width.unwrap_or_else(terminal_width),
        theme: &theme,
        highlighter: color.then(Highlighter::global),
        // Plain text is for copying: a command split over two lines with a
        // `↪` in between would not paste back as the command.
        wrap_code: !args.plain,
    };
    let rendered = render(doc, &options);
    let range = match anchor {
        // A heading's section, or else a footnote's note (`#fn:LABEL`).
        Some(anchor) => match rendered.section_range(anchor) {
            section if section.is_empty() => rendered.footnote_range(anchor),
            section => section,
        },
        None => 0..rendered.lines.len(),
    };
    let mut text = Vec::new();
    write_ansi(&mut text, rendered.lines.range(range), color)?;
    if pager::wanted(args.paging) {
        pager::page(&text)?;
    } else {
        let mut out = stdout();
        out.write_all(&text)?;
        out.flush()?;
    }
    Ok(EXIT_OK)
}

/// `PATH:LINE` split into the path and the line, as `lore search` prints hits.
pub(super) fn line_suffix(target: &str) -> Option<(&str, usize)> {
    let (path, line) = target.rsplit_once(':')?;
    let line: usize = line.parse().ok()?;
    (!path.is_empty() && line > 0).then_some((path, line))
}

/// The anchor of the section `line` (1-based) is in: the last heading at or
/// above it; `None` above the first heading (the whole document).
fn section_at(doc: &Document, line: usize) -> Option<&str> {
    doc.sections
        .iter()
        .take_while(|s| s.line <= line)
        .last()
        .map(|s| s.anchor.as_str())
}

/// The document and anchor `PATH[#ANCHOR]` names, or the message saying why
/// it names none: no such path (with the closest ones), a fragment several
/// paths share (listing them), a file skipped while loading, or an unknown
/// anchor (listing the document's anchors). An anchor typed in other case
/// or as the heading's words (`#What-Is-CUPTI`, `#what is cupti`) names the
/// heading it slugs to. Shared with `lore open`.
pub(super) fn resolve_target<'c>(
    corpus: &'c Corpus,
    target: &str,
) -> Result<(&'c Document, Option<&'c str>), String> {
    let (path, anchor) = corpus.split_target(target);
    if path.trim().is_empty() {
        return Err(format!(
            "lore: error: `{}` names no document: expected PATH[#ANCHOR], e.g. {EXAMPLE}",
            inline(target)
        ));
    }
    let doc = match corpus.lookup(path) {
        Lookup::Found(doc) => doc,
        Lookup::Ambiguous(docs) => {
            let mut message = format!(
                "lore: error: `{}` matches several documents; give more of the path:",
                inline(path)
            );
            for doc in docs {
                message.push_str(&format!("\n  {}", inline(&doc.path)));
            }
            return Err(message);
        }
        Lookup::NotFound => {
            if let Some(problem) = skipped(corpus, path) {
                return Err(format!(
                    "lore: error: `{}` could not be loaded\n{}",
                    inline(path),
                    inline(&problem.to_string())
                ));
            }
            let mut message = format!(
                "lore: error: no document `{}` in the knowledge",
                inline(path)
            );
            let closest = corpus.closest_paths(path, SUGGESTIONS);
            if !closest.is_empty() {
                message.push_str("\nclosest paths:");
                for p in closest {
                    message.push_str(&format!("\n  {}", inline(p)));
                }
            }
            return Err(message);
        }
    };
    match anchor.filter(|a| !a.is_empty()) {
        None => Ok((doc, None)),
        Some(anchor) => match doc_anchor(doc, anchor) {
            Some(found) => Ok((doc, Some(found))),
            None => Err(unknown_anchor(doc, anchor)),
        },
    }
}

/// The document's own anchor that `anchor` names: itself, the heading
/// an HTML anchor tag names (`#attest` of `### <a name="attest"></a> …`),
/// else, for an anchor typed with capitals or spaces (GitHub's are lower
/// case; people type headings), the one it slugs to. Other typos stay
/// errors.
fn doc_anchor<'c>(doc: &'c Document, anchor: &str) -> Option<&'c str> {
    if let Some(own) = doc.anchor_for(anchor) {
        let sections = doc.sections.iter().map(|s| s.anchor.as_str());
        let notes = doc.footnotes.iter().map(|f| f.anchor.as_str());
        return sections.chain(notes).find(|a| *a == own);
    }
    let sections = doc.sections.iter().map(|s| s.anchor.as_str());
    let notes = doc.footnotes.iter().map(|f| f.anchor.as_str());
    let mut anchors = sections.chain(notes);
    let typed = anchor.chars().any(|c| c.is_uppercase() || c == ' ');
    let slugged = slug(anchor);
    anchors.find(|a| typed && *a == slugged)
}

/// Why a file the user named is not in the corpus, if it was found but
/// skipped while loading (not UTF-8, too big, unreadable).
fn skipped<'c>(corpus: &'c Corpus, query: &str) -> Option<&'c Diagnostic> {
    let query = query.trim().trim_start_matches("./");
    let with_md = format!("{query}.md");
    corpus.warnings.iter().find(|w| {
        [query, with_md.as_str()]
            .iter()
            .any(|q| w.path == *q || w.path.ends_with(&format!("/{q}")))
    })
}

fn unknown_anchor(doc: &Document, anchor: &str) -> String {
    let mut message = format!(
        "lore: error: `{}` has no heading with anchor `#{}`",
        inline(&doc.path),
        inline(anchor)
    );
    if doc.sections.is_empty() && doc.footnotes.is_empty() {
        message.push_str(" (it has no headings)");
        return message;
    }
    message.push_str(&format!("\nanchors in {}:", inline(&doc.path)));
    for section in &doc.sections {
        let indent = "  ".repeat(usize::from(section.level));
        message.push_str(&format!("\n{indent}#{}", inline(&section.anchor)));
        let aliases: Vec<String> = section
            .aliases
            .iter()
            .map(|a| format!("#{}", inline(a)))
            .collect();
        if !aliases.is_empty() {
            message.push_str(&format!(" (also {})", aliases.join(", ")));
        }
    }
    for note in &doc.footnotes {
        message.push_str(&format!("\n  #{}", inline(&note.anchor)));
    }
    message
}

/// The terminal's width when stdout is one; piped output is not wrapped
/// (the reader of a pipe has no width; `--width` asks for one).
fn terminal_width() -> u16 {
    if std::io::stdout().is_terminal() {
        if let Ok((columns, _)) = ratatui::crossterm::terminal::size()
            && columns > 0
        {
            return columns;
        }
        return TERMINAL_FALLBACK_WIDTH;
    }
    UNWRAPPED
}
