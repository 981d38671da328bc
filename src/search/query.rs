//! What a user typed or pasted, turned into weighted search terms. A query is
//! free text: the OR of its terms, with `"quoted phrases"` (a section that
//! has one ranks higher; none is filtered out), `kind:drop` and
//! `path:cuda/` filters, and the last word also matched as a prefix while it
//! is being typed. Pasted terminal output is cleaned first: escape codes,
//! timestamps, hex addresses, `file:line:col` numbers, long path prefixes and
//! build-step markers say nothing about the problem and only add noise.
//!
//! Parsing never fails: anything that is not a well-formed phrase or filter
//! is plain text. This module knows nothing of tantivy; `search` turns a
//! `ParsedQuery` into an index query.

use super::tokenizer::pieces;
use super::variable;
use crate::corpus::Kind;

/// Weight of a term the user wrote as a word or identifier.
pub const WHOLE_WEIGHT: f32 = 1.0;
/// Weight of a middle piece of an identifier (`libcupti.so` in
/// `/usr/lib/libcupti.so.12`).
pub const PIECE_WEIGHT: f32 = 0.6;
/// Weight of one word inside an identifier (`cupti` in `cuda-cupti-12-4`).
pub const PART_WEIGHT: f32 = 0.4;
/// Weight of a numeric word inside an identifier (`12` in `libcupti.so.12`).
pub const NUMBER_PART_WEIGHT: f32 = 0.15;

/// Weight of a number standing alone (`35` in `failed with error 35`): on
/// its own it matches every section that mentions that number in any sense;
/// next to its context word it still counts through the word pair
/// (`error 35`).
pub const BARE_NUMBER_WEIGHT: f32 = 0.3;

/// At most this many word pairs are looked for side by side.
const MAX_PAIRS: usize = 24;
/// A longer line keeps its start and its end (an error message is usually at
/// one or the other of a long compiler or linker line).
const MAX_LINE_BYTES: usize = 4_000;

/// One term to look for.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub text: String,
    pub weight: f32,
    /// For another form or a synonym of a query word (`privileges` for
    /// `privilege`), that word: a section counts the best of a word's
    /// forms once, not each of them.
    pub alias_of: Option<String>,
}

/// A query, understood.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedQuery {
    /// Distinct terms, in the order they first appear.
    pub terms: Vec<QueryTerm>,
    /// Quoted phrases, as words (lower-cased). A section that has one
    /// ranks higher; one without it is still found by the phrase's words.
    pub phrases: Vec<Vec<String>>,
    /// `kind:` filters (any of them).
    pub kinds: Vec<Kind>,
    /// `path:` filters, lower-cased substrings of the path (any of them).
    pub paths: Vec<String>,
    /// The last word, still being typed: also matched as a prefix.
    pub prefix: Option<String>,
    /// Pairs of words that follow each other in the query. A section that
    /// has them side by side too (an error message quoted verbatim) ranks
    /// above one that merely has the words.
    pub pairs: Vec<[String; 2]>,
    /// The query was a multi-line paste.
    pub pasted: bool,
    /// Some line of the query is a person's sentence or question
    /// (`triage::is_prose`), not a program's output.
    pub question: bool,
    /// For a multi-line paste, the lines that were searched for (as pasted,
    /// trimmed), in log order; see `triage`.
    pub searched: Vec<String>,
    /// How many words and identifiers the query has, stop words included
    /// (`libcupti.so.12` is one).
    pub chunks: usize,
    /// The query names a URL or asks for sources: a document's `## Sources`
    /// section (a list of links) may answer it. Other queries never see
    /// those sections unless nothing else matches.
    pub wants_sources: bool,
    /// What the query (a log: its searched lines) names: shared libraries by
    /// soname and Python modules it could not import. A section whose heading
    /// names only other ones explains another library's or module's message.
    pub libraries: Vec<super::subject::Subject>,
}

impl ParsedQuery {
    /// Nothing to search for and nothing to filter by.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.phrases.is_empty() && !self.has_filters()
    }

    pub fn has_filters(&self) -> bool {
        !self.kinds.is_empty() || !self.paths.is_empty()
    }
}

/// Words too common to tell sections apart; dropped from free text (but kept
/// inside phrases, and kept if the query has nothing else).
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "because", "been", "but", "by", "can", "could", "did", "do", "does", "doing", "each", "for",
    "from", "get", "got", "had", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its",
    "just", "me", "my", "of", "on", "or", "our", "please", "should", "so", "some", "than", "that",
    "the", "their", "them", "then", "there", "these", "they", "this", "those", "to", "too", "was",
    "we", "were", "what", "when", "where", "which", "while", "who", "why", "will", "with", "would",
    "you", "your",
];

pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

