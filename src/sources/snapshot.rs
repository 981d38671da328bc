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
//! will. A scan that met an unreadable folder or a dangling or outside
//! symlink makes none either: only a full walk can tell when those get
//! resolved. A symlink to a folder already read (a loop, or a second name
//! for a folder, as tldr-pages' `pages.en -> pages`) is reported but
//! spoils nothing: replacing the link changes the folder holding it, and
//! its target is recorded at its own path.

use std::ffi::OsString;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::Stamp;

/// How old every modification must be for a scan to make a snapshot.
pub const SETTLE: Duration = Duration::from_secs(2);
/// Files checked by one thread at a time: a flat folder of thousands of
/// files is still shared out.
const FILES_PER_TASK: usize = 512;
const MAGIC: &[u8] = b"lore-snapshot 2\n";

/// What a scan of the overlay folders saw.
///
/// The files are kept as they are stored (see [`entry`]) and decoded only
/// while they are checked: reading a snapshot of 10,000 files allocates
/// nothing per file, and the threads that check share the decoding too.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Snapshot {
    folders: Vec<Folder>,
    /// The checks, in order: each folder once with its first files, then
    /// its further files in more tasks. Their ranges cover `files` end to
    /// end, so no file can escape a check.
    tasks: Vec<Task>,
    /// Every file's entry, grouped by folder.
    files: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Folder {
    /// Canonical path.
    path: PathBuf,
    modified: i128,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Task {
    /// Index into `Snapshot::folders`.
    folder: usize,
    /// Also compare the folder's own modification time.
    check_folder: bool,
    /// Byte range of its files' entries in `Snapshot::files`.
    files: Range<usize>,
}

/// A file's entry: its name's length (u16), the name, its size (u64), and
/// its modification time as seconds (i64) and nanoseconds (u32) since the
/// Unix epoch, as `stat` gives them; little-endian.
mod entry {
    pub struct Entry<'a> {
        pub name: &'a [u8],
        pub size: u64,
        pub seconds: i64,
        pub nanos: u32,
    }

    pub fn put(out: &mut Vec<u8>, name: &[u8], size: u64, modified: i128) -> bool {
        let Ok(len) = u16::try_from(name.len()) else {
            return false;
        };
        let Ok(seconds) = i64::try_from(modified.div_euclid(1_000_000_000)) else {
            return false;
        };
        let nanos = modified.rem_euclid(1_000_000_000) as u32;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(name);
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&seconds.to_le_bytes());
        out.extend_from_slice(&nanos.to_le_bytes());
        true
    }

    /// The first entry of `bytes` and what follows it; `None` if `bytes`
    /// does not start with a whole entry.
    pub fn take(bytes: &[u8]) -> Option<(Entry<'_>, &[u8])> {
        let (len, rest) = bytes.split_first_chunk::<2>()?;
        let len = usize::from(u16::from_le_bytes(*len));
        if rest.len() < len {
            return None;
        }
        let (name, rest) = rest.split_at(len);
        let (size, rest) = rest.split_first_chunk::<8>()?;
        let (seconds, rest) = rest.split_first_chunk::<8>()?;
        let (nanos, rest) = rest.split_first_chunk::<4>()?;
        let entry = Entry {
            name,
            size: u64::from_le_bytes(*size),
            seconds: i64::from_le_bytes(*seconds),
            nanos: u32::from_le_bytes(*nanos),
        };
        Some((entry, rest))
    }

    /// Calls `matches` on each entry of `bytes` until one does not match;
    /// false then, or if `bytes` is not whole entries end to end.
    pub fn all(mut bytes: &[u8], mut matches: impl FnMut(&Entry<'_>) -> bool) -> bool {
        while !bytes.is_empty() {
            match take(bytes) {
                Some((entry, rest)) if matches(&entry) => bytes = rest,
                _ => return false,
            }
        }
        true
    }
}

/// Collects a snapshot while a scan runs; `None` at the end if the scan saw
/// anything that makes a snapshot unsafe.
pub(super) struct Recorder {
    folders: Vec<Folder>,
    /// Per folder, its files' entries.
    files: Vec<Vec<u8>>,
    /// Per folder, how many files.
    counts: Vec<usize>,
    /// Nothing modified after this may be recorded.
    settled_before: i128,
    usable: bool,
}

