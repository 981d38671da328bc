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
use crate::search::{Hit, QUESTION_LABEL, WEAK_NOTICE, query};
use crate::text::{inline, sanitize};
use unicode_width::UnicodeWidthStr;

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
        say!("lore: {WEAK_NOTICE}");
    }
    if hits.is_empty() && !args.json {
        // Exit 1 says it to scripts; a person at a terminal gets a line too.
        let within = match args.kind.as_deref() {
            Some(kind) => format!(" of kind `{kind}`"),
            None => String::new(),
        };
        say!(
            "lore: no section{within} matches this query; try other words, or `lore list` to browse"
        );
    }
    let mut out = stdout();
    if args.json {
        let array: Vec<serde_json::Value> =
            hits.iter().map(|h| hit_json(h, &parsed.searched)).collect();
        super::write_json(&mut out, &array)?;
    } else {
        let width = terminal_width();
        for hit in &hits {
            write_hit(&mut out, hit, settings.color, width)?;
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
        let mut text = crate::pasted::decode(&bytes);
        if text.len() > MAX_QUERY_BYTES {
            say!(
                "lore: the input is {} MB; searching its last MB (where a log says what failed)",
                text.len() >> 20
            );
            let mut cut = text.len() - MAX_QUERY_BYTES;
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
            text.drain(..cut);
        }
        text
    } else {
        words.join(" ")
    };
    if text.trim().is_empty() {
        say!("lore: error: the query is empty: give words, an error line, or `-` for stdin");
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
        say!(
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
            say!("searched: {}", shown_line(line));
        }
    }
    let (_, _, hits) = super::index::open_index_then(settings, false, false, |index| {
        index.query_parsed(&parsed, limit)
    })?;
    Ok(Ok((parsed, hits)))
}

/// A searched log line as shown on stderr: what the program printed,
/// without the build tool's step and progress markers (`#8 6.560 `, `Step
/// 3/12 : `, `[ 45%] `), no control characters, cut to a width.
fn shown_line(line: &str) -> String {
    let line = sanitize(&crate::search::query::strip_markers(line));
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
        "question": hit.question,
        "confident": hit.is_confident(),
        "searched": searched,
    })
}

/// Columns to fit each line of a hit to: the terminal's, when stdout is
/// one; piped output keeps whole lines (for grep and scripts).
fn terminal_width() -> Option<usize> {
    if !std::io::stdout().is_terminal() {
        return None;
    }
    ratatui::crossterm::terminal::size()
        .ok()
        .map(|(columns, _)| usize::from(columns))
        .filter(|&c| c > 0)
}

/// The snippet's indent.
const INDENT: &str = "    ";

/// `path:line  Title › Section`, then the snippet indented, matches marked.
/// With a `width` (a terminal), each hit stays two lines however narrow:
/// the heading loses its outer parts first (the section says the most),
/// the snippet is cut around its first match.
fn write_hit(
    out: &mut impl Write,
    hit: &Hit,
    color: bool,
    width: Option<usize>,
) -> std::io::Result<()> {
    let mut path = format!("{}:{}", inline(&hit.path), hit.line);
    let mut heading = inline(&hit.heading);
    if let Some(width) = width {
        // The location is what `lore open` takes: kept whole while it fits.
        path = crate::text::fit_middle(&path, width);
        heading = fit_heading(&heading, width.saturating_sub(path.width() + 2));
    }
    let gap = if heading.is_empty() { "" } else { "  " };
    if color {
        let (file, line) = path.rsplit_once(':').unwrap_or((&path, ""));
        writeln!(
            out,
            "{PATH_STYLE}{file}{RESET}:{LINE_STYLE}{line}{RESET}{gap}{HEADING_STYLE}{heading}{RESET}",
        )?;
    } else {
        writeln!(out, "{path}{gap}{heading}")?;
    }
    if hit.snippet.is_empty() {
        return Ok(());
    }
    // The snippet is sanitized by the library; highlights are byte ranges in it.
    let (snippet, highlights) = match width {
        Some(width) => fit_snippet(
            &hit.snippet,
            &hit.highlights,
            width.saturating_sub(INDENT.len()),
        ),
        None => (hit.snippet.clone(), hit.highlights.clone()),
    };
    let mut line = String::from(INDENT);
    let mut at = 0;
    for range in &highlights {
        if !color || range.start < at || range.end > snippet.len() {
            continue;
        }
        line.push_str(&snippet[at..range.start]);
        line.push_str(MATCH_STYLE);
        line.push_str(&snippet[range.clone()]);
        line.push_str(RESET);
        at = range.end;
    }
    line.push_str(&snippet[at..]);
    writeln!(out, "{line}")?;
    if let Some(question) = &hit.question {
        let mut said = format!("{INDENT}{QUESTION_LABEL}{}", inline(question));
        if let Some(width) = width {
            said = crate::text::fit_middle(&said, width);
        }
        writeln!(out, "{said}")?;
    }
    Ok(())
}