/// Parses a query. Never fails.
pub fn parse(input: &str) -> ParsedQuery {
    // Colour codes from coloured output saved whole are never the user's
    // words: dropped before the log's lines are picked and shown.
    let input = &*crate::pasted::strip_ansi(input);
    let ends_open = input
        .chars()
        .last()
        .is_some_and(|c| !c.is_whitespace() && c != '"');
    let mut query = ParsedQuery::default();
    let lines: Vec<&str> = lines(input).filter(|l| !l.trim().is_empty()).collect();
    // The weight of each line's terms, by where the line starts in `text`.
    let mut line_weights: Vec<(usize, f32)> = Vec::new();
    query.question = super::triage::is_question(&lines);
    // A question of several paragraphs is searched whole, like a typed
    // query: every word of it is the user's.
    let text = if lines.len() > 1 && !super::triage::is_all_question(&lines) {
        query.pasted = true;
        let mut text = String::new();
        for picked in super::triage::pick(&lines) {
            if !text.is_empty() {
                text.push('\n');
            }
            line_weights.push((text.len(), picked.weight));
            text.push_str(&clean_line(&picked.line));
            query.searched.push(picked.line);
        }
        text
    } else {
        clean_line(input)
    };
    query.libraries = if query.pasted {
        super::subject::subjects(&query.searched.join("\n"))
    } else {
        super::subject::subjects(input)
    };

    // Filters: whole whitespace-separated words `kind:K` or `path:P`, typed
    // by the user (a log's words are not filters).
    let mut rest = String::with_capacity(text.len());
    for (i, word) in text.split(' ').enumerate() {
        if i > 0 {
            rest.push(' ');
        }
        if !query.pasted
            && let Some(value) = word.strip_prefix("kind:")
            && let Some(kind) = Kind::parse(&value.to_ascii_lowercase())
        {
            if !query.kinds.contains(&kind) {
                query.kinds.push(kind);
            }
            continue;
        }
        if let Some(value) = word.strip_prefix("path:")
            && !value.is_empty()
            && !query.pasted
        {
            query.paths.push(value.to_lowercase());
            continue;
        }
        rest.push_str(word);
    }

    // Phrases: balanced double quotes on a typed query. A pasted log's
    // quotes (`File "/x.py"`) are not the user's, and an unbalanced quote is
    // just a character.
    if !query.pasted {
        let quotes: Vec<usize> = rest.match_indices('"').map(|(i, _)| i).collect();
        for pair in quotes.chunks_exact(2) {
            let words: Vec<String> = pieces(&rest[pair[0] + 1..pair[1]])
                .into_iter()
                .filter(|p| p.is_word())
                .map(|p| p.text)
                .collect();
            if !words.is_empty() && !query.phrases.contains(&words) {
                query.phrases.push(words);
            }
        }
    }

    let all = pieces(&rest);
    query.chunks = all.iter().filter(|p| p.whole).count();
    // One word per position: a library's name shares its file word's place.
    let mut words: Vec<&super::tokenizer::Piece> = all.iter().filter(|p| p.is_word()).collect();
    words.dedup_by_key(|p| p.position);
    for pair in words.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if b.position == a.position + 1 && !(is_stop_word(&a.text) && is_stop_word(&b.text)) {
            // The words as typed, and, around a number, the same words
            // around any number (`allocate 2` is also `allocate #`): a
            // message quoted with other values still stands side by side.
            let (a_number, b_number) = (variable::is_number(&a.text), variable::is_number(&b.text));
            let template = |text: &str, number: bool| {
                if number {
                    variable::NUMBER.to_string()
                } else {
                    text.to_string()
                }
            };
            let mut found = vec![[a.text.clone(), b.text.clone()]];
            if a_number != b_number {
                found.push([template(&a.text, a_number), template(&b.text, b_number)]);
            }
            for pair in found {
                if query.pairs.len() < MAX_PAIRS && !query.pairs.contains(&pair) {
                    query.pairs.push(pair);
                }
            }
        }
    }
    let mut stop_only: Vec<QueryTerm> = Vec::new();
    // A pasted line's weight, by the byte offset of a piece (filters are
    // not read from a paste, so `rest` is `text`).
    let line_weight = |at: usize| {
        line_weights
            .iter()
            .rev()
            .find(|(start, _)| *start <= at)
            .map_or(1.0, |(_, w)| *w)
    };
    // A long path's leading folders are not searched for (see `variable`).
    for piece in all.into_iter().filter(|p| !p.context) {
        let number = piece.text.chars().all(|c| c.is_ascii_digit());
        let weight = if piece.whole && number {
            BARE_NUMBER_WEIGHT
        } else if piece.whole {
            WHOLE_WEIGHT
        } else if !piece.is_word() {
            PIECE_WEIGHT
        } else if number {
            NUMBER_PART_WEIGHT
        } else {
            PART_WEIGHT
        };
        let term = QueryTerm {
            text: piece.text,
            weight: weight * line_weight(piece.from),
            alias_of: None,
        };
        if piece.words == 1 && is_stop_word(&term.text) {
            push_term(&mut stop_only, term);
        } else {
            push_term(&mut query.terms, term);
        }
    }
    if query.terms.is_empty() && query.phrases.is_empty() {
        query.terms = stop_only;
    }
    // Before cleaning, which cuts URLs as it cuts paths; of a log, the
    // lines searched (apt's `Get:1 http://…` progress names no URL the user
    // asks about).
    query.wants_sources = if query.pasted {
        query.searched.iter().any(|l| wants_sources(l))
    } else {
        wants_sources(input)
    };
    // The last identifier, if nothing but joiners follows it: `libcupti.s`
    // expands to `libcupti.so.12`, `sm_9` to `sm_90`.
    if ends_open
        && !query.pasted
        && let Some(last) = pieces(&rest).into_iter().rev().find(|p| p.whole)
        && rest[last.to..]
            .chars()
            .all(|c| !c.is_alphanumeric() && !c.is_whitespace() && c != '"')
        && last.text.chars().count() >= 2
    {
        query.prefix = Some(last.text);
    }
    query
}