impl Recorder {
    pub fn new() -> Recorder {
        Recorder {
            folders: Vec::new(),
            files: Vec::new(),
            counts: Vec::new(),
            settled_before: nanos(SystemTime::now() - SETTLE),
            usable: true,
        }
    }

    /// Records a folder; returns its index for `file`.
    pub fn folder(&mut self, path: &Path, modified: Option<SystemTime>) -> usize {
        self.check(modified);
        self.folders.push(Folder {
            path: path.to_path_buf(),
            modified: modified.map_or(0, nanos),
        });
        self.files.push(Vec::new());
        self.counts.push(0);
        self.folders.len() - 1
    }

    pub fn file(&mut self, folder: usize, name: OsString, stamp: Option<Stamp>) {
        let Some(stamp) = stamp else {
            self.usable = false;
            return;
        };
        self.check(stamp.modified);
        let modified = stamp.modified.map_or(0, nanos);
        if !entry::put(
            &mut self.files[folder],
            name.as_encoded_bytes(),
            stamp.size,
            modified,
        ) {
            self.usable = false;
        }
        self.counts[folder] += 1;
    }

    /// Marks the scan as one a snapshot cannot stand for.
    pub fn spoil(&mut self) {
        self.usable = false;
    }

    pub fn finish(self) -> Option<Snapshot> {
        if !self.usable {
            return None;
        }
        let mut snapshot = Snapshot {
            folders: self.folders,
            ..Snapshot::default()
        };
        for (folder, (bytes, count)) in self.files.iter().zip(self.counts).enumerate() {
            // Split where a task's share of files ends: walk the entries.
            let mut rest = bytes.as_slice();
            let mut left = count;
            let mut first = true;
            loop {
                let start = snapshot.files.len();
                let mut taken = 0;
                while taken < FILES_PER_TASK.min(left) {
                    let (_, next) = entry::take(rest)?;
                    snapshot
                        .files
                        .extend_from_slice(&rest[..rest.len() - next.len()]);
                    rest = next;
                    taken += 1;
                }
                left -= taken;
                snapshot.tasks.push(Task {
                    folder,
                    check_folder: first,
                    files: start..snapshot.files.len(),
                });
                first = false;
                if left == 0 {
                    break;
                }
            }
        }
        Some(snapshot)
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
        let check = self.check();
        crate::cores::share_out(check.helpers(), || check.work(), || ());
        check.unchanged()
    }

    /// The same check, to share out between threads that have other work:
    /// each calls [`Check::work`], then [`Check::unchanged`] tells.
    pub fn check(&self) -> Check<'_> {
        Check {
            snapshot: self,
            next: AtomicUsize::new(0),
            changed: AtomicBool::new(false),
        }
    }

    fn task_unchanged(&self, task: &Task) -> bool {
        let Some(files) = self.files.get(task.files.clone()) else {
            return false;
        };
        stat::unchanged(&self.folders[task.folder], task.check_folder, files)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        put_len(&mut out, self.folders.len());
        for folder in &self.folders {
            put_bytes(&mut out, folder.path.as_os_str().as_encoded_bytes());
            out.extend_from_slice(&folder.modified.to_le_bytes());
        }
        put_len(&mut out, self.tasks.len());
        for task in &self.tasks {
            put_len(&mut out, task.folder);
            out.push(u8::from(task.check_folder));
            put_len(&mut out, task.files.end - task.files.start);
        }
        out.extend_from_slice(&self.files);
        out
    }

    /// Reads `to_bytes`'s output, keeping the buffer for the files'
    /// entries; `None` if it is damaged or from another version. (Damage
    /// inside an entry is found when it is checked, and fails the check.)
    pub fn from_bytes(mut bytes: Vec<u8>) -> Option<Snapshot> {
        let mut r = Reader(bytes.strip_prefix(MAGIC)?);
        let mut snapshot = Snapshot::default();
        // A damaged count must not make a huge allocation: each folder
        // takes at least 24 bytes and each task 17.
        let count = r.len()?;
        snapshot.folders.reserve_exact(count.min(r.0.len() / 24));
        for _ in 0..count {
            let path = PathBuf::from(os_string_from_bytes(r.bytes()?)?);
            let modified = i128::from_le_bytes(r.take()?);
            snapshot.folders.push(Folder { path, modified });
        }
        let count = r.len()?;
        snapshot.tasks.reserve_exact(count.min(r.0.len() / 17));
        let mut at: usize = 0;
        for _ in 0..count {
            let folder = r.len()?;
            let check_folder = match r.take::<1>()? {
                [0] => false,
                [1] => true,
                _ => return None,
            };
            let end = at.checked_add(r.len()?)?;
            if folder >= snapshot.folders.len() {
                return None;
            }
            snapshot.tasks.push(Task {
                folder,
                check_folder,
                files: at..end,
            });
            at = end;
        }
        // The tasks cover the entries exactly.
        if r.0.len() != at {
            return None;
        }
        let header = bytes.len() - at;
        bytes.drain(..header);
        snapshot.files = bytes;
        Some(snapshot)
    }
}

