//! `lore search [--limit N] [--json] [--kind K] QUERY…`: the sections that
//! explain an error line or answer a few words, grep-style: one
//! `path:line  Title › Section` line and a snippet per hit, exit 1 when
//! nothing matches.

use std::io::{Read, Write};

use crate::cli::SearchArgs;
use crate::config::Settings;
use crate::corpus::Kind;
use crate::search::{Hit, query};
use crate::text::inline;

use super::{EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, stdout};

/// A query read from stdin is cut here: a search needs the error, not the
/// whole build log.
const MAX_STDIN_BYTES: u64 = 1 << 20;

const PATH_STYLE: &str = "\x1b[35m";
const LINE_STYLE: &str = "\x1b[32m";
const HEADING_STYLE: &str = "\x1b[1m";
const MATCH_STYLE: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

pub fn run(settings: &Settings, args: &SearchArgs) -> anyhow::Result<u8> {
    let text = if args.query == ["-"] {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_STDIN_BYTES)
            .read_to_end(&mut bytes)?;
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        args.query.join(" ")
    };
    if text.trim().is_empty() {
        eprintln!("lore: error: the query is empty: give words, an error line, or `-` for stdin");
        return Ok(EXIT_USAGE);
    }
    let mut parsed = query::parse(&text);
    if parsed.is_empty() {
        // Exit 1 like any query without hits, but say why nothing was looked up.
        eprintln!(
            "lore: nothing to search for: the query is only numbers, addresses, paths or punctuation, which are ignored"
        );
        return Ok(EXIT_PROBLEMS);
    }
    if let Some(kind) = args.kind.as_deref().and_then(Kind::parse) {
        parsed.kinds = vec![kind];
    }
    let (_, _, hits) = super::index::open_index_then(settings, false, false, |index| {
        index.query_parsed(&parsed, args.limit)
    })?;
    let mut out = stdout();
    if args.json {
        let array: Vec<serde_json::Value> = hits.iter().map(hit_json).collect();
        super::write_json(&mut out, &array)?;
    } else {
        for hit in &hits {
            write_hit(&mut out, hit, settings.color)?;
        }
    }
    out.flush()?;
    Ok(if hits.is_empty() {
        EXIT_PROBLEMS
    } else {
        EXIT_OK
    })
}

fn hit_json(hit: &Hit) -> serde_json::Value {
    serde_json::json!({
        "path": hit.path,
        "anchor": hit.anchor,
        "line": hit.line,
        "title": hit.title,
        "heading": hit.heading,
        "kind": hit.kind.as_str(),
        "score": hit.score,
        "snippet": hit.snippet,
        "highlights": hit.highlights.iter().map(|r| [r.start, r.end]).collect::<Vec<_>>(),
    })
}

/// `path:line  Title › Section`, then the snippet indented, matches marked.
fn write_hit(out: &mut impl Write, hit: &Hit, color: bool) -> std::io::Result<()> {
    let path = inline(&hit.path);
    let heading = inline(&hit.heading);
    if color {
        writeln!(
            out,
            "{PATH_STYLE}{path}{RESET}:{LINE_STYLE}{}{RESET}  {HEADING_STYLE}{heading}{RESET}",
            hit.line
        )?;
    } else {
        writeln!(out, "{path}:{}  {heading}", hit.line)?;
    }
    if hit.snippet.is_empty() {
        return Ok(());
    }
    // The snippet is sanitized by the library; highlights are byte ranges in it.
    let mut line = String::from("    ");
    let mut at = 0;
    for range in &hit.highlights {
        if !color || range.start < at || range.end > hit.snippet.len() {
            continue;
        }
        line.push_str(&hit.snippet[at..range.start]);
        line.push_str(MATCH_STYLE);
        line.push_str(&hit.snippet[range.clone()]);
        line.push_str(RESET);
        at = range.end;
    }
    line.push_str(&hit.snippet[at..]);
    writeln!(out, "{line}")
}