/// Words that ask where something comes from.
const SOURCE_WORDS: &[&str] = &[
    "bibliography",
    "citation",
    "citations",
    "cite",
    "cited",
    "references",
    "sources",
    "url",
    "urls",
];

/// True when `text` asks for sources (`sources`, `references`, `cite`…) or
/// is about a URL: one or more URLs (`https://…`, `www.…`) and at most two
/// other words. An error message that merely ends in a link to the
/// documentation (PyTorch's out-of-memory message does) is not about it.
pub fn wants_sources(text: &str) -> bool {
    let lower = text.to_lowercase();
    let is_url = |w: &str| w.contains("://") || w.starts_with("www.");
    let words = || {
        lower
            .split_whitespace()
            .map(|w| w.trim_matches(['(', ')', '<', '>', '"', '\'', ',']))
    };
    let urls = words().filter(|w| is_url(w)).count();
    let others = words()
        .filter(|w| !is_url(w) && w.chars().any(char::is_alphanumeric))
        .count();
    (urls > 0 && others <= 2)
        || lower
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| SOURCE_WORDS.contains(&w))
}

/// The lines of `text`, split at CR, CRLF and LF alike: GNOME Terminal and
/// other VTE terminals, and tmux's paste, send a carriage return for each
/// line break, and a log saved on Windows ends its lines in CRLF. (A CRLF
/// gives an empty line between, which callers skip like any blank line.)
pub fn lines(text: &str) -> impl Iterator<Item = &str> {
    text.split(['\n', '\r'])
}

fn push_term(terms: &mut Vec<QueryTerm>, term: QueryTerm) {
    match terms.iter_mut().find(|t| t.text == term.text) {
        Some(existing) => existing.weight = existing.weight.max(term.weight),
        None => terms.push(term),
    }
}

/// pytest's mark before each line of the exception a failed test raised
/// (`E   RuntimeError: …`): a marker here, and what groups those lines into
/// one message in `triage`. apt's `E: ` has a colon and glog's `E1127` no
/// space, so neither is taken for it.
pub const PYTEST_ERROR_MARK: &str = "E   ";

/// `line` without escape codes and leading build-step and progress markers
/// (`#12 3.402 `, `Step 3/12 : `, `[ 45%] `): what the program printed.
pub fn strip_markers(line: &str) -> String {
    let mut line = strip_escapes(line).trim().to_string();
    loop {
        let before = line.len();
        line = strip_leading_marker(&line).trim_start().to_string();
        if line.len() == before {
            return line;
        }
    }
}

/// Removes what terminal output adds around a message: escape codes, step
/// and progress markers. What varies from run to run (timestamps, hex
/// addresses, line numbers, path prefixes) is left to the tokenizer, which
/// treats the knowledge the same way (see `variable`).
pub fn clean_line(line: &str) -> String {
    let line = strip_escapes(line);
    let mut line = shorten(&line, MAX_LINE_BYTES).trim().to_string();
    // Leading markers, repeatedly: `#12 3.402 `, `=> ERROR [builder 3/7] `,
    // `Step 3/12 : `, `[ 45%] `, `[123/456] `, `>>> `.
    loop {
        let before = line.len();
        line = strip_leading_marker(&line).trim_start().to_string();
        if line.len() == before {
            break;
        }
    }
    line.split_whitespace()
        .filter_map(clean_word)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `text` if it fits in `max` bytes, else its first and last `max / 2`.
fn shorten(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut head = max / 2;
    while !text.is_char_boundary(head) {
        head -= 1;
    }
    let mut tail = text.len() - max / 2;
    while !text.is_char_boundary(tail) {
        tail += 1;
    }
    format!("{} {}", &text[..head], &text[tail..]).into()
}

/// `line` without terminal escape sequences (`pasted::strip_ansi`), its
/// other control characters as spaces.
fn strip_escapes(line: &str) -> String {
    let line = crate::pasted::strip_ansi(line);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if c.is_control() && c != '\t' {
            out.push(' ');
            continue;
        }
        out.push(c);
    }
    out
}

