//! How close together a section holds the query's words. A section that
//! answers a query usually holds its words in one paragraph, one table row
//! or one code block; a long section that merely mentions each word
//! somewhere (a catalogue, a long walkthrough) holds them far apart.
//!
//! A section's text is cut into *passages*: paragraphs, list items, table
//! rows and fenced code blocks. A *window* is two neighbouring passages
//! (a table row and the sentence before it, a command and the line
//! explaining it). [`Closeness::of`] is the weighted share of the query's words
//! that the best window holds, out of those the whole section holds; words
//! in the section's own heading count in every window.
//!
//! This module only reads text it is given; the search decides what to do
//! with the number (see `SearchIndex::rerank`).

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};

use crate::corpus::chunks::list_marker;
use crate::corpus::fences::Fence;

/// Neighbouring passages read together as one window.
const WINDOW: usize = 2;

/// A term this long counts inside a longer word too: `malloc` in
/// `cudaMallocAsync`, which the index splits at its humps. A shorter one
/// (`so`, `12`) counts only between non-alphanumeric characters.
const INNER_MATCH_BYTES: usize = 5;

/// At most this many word groups are told apart (a query has at most
/// `MAX_TERMS` terms); later ones are not counted.
const MAX_GROUPS: usize = 128;

/// One group of the query's words: the texts that count as the same word
/// (its other forms, the vocabulary's aliases) and how much it weighs.
pub struct WordGroup<'a> {
    pub texts: Vec<&'a str>,
    pub weight: f32,
}

/// The passages of a section's Markdown text, as byte ranges in order:
/// blank lines end a paragraph; each table row and each list item starts a
/// passage of its own; a fenced code block is one passage, whatever blank
/// lines it holds.
pub fn passages(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    // The current passage's start, once it holds a line.
    let mut open: Option<usize> = None;
    let mut fence: Option<Fence> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let (from, to) = (at, at + line.len());
        at = to;
        let trimmed = line.trim();
        if let Some(code) = fence {
            if code.closed_by(trimmed) {
                fence = None;
                close(&mut open, &mut out, to);
            }
            continue;
        }
        if let Some(code) = Fence::opened_by(trimmed) {
            close(&mut open, &mut out, from);
            fence = Some(code);
            open = Some(from);
            continue;
        }
        if trimmed.is_empty() {
            close(&mut open, &mut out, from);
            continue;
        }
        let row = trimmed.starts_with('|');
        if row || list_marker(trimmed).is_some() {
            close(&mut open, &mut out, from);
        }
        open.get_or_insert(from);
        if row {
            close(&mut open, &mut out, to);
        }
    }
    close(&mut open, &mut out, text.len());
    out
}

/// Ends the open passage, if any, at `end`.
fn close(open: &mut Option<usize>, out: &mut Vec<Range<usize>>, end: usize) {
    if let Some(start) = open.take() {
        out.push(start..end);
    }
}

/// The query's word groups, ready to be found in any number of sections.
/// Built once per query.
pub struct Closeness {
    patterns: AhoCorasick,
    /// The group of each pattern, by pattern id.
    group_of: Vec<usize>,
    weights: Vec<f32>,
}

impl Closeness {
    /// `None` when there is nothing to find.
    pub fn new(groups: &[WordGroup]) -> Option<Closeness> {
        let mut patterns = Vec::new();
        let mut group_of = Vec::new();
        for (g, group) in groups.iter().take(MAX_GROUPS).enumerate() {
            for text in &group.texts {
                if !text.is_empty() {
                    patterns.push(*text);
                    group_of.push(g);
                }
            }
        }
        if patterns.is_empty() {
            return None;
        }
        // Every match, overlapping ones too: `libcupti.so.12` holds
        // `libcupti` and `12`, which may be groups of their own.
        let patterns = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(true)
            // Built for every query and run over a few sections: the
            // automatons that scan faster take longer to build (a DFA or
            // a contiguous NFA: 0.3 ms for a 12-word query, this 0.05 ms).
            .kind(Some(AhoCorasickKind::NoncontiguousNFA))
            .build(&patterns)
            .ok()?;
        let weights = groups.iter().take(MAX_GROUPS).map(|g| g.weight).collect();
        Some(Closeness {
            patterns,
            group_of,
            weights,
        })
    }

