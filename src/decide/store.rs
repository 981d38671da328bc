//! Sessions kept between runs, so a walk interrupted mid-build can be resumed
//! from the TUI or the CLI, and transcripts saved where the user can find them.
//! Layout under the platform data folder (`LORE_HOME/data` in tests):
//!
//! ```text
//! sessions/<tree-id>.json      one session in progress per tree
//! transcripts/<tree-id>-<date>.md, -2.md …
//! ```
//!
//! A saved session is only the tree id and the answers; resuming replays them
//! against the current tree, so a tree edited since is handled by keeping the
//! answers that still fit (and saying which were dropped and why). Nothing here
//! runs unless a caller asks: loading trees never touches the disk.
//!
//! Everything in a saved file is untrusted: anyone who can write the data
//! folder can put anything there. Only regular files of bounded size are read
//! (`datafile`), every field is checked (a time out of range, a tree id that
//! is not the file's, answers the tree does not have), and a bad file is an
//! error for the caller to report, never a panic.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::DecideError;
use super::session::{AnswerSource, Session};
use super::tree::{DecisionTree, is_valid_id};
use crate::config::Paths;
use crate::diagnostic::Diagnostic;

/// A session file that cannot be written, read or understood.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: io::Error },
    #[error("{}: not a saved lore session: {message}", path.display())]
    Format { path: PathBuf, message: String },
    #[error("tree id `{0}` cannot name a file")]
    BadId(String),
    #[error("{}: names tree `{found}`, not `{expected}`", path.display())]
    OtherTree {
        path: PathBuf,
        found: String,
        expected: String,
    },
}

/// A saved session file larger than this is not read: a walk of the longest
/// tree lore accepts is far smaller.
const SESSION_LIMIT: u64 = 16 << 20;

/// Where sessions and transcripts live.
#[derive(Debug, Clone)]
pub struct SessionStore {
    data_dir: PathBuf,
}

/// A session on disk, not yet replayed against a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavedSession {
    pub tree: String,
    /// (question id, option id), oldest first.
    pub path: Vec<(String, String)>,
    /// Who gave each answer of `path` (probed answers keep their evidence).
    pub sources: Vec<AnswerSource>,
    pub saved_at: SystemTime,
    pub file: PathBuf,
}

/// A saved session replayed against the current tree.
#[derive(Debug, Clone)]
pub struct Resumed {
    pub session: Session,
    /// Answers at the end of the saved path that no longer fit the tree (it
    /// changed since the session was saved) and were dropped, oldest first.
    pub dropped: Vec<(String, String)>,
    /// Why the first dropped answer did not fit.
    pub reason: Option<DecideError>,
    pub saved_at: SystemTime,
}