pub(crate) fn strip_leading_marker(line: &str) -> &str {
    // BuildKit: `#12 3.402 message` or `#12 [builder 3/7] RUN …`.
    if let Some(rest) = line.strip_prefix('#') {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && rest[digits..].starts_with(' ') {
            let rest = rest[digits..].trim_start();
            let seconds = rest
                .split_once(' ')
                .filter(|(t, _)| is_number(t))
                .map_or(rest, |(_, r)| r);
            return seconds;
        }
    }
    for prefix in ["=>", ">>>", ">", "-->", "--->"] {
        if let Some(rest) = line.strip_prefix(prefix)
            && rest.starts_with(' ')
        {
            return rest;
        }
    }
    // `ERROR [builder 3/7] RUN …` after `=>`: the step bracket.
    if let Some(rest) = line.strip_prefix("ERROR ")
        && rest.starts_with('[')
    {
        return rest;
    }
    // `[ 3/12]`, `[ 45%]`, `[builder 3/7]`, `[stage-1 2/4]`.
    if line.starts_with('[')
        && let Some(end) = line.find(']')
    {
        let inside = &line[1..end];
        let last = inside.split_whitespace().last().unwrap_or("");
        let is_step = !last.is_empty()
            && last
                .chars()
                .all(|c| c.is_ascii_digit() || c == '/' || c == '%')
            && last.chars().any(|c| c.is_ascii_digit());
        if is_step {
            return &line[end + 1..];
        }
    }
    let source = strip_source_prefix(line);
    if source.len() < line.len() {
        return source;
    }
    // `[rank0]:` (torch.distributed prefixes every line of a rank's output).
    if let Some(rest) = line.strip_prefix("[rank")
        && let Some((n, after)) = rest.split_once("]:")
        && !n.is_empty()
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        return after;
    }
    // pytest's `E   ` (see `PYTEST_ERROR_MARK`).
    if let Some(rest) = line.strip_prefix(PYTEST_ERROR_MARK) {
        return rest;
    }
    // `Step 3/12 : RUN …` (the classic builder).
    if let Some(rest) = line.strip_prefix("Step ")
        && let Some((step, after)) = rest.split_once(' ')
        && step.contains('/')
        && step.chars().all(|c| c.is_ascii_digit() || c == '/')
    {
        return after.trim_start().strip_prefix(':').unwrap_or(after);
    }
    line
}

/// `line` without what the program that collected it put in front: a
/// container's name (`trainer-1  | `, `[pod/trainer-0/main] `), a timestamp
/// with GitLab's stream after it or `gh run view --log`'s job and step
/// before it, GitLab's section markers, a syslog date and host. A build
/// log's own step markers (`#12 3.4 `) stay: the build-log reader needs them.
pub(crate) fn strip_source_prefix(line: &str) -> &str {
    // `trainer-1  | ` (Docker Compose v2) or `app_trainer_1  | ` (v1): the
    // container's name, padded, before each line `compose up` and `compose
    // logs` print. The replica number makes it a container's name.
    if let Some((name, rest)) = line.split_once(" |")
        && (rest.is_empty() || rest.starts_with(' '))
        && is_compose_container(name.trim_end())
    {
        return rest;
    }
    // `2026-03-01T14:02:11.5300000Z ` (GitHub Actions' raw log, `docker logs
    // -t`, `kubectl logs --timestamps`), and `gh run view --log`'s `JOB<TAB>STEP<TAB>`
    // before it. GitLab's job log puts its stream after the timestamp.
    if let Some(rest) = after_timestamp(line) {
        return after_gitlab_stream(rest).unwrap_or(rest);
    }
    // `section_start:1712345678:step_script[collapsed=true]`: GitLab's
    // markers around a job's sections (their `\r\x1b[0K` is gone by now).
    if let Some(rest) = after_gitlab_section(line) {
        return rest;
    }
    if let Some((_, rest)) = line.split_once('\t')
        && let Some((_, rest)) = rest.split_once('\t')
        && let Some(after) = after_timestamp(rest)
    {
        return after_gitlab_stream(after).unwrap_or(after);
    }
    // `Mar  1 14:02:11 gpu-node-3 python[9141]: ` (syslog, `journalctl`).
    if let Some(rest) = after_syslog_prefix(line) {
        return rest;
    }
    // `[pod/trainer-0/main] ` (`kubectl logs --prefix`).
    if let Some(rest) = line.strip_prefix("[pod/")
        && let Some((inside, after)) = rest.split_once("] ")
        && inside.matches('/').count() == 1
        && !inside.contains(char::is_whitespace)
    {
        return after;
    }
    line
}

