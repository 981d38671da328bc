//! `lore show PATH[#ANCHOR]`: one document, or one section, rendered for the
//! terminal on stdout. Colour when stdout is a terminal (or `--color always`);
//! `--plain` guarantees text with no escape sequence at all.

use std::io::{IsTerminal, Write};

use crate::cli::ShowArgs;
use crate::config::Settings;
use crate::corpus::{Corpus, Document};
use crate::diagnostic::Diagnostic;
use crate::markdown::{Highlighter, RenderOptions, render, write_ansi};
use crate::text::inline;
use crate::theme::{Theme, terminal_has_truecolor};

use super::{EXIT_OK, EXIT_USAGE, stdout};

/// A target to show in usage messages.
const EXAMPLE: &str = "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti";
/// Width when stdout is not a terminal.
const DEFAULT_WIDTH: u16 = 100;
/// How many "did you mean" paths an unknown path lists.
const SUGGESTIONS: usize = 5;

pub fn run(settings: &Settings, args: &ShowArgs) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    let (path, anchor) = split_target(&corpus, &args.target);
    if path.trim().is_empty() {
        eprintln!(
            "lore: error: `{}` names no document: expected PATH[#ANCHOR], e.g. {EXAMPLE}",
            inline(&args.target)
        );
        return Ok(EXIT_USAGE);
    }
    let Some(doc) = find(&corpus, path) else {
        if let Some(problem) = skipped(&corpus, path) {
            eprintln!(
                "lore: error: `{}` could not be loaded\n{}",
                inline(path),
                inline(&problem.to_string())
            );
            return Ok(EXIT_USAGE);
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
        eprintln!("{message}");
        return Ok(EXIT_USAGE);
    };
    let anchor = anchor.filter(|a| !a.is_empty());
    if let Some(anchor) = anchor
        && doc.section_by_anchor(anchor).is_none()
    {
        eprintln!("{}", unknown_anchor(doc, anchor));
        return Ok(EXIT_USAGE);
    }

    let color = settings.color && !args.plain;
    let theme = if color {
        Theme::for_name(settings.theme).with_truecolor(terminal_has_truecolor())
    } else {
        Theme::plain()
    };
    let options = RenderOptions {
        width: args.width.unwrap_or_else(terminal_width),
        theme: &theme,
        highlighter: color.then(Highlighter::global),
    };
    let rendered = render(doc, &options);
    let range = match anchor {
        Some(anchor) => rendered.section_range(anchor),
        None => 0..rendered.lines.len(),
    };
    let mut out = stdout();
    write_ansi(&mut out, &rendered.lines[range], color)?;
    out.flush()?;
    Ok(EXIT_OK)
}

/// The document a user meant: the exact path, the path without `.md`, a path
/// that includes the knowledge folder (`knowledge/cuda/x.md`), or a unique
/// file name.
fn find<'c>(corpus: &'c Corpus, query: &str) -> Option<&'c Document> {
    let query = query.trim().trim_start_matches("./");
    if let Some(doc) = corpus.get(query) {
        return Some(doc);
    }
    if let Some(doc) = corpus.get(&format!("{query}.md")) {
        return Some(doc);
    }
    let unique = |matches: Vec<&'c Document>| (matches.len() == 1).then(|| matches[0]);
    let with_root: Vec<&Document> = corpus
        .documents
        .iter()
        .filter(|d| query.ends_with(&format!("/{}", d.path)))
        .collect();
    if let Some(doc) = unique(with_root) {
        return Some(doc);
    }
    let by_name: Vec<&Document> = corpus
        .documents
        .iter()
        .filter(|d| {
            let name = d.path.rsplit('/').next().unwrap_or(&d.path);
            name == query || name.strip_suffix(".md") == Some(query)
        })
        .collect();
    unique(by_name)
}

/// `PATH#ANCHOR` split where the path names a document. Anchors never hold
/// a `#` but file names may, so the whole target is tried as a path, then
/// the part before the last `#`; when neither names a document, the anchor
/// starts at the first `#` (so `a.md##x` blames the anchor, not the path).
fn split_target<'t>(corpus: &Corpus, target: &'t str) -> (&'t str, Option<&'t str>) {
    let Some(first) = target.find('#') else {
        return (target, None);
    };
    if find(corpus, target).is_some() {
        return (target, None);
    }
    let split = |at: usize| (&target[..at], Some(&target[at + 1..]));
    let last = target.rfind('#').unwrap_or(first);
    if find(corpus, &target[..last]).is_some() {
        return split(last);
    }
    split(first)
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
    if doc.sections.is_empty() {
        message.push_str(" (it has no headings)");
        return message;
    }
    message.push_str(&format!("\nanchors in {}:", inline(&doc.path)));
    for section in &doc.sections {
        let indent = "  ".repeat(usize::from(section.level));
        message.push_str(&format!("\n{indent}#{}", inline(&section.anchor)));
    }
    message
}

/// The terminal's width when stdout is one, else `DEFAULT_WIDTH`.
fn terminal_width() -> u16 {
    if std::io::stdout().is_terminal()
        && let Ok((columns, _)) = ratatui::crossterm::terminal::size()
        && columns > 0
    {
        return columns;
    }
    DEFAULT_WIDTH
}
