//! `lore list [--json] [--kind K]`: every document loaded, one per line as
//! `path  kind  title`, so a script (or a shell completion) can find names;
//! each path is a valid argument to `lore show` and `lore open`.

use std::io::Write;

use crate::cli::ListArgs;
use crate::config::Settings;
use crate::corpus::{Corpus, Kind};
use crate::text::sanitize;

use super::{EXIT_OK, EXIT_PROBLEMS, stdout, write_json};

pub fn run(settings: &Settings, args: &ListArgs) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    // One line, and only when something is hidden: `check` names them.
    let hidden: usize = corpus.hidden.iter().map(|h| h.paths.len()).sum();
    if hidden > 0 {
        say!(
            "lore: warning: {hidden} document{} of earlier knowledge folders {} hidden by same-named ones of later folders (later wins); `lore check` says which",
            if hidden == 1 { "" } else { "s" },
            if hidden == 1 { "is" } else { "are" }
        );
    }
    let kind = args.kind.as_deref().and_then(Kind::parse);
    let docs: Vec<_> = corpus
        .documents
        .iter()
        .filter(|d| kind.is_none_or(|k| d.kind == k))
        .collect();
    let mut out = stdout();
    if args.json {
        let array: Vec<serde_json::Value> = docs
            .iter()
            .map(|d| {
                serde_json::json!({
                    "path": d.path,
                    "title": d.title,
                    "kind": d.kind.as_str(),
                    "builtin": d.origin.is_builtin(),
                    "lines": d.line_count,
                })
            })
            .collect();
        write_json(&mut out, &array)?;
    } else {
        let paths: Vec<String> = docs.iter().map(|d| sanitize(&d.path)).collect();
        let width = paths.iter().map(|p| p.chars().count()).max().unwrap_or(0);
        for (doc, path) in docs.iter().zip(&paths) {
            let pad = width - path.chars().count();
            writeln!(
                out,
                "{path}{}  {:<9}  {}",
                " ".repeat(pad),
                doc.kind.as_str(),
                sanitize(&doc.title)
            )?;
        }
    }
    out.flush()?;
    Ok(if docs.is_empty() {
        EXIT_PROBLEMS
    } else {
        EXIT_OK
    })
}
