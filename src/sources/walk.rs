//! Walking one overlay folder: the files it holds that lore reads, each with
//! its metadata, in name order.
//!
//! Two phases, so that a big overlay is fast and the result never depends on
//! thread timing:
//!
//! 1. **List.** Every folder is read and its candidate files are stat'ed,
//!    several folders at once when there are many. Listing a folder and
//!    stat'ing a file each cost about a microsecond of system time per entry,
//!    and a `lore search` on 10,000 files pays them on every run to know its
//!    index is fresh. Symlinks are resolved here too.
//! 2. **Walk.** The listings are walked depth-first in name order on one
//!    thread, applying the rules that depend on order: a folder reached twice
//!    (a symlink back up the tree, or two links to one place) is read where it
//!    is first met and reported where it is met again.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex};
use std::time::SystemTime;

use super::{Stamp, has_extension};
use crate::cores;
use crate::diagnostic::Diagnostic;

/// Below this many files in one folder, its stats run on the thread that
/// listed it; above, they are shared out (a flat folder of notes would
/// otherwise keep one core busy while the other waits).
const SPLIT_STATS_AT: usize = 2_000;

/// One file an overlay walk found.
pub(super) struct Found {
    /// Path relative to the overlay root, `/`-separated: the file's id.
    pub rel: String,
    /// Where it is, through the folders as walked (symlinks unresolved).
    pub path: PathBuf,
    /// Its size and modification time (a symlink's target's), or why they
    /// could not be read.
    pub stamp: io::Result<Stamp>,
    /// The folder it was listed in (an index into `Walked::folders`) and
    /// its name there: enough to stat it again without a walk.
    pub folder: usize,
    pub name: OsString,
}

/// What a walk found: the files, and every folder it read.
pub(super) struct Walked {
    pub found: Vec<Found>,
    /// Ids of the other things a link may name: every folder and every
    /// file with no extension (`LICENSE`, `OWNERS`), so that `lore check`
    /// can tell a link to one from a link to nothing. Files with another
    /// extension are left out: links to them are never checked.
    pub others: Vec<String>,
    pub folders: Vec<WalkedFolder>,
    /// The walk met something only another walk can tell has changed (a
    /// broken symlink, an unreadable folder, a link leading outside): a
    /// snapshot of the folders read cannot vouch for it. A duplicate
    /// folder link is not such a thing: the folders holding it and its
    /// target are both recorded.
    pub uncertain: bool,
}

/// A folder a walk read, by canonical path, and its modification time
/// before it was read: while that is unchanged, so are its entries.
pub(super) struct WalkedFolder {
    pub canonical: PathBuf,
    pub modified: Option<SystemTime>,
}

/// Lists every non-hidden file under `root` ending in `.{extension}`, with
/// ids relative to `root`, sorted by id. Folders and symlinks that cannot be
/// used become warnings.
///
/// Symlinks are followed only while they stay inside the overlay folder: a
/// link to `/` would walk the whole file system, and a link to
/// `~/.ssh/id_rsa` named `notes.md` would put a file the user never meant to
/// share into the index and onto the screen. Knowledge from elsewhere is
/// added with its own `--knowledge` folder instead.
pub(super) fn walk_dir(root: &Path, extension: &str, warnings: &mut Vec<Diagnostic>) -> Walked {
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let lister = Lister {
        root: &canonical,
        extension,
    };
    let listings = lister.list_all();
    let real = real_folders(&canonical, &listings);
    let mut walk = Walk {
        listings,
        real,
        extension,
        seen: HashSet::new(),
        warnings,
        walked: Walked {
            found: Vec::new(),
            others: Vec::new(),
            folders: Vec::new(),
            uncertain: false,
        },
    };
    walk.folder(root, &canonical, "");
    walk.walked
}

/// What phase 1 learnt of one folder: its modification time and its
/// entries in name order, hidden entries and files of other kinds left out.
type Listing = Result<(Option<SystemTime>, Vec<Entry>), String>;

