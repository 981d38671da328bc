//! A snapshot of what a scan of the overlay folders saw, and a quick check
//! that nothing has changed since, without walking them again.
//!
//! A scan lists every folder and stats every file. The snapshot records each
//! folder's modification time and each file's size and modification time,
//! by folder and name. While a folder's modification time is unchanged, no
//! entry was added to it, removed or renamed (POSIX updates it for all
//! three), so checking it again needs one stat per folder and one per file,
//! each relative to its open folder, and no listing: on 10,000 files that
//! is about half the work of a walk, and it is shared between the cores.
//!
//! Coarse timestamps can hide a change made in the same clock tick as the
//! scan, so a scan that sees anything modified within the last
//! [`SETTLE`] makes no snapshot: the next full scan, after things settle,
//! will. A scan with any warning (unreadable folder, dangling or outside
//! symlink, loop) makes none either: only a full walk can tell when those
//! get resolved.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Stamp;

/// How old every modification must be for a scan to make a snapshot.
pub const SETTLE: Duration = Duration::from_secs(2);
/// Files checked by one thread at a time: a flat folder of thousands of
/// files is still shared out.
const FILES_PER_TASK: usize = 512;
const MAGIC: &[u8] = b"lore-snapshot 1\n";

/// What a scan of the overlay folders saw.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    folders: Vec<Folder>,
    files: Vec<File>,
    /// The files' names, one after another (`File::name` indexes it): one
    /// buffer instead of ten thousand small strings to read and free.
    names: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Folder {
    /// Canonical path.
    path: PathBuf,
    modified: i128,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct File {
    /// Index into `folders`.
    folder: usize,
    /// Where its name is in `Snapshot::names`.
    name: std::ops::Range<usize>,
    size: u64,
    modified: i128,
}

/// Collects a snapshot while a scan runs; `None` at the end if the scan saw
/// anything that makes a snapshot unsafe.
pub(super) struct Recorder {
    snapshot: Snapshot,
    /// Nothing modified after this may be recorded.
    settled_before: i128,
    usable: bool,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            snapshot: Snapshot::default(),
            settled_before: nanos(SystemTime::now() - SETTLE),
            usable: true,
        }
    }

    /// Records a folder; returns its index for `file`.
    pub fn folder(&mut self, path: &Path, modified: Option<SystemTime>) -> usize {
        self.check(modified);
        self.snapshot.folders.push(Folder {
            path: path.to_path_buf(),
            modified: modified.map_or(0, nanos),
        });
        self.snapshot.folders.len() - 1
    }

    pub fn file(&mut self, folder: usize, name: OsString, stamp: Option<Stamp>) {
        let Some(stamp) = stamp else {
            self.usable = false;
            return;
        };
        self.check(stamp.modified);
        let names = &mut self.snapshot.names;
        let start = names.len();
        names.extend_from_slice(name.as_encoded_bytes());
        self.snapshot.files.push(File {
            folder,
            name: start..names.len(),
            size: stamp.size,
            modified: stamp.modified.map_or(0, nanos),
        });
    }

    /// Marks the scan as one a snapshot cannot stand for.
    pub fn spoil(&mut self) {
        self.usable = false;
    }

    pub fn finish(self) -> Option<Snapshot> {
        self.usable.then_some(self.snapshot)
    }

    fn check(&mut self, modified: Option<SystemTime>) {
        match modified {
            Some(time) if nanos(time) < self.settled_before => {}
            _ => self.usable = false,
        }
    }
}