/// `Title › Part › Section` in `room` columns: whole if it fits, else
/// without its outer parts (`… › Section`), else the section cut at its end.
fn fit_heading(heading: &str, room: usize) -> String {
    if heading.width() <= room {
        return heading.to_string();
    }
    let parts: Vec<&str> = heading.split(" › ").collect();
    for first in 1..parts.len() {
        let shorter = format!("… › {}", parts[first..].join(" › "));
        if shorter.width() <= room {
            return shorter;
        }
    }
    let last = parts.last().copied().unwrap_or(heading);
    if room == 0 {
        return String::new();
    }
    let mut out = String::new();
    for unit in crate::text::units(last) {
        if out.width() + unit.width() > room - 1 {
            break;
        }
        out.push_str(unit);
    }
    out.push('…');
    out
}

/// The snippet in `room` columns with its highlights moved along: cut at
/// the end, or, when the first match would fall past the cut, starting a
/// little before that match (`…`).
fn fit_snippet(
    snippet: &str,
    highlights: &[std::ops::Range<usize>],
    room: usize,
) -> (String, Vec<std::ops::Range<usize>>) {
    if snippet.width() <= room {
        return (snippet.to_string(), highlights.to_vec());
    }
    if room < 2 {
        return (String::new(), Vec::new());
    }
    let units: Vec<(usize, &str)> = crate::text::units(snippet)
        .scan(0, |at, u| {
            let start = *at;
            *at += u.len();
            Some((start, u))
        })
        .collect();
    let columns_before = |byte: usize| -> usize {
        units
            .iter()
            .take_while(|(at, _)| *at < byte)
            .map(|(_, u)| u.width())
            .sum()
    };
    // Start so that the first match ends inside the room, with some text
    // before it for context.
    let mut first = 0;
    let mut lead = "";
    if let Some(m) = highlights.first()
        && columns_before(m.end) > room - 1
    {
        let context = room / 4;
        let want = columns_before(m.start).saturating_sub(context);
        let mut cols = 0;
        while first < units.len() && cols < want {
            cols += units[first].1.width();
            first += 1;
        }
        lead = "…";
    }
    let mut used = lead.width();
    let mut last = first;
    while last < units.len() && used + units[last].1.width() < room {
        used += units[last].1.width();
        last += 1;
    }
    // All of the rest fits without the closing mark.
    let rest: usize = units[last..].iter().map(|(_, u)| u.width()).sum();
    let tail = if last < units.len() && used + rest > room {
        "…"
    } else {
        last = units.len();
        ""
    };
    let start = units.get(first).map_or(snippet.len(), |(at, _)| *at);
    let end = units.get(last).map_or(snippet.len(), |(at, _)| *at);
    let shift = lead.len();
    let text = format!("{lead}{}{tail}", &snippet[start..end]);
    let moved = highlights
        .iter()
        .filter(|r| r.start >= start && r.end <= end)
        .map(|r| r.start - start + shift..r.end - start + shift)
        .collect();
    (text, moved)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(heading: &str, snippet: &str, highlight: &str) -> Hit {
        let at = snippet.find(highlight).unwrap();
        Hit {
            path: "cuda/20-cupti-deep-dive-arr-coc.md".into(),
            anchor: "x".into(),
            line: 258,
            title: "T".into(),
            heading: heading.into(),
            kind: crate::corpus::Kind::Knowledge,
            score: 1.0,
            snippet: snippet.into(),
            highlights: std::iter::once(at..at + highlight.len()).collect(),
            confidence: 1.0,
            signals: Default::default(),
            question: None,
        }
    }

    fn printed(hit: &Hit, color: bool, width: Option<usize>) -> String {
        let mut out = Vec::new();
        write_hit(&mut out, hit, color, width).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// `lore search` in a 60-column terminal: each hit was a heading trail of
    /// 170 characters and a long snippet, three or four rows each; now two.
    #[test]
    fn a_hit_keeps_two_lines_on_a_narrow_terminal() {
        let hit = hit(
            "CUPTI Deep Dive: What It Is, Who Loads It, and Whether arr-coc Needs It › pip wheels already ship CUPTI › What happens without it",
            "Without the wheel, importing torch fails at once with ImportError: libcupti.so.12: cannot open shared object file: No such file or directory",
            "libcupti.so.12",
        );
        for width in [40, 60, 80] {
            let text = printed(&hit, false, Some(width));
            let lines: Vec<&str> = text.lines().collect();
            assert_eq!(lines.len(), 2, "{text}");
            for line in &lines {
                assert!(line.width() <= width, "{width}: {line:?}");
            }
            // The match is on screen.
            assert!(lines[1].contains("libcupti"), "{width}: {text}");
        }
        // The section stays, its trail gives way, then its end.
        let text = printed(&hit, false, Some(80));
        assert!(
            text.starts_with(
                "cuda/20-cupti-deep-dive-arr-coc.md:258  … › What happens without it\n"
            ),
            "{text}"
        );
        let text = printed(&hit, false, Some(60));
        assert!(
            text.starts_with("cuda/20-cupti-deep-dive-arr-coc.md:258  What happens withou…\n"),
            "{text}"
        );
        // Colours mark the match where it moved to.
        let colored = printed(&hit, true, Some(60));
        assert!(
            colored.contains(&format!("{MATCH_STYLE}libcupti.so.12{RESET}")),
            "{colored:?}"
        );
        // Into a pipe: whole lines, as before.
        let piped = printed(&hit, false, None);
        assert!(piped.contains("CUPTI Deep Dive: What It Is"), "{piped}");
        assert!(piped.contains("No such file or directory"), "{piped}");
    }

    #[test]
    fn a_short_hit_is_printed_as_it_is() {
        let hit = hit("A › B", "short libcupti line", "libcupti");
        assert_eq!(
            printed(&hit, false, Some(80)),
            "cuda/20-cupti-deep-dive-arr-coc.md:258  A › B\n    short libcupti line\n"
        );
    }

    /// A line of a `docker build` log shows what the program printed on
    /// the terminal's `searched:` line, not BuildKit's step prefix; colour
    /// codes a saved log carries never reach the terminal.
    #[test]
    fn a_searched_line_is_shown_without_build_step_markers() {
        assert_eq!(
            shown_line("#8 5.713 nvcc fatal   : Unsupported gpu architecture 'compute_35'"),
            "nvcc fatal   : Unsupported gpu architecture 'compute_35'"
        );
        assert_eq!(
            shown_line("Step 4/9 : RUN apt-get update"),
            "RUN apt-get update"
        );
        assert_eq!(
            shown_line("\u{1b}[31mERROR:\u{1b}[0m failed to solve"),
            "ERROR: failed to solve"
        );
    }
}