struct Entry {
    name: OsString,
    kind: EntryKind,
}

enum EntryKind {
    /// A real sub-folder.
    Folder,
    /// A real file with the wanted extension, and its stamp.
    File(io::Result<Stamp>),
    /// A real file with no extension (see `Walked::others`).
    Bare,
    /// A symlink: its canonical target, or why it is skipped.
    Link(Result<Target, String>),
}

/// Where a symlink leads, inside the overlay.
struct Target {
    canonical: PathBuf,
    is_dir: bool,
    /// For a file: its stamp.
    file: Option<Stamp>,
}

/// Phase 1: reads folders, by canonical path.
struct Lister<'a> {
    /// The overlay folder's canonical path: nothing outside it is read.
    root: &'a Path,
    extension: &'a str,
}

/// The folders still to list, shared by the listing threads.
struct Queue {
    waiting: Vec<PathBuf>,
    /// Folders taken but not finished: more may come from them.
    busy: usize,
    /// Every folder ever queued, so each is listed once (and a symlink
    /// loop ends).
    queued: HashSet<PathBuf>,
    done: HashMap<PathBuf, Listing>,
}

impl Lister<'_> {
    fn list_all(&self) -> HashMap<PathBuf, Listing> {
        let mut queue = Queue {
            waiting: Vec::new(),
            busy: 0,
            queued: HashSet::from([self.root.to_path_buf()]),
            done: HashMap::new(),
        };
        // The root alone says whether threads are worth starting: a folder
        // with a few sub-folders is listed faster than a thread starts.
        let listing = self.list(self.root);
        queue.enqueue_children(self.root, &listing);
        queue.done.insert(self.root.to_path_buf(), listing);
        let threads = cores::available();
        if threads < 2 || queue.waiting.len() < 2 {
            while let Some(dir) = queue.waiting.pop() {
                let listing = self.list(&dir);
                queue.enqueue_children(&dir, &listing);
                queue.done.insert(dir, listing);
            }
            return queue.done;
        }
        let shared = (Mutex::new(queue), Condvar::new());
        std::thread::scope(|scope| {
            for _ in 1..threads {
                scope.spawn(|| self.work(&shared));
            }
            self.work(&shared);
        });
        let (queue, _) = shared;
        queue.into_inner().unwrap_or_else(|e| e.into_inner()).done
    }

    /// One listing thread: takes folders until none are left or coming.
    fn work(&self, (queue, changed): &(Mutex<Queue>, Condvar)) {
        let lock = || queue.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let dir = {
                let mut q = lock();
                loop {
                    if let Some(dir) = q.waiting.pop() {
                        q.busy += 1;
                        break dir;
                    }
                    if q.busy == 0 {
                        changed.notify_all();
                        return;
                    }
                    q = changed.wait(q).unwrap_or_else(|e| e.into_inner());
                }
            };
            let listing = self.list(&dir);
            let mut q = lock();
            q.enqueue_children(&dir, &listing);
            q.done.insert(dir, listing);
            q.busy -= 1;
            changed.notify_all();
        }
    }

    /// Reads one folder: its entries sorted by name, wanted files stat'ed
    /// and symlinks resolved.
    fn list(&self, dir: &Path) -> Listing {
        // Before reading: an entry added meanwhile makes the folder newer
        // than recorded, never older.
        let modified = fs::metadata(dir).and_then(|m| m.modified()).ok();
        let read =
            fs::read_dir(dir).map_err(|err| format!("cannot read folder, skipped: {err}"))?;
        let mut entries = Vec::new();
        let mut files: Vec<(usize, fs::DirEntry)> = Vec::new();
        for entry in read.filter_map(Result::ok) {
            let name = entry.file_name();
            if name.as_encoded_bytes().starts_with(b".") {
                continue;
            }
            let kind = match entry.file_type() {
                Ok(kind) if kind.is_dir() => EntryKind::Folder,
                Ok(kind) if kind.is_file() => {
                    if !has_extension(&name.to_string_lossy(), self.extension) {
                        if !name.as_encoded_bytes().contains(&b'.') {
                            entries.push(Entry {
                                name,
                                kind: EntryKind::Bare,
                            });
                        }
                        continue;
                    }
                    files.push((entries.len(), entry));
                    // Filled in below, when the folder's files are stat'ed.
                    EntryKind::File(Err(io::ErrorKind::NotFound.into()))
                }
                Ok(kind) if !kind.is_symlink() => continue,
                _ => EntryKind::Link(self.follow(&entry.path())),
            };
            entries.push(Entry { name, kind });
        }
        for (at, stamp) in stat_all(files) {
            entries[at].kind = EntryKind::File(stamp);
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok((modified, entries))
    }

    /// Resolves a symlink: its canonical target and metadata, or why it is
    /// skipped (dangling, unreadable, or pointing outside the overlay).
    fn follow(&self, link: &Path) -> Result<Target, String> {
        let target =
            fs::canonicalize(link).map_err(|err| format!("cannot read, skipped: {err}"))?;
        if !target.starts_with(self.root) {
            return Err(format!(
                "symlink to {}, outside the knowledge folder {}, skipped",
                target.display(),
                self.root.display()
            ));
        }
        let meta = fs::metadata(&target).map_err(|err| format!("cannot read, skipped: {err}"))?;
        Ok(Target {
            canonical: target,
            is_dir: meta.is_dir(),
            file: meta.is_file().then(|| Stamp::of(&meta)),
        })
    }
}