impl Snapshot {
    /// True if every folder and file still has the recorded modification
    /// time (and every file its size). Stops at the first difference.
    pub fn unchanged(&self) -> bool {
        let tasks = self.tasks();
        let threads = crate::cores::available().min(tasks.len());
        let next = AtomicUsize::new(0);
        let changed = AtomicBool::new(false);
        let work = || {
            while !changed.load(Ordering::Relaxed) {
                let Some(task) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) else {
                    return;
                };
                if !self.task_unchanged(task) {
                    changed.store(true, Ordering::Relaxed);
                }
            }
        };
        if threads < 2 {
            work();
        } else {
            std::thread::scope(|scope| {
                for _ in 1..threads {
                    scope.spawn(work);
                }
                work();
            });
        }
        !changed.into_inner()
    }

    /// The checks, as (folder, its files): each folder once with its first
    /// files, then its further files in more tasks.
    fn tasks(&self) -> Vec<Task> {
        let mut tasks = Vec::new();
        let mut at = 0;
        for folder in 0..self.folders.len() {
            let end = at + self.files[at..].partition_point(|f| f.folder == folder);
            let mut start = at;
            let mut first = true;
            loop {
                let stop = end.min(start + FILES_PER_TASK);
                tasks.push(Task {
                    folder,
                    check_folder: first,
                    files: start..stop,
                });
                first = false;
                start = stop;
                if start >= end {
                    break;
                }
            }
            at = end;
        }
        tasks
    }

    fn task_unchanged(&self, task: &Task) -> bool {
        let folder = &self.folders[task.folder];
        let files = self.files[task.files.clone()]
            .iter()
            .map(|f| (&self.names[f.name.clone()], f.size, f.modified));
        stat::unchanged(folder, task.check_folder, files)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        put_len(&mut out, self.folders.len());
        for folder in &self.folders {
            put_bytes(&mut out, folder.path.as_os_str().as_encoded_bytes());
            out.extend_from_slice(&folder.modified.to_le_bytes());
        }
        put_len(&mut out, self.files.len());
        for file in &self.files {
            put_len(&mut out, file.folder);
            put_bytes(&mut out, &self.names[file.name.clone()]);
            out.extend_from_slice(&file.size.to_le_bytes());
            out.extend_from_slice(&file.modified.to_le_bytes());
        }
        out
    }

    /// Reads `to_bytes`'s output; `None` if it is damaged or from another
    /// version.
    pub fn from_bytes(bytes: &[u8]) -> Option<Snapshot> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let mut snapshot = Snapshot::default();
        for _ in 0..r.len()? {
            let path = PathBuf::from(os_string_from_bytes(r.bytes()?)?);
            let modified = i128::from_le_bytes(r.take()?);
            snapshot.folders.push(Folder { path, modified });
        }
        let mut last_folder = 0;
        let count = r.len()?;
        // A file takes at least 40 bytes: a damaged count cannot make a
        // huge allocation.
        let count_bound = count.min(r.0.len() / 40);
        snapshot.files.reserve_exact(count_bound);
        snapshot
            .names
            .reserve_exact(r.0.len().saturating_sub(count_bound * 40));
        for _ in 0..count {
            let folder = r.len()?;
            // Files are grouped by folder, in order: `tasks` relies on it.
            if folder >= snapshot.folders.len() || folder < last_folder {
                return None;
            }
            last_folder = folder;
            let start = snapshot.names.len();
            snapshot.names.extend_from_slice(r.bytes()?);
            let size = u64::from_le_bytes(r.take()?);
            let modified = i128::from_le_bytes(r.take()?);
            snapshot.files.push(File {
                folder,
                name: start..snapshot.names.len(),
                size,
                modified,
            });
        }
        r.0.is_empty().then_some(snapshot)
    }
}

struct Task {
    folder: usize,
    check_folder: bool,
    files: std::ops::Range<usize>,
}

/// Nanoseconds since the Unix epoch, negative before it.
pub fn nanos(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u64).to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_len(out, bytes.len());
    out.extend_from_slice(bytes);
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }

    fn len(&mut self) -> Option<usize> {
        usize::try_from(u64::from_le_bytes(self.take()?)).ok()
    }

    fn bytes(&mut self) -> Option<&[u8]> {
        let len = self.len()?;
        if len > self.0.len() {
            return None;
        }
        let (bytes, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(bytes)
    }
}

#[cfg(unix)]
fn os_string_from_bytes(bytes: &[u8]) -> Option<OsString> {
    use std::os::unix::ffi::OsStrExt;
    Some(std::ffi::OsStr::from_bytes(bytes).to_os_string())
}

#[cfg(not(unix))]
fn os_string_from_bytes(bytes: &[u8]) -> Option<OsString> {
    // Elsewhere only valid UTF-8 names round-trip; others fail the check,
    // which only costs a full scan.
    Some(OsString::from(std::str::from_utf8(bytes).ok()?))
}

/// Stats for the check: relative to the open folder where the platform
/// allows it (one name lookup per file instead of the whole path).
#[cfg(unix)]
mod stat {
    use std::os::unix::ffi::OsStrExt;

    use rustix::fs::{AtFlags, Mode, OFlags, Stat, fstat, open, statat};

    use super::Folder;

    pub(super) fn unchanged<'a>(
        folder: &Folder,
        check_folder: bool,
        mut files: impl Iterator<Item = (&'a [u8], u64, i128)>,
    ) -> bool {
        let Ok(dir) = open(
            &folder.path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        ) else {
            return false;
        };
        if check_folder && !fstat(&dir).is_ok_and(|st| modified(&st) == folder.modified) {
            return false;
        }
        files.all(|(name, size, mtime)| {
            // Follows symlinks: a linked file's stamp is its target's.
            let name = std::ffi::OsStr::from_bytes(name);
            statat(&dir, name, AtFlags::empty()).is_ok_and(|st| {
                u64::try_from(st.st_size).ok() == Some(size) && modified(&st) == mtime
            })
        })
    }

    fn modified(st: &Stat) -> i128 {
        i128::from(st.st_mtime) * 1_000_000_000 + i128::from(st.st_mtime_nsec)
    }
}

#[cfg(not(unix))]
mod stat {
    use super::{Folder, nanos, os_string_from_bytes};