    /// The groups found in `text`, one bit each, for each of `ranges`
    /// (sorted, not overlapping); a match outside them counts for none.
    fn held(&self, text: &str, ranges: &[Range<usize>]) -> Vec<u128> {
        let mut held = vec![0u128; ranges.len()];
        let bytes = text.as_bytes();
        let alnum = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_alphanumeric);
        for found in self.patterns.find_overlapping_iter(text) {
            let (start, end) = (found.start(), found.end());
            let inner = start > 0 && alnum(start - 1) || alnum(end);
            if inner && end - start < INNER_MATCH_BYTES {
                continue;
            }
            let r = ranges.partition_point(|r| r.start <= start);
            if r > 0 && start < ranges[r - 1].end {
                held[r - 1] |= 1 << self.group_of[found.pattern().as_usize()];
            }
        }
        held
    }

    fn weight(&self, mask: u128) -> f32 {
        self.weights
            .iter()
            .enumerate()
            .filter(|(g, _)| mask & (1 << g) != 0)
            .map(|(_, w)| w)
            .sum()
    }

    /// The weighted share, in 0..=1, of the query's word groups held by the
    /// section's best window of passages, out of those the whole section
    /// (heading and text) holds. 1 when the section holds none of them or
    /// is a single window.
    pub fn of(&self, heading: &str, text: &str) -> f32 {
        let ranges = passages(text);
        if ranges.len() <= WINDOW {
            return 1.0;
        }
        let whole_heading = 0..heading.len();
        let heading = self.held(heading, std::slice::from_ref(&whole_heading))[0];
        let held = self.held(text, &ranges);
        let whole = self.weight(held.iter().fold(heading, |all, m| all | m));
        if whole <= 0.0 {
            return 1.0;
        }
        let best = held
            .windows(WINDOW)
            .map(|w| self.weight(w.iter().fold(heading, |all, m| all | m)))
            .fold(0.0f32, f32::max);
        (best / whole).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group<'a>(text: &'a str, weight: f32) -> WordGroup<'a> {
        WordGroup {
            texts: vec![text],
            weight,
        }
    }

    #[test]
    fn tables_rows_list_items_and_code_blocks_are_passages_of_their_own() {
        let text = "Intro line one\nintro line two\n\n| a | b |\n| --- | --- |\n| x | y |\n- first\n  more of first\n- second\n\n```bash\nrun this\n\nand this\n```\nafter\n";
        let p: Vec<&str> = passages(text).into_iter().map(|r| &text[r]).collect();
        assert_eq!(p.len(), 8, "{p:#?}");
        assert_eq!(p[0], "Intro line one\nintro line two\n");
        assert_eq!(p[1], "| a | b |\n");
        assert_eq!(p[3], "| x | y |\n");
        assert_eq!(p[4], "- first\n  more of first\n");
        assert_eq!(p[5], "- second\n");
        assert_eq!(p[6].lines().count(), 5, "one block, blank line and all");
        assert_eq!(p[7], "after\n");
    }

    #[test]
    fn words_held_in_one_row_read_closer_than_words_spread_over_a_long_section() {
        let groups = [
            group("libnvinfer", 3.0),
            group("cannot", 1.0),
            group("open", 1.0),
        ];
        let together =
            "Para one.\n\n| libnvinfer cannot open | fix |\n\nPara two.\n\nPara three.\n";
        let apart = "libnvinfer here.\n\nPara two.\n\nPara three.\n\ncannot there.\n\nPara four.\n\nopen at the end.\n";
        assert_eq!(
            Closeness::new(&groups).unwrap().of("Heading", together),
            1.0
        );
        let spread = Closeness::new(&groups).unwrap().of("Heading", apart);
        assert!((spread - 0.6).abs() < 1e-6, "{spread}");
    }

    #[test]
    fn short_terms_count_only_as_whole_words_and_long_ones_inside_identifiers() {
        let groups = [group("12", 1.0), group("malloc", 1.0)];
        let c = Closeness::new(&groups).unwrap();
        // `12` inside `2012` and `sm_120` is not the query's `12`.
        let text = "Written in 2012.\n\nsm_120 only.\n\nfiller.\n\nCalls cudaMallocAsync.\n";
        assert_eq!(c.of("H", text), 1.0, "only malloc is held, in one passage");
        let spread = "libcupti.so.12 is here.\n\nfiller.\n\nfiller.\n\nCalls cudaMallocAsync.\n";
        assert_eq!(
            c.of("H", spread),
            0.5,
            "12 and malloc, three passages apart"
        );
    }

    /// A user's own knowledge folder may hold files written on Windows.
    #[test]
    fn crlf_text_is_cut_as_lf_text_is() {
        let lf = "Para one\nstill one\n\n| a | b |\n- item\n\n```sh\nx\n\ny\n```\nlast\n";
        let crlf = lf.replace('\n', "\r\n");
        let count = |t: &str| passages(t).len();
        assert_eq!(count(&crlf), count(lf));
        assert_eq!(count(lf), 5);
    }

    #[test]
    fn heading_words_count_in_every_window() {
        let groups = [group("nccl", 2.0), group("timeout", 2.0)];
        let text = "timeout first.\n\nfiller.\n\nfiller.\n\nfiller.\n";
        assert_eq!(
            Closeness::new(&groups).unwrap().of("NCCL watchdog", text),
            1.0
        );
    }

    #[test]
    fn a_short_section_or_one_without_the_words_is_left_alone() {
        let groups = [group("cupti", 1.0)];
        assert_eq!(
            Closeness::new(&groups)
                .unwrap()
                .of("H", "One paragraph.\n\nTwo.\n"),
            1.0
        );
        assert_eq!(
            Closeness::new(&groups)
                .unwrap()
                .of("H", "a\n\nb\n\nc\n\nd\n"),
            1.0
        );
    }
}
