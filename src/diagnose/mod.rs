//! `lore diagnose`: which of a message's causes applies here. The search
//! finds the sections that explain the message (the same query `lore
//! search` runs); the causes those sections list are evaluated against the
//! probes' facts (the same `probe::run` as `lore probe`); the causes are
//! ordered by verdict (holds, unknown, ruled out), each with its evidence.
//!
//! The CLI and the TUI both call `section_causes` and `diagnose`, so they
//! cannot disagree. This layer prints nothing and knows nothing of either.

pub mod build_log;
pub mod eval;
pub mod message;

use serde::Serialize;

pub use eval::{
    Context, Evaluation, Verdict, evaluate, probe_context, probe_context_with_named_envs,
    probe_place,
};

use crate::corpus::causes::{self, Cause, CauseBlock};
use crate::corpus::{Document, Section};
use crate::search::{Hit, subject};

/// Hits looked at for causes: the first few, where the explanation is.
pub const HITS_CONSIDERED: usize = 5;
/// Sections whose causes are evaluated, at most.
pub const MAX_SECTIONS: usize = 3;
/// A hit scoring below this share of the best hit's score explains some
/// other message: its causes are not this message's (the libcudart.so.12
/// section is a weak fourth hit for `libcudart.so.11.0: cannot open …`).
pub const RELATIVE_SCORE: f32 = 0.5;

/// A section that lists causes, as a search found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionCauses {
    pub path: String,
    /// The section the causes block is in.
    pub anchor: String,
    pub heading: String,
    pub line: usize,
    /// The hit's rank in the search (0 = first).
    pub rank: usize,
    #[serde(skip)]
    pub causes: Vec<Cause>,
}

/// One cause and its verdict here.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Judged {
    /// Index into `Diagnosis::sections`.
    pub section: usize,
    /// The cause's position in its section's list (0-based).
    pub index: usize,
    pub text: String,
    /// The check as written, and in words; `None` for a cause with no check.
    pub check: Option<String>,
    pub check_words: Option<String>,
    pub fix: Option<String>,
    pub confirm: Option<String>,
    /// Where the cause is written: `path:line`.
    pub at: String,
    #[serde(flatten)]
    pub evaluation: Evaluation,
}

/// Every cause of the sections, judged and ordered: holds, unknown, ruled
/// out; within a verdict by the section's rank and then as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnosis {
    pub sections: Vec<SectionCauses>,
    pub causes: Vec<Judged>,
}

impl Diagnosis {
    /// The first cause that holds.
    pub fn first_holding(&self) -> Option<&Judged> {
        self.causes
            .iter()
            .find(|c| c.evaluation.verdict == Verdict::Holds)
    }
}

/// The causes block that applies to a section: one in the section itself
/// or its subsections, else one in an enclosing section's own text.
pub fn blocks_for(doc: &Document, index: usize) -> Vec<(usize, CauseBlock)> {
    let Some(section) = doc.sections.get(index) else {
        return Vec::new();
    };
    let within = |s: &Section, own: bool| {
        let end = if own { s.own_end_line } else { s.end_line };
        doc.code_blocks
            .iter()
            .filter(|b| causes::is_causes(b) && b.line > s.line && b.line <= end)
            .map(|b| {
                // The innermost section holding the block names it.
                let holder = doc
                    .sections
                    .iter()
                    .rposition(|x| x.line < b.line)
                    .unwrap_or(index);
                (holder, causes::parse_code_block(b))
            })
            .collect::<Vec<_>>()
    };
    let found = within(section, false);
    if !found.is_empty() {
        return found;
    }
    let mut parent = section.parent;
    while let Some(p) = parent {
        let found = within(&doc.sections[p], true);
        if !found.is_empty() {
            return found;
        }
        parent = doc.sections[p].parent;
    }
    Vec::new()
}

/// The sections with causes among the first hits that score at least
/// `RELATIVE_SCORE` of the best, in hit order, each block once, leaving out
/// a section whose heading names other shared libraries or Python modules
/// than the `query` (another library, another major version or another
/// module: see [`names_another_subject`]). `document` gives a hit's parsed
/// document.
pub fn section_causes<'d>(
    hits: &[Hit],
    query: &str,
    mut document: impl FnMut(&str) -> Option<&'d Document>,
) -> Vec<SectionCauses> {
    let mut out: Vec<SectionCauses> = Vec::new();
    let mut seen: Vec<(String, usize)> = Vec::new();
    let best = hits.first().map_or(0.0, |h| h.score);
    for (rank, hit) in hits.iter().take(HITS_CONSIDERED).enumerate() {
        if hit.score < best * RELATIVE_SCORE || names_another_subject(&hit.heading, query) {
            continue;
        }
        let Some(doc) = document(&hit.path) else {
            continue;
        };
        let Some(index) = doc.sections.iter().position(|s| s.anchor == hit.anchor) else {
            continue;
        };
        for (holder, block) in blocks_for(doc, index) {
            let key = (doc.path.clone(), block.line);
            if seen.contains(&key) || block.causes.is_empty() {
                continue;
            }
            seen.push(key);
            let s = &doc.sections[holder];
            out.push(SectionCauses {
                path: doc.path.clone(),
                anchor: s.anchor.clone(),
                heading: s.title.clone(),
                line: s.line,
                rank,
                causes: block.causes,
            });
            if out.len() == MAX_SECTIONS {
                return out;
            }
        }
    }
    out
}

