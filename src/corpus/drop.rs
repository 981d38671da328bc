//! KNOWLEDGE DROP records: which knowledge file an expansion created, when, with
//! what status and sources. The fields are `- **Field**: value` bullets near the
//! top of the drop (see `knowledge/drops/`).

use std::collections::{HashMap, HashSet};

use super::document::{Document, Link, LinkTarget};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DropInfo {
    /// Id of the knowledge file the drop describes, from its `File` field.
    pub target: Option<String>,
    /// Line of the `File` field (or 1), for messages about the target.
    pub target_line: usize,
    pub expansion: Option<String>,
    pub date: Option<String>,
    pub timestamp: Option<String>,
    pub status: Option<String>,
    /// The line count the drop claims for its file.
    pub lines: Option<usize>,
    pub lines_line: usize,
    /// External links under the drop's `Sources` heading.
    pub sources: Vec<String>,
}

impl DropInfo {
    pub fn from_document(doc: &Document) -> DropInfo {
        let mut info = DropInfo {
            target_line: 1,
            lines_line: 1,
            ..DropInfo::default()
        };
        // The first link of each line, for `File` fields: found once rather
        // than by a scan of every link per field (a drop of 50,000 lines
        // took 14 s to load).
        let mut first_link: HashMap<usize, &Link> = HashMap::new();
        for link in &doc.links {
            first_link.entry(link.line).or_insert(link);
        }
        for (index, raw) in doc.text.lines().enumerate() {
            let line = index + 1;
            let Some((name, value)) = field(raw) else {
                continue;
            };
            match name.to_ascii_lowercase().as_str() {
                "file" => {
                    info.target_line = line;
                    info.target = first_link.get(&line).and_then(|l| match &l.target {
                        LinkTarget::Internal { path, .. } => Some(path.clone()),
                        _ => None,
                    });
                }
                "expansion" => info.expansion = Some(value.to_string()),
                "date" => info.date = Some(value.to_string()),
                "timestamp" => info.timestamp = Some(value.to_string()),
                "status" => info.status = Some(value.to_string()),
                "lines" => {
                    info.lines_line = line;
                    info.lines = value
                        .split(|c: char| !c.is_ascii_digit())
                        .find(|s| !s.is_empty())
                        .and_then(|s| s.parse().ok());
                }
                _ => {}
            }
        }
        if let Some(sources) = doc
            .sections
            .iter()
            .find(|s| s.title.eq_ignore_ascii_case("sources"))
        {
            // Links (bare URLs included) in the order written, each once.
            let mut seen: HashSet<String> = HashSet::new();
            info.sources = doc
                .links
                .iter()
                .filter(|l| l.line > sources.line && l.line <= sources.end_line)
                .filter_map(|l| match &l.target {
                    LinkTarget::External(url) if seen.insert(url.clone()) => Some(url.clone()),
                    _ => None,
                })
                .collect();
            // URLs the Markdown does not make links (in code, say) count too.
            for text_line in doc.lines(sources.line + 1, sources.end_line) {
                for word in text_line.split_whitespace() {
                    let word = word.trim_matches(|c| matches!(c, '<' | '>' | '(' | ')' | ','));
                    if (word.starts_with("https://") || word.starts_with("http://"))
                        && seen.insert(word.to_string())
                    {
                        info.sources.push(word.to_string());
                    }
                }
            }
        }
        info
    }
}

/// `- **Name**: value` or `**Name:** value` → (Name, value).
fn field(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_start();
    let line = line
        .strip_prefix("- ")
        .or_else(|| line.strip_prefix("* "))
        .unwrap_or(line);
    let rest = line.strip_prefix("**")?;
    let (name, after) = rest.split_once("**")?;
    let (name, value) = match name.strip_suffix(':') {
        Some(name) => (name, after),
        None => (name, after.strip_prefix(':')?),
    };
    Some((name.trim(), value.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::{Origin, SourceFile};

    #[test]
    fn reads_fields_target_and_sources() {
        let text = "# KNOWLEDGE DROP: CUPTI\n\n- **File**: [cuda/20-x.md](../cuda/20-x.md)\n- **Date**: 2026-11-22\n- **Status**: COMPLETE\n- **Lines**: 412\n\n## Sources\n- https://docs.nvidia.com/cupti/ — overview\n- [PyPI](https://pypi.org/project/torch/)\n";
        let doc = Document::parse(SourceFile {
            rel: "drops/KNOWLEDGE-DROP-cupti-2026-11-22.md".into(),
            origin: Origin::Builtin,
            text: text.into(),
            stamp: None,
        });
        let info = doc.drop.expect("a drop");
        assert_eq!(info.target.as_deref(), Some("cuda/20-x.md"));
        assert_eq!(info.target_line, 3);
        assert_eq!(info.date.as_deref(), Some("2026-11-22"));
        assert_eq!(info.status.as_deref(), Some("COMPLETE"));
        assert_eq!(info.lines, Some(412));
        assert_eq!(
            info.sources,
            vec![
                "https://docs.nvidia.com/cupti/",
                "https://pypi.org/project/torch/"
            ]
        );
    }

    /// A hostile drop: 20,000 `File` lines and as many sources once took
    /// seconds (a scan of every link per field, of every source per URL).
    #[test]
    fn a_huge_drop_reads_in_one_pass() {
        let mut text = String::from("# KNOWLEDGE DROP: many\n");
        for i in 0..20_000 {
            text.push_str(&format!("- **File**: [x](../cuda/{i}.md)\n"));
        }
        text.push_str("## Sources\n");
        for i in 0..20_000 {
            text.push_str(&format!(
                "- https://x.org/{} and again https://x.org/{}\n",
                i % 10_000,
                i % 10_000
            ));
        }
        let doc = Document::parse(SourceFile {
            rel: "drops/KNOWLEDGE-DROP-many.md".into(),
            origin: Origin::Builtin,
            text,
            stamp: None,
        });
        let info = doc.drop.expect("a drop");
        // The last `File` line wins, as before.
        assert_eq!(info.target.as_deref(), Some("cuda/19999.md"));
        assert_eq!(info.target_line, 20_001);
        assert_eq!(info.sources.len(), 10_000);
        assert_eq!(info.sources[9_999], "https://x.org/9999");
    }

    #[test]
    fn field_forms() {
        assert_eq!(field("- **Date**: 2026"), Some(("Date", "2026")));
        assert_eq!(field("**Status:** done"), Some(("Status", "done")));
        assert_eq!(field("plain text"), None);
    }
}
