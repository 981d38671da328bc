//! What the TUI remembers between runs: the documents read last, each with
//! the file line it was left at, and the searches made. Kept in
//! `history.json` in the data folder, bounded in size, written when lore
//! quits; deleting it only forgets.
//!
//! Anything can be in that file by the time it is read, so every entry is
//! checked and an unreadable file is reported once and replaced on the next
//! write.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Documents remembered, most recent first.
pub const MAX_DOCUMENTS: usize = 50;
/// Searches remembered, most recent first.
pub const MAX_SEARCHES: usize = 100;
/// A longer query (a pasted log) is not remembered: recalling it would
/// bring back a page of someone's build output.
pub const MAX_SEARCH_CHARS: usize = 1_000;
/// A history file larger than this is not read.
const FILE_LIMIT: u64 = 1 << 20;
const MAX_PATH_BYTES: usize = 4_096;

/// A document and where it was left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Relative to its knowledge root, as everywhere else.
    pub path: String,
    /// The file line (1-based) at the top of the screen.
    pub line: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    #[serde(default)]
    pub documents: Vec<Place>,
    #[serde(default)]
    pub searches: Vec<String>,
}

impl History {
    /// The history file in `data_dir`.
    pub fn path(data_dir: &Path) -> PathBuf {
        data_dir.join("history.json")
    }

    /// Reads `path`: nothing remembered if it does not exist; also nothing,
    /// and why, if it cannot be used.
    pub fn load(path: &Path) -> (History, Option<String>) {
        let bytes = match crate::datafile::read(path, FILE_LIMIT) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
                return (History::default(), None);
            }
            Err(err) => return (History::default(), Some(format!("not read: {err}"))),
        };
        match serde_json::from_slice::<History>(&bytes) {
            Ok(read) => (read.checked(), None),
            Err(err) => (
                History::default(),
                Some(format!("not understood ({err}); it will be replaced")),
            ),
        }
    }

    /// Writes the history to `path` (atomically).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        crate::datafile::write_atomically(path, &json)
    }

    /// Only entries lore could have written, at most the bounds, without
    /// repeats.
    fn checked(self) -> History {
        let mut out = History::default();
        for place in self.documents.into_iter().rev() {
            if !place.path.is_empty() && place.path.len() <= MAX_PATH_BYTES && place.line > 0 {
                out.read(&place.path, place.line);
            }
        }
        for search in self.searches.into_iter().rev() {
            out.searched(&search);
        }
        out
    }

    /// Remembers that `path` was left at file line `line`.
    pub fn read(&mut self, path: &str, line: usize) {
        self.documents.retain(|p| p.path != path);
        self.documents.insert(
            0,
            Place {
                path: path.to_string(),
                line: line.max(1),
            },
        );
        self.documents.truncate(MAX_DOCUMENTS);
    }

    /// Where `path` was left, if it is remembered.
    pub fn line_of(&self, path: &str) -> Option<usize> {
        self.documents
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.line)
    }

    /// Remembers a search, unless it is empty or a pasted log.
    pub fn searched(&mut self, query: &str) {
        let query = query.trim();
        if query.is_empty() || query.chars().count() > MAX_SEARCH_CHARS {
            return;
        }
        self.searches.retain(|s| s != query);
        self.searches.insert(0, query.to_string());
        self.searches.truncate(MAX_SEARCHES);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_is_bounded_most_recent_first_and_without_repeats() {
        let mut h = History::default();
        for i in 0..MAX_DOCUMENTS + 10 {
            h.read(&format!("d{i}.md"), i + 1);
        }
        h.read("d55.md", 3);
        assert_eq!(h.documents.len(), MAX_DOCUMENTS);
        assert_eq!(
            h.documents[0],
            Place {
                path: "d55.md".into(),
                line: 3
            }
        );
        assert_eq!(h.line_of("d55.md"), Some(3));
        assert_eq!(h.line_of("d0.md"), None, "the oldest fell off");
        h.searched("  cupti  ");
        h.searched("nccl");
        h.searched("cupti");
        h.searched("");
        h.searched(&"x".repeat(MAX_SEARCH_CHARS + 1));
        assert_eq!(h.searches, ["cupti", "nccl"]);
    }

    #[test]
    fn a_saved_history_comes_back_and_a_bad_file_is_named_not_fatal() {
        let dir = tempfile::tempdir().unwrap();
        let path = History::path(dir.path());
        assert_eq!(History::load(&path), (History::default(), None));
        let mut h = History::default();
        h.read("cuda/a.md", 40);
        h.searched("libcupti");
        h.save(&path).unwrap();
        assert_eq!(History::load(&path), (h, None));

        // Entries lore could not have written are dropped; bounds hold.
        let many: Vec<String> = (0..500).map(|i| format!("\"q{i}\"")).collect();
        std::fs::write(
            &path,
            format!(
                r#"{{"documents":[{{"path":"","line":3}},{{"path":"ok.md","line":0}},{{"path":"b.md","line":7}}],"searches":[{}]}}"#,
                many.join(",")
            ),
        )
        .unwrap();
        let (read, warning) = History::load(&path);
        assert_eq!(warning, None);
        assert_eq!(
            read.documents,
            [Place {
                path: "b.md".into(),
                line: 7
            }]
        );
        assert_eq!(read.searches.len(), MAX_SEARCHES);
        assert_eq!(read.searches[0], "q0");

        std::fs::write(&path, "{ not json").unwrap();
        let (read, warning) = History::load(&path);
        assert_eq!(read, History::default());
        assert!(warning.unwrap().contains("not understood"));
    }
}