impl Queue {
    /// Queues the folders a listing leads to that were never queued.
    fn enqueue_children(&mut self, dir: &Path, listing: &Listing) {
        let Ok((_, entries)) = listing else { return };
        for entry in entries {
            let next = match &entry.kind {
                EntryKind::Folder => dir.join(&entry.name),
                EntryKind::Link(Ok(target)) if target.is_dir => target.canonical.clone(),
                _ => continue,
            };
            if self.queued.insert(next.clone()) {
                self.waiting.push(next);
            }
        }
    }
}

/// Stats folder entries (relative to the open folder, so each is one cheap
/// lookup), sharing a big folder's out between threads.
fn stat_all(files: Vec<(usize, fs::DirEntry)>) -> Vec<(usize, io::Result<Stamp>)> {
    let stat = |(at, entry): (usize, fs::DirEntry)| (at, entry.metadata().map(|m| Stamp::of(&m)));
    if files.len() < SPLIT_STATS_AT || cores::available() < 2 {
        return files.into_iter().map(stat).collect();
    }
    let threads = cores::available();
    let per_thread = files.len().div_ceil(threads);
    let mut parts: Vec<Vec<(usize, fs::DirEntry)>> = Vec::new();
    let mut rest = files.into_iter();
    loop {
        let part: Vec<_> = rest.by_ref().take(per_thread).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(stat).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    })
}

/// The folders reachable from `root` without following a symlink, by
/// canonical path: each is read at its own path, so a symlink to one is a
/// duplicate whatever the names' order (`a-shortcut -> notes` must not
/// take `notes/doc.md` away from its real path).
fn real_folders(root: &Path, listings: &HashMap<PathBuf, Listing>) -> HashSet<PathBuf> {
    let mut real = HashSet::from([root.to_path_buf()]);
    let mut waiting = vec![root.to_path_buf()];
    while let Some(dir) = waiting.pop() {
        let Some(Ok((_, entries))) = listings.get(&dir) else {
            continue;
        };
        for entry in entries {
            if let EntryKind::Folder = entry.kind {
                let sub = dir.join(&entry.name);
                if real.insert(sub.clone()) {
                    waiting.push(sub);
                }
            }
        }
    }
    real
}

