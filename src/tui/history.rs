//! What the TUI remembers between runs: the documents read last, each with
//! the file line it was left at, and the searches made. Kept in
//! `history.json` in the data folder, bounded in size, written when lore
//! quits; deleting it only forgets.
//!
//! Anything can be in that file by the time it is read, so every entry is
//! checked and an unreadable file is reported once and replaced on the next
//! write.
//!
//! Several lores may run at once. Each keeps what its session remembered,
//! in order, and saving replays that onto the file as it is then, under a
//! lock (`history.json.lock`): two TUIs quitting together both keep their
//! searches, where writing the whole history loaded at start-up lost the
//! other's.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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
/// How long a save waits for another lore's save to finish. Saving takes
/// milliseconds; past this the holder is taken to be stuck, and the save
/// goes on without the lock.
const LOCK_PATIENCE: Duration = Duration::from_secs(2);

/// A document and where it was left.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Relative to its knowledge root, as everywhere else.
    pub path: String,
    /// The file line (1-based) at the top of the screen.
    pub line: usize,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct History {
    #[serde(default)]
    pub documents: Vec<Place>,
    #[serde(default)]
    pub searches: Vec<String>,
    /// What this session remembered, in order: what a save replays onto the
    /// file's latest contents.
    #[serde(skip)]
    changes: Vec<Change>,
}

/// Two histories are equal when they remember the same things, however
/// they came to.
impl PartialEq for History {
    fn eq(&self, other: &History) -> bool {
        self.documents == other.documents && self.searches == other.searches
    }
}

impl Eq for History {}

/// One thing a session remembered.
#[derive(Debug, Clone)]
enum Change {
    Read { path: String, line: usize },
    Searched(String),
}

impl Change {
    /// Both are about the same document, or the same search.
    fn same_entry(&self, other: &Change) -> bool {
        match (self, other) {
            (Change::Read { path: a, .. }, Change::Read { path: b, .. }) => a == b,
            (Change::Searched(a), Change::Searched(b)) => a == b,
            _ => false,
        }
    }
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

    /// Adds what this session remembered to the history in `path`: under
    /// the lock, the file is read as it is now, this session's changes are
    /// replayed onto it, and the result replaces it (atomically). Nothing is
    /// written when the session remembered nothing.
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        if self.changes.is_empty() {
            return Ok(());
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut lock_name = path.file_name().unwrap_or_default().to_os_string();
        lock_name.push(".lock");
        let lock_path = path.with_file_name(lock_name);
        let _lock = match crate::datafile::open_lock(&lock_path) {
            Ok(lock) => {
                if !wait_for_lock(&lock) {
                    log::warn!(
                        "{} stayed locked for {LOCK_PATIENCE:?}: saving the history without it",
                        lock_path.display()
                    );
                }
                Some(lock)
            }
            Err(err) => {
                log::warn!(
                    "{}: {err}; saving the history without the lock",
                    lock_path.display()
                );
                None
            }
        };
        let (mut merged, _) = History::load(path);
        for change in &self.changes {
            merged.apply(change);
        }
        let json = serde_json::to_vec_pretty(&merged).map_err(std::io::Error::other)?;
        crate::datafile::write_atomically(path, &json)
    }

    /// Only entries lore could have written, at most the bounds, without
    /// repeats.
    fn checked(self) -> History {
        let mut out = History::default();
        for place in self.documents.into_iter().rev() {
            if !place.path.is_empty() && place.path.len() <= MAX_PATH_BYTES && place.line > 0 {
                out.apply(&Change::Read {
                    path: place.path,
                    line: place.line,
                });
            }
        }
        for search in self.searches.into_iter().rev() {
            out.apply(&Change::Searched(search));
        }
        out
    }

    /// Remembers that `path` was left at file line `line`.
    pub fn read(&mut self, path: &str, line: usize) {
        let change = Change::Read {
            path: path.to_string(),
            line,
        };
        if self.apply(&change) {
            self.record(change);
        }
    }

    /// Remembers a search, unless it is empty or a pasted log.
    pub fn searched(&mut self, query: &str) {
        let change = Change::Searched(query.trim().to_string());
        if self.apply(&change) {
            self.record(change);
        }
    }

