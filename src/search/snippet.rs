//! The one line shown under a hit: the line of the section that matches the
//! most (and the rarest) query terms, with Markdown markers removed, control
//! characters made visible, cut to a width around the matches, and the byte
//! ranges of the matched terms for highlighting.
//!
//! It works on the section text stored in the index and must not print or
//! colour anything: callers decide how to show the highlights.
//!
//! A snippet is built for every hit of every keystroke, so its cost must not
//! grow with how hostile a section is: only the first `SCAN_BYTES` of a
//! section are looked at, and everything after that is linear in what is
//! looked at (a section of 300,000 matching lines once took 16 s).

use std::collections::HashMap;
use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use super::tokenizer::pieces;
use crate::text::sanitize;

/// A snippet and where its matched terms are.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snippet {
    pub text: String,
    /// Byte ranges into `text`, sorted, not overlapping.
    pub highlights: Vec<Range<usize>>,
}

/// What counts as a match: terms with a weight each, and an optional prefix
/// (the word being typed). Built once per query and used for every hit.
pub struct Matcher {
    terms: HashMap<String, f32>,
    prefix: Option<String>,
    /// Every term and the prefix, for finding candidate lines in one pass.
    patterns: Option<AhoCorasick>,
    /// The weight of each pattern, by pattern id.
    pattern_weights: Vec<f32>,
}

/// What a line with the prefix (and no other match) is worth.
const PREFIX_LINE_WEIGHT: f32 = 0.1;

/// Only this much of a section is searched for the snippet line: far more
/// than any real section, and a bound on the work for one that is not.
pub const SCAN_BYTES: usize = 256 * 1024;

impl Matcher {
    pub fn new(terms: HashMap<String, f32>, prefix: Option<String>) -> Matcher {
        let mut patterns: Vec<&str> = Vec::new();
        let mut pattern_weights = Vec::new();
        for (term, &weight) in &terms {
            patterns.push(term);
            pattern_weights.push(weight);
        }
        if let Some(p) = &prefix
            && !terms.contains_key(p)
        {
            patterns.push(p);
            pattern_weights.push(PREFIX_LINE_WEIGHT);
        }
        // Leftmost-longest: `libcupti.so.12` counts once as itself rather
        // than also as `libcupti`, `cupti` and `12`, and the search can skip
        // ahead, which keeps it fast.
        let patterns = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(&patterns)
            .ok();
        Matcher {
            terms,
            prefix,
            patterns,
            pattern_weights,
        }
    }

    /// The weight of one term of a line, if it matches.
    fn weight(&self, term: &str) -> Option<f32> {
        if let Some(&w) = self.terms.get(term) {
            return Some(w);
        }
        match &self.prefix {
            Some(p) if term.starts_with(p.as_str()) => Some(PREFIX_LINE_WEIGHT),
            _ => None,
        }
    }