impl Resumed {
    /// What was dropped and why, for the user; `None` when nothing was.
    pub fn dropped_note(&self) -> Option<String> {
        /// Answers named in the note; the rest are counted.
        const NAMED: usize = 5;
        if self.dropped.is_empty() {
            return None;
        }
        let mut answers: Vec<String> = self
            .dropped
            .iter()
            .take(NAMED)
            .map(|(q, o)| format!("`{q}={o}`"))
            .collect();
        if self.dropped.len() > NAMED {
            answers.push(format!("and {} more", self.dropped.len() - NAMED));
        }
        let n = self.dropped.len();
        let mut note = format!(
            "{n} saved answer{} no longer fit{} the tree and {} dropped: {}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "s" } else { "" },
            if n == 1 { "was" } else { "were" },
            answers.join(", ")
        );
        if let Some(reason) = &self.reason {
            note.push_str(&format!(" ({reason})"));
        }
        Some(note)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SessionFile {
    tree: String,
    path: Vec<SavedAnswer>,
    /// Seconds since the Unix epoch.
    saved_at: u64,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedAnswer {
    question: String,
    answer: String,
    /// `"probe"` for a probed answer; absent for the user's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    evidence: Vec<String>,
}

impl SessionStore {
    /// A store under `data_dir`. Folders are created on the first save.
    pub fn new(data_dir: impl Into<PathBuf>) -> SessionStore {
        SessionStore {
            data_dir: data_dir.into(),
        }
    }

    /// The store in the platform data folder, if the platform has one.
    pub fn from_paths(paths: &Paths) -> Option<SessionStore> {
        paths.data_dir.as_ref().map(SessionStore::new)
    }

    pub fn sessions_dir(&self) -> PathBuf {
        self.data_dir.join("sessions")
    }

    pub fn transcripts_dir(&self) -> PathBuf {
        self.data_dir.join("transcripts")
    }

    fn session_file(&self, tree_id: &str) -> Result<PathBuf, StoreError> {
        if !is_valid_id(tree_id) {
            return Err(StoreError::BadId(tree_id.to_string()));
        }
        Ok(self.sessions_dir().join(format!("{tree_id}.json")))
    }

    /// Saves the session, replacing any saved session of the same tree.
    pub fn save(&self, session: &Session) -> Result<PathBuf, StoreError> {
        let file = self.session_file(&session.tree().id)?;
        let saved_at = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let body = SessionFile {
            tree: session.tree().id.clone(),
            path: session
                .path()
                .iter()
                .zip(session.sources())
                .map(|((q, o), source)| SavedAnswer {
                    question: q.clone(),
                    answer: o.clone(),
                    source: source.is_probe().then(|| "probe".to_string()),
                    evidence: source.evidence().to_vec(),
                })
                .collect(),
            saved_at,
        };
        let json = serde_json::to_string_pretty(&body).map_err(|e| StoreError::Format {
            path: file.clone(),
            message: e.to_string(),
        })?;
        write_atomically(&file, json.as_bytes())?;
        Ok(file)
    }

    /// The saved session of one tree, if there is one. A file that names
    /// another tree is an error: it is never taken for this tree's walk.
    pub fn load(&self, tree_id: &str) -> Result<Option<SavedSession>, StoreError> {
        let file = self.session_file(tree_id)?;
        let saved = match read_file(&file) {
            Ok(saved) => saved,
            Err(StoreError::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(err) => return Err(err),
        };
        if saved.tree != tree_id {
            return Err(StoreError::OtherTree {
                path: file,
                found: saved.tree,
                expected: tree_id.to_string(),
            });
        }
        Ok(Some(saved))
    }

    /// The saved session of `tree` replayed against it, keeping the longest
    /// prefix of answers that still fits; the rest are in `Resumed::dropped`.
    pub fn resume(&self, tree: &DecisionTree) -> Result<Option<Resumed>, StoreError> {
        let Some(saved) = self.load(&tree.id)? else {
            return Ok(None);
        };
        let mut session = Session::new(tree);
        let mut reason = None;
        let mut kept = 0;
        for ((question, option), source) in saved.path.iter().zip(&saved.sources) {
            if let Err(err) = session.answer_from(question, option, source.clone()) {
                reason = Some(err);
                break;
            }
            kept += 1;
        }
        let mut dropped = saved.path;
        dropped.drain(..kept);
        Ok(Some(Resumed {
            session,
            dropped,
            reason,
            saved_at: saved.saved_at,
        }))
    }

    /// Every saved session, newest first. A file that cannot be read is a
    /// warning and is skipped.
    pub fn list(&self) -> (Vec<SavedSession>, Vec<Diagnostic>) {
        let dir = self.sessions_dir();
        let mut sessions = Vec::new();
        let mut warnings = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(err) if err.kind() == io::ErrorKind::NotFound => return (sessions, warnings),
            Err(err) => {
                warnings.push(Diagnostic::warning(
                    dir.display().to_string(),
                    None,
                    format!("cannot read saved sessions: {err}"),
                ));
                return (sessions, warnings);
            }
        };
        for entry in entries.filter_map(Result::ok) {
            let file = entry.path();
            if file.extension().is_none_or(|e| e != "json") {
                continue;
            }
            match read_file(&file) {
                Ok(saved) => sessions.push(saved),
                Err(err) => warnings.push(Diagnostic::warning(
                    file.display().to_string(),
                    None,
                    format!("saved session skipped: {err}"),
                )),
            }
        }
        sessions.sort_by(|a, b| b.saved_at.cmp(&a.saved_at).then(a.tree.cmp(&b.tree)));
        (sessions, warnings)
    }

    /// Forgets the saved session of a tree (done, or the user started over).
    /// Removing a session that is not there is not an error.
    pub fn remove(&self, tree_id: &str) -> Result<(), StoreError> {
        let file = self.session_file(tree_id)?;
        match fs::remove_file(&file) {
            Ok(()) => Ok(()),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(StoreError::Io { path: file, source }),
        }
    }

    /// Writes the session's transcript to a new file under `transcripts/` and
    /// returns its path (to show the user). Never overwrites an earlier one.
    pub fn write_transcript(&self, session: &Session, date: &str) -> Result<PathBuf, StoreError> {
        let id = &session.tree().id;
        if !is_valid_id(id) {
            return Err(StoreError::BadId(id.clone()));
        }
        let dir = self.transcripts_dir();
        fs::create_dir_all(&dir).map_err(|source| StoreError::Io {
            path: dir.clone(),
            source,
        })?;
        let text = session.transcript(date);
        let mut n = 1u32;
        loop {
            let name = if n == 1 {
                format!("{id}-{date}.md")
            } else {
                format!("{id}-{date}-{n}.md")
            };
            let file = dir.join(name);
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&file)
            {
                Ok(mut handle) => {
                    io::Write::write_all(&mut handle, text.as_bytes()).map_err(|source| {
                        StoreError::Io {
                            path: file.clone(),
                            source,
                        }
                    })?;
                    return Ok(file);
                }
                Err(err) if err.kind() == io::ErrorKind::AlreadyExists => n += 1,
                Err(source) => return Err(StoreError::Io { path: file, source }),
            }
        }
    }
}

/// Reads and checks one saved session file.
fn read_file(file: &Path) -> Result<SavedSession, StoreError> {
    let text =
        crate::datafile::read_to_string(file, SESSION_LIMIT).map_err(|source| StoreError::Io {
            path: file.to_path_buf(),
            source,
        })?;
    read_session(file, &text)
}

fn read_session(file: &Path, text: &str) -> Result<SavedSession, StoreError> {
    let format = |message: String| StoreError::Format {
        path: file.to_path_buf(),
        message,
    };
    let body: SessionFile = serde_json::from_str(text).map_err(|e| format(e.to_string()))?;
    if !is_valid_id(&body.tree) {
        return Err(format(format!(
            "`tree` is {:?}, not a tree id",
            crate::text::sanitize(&body.tree)
        )));
    }
    // Seconds far in the future overflow a `SystemTime` (adding them would
    // panic): such a file was not written by lore.
    let saved_at = UNIX_EPOCH
        .checked_add(Duration::from_secs(body.saved_at))
        .ok_or_else(|| format(format!("`saved_at` {} is not a time", body.saved_at)))?;
    let sources = body
        .path
        .iter()
        .map(|a| match a.source.as_deref() {
            Some("probe") => AnswerSource::Probe {
                evidence: a.evidence.clone(),
            },
            _ => AnswerSource::User,
        })
        .collect();
    Ok(SavedSession {
        tree: body.tree,
        sources,
        path: body
            .path
            .into_iter()
            .map(|a| (a.question, a.answer))
            .collect(),
        saved_at,
        file: file.to_path_buf(),
    })
}

/// `datafile::write_atomically`, naming `file` in the error.
fn write_atomically(file: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    crate::datafile::write_atomically(file, bytes).map_err(|source| StoreError::Io {
        path: file.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decide::session::tests::sample;

    #[test]
    fn save_list_resume_remove() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let tree = sample();
        assert!(store.resume(&tree).unwrap().is_none());
        assert!(store.list().0.is_empty());

        let mut s = Session::new(&tree);
        s.answer("first", "a").unwrap();
        let file = store.save(&s).unwrap();
        assert_eq!(file, dir.path().join("sessions/sample.json"));

        let (listed, warnings) = store.list();
        assert!(warnings.is_empty());
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].tree, "sample");
        assert_eq!(listed[0].path, s.path());

        let resumed = store.resume(&tree).unwrap().unwrap();
        assert_eq!(resumed.session.path(), s.path());
        assert!(resumed.dropped.is_empty());

        store.remove("sample").unwrap();
        assert!(store.load("sample").unwrap().is_none());
        store.remove("sample").unwrap();
    }

    #[test]
    fn answers_that_no_longer_fit_are_dropped_on_resume() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        fs::create_dir_all(store.sessions_dir()).unwrap();
        fs::write(
            store.sessions_dir().join("sample.json"),
            r#"{"tree":"sample","path":[{"question":"first","answer":"a"},{"question":"second","answer":"renamed"}],"saved_at":1795305600}"#,
        )
        .unwrap();
        let resumed = store.resume(&sample()).unwrap().unwrap();
        assert_eq!(resumed.session.path().len(), 1);
        assert_eq!(
            resumed.dropped,
            vec![("second".to_string(), "renamed".to_string())]
        );
        assert_eq!(
            resumed.dropped_note().unwrap(),
            "1 saved answer no longer fits the tree and was dropped: `second=renamed` \
             (question `second` has no option `renamed` (options: left, right))"
        );
    }