/// Phase 2: the depth-first walk over the listings.
struct Walk<'a> {
    /// Taken out as they are walked: each folder is walked once.
    listings: HashMap<PathBuf, Listing>,
    /// Folders read at their own path (see `real_folders`).
    real: HashSet<PathBuf>,
    extension: &'a str,
    /// Canonical paths of folders already walked: a symlink back up the
    /// tree is reported once instead of recursing forever.
    seen: HashSet<PathBuf>,
    warnings: &'a mut Vec<Diagnostic>,
    walked: Walked,
}

impl Walk<'_> {
    /// Walks one folder: `dir` is its path as reached (for messages and
    /// reading), `canonical` its real path, `rel_dir` its id (empty for the
    /// root).
    fn folder(&mut self, dir: &Path, canonical: &Path, rel_dir: &str) {
        if !self.seen.insert(canonical.to_path_buf()) {
            self.duplicate(dir, canonical);
            return;
        }
        let (modified, entries) = match self.listings.remove(canonical) {
            Some(Ok(listing)) => listing,
            Some(Err(message)) => {
                self.uncertain(dir, message);
                return;
            }
            None => {
                self.uncertain(dir, "cannot read folder, skipped: it was not listed".into());
                return;
            }
        };
        let folder = self.walked.folders.len();
        self.walked.folders.push(WalkedFolder {
            canonical: canonical.to_path_buf(),
            modified,
        });
        for entry in entries {
            // A name that is not UTF-8 (Latin-1 from an old zip or tarball)
            // has no path a link or `lore show` can name, and two such names
            // read alike: `caf\xe9.md` and `caf\xe8.md` became one document.
            let Some(name) = entry.name.to_str() else {
                let escaped = entry.name.as_encoded_bytes().escape_ascii().to_string();
                self.warnings.push(Diagnostic::warning(
                    dir.join(&escaped).display().to_string(),
                    None,
                    "name is not UTF-8, skipped: rename it".to_string(),
                ));
                continue;
            };
            let rel = || {
                if rel_dir.is_empty() {
                    name.to_string()
                } else {
                    format!("{rel_dir}/{name}")
                }
            };
            let path = dir.join(&entry.name);
            match entry.kind {
                EntryKind::Folder => {
                    self.walked.others.push(rel());
                    self.folder(&path, &canonical.join(&entry.name), &rel());
                }
                EntryKind::Bare => self.walked.others.push(rel()),
                EntryKind::File(stamp) => self.walked.found.push(Found {
                    rel: rel(),
                    path,
                    stamp,
                    folder,
                    name: entry.name.clone(),
                }),
                EntryKind::Link(Err(message)) => self.uncertain(&path, message),
                EntryKind::Link(Ok(target)) => {
                    if target.is_dir && self.real.contains(&target.canonical) {
                        // Read at its own path, before or after this.
                        self.duplicate(&path, &target.canonical);
                    } else if target.is_dir {
                        self.walked.others.push(rel());
                        self.folder(&path, &target.canonical, &rel());
                    } else if let Some(stamp) = target.file
                        && has_extension(name, self.extension)
                    {
                        self.walked.found.push(Found {
                            rel: rel(),
                            path,
                            stamp: Ok(stamp),
                            folder,
                            name: entry.name.clone(),
                        });
                    }
                }
            }
        }
    }
}

