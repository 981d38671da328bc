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
//! answers that still fit. Nothing here runs unless a caller asks: loading trees
//! never touches the disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

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
}

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
    /// changed since the session was saved) and were dropped.
    pub dropped: usize,
    pub saved_at: SystemTime,
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

    /// The saved session of one tree, if there is one.
    pub fn load(&self, tree_id: &str) -> Result<Option<SavedSession>, StoreError> {
        let file = self.session_file(tree_id)?;
        match fs::read_to_string(&file) {
            Ok(text) => read_session(&file, &text).map(Some),
            Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(StoreError::Io { path: file, source }),
        }
    }

    /// The saved session of `tree` replayed against it, keeping the longest
    /// prefix of answers that still fits.
    pub fn resume(&self, tree: &DecisionTree) -> Result<Option<Resumed>, StoreError> {
        let Some(saved) = self.load(&tree.id)? else {
            return Ok(None);
        };
        let mut session = Session::new(tree);
        let mut kept = 0;
        for ((question, option), source) in saved.path.iter().zip(&saved.sources) {
            if session
                .answer_from(question, option, source.clone())
                .is_err()
            {
                break;
            }
            kept += 1;
        }
        Ok(Some(Resumed {
            session,
            dropped: saved.path.len() - kept,
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
            let result = fs::read_to_string(&file)
                .map_err(|source| StoreError::Io {
                    path: file.clone(),
                    source,
                })
                .and_then(|text| read_session(&file, &text));
            match result {
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

fn read_session(file: &Path, text: &str) -> Result<SavedSession, StoreError> {
    let body: SessionFile = serde_json::from_str(text).map_err(|e| StoreError::Format {
        path: file.to_path_buf(),
        message: e.to_string(),
    })?;
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
        saved_at: UNIX_EPOCH + Duration::from_secs(body.saved_at),
        file: file.to_path_buf(),
    })
}

/// Write to a temporary file beside the target, then rename: a crash mid-write
/// leaves the old session, never half a file.
fn write_atomically(file: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| StoreError::Io { path, source }
    };
    let dir = file.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(io_err(dir))?;
    let tmp = file.with_extension("json.tmp");
    fs::write(&tmp, bytes).map_err(io_err(&tmp))?;
    fs::rename(&tmp, file).map_err(io_err(file))
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
        assert_eq!(resumed.dropped, 0);

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
        assert_eq!(resumed.dropped, 1);
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