/// What follows an RFC 3339 timestamp (a date, `T`, a time; `variable`'s
/// timestamp) and a space: `2026-03-01T14:02:11Z `, `…11.5300000Z `,
/// `…11.530000000+01:00 `.
fn after_timestamp(line: &str) -> Option<&str> {
    let (stamp, rest) = line.split_once(' ')?;
    (stamp.contains('T') && variable::is_timestamp(stamp)).then_some(rest)
}

/// What follows the stream GitLab Runner writes after each timestamp of a
/// job log (`FF_TIMESTAMPS`, on by default): two hex digits of stream,
/// `O` (stdout) or `E` (stderr), and ` ` for a new line or `+` for one
/// continued (`00O Running with gitlab-runner …`, `01E+…`).
fn after_gitlab_stream(rest: &str) -> Option<&str> {
    let b = rest.as_bytes();
    let marker = b.len() >= 4
        && b[..2].iter().all(|c| c.is_ascii_hexdigit())
        && matches!(b[2], b'O' | b'E')
        && matches!(b[3], b' ' | b'+');
    marker.then(|| &rest[4..])
}

/// What follows GitLab's `section_start:UNIX:NAME[OPTIONS]` or
/// `section_end:UNIX:NAME` marker.
fn after_gitlab_section(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("section_start:")
        .or_else(|| line.strip_prefix("section_end:"))?;
    let (unix, rest) = rest.split_once(':')?;
    if unix.is_empty() || !unix.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let end = rest.find(|c: char| c.is_whitespace()).unwrap_or(rest.len());
    Some(&rest[end..])
}

/// What follows the date and host of the traditional syslog prefix that
/// `journalctl` and `/var/log/syslog` put before each message: `Mmm dd
/// hh:mm:ss host ` (the day padded with a space below 10), when an
/// `ident[pid]: ` or `ident: ` follows. The ident is kept: it names the
/// program (`ollama[2453]: `, `kernel: `), which the search can use.
fn after_syslog_prefix(line: &str) -> Option<&str> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let rest = MONTHS
        .iter()
        .find_map(|m| line.strip_prefix(m))?
        .strip_prefix(' ')?
        .trim_start();
    let (day, rest) = rest.split_once(' ')?;
    let (time, rest) = rest.split_once(' ')?;
    let (host, rest) = rest.split_once(' ')?;
    let (ident, _) = rest.split_once(": ")?;
    let clock = time.len() == 8 && variable::is_timestamp(time);
    let ident_ok = !ident.is_empty()
        && !ident.contains(char::is_whitespace)
        && ident.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '(');
    (matches!(day.len(), 1 | 2)
        && day.bytes().all(|b| b.is_ascii_digit())
        && clock
        && !host.is_empty()
        && ident_ok)
        .then_some(rest)
}

/// `trainer-1`, `app_trainer_1`, `my.app-gpu-12`: a name of letters,
/// digits, `-`, `_` and `.` ending in `-N` or `_N`, as Compose names the
/// containers of a service.
fn is_compose_container(name: &str) -> bool {
    let Some((service, replica)) = name.rsplit_once(['-', '_']) else {
        return false;
    };
    !service.is_empty()
        && service.starts_with(|c: char| c.is_ascii_alphanumeric())
        && service
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && !replica.is_empty()
        && replica.bytes().all(|b| b.is_ascii_digit())
}

fn is_number(text: &str) -> bool {
    !text.is_empty()
        && text.chars().any(|c| c.is_ascii_digit())
        && text
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == 's')
}

/// One whitespace-separated word of a log line; `None` when it is only
/// punctuation or a build step's counter. What varies from run to run
/// (timestamps, addresses, line numbers, path prefixes) is the tokenizer's
/// to handle, the same way in the knowledge (see `variable`).
fn clean_word(word: &str) -> Option<&str> {
    let core = word.trim_matches(|c: char| {
        matches!(
            c,
            '[' | ']' | '(' | ')' | ',' | ';' | ':' | '<' | '>' | '"' | '\''
        )
    });
    if !core.chars().any(char::is_alphanumeric) || is_step_marker(word, core) {
        return None;
    }
    Some(word)
}

