//! `lore search [--limit N] [--json] [--kind K] QUERY…`: the sections that
//! explain an error line or answer a few words, grep-style: one
//! `path:line  Title › Section` line and a snippet per hit, exit 1 when
//! nothing matches.

use std::io::{IsTerminal, Read, Write};

use crate::cli::SearchArgs;
use crate::config::Settings;
use crate::corpus::Kind;
use crate::search::query::ParsedQuery;
use crate::search::vocabulary::Vocabulary;
use crate::search::{Hit, WEAK_NOTICE, query};
use crate::text::{inline, sanitize};

use super::{EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, stdout};

/// A query read from stdin keeps its last this many bytes: a search needs
/// the error, which is at the end of a build log, not all of it.
const MAX_QUERY_BYTES: usize = 1 << 20;
/// Stdin is read no further than this (an endless pipe still gets an answer).
const MAX_STDIN_BYTES: u64 = 64 << 20;
/// A searched log line is shown at most this many characters wide.
const SHOWN_LINE_CHARS: usize = 200;

const PATH_STYLE: &str = "\x1b[35m";
const LINE_STYLE: &str = "\x1b[32m";
const HEADING_STYLE: &str = "\x1b[1m";
const MATCH_STYLE: &str = "\x1b[1;31m";
const RESET: &str = "\x1b[0m";

pub fn run(settings: &Settings, args: &SearchArgs) -> anyhow::Result<u8> {
    let text = match read_query(&args.query)? {
        Ok(text) => text,
        Err(code) => return Ok(code),
    };
    let (parsed, hits) = match find(settings, &text, args.limit, args.kind.as_deref())? {
        Ok(found) => found,
        Err(code) => return Ok(code),
    };
    if hits.first().is_some_and(|h| !h.is_confident()) && !args.json {
        eprintln!("lore: {WEAK_NOTICE}");
    }
    let mut out = stdout();
    if args.json {
        let array: Vec<serde_json::Value> =
            hits.iter().map(|h| hit_json(h, &parsed.searched)).collect();
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

/// The query: the words given, or stdin for `-` (its last MB). `Err` holds
/// the exit code after the message was printed.
pub(super) fn read_query(words: &[String]) -> anyhow::Result<Result<String, u8>> {
    let text = if words == ["-"] {
        let mut bytes = Vec::new();
        std::io::stdin()
            .lock()
            .take(MAX_STDIN_BYTES)
            .read_to_end(&mut bytes)?;
        if bytes.len() > MAX_QUERY_BYTES {
            eprintln!(
                "lore: the input is {} MB; searching its last MB (where a log says what failed)",
                bytes.len() >> 20
            );
            bytes.drain(..bytes.len() - MAX_QUERY_BYTES);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    } else {
        words.join(" ")
    };
    if text.trim().is_empty() {
        eprintln!("lore: error: the query is empty: give words, an error line, or `-` for stdin");
        return Ok(Err(EXIT_USAGE));
    }
    Ok(Ok(text))
}

/// Searches the knowledge as `lore search` does: the query parsed, the
/// vocabulary's expansions added, the index opened (built if stale). `Err`
/// holds the exit code after the message was printed.
pub(super) fn find(
    settings: &Settings,
    text: &str,
    limit: usize,
    kind: Option<&str>,
) -> anyhow::Result<Result<(ParsedQuery, Vec<Hit>), u8>> {
    let mut parsed = query::parse(text);
    if parsed.is_empty() {
        // Exit 1 like any query without hits, but say why nothing was looked up.
        eprintln!(
            "lore: nothing to search for: the query is only numbers, addresses, paths or punctuation, which are ignored"
        );
        return Ok(Err(EXIT_PROBLEMS));
    }
    if let Some(kind) = kind.and_then(Kind::parse) {
        parsed.kinds = vec![kind];
    }
    // The vocabulary's problems are `lore check`'s to report.
    Vocabulary::load(&settings.knowledge).0.expand(&mut parsed);
    if std::io::stderr().is_terminal() {
        for line in &parsed.searched {
            eprintln!("searched: {}", shown_line(line));
        }
    }
    let (_, _, hits) = super::index::open_index_then(settings, false, false, |index| {
        index.query_parsed(&parsed, limit)
    })?;
    Ok(Ok((parsed, hits)))
}

/// A log line as shown on stderr: no control characters, cut to a width.
fn shown_line(line: &str) -> String {
    let line = sanitize(line);
    match line.char_indices().nth(SHOWN_LINE_CHARS) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

fn hit_json(hit: &Hit, searched: &[String]) -> serde_json::Value {
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
        "confidence": hit.confidence,
        "confident": hit.is_confident(),
        "searched": searched,
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