/// Whether `heading` quotes shared libraries and none of them is one the
/// query names: `libcudart.so.11.0: cannot open …` explains another message
/// than `libcudart.so.12: cannot open …` (another major version) or
/// `libcudnn.so.9: cannot open …` (another library), and its causes (no CUDA
/// 11 runtime) are not this one's, however alike the two lines score. A
/// soname without a version (`libcupti.so`) matches any version of its
/// library. Python modules count the same way (`No module named 'mmcv._ext'`
/// is another message than `No module named 'torch'`).
pub fn names_another_subject(heading: &str, query: &str) -> bool {
    subject::names_only_others(heading, &subject::subjects(query))
}

/// Judges one cause: its check evaluated, or unknown without one.
pub fn judge(cause: &Cause, ctx: &Context) -> Evaluation {
    match &cause.check {
        Some(check) => evaluate(&check.condition, ctx),
        None => Evaluation {
            verdict: Verdict::Unknown,
            reasons: vec!["no machine check: confirm by hand".into()],
            evidence: Vec::new(),
        },
    }
}

/// Judges every cause of `sections` against `ctx`, ordered by verdict.
pub fn diagnose(sections: Vec<SectionCauses>, ctx: &Context) -> Diagnosis {
    let mut judged: Vec<Judged> = Vec::new();
    for (si, section) in sections.iter().enumerate() {
        for (index, cause) in section.causes.iter().enumerate() {
            // Two files explaining one message may list the same cause: once.
            let check = cause.check.as_ref().map(|c| c.source.as_str());
            if judged
                .iter()
                .any(|j| j.text == cause.text && j.check.as_deref() == check)
            {
                continue;
            }
            judged.push(Judged {
                section: si,
                index,
                text: cause.text.clone(),
                check: cause.check.as_ref().map(|c| c.source.clone()),
                check_words: cause.check.as_ref().map(|c| c.condition.describe()),
                fix: cause.fix.clone(),
                confirm: cause.confirm.clone(),
                at: format!("{}:{}", section.path, cause.line),
                evaluation: judge(cause, ctx),
            });
        }
    }
    // Stable: the search's order and the file's order within a verdict.
    judged.sort_by_key(|j| j.evaluation.verdict);
    Diagnosis {
        sections,
        causes: judged,
    }
}

#[cfg(test)]
mod tests {
    use super::names_another_subject;

    #[test]
    fn a_heading_about_another_major_of_the_same_library_is_another_message() {
        let query = "OSError: libcudart.so.12: cannot open shared object file";
        assert!(names_another_subject(
            "ImportError: libcudart.so.11.0: cannot open shared object file",
            query
        ));
        // The same major (12 against 12.1), or no version in the heading:
        // the section may explain this message.
        assert!(!names_another_subject(
            "libcudart.so.12.1 missing after a wheel upgrade",
            query
        ));
        assert!(!names_another_subject(
            "libcudart.so not found by the linker",
            query
        ));
        assert!(!names_another_subject(
            "Shared libraries the loader cannot find",
            query
        ));
        // A heading naming both majors covers this one too.
        assert!(!names_another_subject(
            "libcudart.so.11.0 or libcudart.so.12: cannot open",
            query
        ));
    }

    /// `libcudnn.so.9: cannot open shared object file` got the causes of
    /// the `libcudart.so.11.0` section ("no CUDA 11 runtime", holds; fix:
    /// install one): a section about another library explains another
    /// message.
    #[test]
    fn a_heading_about_another_library_is_another_message() {
        let heading = "ImportError: libcudart.so.11.0: cannot open shared object file";
        for query in [
            "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory",
            "OSError: libnccl.so.2: cannot open shared object file",
            "libcublas.so.12: cannot open shared object file",
            "libnvrtc.so.12: cannot open shared object file",
        ] {
            assert!(names_another_subject(heading, query), "{query}");
        }
        assert!(names_another_subject(
            "libcupti.so.11.7: cannot open shared object file",
            "OSError: libcudart.so.12: cannot open shared object file"
        ));
        // A heading that names the query's library among others still may.
        assert!(!names_another_subject(
            "libcudnn.so.9 and libcudart.so.12 missing",
            "ImportError: libcudnn.so.9: cannot open shared object file"
        ));
    }
}