impl Walk<'_> {
    /// A folder reached a second time (through a symlink) is skipped; its
    /// files keep their first path. Reported, but nothing a snapshot
    /// cannot vouch for.
    fn duplicate(&mut self, link: &Path, canonical: &Path) {
        let message = if link
            .parent()
            .is_some_and(|p| fs::canonicalize(p).is_ok_and(|p| p.starts_with(canonical)))
        {
            "symlink loop: links back to a folder that holds it, skipped".to_string()
        } else {
            format!(
                "symlink to a folder already read as {}: duplicate, skipped",
                canonical.display()
            )
        };
        self.warnings.push(Diagnostic::warning(
            crate::diagnostic::shown(link),
            None,
            message,
        ));
    }

    /// A problem only a full walk can see resolved.
    fn uncertain(&mut self, path: &Path, message: String) {
        self.walked.uncertain = true;
        self.warnings.push(Diagnostic::warning(
            crate::diagnostic::shown(path),
            None,
            message,
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn rels(found: &[Found]) -> Vec<&str> {
        found.iter().map(|f| f.rel.as_str()).collect()
    }

    /// Enough folders for the listing threads to start; the answer must be
    /// the one-thread, name-order answer every time.
    #[test]
    fn a_walk_is_in_name_order_and_the_same_every_time() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["c", "a", "b", "a/deep"] {
            fs::create_dir_all(root.join(folder)).unwrap();
            for name in ["2.md", "1.md", "skip.txt", ".hidden.md"] {
                fs::write(root.join(folder).join(name), folder).unwrap();
            }
        }
        // Met before `c` in name order, yet `c` is read at its own path
        // and the link is the repeat.
        symlink(root.join("c"), root.join("b-link")).unwrap();
        symlink(root.join("a/1.md"), root.join("top.md")).unwrap();
        let expected = [
            "a/1.md",
            "a/2.md",
            "a/deep/1.md",
            "a/deep/2.md",
            "b/1.md",
            "b/2.md",
            "c/1.md",
            "c/2.md",
            "top.md",
        ];
        for _ in 0..20 {
            let mut warnings = Vec::new();
            let walked = walk_dir(root, "md", &mut warnings);
            let found = walked.found;
            assert_eq!(rels(&found), expected);
            assert_eq!(warnings.len(), 1, "{warnings:?}");
            assert!(warnings[0].message.contains("duplicate"), "{warnings:?}");
            assert_eq!(warnings[0].path, root.join("b-link").display().to_string());
            assert!(!walked.uncertain, "a duplicate needs no full walk");
            let top = found.iter().find(|f| f.rel == "top.md").unwrap();
            assert_eq!(top.path, root.join("top.md"));
            assert_eq!(top.stamp.as_ref().unwrap().size, 1);
        }
    }

    /// Latin-1 names, as an old zip or tarball leaves them on Linux: two
    /// names that differ only in a byte that is not UTF-8 were read alike
    /// and one document vanished without a word. Each is skipped with a
    /// warning that shows its bytes.
    #[test]
    fn names_that_are_not_utf8_are_skipped_with_a_warning() {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for name in [&b"caf\xe9.md"[..], b"caf\xe8.md", b"cafe.md"] {
            fs::write(root.join(OsStr::from_bytes(name)), "# x\n").unwrap();
        }
        let mut warnings = Vec::new();
        let walked = walk_dir(root, "md", &mut warnings);
        assert_eq!(rels(&walked.found), ["cafe.md"]);
        let paths: Vec<&str> = warnings.iter().map(|w| w.path.as_str()).collect();
        assert_eq!(paths.len(), 2, "{warnings:?}");
        assert!(
            paths.iter().any(|p| p.ends_with("caf\\xe9.md")),
            "{paths:?}"
        );
        assert!(
            paths.iter().any(|p| p.ends_with("caf\\xe8.md")),
            "{paths:?}"
        );
        assert!(warnings[0].message.contains("not UTF-8"));
    }

    /// A flat folder big enough to share its stats out still gives every
    /// file its own size.
    #[test]
    fn a_big_flat_folder_keeps_each_files_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let count = SPLIT_STATS_AT + 7;
        for i in 0..count {
            fs::write(dir.path().join(format!("{i:05}.md")), "x".repeat(i % 13)).unwrap();
        }
        let found = walk_dir(dir.path(), "md", &mut Vec::new()).found;
        assert_eq!(found.len(), count);
        for (i, file) in found.iter().enumerate() {
            assert_eq!(file.rel, format!("{i:05}.md"));
            assert_eq!(file.stamp.as_ref().unwrap().size, (i % 13) as u64);
        }
    }
}