/// `3/12]` or `[45%]`: a build step or progress counter.
fn is_step_marker(word: &str, core: &str) -> bool {
    (word.starts_with('[') || word.ends_with(']'))
        && core
            .chars()
            .all(|c| c.is_ascii_digit() || c == '/' || c == '%')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn term_texts(q: &ParsedQuery) -> Vec<&str> {
        q.terms.iter().map(|t| t.text.as_str()).collect()
    }

    #[test]
    fn a_ranks_prefix_is_a_marker() {
        assert_eq!(
            strip_markers("[rank3]: torch.distributed.DistBackendError: NCCL error"),
            "torch.distributed.DistBackendError: NCCL error"
        );
        assert_eq!(strip_markers("[rank12]:Last error:"), "Last error:");
        // Only a rank's number: other brackets stay.
        assert_eq!(strip_markers("[rankX]: text"), "[rankX]: text");
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn free_text_terms_weights_and_stop_words() {
        let q = parse("do I need libcupti.so.12 ");
        assert_eq!(
            term_texts(&q),
            vec!["need", "libcupti.so.12", "libcupti", "cupti", "12"]
        );
        assert_eq!(
            q.pairs,
            vec![
                ["i".to_string(), "need".to_string()],
                ["need".to_string(), "libcupti".to_string()],
                ["libcupti".to_string(), "so".to_string()],
                ["so".to_string(), "12".to_string()],
                ["so".to_string(), "#".to_string()],
            ]
        );
        let weight = |t: &str| q.terms.iter().find(|x| x.text == t).unwrap().weight;
        assert_eq!(weight("libcupti.so.12"), WHOLE_WEIGHT);
        assert_eq!(weight("libcupti"), PART_WEIGHT);
        assert_eq!(weight("12"), NUMBER_PART_WEIGHT);
        assert_eq!(q.prefix, None, "a trailing space ends the word");
    }

    #[test]
    fn only_stop_words_are_still_searched() {
        assert_eq!(term_texts(&parse("what is")), vec!["what", "is"]);
    }

    #[test]
    fn last_word_is_a_prefix_while_typing() {
        assert_eq!(parse("cuda memor").prefix.as_deref(), Some("memor"));
        assert_eq!(parse("sm_9").prefix.as_deref(), Some("sm_9"));
        assert_eq!(parse("libcupti.s").prefix.as_deref(), Some("libcupti.s"));
        assert_eq!(parse("\"shared memory\"").prefix, None);
        assert_eq!(parse("x").prefix, None, "one letter expands to too much");
    }

    #[test]
    fn phrases_and_filters() {
        let q = parse("kind:drop path:CUDA/ \"cannot open shared\" file");
        assert_eq!(q.kinds, vec![Kind::Drop]);
        assert_eq!(q.paths, vec!["cuda/".to_string()]);
        assert_eq!(
            q.phrases,
            vec![vec![
                "cannot".to_string(),
                "open".to_string(),
                "shared".to_string()
            ]]
        );
        assert_eq!(term_texts(&q), vec!["cannot", "open", "shared", "file"]);
    }

    #[test]
    fn malformed_queries_fall_back_to_plain_terms() {
        let q = parse("\"unbalanced quote");
        assert!(q.phrases.is_empty());
        assert_eq!(term_texts(&q), vec!["unbalanced", "quote"]);
        let q = parse("stray : colon kind: path: kind:nonsense");
        assert!(!q.has_filters());
        assert_eq!(
            term_texts(&q),
            vec![
                "stray",
                "colon",
                "kind",
                "path",
                "kind:nonsense",
                "nonsense"
            ]
        );
        assert!(parse("").is_empty());
        assert!(parse("  \" : \"  ").is_empty());
    }

    #[test]
    fn noise_in_error_lines_is_dropped() {
        let q = parse(
            "2024-11-22T10:03:55.123Z [ 3/12] ERROR at 0x7f3a2c1b9e40: /usr/local/lib/python3.10/dist-packages/torch/__init__.py:235:12: oops",
        );
        let texts = term_texts(&q);
        for kept in ["error", "torch/__init__.py", "torch", "__init__", "oops"] {
            assert!(texts.contains(&kept), "{kept}: {texts:?}");
        }
        for noise in [
            "2024",
            "0x7f3a2c1b9e40",
            "usr",
            "local",
            "python3",
            "235",
            "3/12",
        ] {
            assert!(!texts.contains(&noise), "{noise}: {texts:?}");
        }
        assert_eq!(
            clean_line("#12 3.402 E: Unable to locate package cuda-toolkit-12-4"),
            "E: Unable to locate package cuda-toolkit-12-4"
        );
        assert_eq!(
            clean_line("=> ERROR [builder 5/9] RUN pip install torch"),
            "RUN pip install torch"
        );
        assert_eq!(clean_line("Step 3/12 : COPY . /app"), "COPY /app");
        assert_eq!(
            term_texts(&parse(
                "  File \"/home/me/proj/venv/lib/x.py\", line 12, in <module>"
            )),
            vec![
                "file",
                "venv/lib/x.py",
                "venv",
                "lib",
                "x.py",
                "x",
                "py",
                "module"
            ]
        );
        assert_eq!(
            clean_line("[ 45%] Building CUDA object foo.cu.o"),
            "Building CUDA object foo.cu.o"
        );
        assert_eq!(
            term_texts(&parse(
                "\u{1b}[31merror\u{1b}[0m: GPU-5f3c1b2a-9d8e-4f7a-b6c5-d4e3f2a1b0c9 lost"
            )),
            vec!["error", "lost"]
        );
    }

    #[test]
    fn meaningful_numbers_and_short_hex_stay() {
        assert_eq!(
            clean_line("__shfl_down_sync 0xffffffff FP16 max 65504 NO_PUBKEY A4B469963BF863CC"),
            "__shfl_down_sync 0xffffffff FP16 max 65504 NO_PUBKEY A4B469963BF863CC"
        );
        assert_eq!(
            clean_line("expandable_segments:True"),
            "expandable_segments:True"
        );
    }

    /// VTE terminals and tmux paste a carriage return for each line break;
    /// a Windows log has CRLF. Either is a multi-line paste, triaged by line.
    #[test]
    fn carriage_returns_end_lines_like_line_feeds() {
        let lines = [
            "#8 1.402 running build_ext",
            "#8 5.713 nvcc fatal   : Unsupported gpu architecture 'compute_35'",
        ];
        let lf = parse(&lines.join("\n"));
        assert!(lf.pasted);
        assert_eq!(lf.searched, vec![lines[1].to_string()]);
        for newline in ["\r", "\r\n"] {
            assert_eq!(parse(&lines.join(newline)), lf, "{newline:?}");
        }
    }

    /// A program's advice says "we" to its reader (Open MPI's refusal to
    /// run as root, torch's "We suggest only using the new API"): a pasted
    /// log with such a line is still a log, its lines picked as a log's,
    /// not taken for a person's question.
    #[test]
    fn a_programs_we_addressed_to_the_reader_is_not_a_question() {
        let q = parse(
            "$ sudo ./launch.sh\n\
             ==============================\n\
             gridrun has detected an attempt to run as root.\n\
             We strongly suggest that you run gridrun as an ordinary user.\n\
             ==============================\n",
        );
        assert!(q.pasted && !q.question, "{q:?}");
        assert!(
            q.searched
                .iter()
                .any(|l| l.contains("detected an attempt to run as root")),
            "{:?}",
            q.searched
        );
    }

    /// Pattern: `docker compose up` / `compose logs` output, each line
    /// behind its container's padded name (`trainer-1  | `, v1's
    /// `app_trainer_1  | `), `kubectl logs --prefix`'s `[pod/NAME/CONTAINER] `,
    /// and the syslog prefix of `journalctl` and `/var/log/syslog`.
    /// The prefix is not the program's words: the line reads as printed.
    /// A table row or a shell pipe is not such a prefix.
    #[test]
    fn compose_and_kubectl_log_prefixes_are_markers() {
        for line in [
            "trainer-1  | RuntimeError: Found no NVIDIA driver on your system.",
            "app_trainer_1  | RuntimeError: Found no NVIDIA driver on your system.",
            "[pod/trainer-0/main] RuntimeError: Found no NVIDIA driver on your system.",
        ] {
            assert_eq!(
                strip_markers(line),
                "RuntimeError: Found no NVIDIA driver on your system.",
                "{line}"
            );
        }
        assert_eq!(strip_markers("trainer-1  |"), "");
        // RFC 3339 timestamps (GitHub Actions, `docker logs -t`), and `gh
        // run view --log`'s job and step before one.
        for line in [
            "2026-03-01T14:02:11.5300000Z #8 6.560 error: subprocess-exited-with-error",
            "2026-03-01T14:02:11.530000000+01:00 #8 6.560 error: subprocess-exited-with-error",
            "build\tBuild image\t2026-03-01T14:02:11Z #8 6.560 error: subprocess-exited-with-error",
        ] {
            assert_eq!(
                strip_markers(line),
                "error: subprocess-exited-with-error",
                "{line}"
            );
        }
        assert_eq!(
            strip_markers("2026-03-01 14:02:11 started"),
            "2026-03-01 14:02:11 started"
        );
        // syslog / journalctl's short format, with and without a pid.
        assert_eq!(
            strip_markers("Mar  1 14:02:11 gpu-node-3 python[9141]: RuntimeError: x"),
            "python[9141]: RuntimeError: x"
        );
        assert_eq!(
            strip_markers(
                "Nov 28 09:15:42 dgx01 kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."
            ),
            "kernel: NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."
        );
        assert_eq!(
            strip_markers("May the 4th be: with you"),
            "May the 4th be: with you"
        );
        for kept in [
            "| NVIDIA-SMI 550.54.15 | Driver Version: 550.54.15 |",
            "nvidia-smi | grep CUDA",
            "cuda-12.4 | y",
        ] {
            assert_eq!(strip_markers(kept), kept, "{kept}");
        }
    }

    /// GitLab Runner's job log: a timestamp and the stream (`00O `, `01E+`)
    /// before each line, and `section_start:`/`section_end:` markers.
    #[test]
    fn gitlab_job_log_prefixes_are_markers() {
        for line in [
            "2026-03-01T14:02:11.530120Z 00O OSError: CUDA_HOME environment variable is not set.",
            "2026-03-01T14:02:11.530120Z 01E+OSError: CUDA_HOME environment variable is not set.",
            "2026-03-01T14:02:11.530120Z 00O section_start:1772373731:step_script[collapsed=true] OSError: CUDA_HOME environment variable is not set.",
        ] {
            assert_eq!(
                strip_markers(line),
                "OSError: CUDA_HOME environment variable is not set.",
                "{line}"
            );
        }
        assert_eq!(strip_markers("section_end:1772373731:step_script"), "");
        for kept in [
            "2026-03-01T14:02:11Z 00Oops not a stream",
            "section_start: the docs",
            "section_start:soon:x",
        ] {
            let want = kept.strip_prefix("2026-03-01T14:02:11Z ").unwrap_or(kept);
            assert_eq!(strip_markers(kept), want, "{kept}");
        }
    }

    /// A question of several paragraphs is the user's words, every one of
    /// them searched: the paragraph naming the subject has no error word.
    #[test]
    fn a_question_of_several_paragraphs_is_searched_whole() {
        let q = parse(
            "We build our training image from the CUDA runtime image and install torch with pip.\n\
             Inside the container the profiler fails with an error about a missing library, what is missing?\n",
        );
        assert!(!q.pasted && q.searched.is_empty());
        let texts = term_texts(&q);
        for word in [
            "training", "image", "runtime", "torch", "profiler", "library",
        ] {
            assert!(texts.contains(&word), "{word}: {texts:?}");
        }
    }

    /// Sources are asked for by name, or by a query about a URL; an error
    /// message that ends in a link to the documentation is not about it.
    #[test]
    fn sources_are_wanted_when_asked_for_or_for_a_url() {
        assert!(parse("sources on cupti").wants_sources);
        assert!(parse("https://github.com/pytorch/pytorch/issues/106494").wants_sources);
        assert!(!parse("cupti source build").wants_sources);
        assert!(
            !parse("CUDA out of memory. Tried to allocate 2.00 GiB. See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)")
                .wants_sources
        );
    }

    /// Word pairs around a number are also looked for around any number:
    /// PyTorch's out-of-memory message with other sizes.
    #[test]
    fn pairs_around_numbers_are_also_templates() {
        let q = parse("Tried to allocate 2.00 GiB");
        let has = |a: &str, b: &str| q.pairs.contains(&[a.to_string(), b.to_string()]);
        assert!(
            has("allocate", "2") && has("allocate", "#"),
            "{:?}",
            q.pairs
        );
        assert!(has("00", "gib") && has("#", "gib"), "{:?}", q.pairs);
        assert!(!has("#", "#"), "{:?}", q.pairs);
        assert!(!term_texts(&q).contains(&"#"));
    }

    #[test]
    fn a_very_long_line_keeps_its_start_and_end() {
        let line = format!(
            "gcc {} fatal error: cuda_runtime.h: No such file",
            "-Iinclude ".repeat(1000)
        );
        let q = parse(&line);
        let texts = term_texts(&q);
        assert!(
            texts.contains(&"gcc") && texts.contains(&"cuda_runtime.h"),
            "{texts:?}"
        );
    }

    #[test]
    fn a_pasted_log_keeps_the_error_lines() {
        let mut log = String::new();
        for i in 0..400 {
            log.push_str(&format!(
                "#8 {i}.1 Collecting package-{i} (from -r requirements.txt (line {i}))\n"
            ));
        }
        log.push_str(
            "#8 41.2 ERROR: Could not find a version that satisfies the requirement torch==9.9\n",
        );
        log.push_str("------\n");
        let q = parse(&log);
        assert!(q.pasted);
        let texts = term_texts(&q);
        assert!(texts.contains(&"satisfies"), "{texts:?}");
        assert!(!texts.contains(&"package-3"), "{texts:?}");
        assert!(q.prefix.is_none() && q.phrases.is_empty());
    }
}