/// A check of a [`Snapshot`] in progress: a queue of folders (and slices of
/// big folders) that any number of threads take from.
pub struct Check<'a> {
    snapshot: &'a Snapshot,
    next: AtomicUsize,
    changed: AtomicBool,
}

impl Check<'_> {
    /// How many threads besides the caller are worth starting: one per
    /// core, since the caller may have other work first and a new thread
    /// may be queued behind it for a while (see `cores::share_out`).
    pub fn helpers(&self) -> usize {
        crate::cores::available().min(self.snapshot.tasks.len().saturating_sub(1))
    }

    /// Checks folders until none are left or one has changed.
    pub fn work(&self) {
        let tasks = &self.snapshot.tasks;
        while !self.changed.load(Ordering::Relaxed) {
            let Some(task) = tasks.get(self.next.fetch_add(1, Ordering::Relaxed)) else {
                return;
            };
            if !self.snapshot.task_unchanged(task) {
                self.changed.store(true, Ordering::Relaxed);
            }
        }
    }

    /// After every `work` has returned: true if nothing has changed.
    pub fn unchanged(&self) -> bool {
        !self.changed.load(Ordering::Relaxed)
            && self.next.load(Ordering::Relaxed) >= self.snapshot.tasks.len()
    }
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

    use super::{Folder, entry};

    pub(super) fn unchanged(folder: &Folder, check_folder: bool, files: &[u8]) -> bool {
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
        entry::all(files, |file| {
            // Follows symlinks: a linked file's stamp is its target's.
            let name = std::ffi::OsStr::from_bytes(file.name);
            statat(&dir, name, AtFlags::empty()).is_ok_and(|st| {
                u64::try_from(st.st_size).ok() == Some(file.size)
                    && i128::from(st.st_mtime) == i128::from(file.seconds)
                    && u32::try_from(st.st_mtime_nsec).ok() == Some(file.nanos)
            })
        })
    }

    fn modified(st: &Stat) -> i128 {
        i128::from(st.st_mtime) * 1_000_000_000 + i128::from(st.st_mtime_nsec)
    }
}

#[cfg(not(unix))]
mod stat {
    use super::{Folder, entry, nanos, os_string_from_bytes};