    /// For each line of `lower` (lower-cased text), the summed weight of the
    /// distinct patterns in it. Substrings, not terms: `12` counts inside
    /// `2012`. That is good enough to pick a line, and cheap.
    fn line_scores(&self, lower: &str, lines: usize) -> Vec<f32> {
        let mut scores = vec![0.0; lines];
        let Some(patterns) = &self.patterns else {
            return scores;
        };
        let starts: Vec<usize> = std::iter::once(0)
            .chain(lower.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        // Matches come in text order, so lines only move forward: each
        // pattern remembers the last line it counted for (1-based, 0 for
        // none), which makes "distinct in this line" one comparison.
        let mut counted_in = vec![0usize; self.pattern_weights.len()];
        let mut line = 0;
        for found in patterns.find_iter(lower) {
            while line + 1 < starts.len() && starts[line + 1] <= found.start() {
                line += 1;
            }
            let pattern = found.pattern().as_usize();
            if line < lines && counted_in[pattern] != line + 1 {
                counted_in[pattern] = line + 1;
                scores[line] += self.pattern_weights[pattern];
            }
        }
        scores
    }
}

/// The question of `questions` that holds the most query weight, when it
/// holds more than any line of `texts` (the section's text, its heading):
/// the section matched through one of its questions. Sanitized.
pub fn best_question(questions: &[&str], texts: &[&str], matcher: &Matcher) -> Option<String> {
    if questions.is_empty() {
        return None;
    }
    let best_line = |text: &str| -> f32 {
        let text = scanned_part(text);
        let lines = text.split('\n').count();
        matcher
            .line_scores(&text.to_lowercase(), lines)
            .into_iter()
            .fold(0.0, f32::max)
    };
    let (score, question) = questions
        .iter()
        .map(|q| (best_line(q), *q))
        .fold((0.0, ""), |best, q| if q.0 > best.0 { q } else { best });
    let others = texts.iter().map(|t| best_line(t)).fold(0.0, f32::max);
    (score > 0.0 && score > others).then(|| sanitize(question))
}

/// Picks and shapes the snippet of `section` (its lines as written), at most
/// `max_chars` characters wide.
pub fn snippet(section: &str, matcher: &Matcher, max_chars: usize) -> Snippet {
    let section = scanned_part(section);
    let raw_lines: Vec<&str> = section.split('\n').collect();
    // Lower-casing keeps line breaks where they are.
    let scores = matcher.line_scores(&section.to_lowercase(), raw_lines.len());
    let mut best: Option<(f32, usize)> = None;
    let mut first_prose: Option<usize> = None;
    let mut in_fence = vec![false; raw_lines.len()];
    let mut fenced = false;
    for (i, raw) in raw_lines.iter().enumerate() {
        let trimmed = raw.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        in_fence[i] = fenced;
        if !raw.chars().any(char::is_alphanumeric) || is_table_rule(trimmed) {
            continue;
        }
        if first_prose.is_none() && !fenced {
            first_prose = Some(i);
        }
        if scores[i] > 0.0 && best.is_none_or(|(s, _)| scores[i] > s) {
            best = Some((scores[i], i));
        }
    }
    let Some(i) = best.map(|(_, i)| i).or(first_prose) else {
        return Snippet::default();
    };
    let line = if in_fence[i] {
        collapse(raw_lines[i])
    } else {
        clean_markdown(raw_lines[i])
    };
    shape(&sanitize(&line), matcher, max_chars)
}

/// The part of `section` a snippet is picked from, and the search reads
/// for its passages: all of it, or its first `SCAN_BYTES` up to the last
/// whole line in them.
pub(super) fn scanned_part(section: &str) -> &str {
    if section.len() <= SCAN_BYTES {
        return section;
    }
    let mut end = SCAN_BYTES;
    while !section.is_char_boundary(end) {
        end -= 1;
    }
    match section[..end].rfind('\n') {
        Some(newline) if newline > 0 => &section[..newline],
        _ => &section[..end],
    }
}

fn is_table_rule(line: &str) -> bool {
    line.starts_with('|') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// Highlights the matches in `line` and cuts it to `max_chars` around them.
fn shape(line: &str, matcher: &Matcher, max_chars: usize) -> Snippet {
    let mut ranges: Vec<Range<usize>> = pieces(line)
        .into_iter()
        .filter(|p| matcher.weight(&p.text).is_some())
        .map(|p| p.from..p.to)
        .collect();
    ranges.sort_by_key(|r| (r.start, r.end));
    let highlights = merge(ranges);
    let chars = line.chars().count();
    if chars <= max_chars {
        return Snippet {
            text: line.to_string(),
            highlights,
        };
    }
    // The window that holds the most highlights, starting a little before
    // one. Highlights are sorted and do not overlap, so a window's first
    // and last highlight only move forward: one pass with two cursors, over
    // the highlights' character positions counted in one pass too.
    let context = max_chars / 6;
    let byte_at = |char_index: usize| {
        line.char_indices()
            .nth(char_index)
            .map_or(line.len(), |(i, _)| i)
    };
    let mut in_chars: Vec<(usize, usize)> = Vec::with_capacity(highlights.len());
    let (mut byte, mut char_count) = (0, 0);
    for h in &highlights {
        char_count += line[byte..h.start].chars().count();
        let start = char_count;
        char_count += line[h.start..h.end].chars().count();
        byte = h.end;
        in_chars.push((start, char_count));
    }
    let mut start_char = 0;
    let mut best_count = 0;
    let (mut first, mut last) = (0, 0);
    for &(h_start, _) in &in_chars {
        let s = h_start.saturating_sub(context).min(chars - max_chars);
        while first < in_chars.len() && in_chars[first].0 < s {
            first += 1;
        }
        while last < in_chars.len() && in_chars[last].1 <= s + max_chars {
            last += 1;
        }
        let count = last.saturating_sub(first);
        if count > best_count {
            best_count = count;
            start_char = s;
        }
    }
    // Room for the ellipses.
    let mut first = start_char;
    let mut last = (start_char + max_chars).min(chars);
    if first > 0 {
        first += 1;
    }
    if last < chars {
        last -= 1;
    }
    let (begin, end) = (byte_at(first), byte_at(last));
    let lead = if first > 0 { "…" } else { "" };
    let tail = if last < chars { "…" } else { "" };
    let body = line[begin..end].trim();
    let trimmed_front = line[begin..end].len() - line[begin..end].trim_start().len();
    let shift = begin + trimmed_front;
    let text = format!("{lead}{body}{tail}");
    let highlights = highlights
        .into_iter()
        .filter(|r| r.start >= shift && r.end <= shift + body.len())
        .map(|r| r.start - shift + lead.len()..r.end - shift + lead.len())
        .collect();
    Snippet { text, highlights }
}

fn merge(ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::new();
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

fn collapse(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A Markdown line as a reader would say it: no heading, quote or list
/// markers, no emphasis stars or backticks, table cells separated by `·`.
pub fn clean_markdown(line: &str) -> String {
    let mut line = line.trim();
    line = line.trim_start_matches('#').trim_start();
    while let Some(rest) = line.strip_prefix('>') {
        line = rest.trim_start();
    }
    for marker in ["- [ ] ", "- [x] ", "- ", "* ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            line = rest;
            break;
        }
    }
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && (line[digits..].starts_with(". ") || line[digits..].starts_with(") ")) {
        line = &line[digits + 2..];
    }
    let is_table = line.starts_with('|');
    if is_table && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' ')) {
        return String::new();
    }
    let mut text = line.replace("**", "").replace('`', "");
    if is_table {
        text = text
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect::<Vec<_>>()
            .join(" · ");
    }
    collapse(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(terms: &[(&str, f32)]) -> Matcher {
        Matcher::new(
            terms.iter().map(|(t, w)| (t.to_string(), *w)).collect(),
            None,
        )
    }

    #[test]
    fn the_line_with_the_most_weight_wins() {
        let m = matcher(&[("libcupti.so.12", 3.0), ("libcupti", 1.0), ("cannot", 0.5)]);
        let s = snippet(
            "Intro text.\n\n- **Error**: `cannot` do it\n```text\nImportError: libcupti.so.12: cannot open\n```\n",
            &m,
            200,
        );
        assert_eq!(s.text, "ImportError: libcupti.so.12: cannot open");
        let marked: Vec<&str> = s.highlights.iter().map(|r| &s.text[r.clone()]).collect();
        assert_eq!(marked, vec!["libcupti.so.12", "cannot"]);
    }

    #[test]
    fn without_a_matching_line_the_first_prose_line_is_shown() {
        let m = matcher(&[("zzz", 1.0)]);
        let s = snippet("\n| a | b |\n|---|---|\n", &m, 80);
        assert_eq!(s.text, "a · b");
        assert!(s.highlights.is_empty());
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let line = format!("{} needle {}", "word ".repeat(40), "tail ".repeat(40));
        let m = matcher(&[("needle", 1.0)]);
        let s = snippet(&line, &m, 60);
        assert!(s.text.chars().count() <= 60, "{}", s.text);
        assert!(
            s.text.starts_with('…') && s.text.ends_with('…'),
            "{}",
            s.text
        );
        assert_eq!(s.highlights.len(), 1);
        assert_eq!(&s.text[s.highlights[0].clone()], "needle");
    }

    #[test]
    fn prefixes_match_and_control_characters_are_visible() {
        let m = Matcher::new(HashMap::new(), Some("cup".to_string()));
        let s = snippet("evil \u{1b}[31m CUPTI here", &m, 80);
        assert_eq!(s.text, "evil ^[[31m CUPTI here");
        assert_eq!(&s.text[s.highlights[0].clone()], "CUPTI");
    }

    #[test]
    fn a_hostile_section_is_looked_at_only_up_to_its_scan_bound() {
        // 300,000 lines that all match (one such section took 16 s per
        // search), then the best line of all, past `SCAN_BYTES`: the snippet
        // comes from the lines within the bound.
        let m = matcher(&[("cupti", 1.0), ("libcupti.so.12", 5.0)]);
        let mut section = "cupti line\n".repeat(300_000);
        assert!(section.len() > 10 * SCAN_BYTES);
        section.push_str("ImportError: libcupti.so.12 cupti\n");
        let s = snippet(&section, &m, 80);
        assert_eq!(s.text, "cupti line");
        assert_eq!(&s.text[s.highlights[0].clone()], "cupti");
        // A bound that falls inside a character or a line still cuts at a
        // line end.
        let wide = format!("{}\nneedle\n", "é".repeat(SCAN_BYTES));
        let s = snippet(&wide, &matcher(&[("needle", 1.0)]), 80);
        assert!(!s.text.contains("needle"), "{}", s.text);
        assert!(s.text.chars().all(|c| c == 'é' || c == '…'), "{}", s.text);
    }

    #[test]
    fn markdown_markers_go() {
        assert_eq!(clean_markdown("## Heading"), "Heading");
        assert_eq!(clean_markdown("> - **Bold** `code`"), "Bold code");
        assert_eq!(clean_markdown("12. step"), "step");
        assert_eq!(clean_markdown("|---|:--|"), "");
    }
}