    /// Keeps `change` for the save. Replaying only the last change of each
    /// entry gives the same history (each moves its entry to the front), and
    /// only the latest `MAX_*` entries of a kind can survive the bounds, so
    /// that is all that is kept.
    fn record(&mut self, change: Change) {
        self.changes.retain(|c| !c.same_entry(&change));
        let is_read = |c: &Change| matches!(c, Change::Read { .. });
        let kind = is_read(&change);
        self.changes.push(change);
        let bound = if kind { MAX_DOCUMENTS } else { MAX_SEARCHES };
        if self.changes.iter().filter(|c| is_read(c) == kind).count() > bound
            && let Some(oldest) = self.changes.iter().position(|c| is_read(c) == kind)
        {
            self.changes.remove(oldest);
        }
    }

    /// Applies one change; false if it is not remembered (an empty search,
    /// a pasted log).
    fn apply(&mut self, change: &Change) -> bool {
        match change {
            Change::Read { path, line } => {
                self.remember_place(path, *line);
                true
            }
            Change::Searched(query) => self.remember_search(query),
        }
    }

    fn remember_place(&mut self, path: &str, line: usize) {
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

    fn remember_search(&mut self, query: &str) -> bool {
        let query = query.trim();
        if query.is_empty() || query.chars().count() > MAX_SEARCH_CHARS {
            return false;
        }
        self.searches.retain(|s| s != query);
        self.searches.insert(0, query.to_string());
        self.searches.truncate(MAX_SEARCHES);
        true
    }
}

/// Waits for the lock on `lock`; false if it stayed taken `LOCK_PATIENCE`
/// or cannot be taken on this file system.
fn wait_for_lock(lock: &std::fs::File) -> bool {
    let started = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return true,
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(_) => return false,
        }
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

    /// Two TUIs quitting together lost one's searches (20 of 20 rounds in a
    /// red team's runs), and a save sometimes failed with `File exists (os
    /// error 17)`: each wrote the whole history it had loaded at start-up,
    /// through one shared temporary file. Saves now replay each session's
    /// changes onto the file under a lock, each through a file of its own.
    #[test]
    fn tuis_quitting_together_keep_each_others_searches() {
        let dir = tempfile::tempdir().unwrap();
        let path = History::path(dir.path());
        const TUIS: usize = 4;
        for round in 0..20 {
            let sessions: Vec<History> = (0..TUIS)
                .map(|tui| {
                    let (mut history, problem) = History::load(&path);
                    assert_eq!(problem, None);
                    history.searched(&format!("round {round} tui {tui}"));
                    history.read(&format!("r{round}-t{tui}.md"), tui + 1);
                    history
                })
                .collect();
            let start = std::sync::Barrier::new(TUIS);
            let saved: Vec<std::io::Result<()>> = std::thread::scope(|scope| {
                let savers: Vec<_> = sessions
                    .iter()
                    .map(|history| {
                        let start = &start;
                        let path = &path;
                        scope.spawn(move || {
                            start.wait();
                            history.save(path)
                        })
                    })
                    .collect();
                savers.into_iter().map(|s| s.join().unwrap()).collect()
            });
            for result in saved {
                result.expect("every save succeeds");
            }
            let (merged, problem) = History::load(&path);
            assert_eq!(problem, None);
            for tui in 0..TUIS {
                let search = format!("round {round} tui {tui}");
                assert!(
                    merged.searches.contains(&search),
                    "round {round}: {search} lost"
                );
                assert_eq!(
                    merged.line_of(&format!("r{round}-t{tui}.md")),
                    Some(tui + 1)
                );
            }
        }
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|name| name.ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
    }

    /// A save replays this session's changes onto what another lore saved
    /// meanwhile: the other's newer entries stay, this session's latest
    /// come first, with their latest lines.
    #[test]
    fn a_save_replays_this_sessions_changes_onto_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = History::path(dir.path());
        let mut before = History::default();
        before.read("a.md", 1);
        before.read("b.md", 2);
        before.save(&path).unwrap();

        let (mut mine, _) = History::load(&path);
        let (mut other, _) = History::load(&path);
        other.read("c.md", 3);
        other.searched("theirs");
        other.save(&path).unwrap();
        mine.read("d.md", 4);
        mine.read("b.md", 9);
        mine.searched("mine");
        mine.save(&path).unwrap();

        let (merged, _) = History::load(&path);
        let order: Vec<(&str, usize)> = merged
            .documents
            .iter()
            .map(|p| (p.path.as_str(), p.line))
            .collect();
        assert_eq!(order, [("b.md", 9), ("d.md", 4), ("c.md", 3), ("a.md", 1)]);
        assert_eq!(merged.searches, ["mine", "theirs"]);
    }
}