    pub(super) fn unchanged(folder: &Folder, check_folder: bool, files: &[u8]) -> bool {
        let modified = |path: &std::path::Path| {
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.len(), m.modified().ok().map_or(0, nanos)))
        };
        if check_folder && modified(&folder.path).map(|(_, t)| t) != Some(folder.modified) {
            return false;
        }
        entry::all(files, |file| {
            let recorded = i128::from(file.seconds) * 1_000_000_000 + i128::from(file.nanos);
            os_string_from_bytes(file.name).is_some_and(|name| {
                modified(&folder.path.join(name)) == Some((file.size, recorded))
            })
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
        let read = |bytes: &[u8]| Snapshot::from_bytes(bytes.to_vec());
        assert_eq!(read(&bytes), Some(snapshot));
        assert_eq!(read(&bytes[..bytes.len() - 1]), None);
        assert_eq!(read(&[bytes.as_slice(), b"x"].concat()), None);
        assert_eq!(read(b"lore-snapshot 1\n"), None);
        assert_eq!(read(b""), None);
    }

    /// A folder of more files than one task takes is checked in several,
    /// every file in one of them; a folder without files still has its own.
    #[test]
    fn big_folders_are_split_and_empty_ones_kept() {
        let mut recorder = Recorder::new();
        let old = SystemTime::now() - Duration::from_secs(60);
        let big = recorder.folder(Path::new("/k"), Some(old));
        recorder.folder(Path::new("/k/empty"), Some(old));
        for i in 0..FILES_PER_TASK * 2 + 1 {
            let stamp = Stamp {
                size: i as u64,
                modified: Some(old),
            };
            recorder.file(big, format!("{i}.md").into(), Some(stamp));
        }
        let snapshot = recorder.finish().expect("all settled");
        let tasks: Vec<(usize, bool)> = snapshot
            .tasks
            .iter()
            .map(|t| (t.folder, t.check_folder))
            .collect();
        assert_eq!(tasks, [(0, true), (0, false), (0, false), (1, true)]);
        let mut sizes = Vec::new();
        for task in &snapshot.tasks {
            assert!(entry::all(&snapshot.files[task.files.clone()], |e| {
                sizes.push(e.size);
                true
            }));
        }
        assert_eq!(
            sizes,
            (0..FILES_PER_TASK as u64 * 2 + 1).collect::<Vec<_>>()
        );
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
            let again = super::Snapshot::from_bytes(snapshot.to_bytes()).unwrap();
            change(root);
            // Even a change a scan would not see (a .txt file) changes the
            // folder: the snapshot only says "look again".
            assert!(!snapshot.unchanged(), "{what}");
            assert!(!again.unchanged(), "{what}, after a round trip");
        }
    }

    /// Damage inside a file's entry is not seen when the record is read,
    /// but it fails the check, which only costs a full scan.
    #[test]
    fn a_damaged_entry_fails_the_check() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "aardvark").unwrap();
        settle(dir.path(), Duration::from_secs(3600));
        let bytes = snapshot_of(dir.path()).expect("settled").to_bytes();
        assert!(
            super::Snapshot::from_bytes(bytes.clone())
                .unwrap()
                .unchanged()
        );
        // The last byte is the top of the file's nanoseconds; the first
        // entry byte after the header is the low byte of its name's length.
        let entry_at = bytes.len() - (2 + "a.md".len() + 8 + 8 + 4);
        for at in [bytes.len() - 1, entry_at] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            let snapshot = super::Snapshot::from_bytes(damaged).expect("header intact");
            assert!(!snapshot.unchanged(), "byte {at} damaged");
        }
    }

    /// `pages.en -> pages` and a link back up the tree are duplicates: the
    /// snapshot is still made, and it still sees a change in the folder
    /// both names lead to, or the link turning into a real folder.
    #[test]
    fn a_duplicate_folder_link_keeps_the_snapshot() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir(root.join("pages")).unwrap();
        fs::write(root.join("pages/tar.md"), "tar").unwrap();
        std::os::unix::fs::symlink("pages", root.join("pages.en")).unwrap();
        std::os::unix::fs::symlink("..", root.join("pages/up")).unwrap();
        settle(root, Duration::from_secs(3600));
        let snapshot = snapshot_of(root).expect("duplicates do not spoil the snapshot");
        assert!(snapshot.unchanged());
        fs::write(root.join("pages/zip.md"), "zip").unwrap();
        assert!(!snapshot.unchanged(), "a file added behind both names");

        settle(root, Duration::from_secs(1800));
        let snapshot = snapshot_of(root).expect("settled again");
        fs::remove_file(root.join("pages.en")).unwrap();
        fs::create_dir(root.join("pages.en")).unwrap();
        assert!(!snapshot.unchanged(), "the link replaced by a folder");
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