    pub(super) fn unchanged<'a>(
        folder: &Folder,
        check_folder: bool,
        mut files: impl Iterator<Item = (&'a [u8], u64, i128)>,
    ) -> bool {
        let modified = |path: &std::path::Path| {
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.len(), m.modified().ok().map_or(0, nanos)))
        };
        if check_folder && modified(&folder.path).map(|(_, t)| t) != Some(folder.modified) {
            return false;
        }
        files.all(|(name, size, mtime)| {
            os_string_from_bytes(name)
                .is_some_and(|name| modified(&folder.path.join(name)) == Some((size, mtime)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_damage_is_refused() {
        let mut recorder = Recorder::new();
        let old = SystemTime::now() - Duration::from_secs(60);
        let a = recorder.folder(Path::new("/k"), Some(old));
        let b = recorder.folder(Path::new("/k/sub dir"), Some(old));
        for (folder, name) in [(a, "x.md"), (a, "y.md"), (b, "z é.md")] {
            recorder.file(
                folder,
                name.into(),
                Some(Stamp {
                    size: 42,
                    modified: Some(old),
                }),
            );
        }
        let snapshot = recorder.finish().expect("all settled");
        let bytes = snapshot.to_bytes();
        assert_eq!(Snapshot::from_bytes(&bytes), Some(snapshot));
        assert_eq!(Snapshot::from_bytes(&bytes[..bytes.len() - 1]), None);
        assert_eq!(
            Snapshot::from_bytes(&[bytes.as_slice(), b"x"].concat()),
            None
        );
        assert_eq!(Snapshot::from_bytes(b"lore-snapshot 0\n"), None);
    }

    #[test]
    fn anything_modified_just_now_makes_no_snapshot() {
        let mut recorder = Recorder::new();
        let old = SystemTime::now() - Duration::from_secs(60);
        let folder = recorder.folder(Path::new("/k"), Some(old));
        recorder.file(
            folder,
            "new.md".into(),
            Some(Stamp {
                size: 1,
                modified: Some(SystemTime::now()),
            }),
        );
        assert_eq!(recorder.finish(), None);
        let mut recorder = Recorder::new();
        recorder.folder(Path::new("/k"), Some(SystemTime::now()));
        assert_eq!(recorder.finish(), None);
    }
}

#[cfg(all(test, unix))]
mod scan_tests {
    use std::fs;
    use std::time::{Duration, SystemTime};

    use crate::sources::SourceSet;

    /// Sets every modification time under `dir` (folders last) to `ago`
    /// in the past, as if nothing had been touched for a while.
    fn settle(dir: &std::path::Path, ago: Duration) {
        let when = SystemTime::now() - ago;
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_symlink() {
                continue;
            }
            if path.is_dir() {
                settle(&path, ago);
            } else {
                fs::File::options()
                    .append(true)
                    .open(&path)
                    .unwrap()
                    .set_modified(when)
                    .unwrap();
            }
        }
        fs::File::open(dir).unwrap().set_modified(when).unwrap();
    }

    fn snapshot_of(dir: &std::path::Path) -> Option<super::Snapshot> {
        let sources = SourceSet {
            builtin: None,
            overlays: vec![dir.to_path_buf()],
        };
        sources.scan_with_snapshot("md").1
    }

    #[test]
    fn a_snapshot_sees_edits_additions_removals_and_renames() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("sub")).unwrap();
        fs::write(root.join("a.md"), "aardvark").unwrap();
        fs::write(root.join("sub/b.md"), "badger").unwrap();
        assert!(snapshot_of(root).is_none(), "just written: not settled");

        type Change = fn(&std::path::Path);
        let changes: [(&str, Change); 6] = [
            ("edit in place, same size", |r| {
                fs::write(r.join("a.md"), "platypus").unwrap()
            }),
            ("add in a sub-folder", |r| {
                fs::write(r.join("sub/c.md"), "capybara").unwrap()
            }),
            ("remove", |r| fs::remove_file(r.join("sub/b.md")).unwrap()),
            ("rename", |r| {
                fs::rename(r.join("a.md"), r.join("z.md")).unwrap()
            }),
            ("add a folder", |r| fs::create_dir(r.join("new")).unwrap()),
            ("ignored file added", |r| {
                fs::write(r.join("notes.txt"), "x").unwrap()
            }),
        ];
        for (step, (what, change)) in changes.iter().enumerate() {
            settle(root, Duration::from_secs(3600 + step as u64 * 60));
            let snapshot = snapshot_of(root).expect("settled");
            assert!(snapshot.unchanged(), "{what}: nothing changed yet");
            let again = super::Snapshot::from_bytes(&snapshot.to_bytes()).unwrap();
            change(root);
            // Even a change a scan would not see (a .txt file) changes the
            // folder: the snapshot only says "look again".
            assert!(!snapshot.unchanged(), "{what}");
            assert!(!again.unchanged(), "{what}, after a round trip");
        }
    }

    #[test]
    fn a_scan_with_warnings_makes_no_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "a").unwrap();
        std::os::unix::fs::symlink("/nonexistent/target.md", dir.path().join("gone.md")).unwrap();
        settle(dir.path(), Duration::from_secs(3600));
        assert!(snapshot_of(dir.path()).is_none());
    }
}