    /// A saved file is anyone's to write: a time beyond what the clock can
    /// hold, a tree id that is not the file's, or a tree id that is not an
    /// id at all is an error to report, never a panic or another tree's walk.
    #[test]
    fn hostile_fields_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        fs::create_dir_all(store.sessions_dir()).unwrap();
        let file = store.sessions_dir().join("sample.json");
        let write = |tree: &str, saved_at: &str| {
            fs::write(
                &file,
                format!(
                    r#"{{"tree":"{tree}","path":[{{"question":"first","answer":"a"}}],"saved_at":{saved_at}}}"#
                ),
            )
            .unwrap();
        };
        for saved_at in ["18446744073709551615", "9223372036854775808"] {
            write("sample", saved_at);
            let err = store.resume(&sample()).unwrap_err().to_string();
            assert!(
                err.ends_with(&format!("`saved_at` {saved_at} is not a time")),
                "{err}"
            );
            let (listed, warnings) = store.list();
            assert!(listed.is_empty() && warnings.len() == 1, "{warnings:?}");
        }
        write("other", "1795305600");
        let err = store.resume(&sample()).unwrap_err().to_string();
        assert!(
            err.ends_with("sample.json: names tree `other`, not `sample`"),
            "{err}"
        );
        write("../x", "1795305600");
        let err = store.resume(&sample()).unwrap_err().to_string();
        assert!(err.ends_with("`tree` is \"../x\", not a tree id"), "{err}");
    }

    #[test]
    fn a_broken_file_is_a_warning_in_list_and_an_error_in_load() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        fs::create_dir_all(store.sessions_dir()).unwrap();
        fs::write(store.sessions_dir().join("sample.json"), "{not json").unwrap();
        let (listed, warnings) = store.list();
        assert!(listed.is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].message.contains("not a saved lore session"),
            "{warnings:?}"
        );
        assert!(matches!(
            store.load("sample"),
            Err(StoreError::Format { .. })
        ));
    }

    #[test]
    fn transcripts_get_fresh_names() {
        let dir = tempfile::tempdir().unwrap();
        let store = SessionStore::new(dir.path());
        let s = Session::new(&sample());
        let a = store.write_transcript(&s, "2026-11-22").unwrap();
        let b = store.write_transcript(&s, "2026-11-22").unwrap();
        assert_eq!(a, dir.path().join("transcripts/sample-2026-11-22.md"));
        assert_eq!(b, dir.path().join("transcripts/sample-2026-11-22-2.md"));
        assert!(fs::read_to_string(b).unwrap().starts_with("# Sample\n"));
    }

    #[test]
    fn ids_that_are_not_file_names_are_refused() {
        let store = SessionStore::new("/nonexistent");
        assert!(matches!(store.load("../x"), Err(StoreError::BadId(_))));
    }
}
