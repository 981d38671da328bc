//! Reading a filesystem root the way a probe may: read-only, bounded, and
//! confined.
//!
//! **Confined.** The root folder is opened once, and every path is walked
//! from it one component at a time, each folder opened relative to the one
//! before with `O_NOFOLLOW` (`openat`), never by its full path. So a folder
//! on the way that is swapped for a symlink between two steps is met as a
//! symlink, not followed by the kernel: a probe never opens anything outside
//! the root, whatever changes under it while it reads. A symlink's target is
//! read and resolved inside the root: an absolute target starts again at the
//! root (as it would inside the image), and a `..` that would climb above the
//! root is refused, naming the link.
//!
//! **Bounded.** Only regular files are read (a FIFO or a device is never
//! waited on: files are opened non-blocking and the open file is checked),
//! each up to a byte cap; folder listings stop at an entry cap, and a
//! pattern's matches at [`MAX_MATCHES`] folders. Symlinks to one folder are
//! listed once (`expand`), so links cannot multiply the work.
//!
//! **Never silent.** Whatever a read has to skip (a link out of the root, a
//! loop, something unreadable or swapped mid-read, a listing cut at its cap,
//! a name that is not UTF-8) is recorded once, naming it, and handed to the
//! probe's notes ([`Root::take_skipped`]).
//!
//! Nothing here writes, and nothing here runs a program.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::{MAX_ENTRIES, Note};

/// Symlinks followed while resolving one path, at most (as the kernel's
/// limit): a loop ends here instead of spinning.
const MAX_LINKS: usize = 40;

/// Folders one `expand` pattern may match, at most: far above any real
/// machine (a few toolkits, a few dozen Python environments), far below what
/// symlinked folders can multiply into.
pub const MAX_MATCHES: usize = 4_096;

/// Names that are not UTF-8 quoted in a note, at most.
const NAMED_AT_MOST: usize = 5;

/// A filesystem root: `/` for the running machine, or an unpacked image.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    live: bool,
    /// The root folder, opened once: every path is walked from here.
    top: Arc<sys::Folder>,
    /// What reads had to skip, each once, in the order met.
    skipped: Arc<Mutex<Skipped>>,
}

#[derive(Debug, Default)]
struct Skipped {
    notes: Vec<Note>,
    seen: HashSet<Note>,
}

/// Why a path inside the root could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing there (or a component is not a folder).
    Missing,
    /// A symlink on the way leads out of the root; it was not followed.
    /// `link` is as the user can open it.
    Outside { link: String, target: String },
    /// More than `MAX_LINKS` symlinks, probably a loop, met at `link` (as
    /// the user can open it).
    TooManyLinks { link: String },
    /// There, but not a regular file (a folder, FIFO, socket or device).
    NotAFile,
    /// There, but not a folder.
    NotADir,
    /// `path` changed while it was being read: a folder or file was swapped
    /// for a symlink, or for something else, between two steps.
    Changed { path: String },
    /// The system refused, at `path` (as the user can open it).
    Io { path: String, source: io::Error },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Missing => write!(f, "not found"),
            ReadError::Outside { link, target } => write!(
                f,
                "symlink {link} points outside the root (to {target}); not followed"
            ),
            ReadError::TooManyLinks { link } => {
                write!(f, "too many symlinks (a loop?) at {link}; not followed")
            }
            ReadError::NotAFile => write!(f, "not a regular file; not read"),
            ReadError::NotADir => write!(f, "not a folder"),
            ReadError::Changed { path } => write!(f, "{path} {CHANGED}"),
            ReadError::Io { source, .. } => write!(f, "cannot read: {source}"),
        }
    }
}

const CHANGED: &str = "changed while it was being read (swapped for a symlink?); not read";

impl ReadError {
    /// Whether the problem is worth telling the user: a missing file is the
    /// normal answer to "is it there?", the others are not.
    pub fn is_notable(&self) -> bool {
        !matches!(self, ReadError::Missing | ReadError::NotADir)
    }

    /// The note that tells the user, naming what is at fault: the link for a
    /// link not followed, the component the system refused, else `shown`
    /// (the path asked for). One problem met through several paths is one
    /// note. `None` for what is not notable.
    pub fn note(&self, shown: &str) -> Option<Note> {
        let (path, message) = match self {
            ReadError::Missing | ReadError::NotADir => return None,
            ReadError::Outside { link, target } => (
                link.clone(),
                format!("symlink points outside the root (to {target}); not followed"),
            ),
            ReadError::TooManyLinks { link } => (
                link.clone(),
                "too many symlinks (a loop?); not followed".to_string(),
            ),
            ReadError::NotAFile => (shown.to_string(), self.to_string()),
            ReadError::Changed { path } => (path.clone(), CHANGED.to_string()),
            ReadError::Io { path, source } => (path.clone(), format!("cannot read: {source}")),
        };
        Some(Note {
            path,
            line: None,
            message,
        })
    }
}

/// The start of a file, up to the cap it was read with.
#[derive(Debug)]
pub struct Bytes {
    pub data: Vec<u8>,
    /// The file's size on disk.
    pub size: u64,
    /// True when the file is longer than what was read.
    pub truncated: bool,
}

/// Names in a folder, up to the cap it was listed with, sorted.
#[derive(Debug, Default)]
pub struct Listing {
    pub names: Vec<String>,
    /// True when the folder has more entries than were listed.
    pub truncated: bool,
}

/// What a folder entry is: a symlink is reported as one, not as what it
/// points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    Dir,
    File,
    Symlink,
    Other,
}

/// Entries of a folder with their kinds, up to the cap it was listed with,
/// sorted by name.
#[derive(Debug, Default)]
pub struct Entries {
    pub entries: Vec<(String, EntryKind)>,
    /// True when the folder has more entries than were listed.
    pub truncated: bool,
}

/// A path walked inside the root: the open folders down to the one that
/// holds its last component, and what that component is.
struct Walked {
    folders: Vec<sys::Folder>,
    /// The path inside the root with every symlink resolved.
    inside: String,
    /// The last component's name and kind; `None` for the root itself.
    last: Option<(String, sys::Kind)>,
}

impl Root {
    /// The root at `dir`. `/` is the running machine (where `/proc` means
    /// this machine's kernel).
    pub fn new(dir: &Path) -> io::Result<Root> {
        let dir = fs::canonicalize(dir)?;
        if !fs::metadata(&dir)?.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("{} is not a folder", dir.display()),
            ));
        }
        let top = sys::open_root(&dir)?;
        let live = dir == Path::new("/");
        Ok(Root {
            dir,
            live,
            top: Arc::new(top),
            skipped: Arc::default(),
        })
    }

    /// Whether this root is the running machine.
    pub fn is_live(&self) -> bool {
        self.live
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// A path inside the root as the user can open it: `/etc/os-release` on
    /// the machine, `DIR/etc/os-release` in an unpacked image.
    pub fn show(&self, path: &str) -> String {
        if self.live {
            path.to_string()
        } else {
            format!("{}{}", self.dir.display(), path)
        }
    }

    /// What reads of this root had to skip since the last call, each once,
    /// naming the link, folder or file, in the order met.
    pub fn take_skipped(&self) -> Vec<Note> {
        let mut skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        std::mem::take(&mut skipped.notes)
    }

    fn skip(&self, note: Note) {
        let mut skipped = self.skipped.lock().unwrap_or_else(|p| p.into_inner());
        if skipped.seen.insert(note.clone()) {
            skipped.notes.push(note);
        }
    }

    /// Records `err` if it is notable (`path`: what was asked for), and
    /// returns it.
    fn fail(&self, err: ReadError, path: &str) -> ReadError {
        if let Some(note) = err.note(&self.show(path)) {
            self.skip(note);
        }
        err
    }

    /// Walks `path` (absolute inside the root, `/` separated) from the root,
    /// one component at a time, following symlinks inside the root only.
    /// Every folder on the way is opened relative to the one before, without
    /// following a symlink, so what is walked stays inside the root even if
    /// the folders change meanwhile. Notable problems are recorded.
    fn walk(&self, path: &str) -> Result<Walked, ReadError> {
        self.walk_unrecorded(path)
            .map_err(|err| self.fail(err, path))
    }

    fn walk_unrecorded(&self, path: &str) -> Result<Walked, ReadError> {
        let mut todo: Vec<String> = path.split('/').rev().map(str::to_string).collect();
        let mut done: Vec<String> = Vec::new();
        let mut folders: Vec<sys::Folder> = Vec::new();
        let mut last: Option<(String, sys::Kind)> = None;
        let mut links = 0;
        while let Some(component) = todo.pop() {
            if let Some((name, kind)) = last.take() {
                // A component after this one: it must be a folder to go on.
                if kind != sys::Kind::Dir {
                    return Err(ReadError::Missing);
                }
                let at = folders.last().unwrap_or(self.top.as_ref());
                let opened = sys::open_folder(at, &name).map_err(|err| {
                    let inside = join(&done, &name);
                    self.io_error(err, &inside)
                })?;
                folders.push(opened);
                done.push(name);
            }
            match component.as_str() {
                "" | "." => continue,
                ".." => {
                    // `..` of the root is the root itself on the machine;
                    // inside an image it would leave the image.
                    done.pop();
                    folders.pop();
                    continue;
                }
                _ => {}
            }
            let inside = join(&done, &component);
            let at = folders.last().unwrap_or(self.top.as_ref());
            let kind = sys::kind(at, &component).map_err(|err| self.io_error(err, &inside))?;
            if kind != sys::Kind::Link {
                last = Some((component, kind));
                continue;
            }
            links += 1;
            if links > MAX_LINKS {
                return Err(ReadError::TooManyLinks {
                    link: self.show(&inside),
                });
            }
            let target =
                sys::read_link(at, &component).map_err(|err| self.io_error(err, &inside))?;
            if target.starts_with('/') {
                done.clear();
                folders.clear();
            } else if !self.live && climbs_out(&done, &target) {
                return Err(ReadError::Outside {
                    link: self.show(&inside),
                    target,
                });
            }
            todo.extend(target.split('/').rev().map(str::to_string));
        }
        let inside = match &last {
            Some((name, _)) => join(&done, name),
            None => format!("/{}", done.join("/")),
        };
        Ok(Walked {
            folders,
            inside,
            last,
        })
    }

    /// An error of the system at `inside`: absence is `Missing`, a symlink
    /// or other thing where a folder was a moment ago is `Changed`.
    fn io_error(&self, err: sys::Error, inside: &str) -> ReadError {
        match err {
            sys::Error::Missing => ReadError::Missing,
            sys::Error::Changed => ReadError::Changed {
                path: self.show(inside),
            },
            sys::Error::Io(source) => ReadError::Io {
                path: self.show(inside),
                source,
            },
        }
    }

    /// Where `path` leads inside the root, symlinks resolved.
    pub fn real(&self, path: &str) -> Result<String, ReadError> {
        self.walk(path).map(|walked| walked.inside)
    }

    /// Whether `path` exists (as anything) inside the root.
    pub fn exists(&self, path: &str) -> bool {
        self.walk(path).is_ok()
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.walk(path)
            .is_ok_and(|w| w.last.is_none_or(|(_, kind)| kind == sys::Kind::Dir))
    }

    /// The first `cap` bytes of a regular file.
    pub fn read(&self, path: &str, cap: u64) -> Result<Bytes, ReadError> {
        let walked = self.walk(path)?;
        let Some((name, kind)) = &walked.last else {
            return Err(self.fail(ReadError::NotAFile, path));
        };
        if *kind != sys::Kind::File {
            return Err(self.fail(ReadError::NotAFile, path));
        }
        let at = walked.folders.last().unwrap_or(self.top.as_ref());
        let (file, kind, size) = sys::open_file(at, name)
            .map_err(|err| self.fail(self.io_error(err, &walked.inside), path))?;
        // Checked on the open file: the path may have been swapped.
        if kind != sys::Kind::File {
            return Err(self.fail(ReadError::NotAFile, path));
        }
        let mut data = Vec::with_capacity(size.min(cap) as usize);
        file.take(cap.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|source| {
                let shown = self.show(&walked.inside);
                self.fail(
                    ReadError::Io {
                        path: shown,
                        source,
                    },
                    path,
                )
            })?;
        let truncated = data.len() as u64 > cap;
        data.truncate(cap as usize);
        Ok(Bytes {
            data,
            size,
            truncated,
        })
    }

    /// Up to `cap` entry names of a folder, sorted. A listing cut at the cap,
    /// names that are not UTF-8 (left out) and entries the system would not
    /// list are recorded.
    pub fn list(&self, path: &str, cap: usize) -> Result<Listing, ReadError> {
        let walked = self.walk(path)?;
        let at = walked.folders.last().unwrap_or(self.top.as_ref());
        let read = match &walked.last {
            None => sys::list(at, None, cap),
            Some((name, sys::Kind::Dir)) => sys::list(at, Some(name.as_str()), cap),
            Some(_) => return Err(ReadError::NotADir),
        };
        let read = read.map_err(|err| self.fail(self.io_error(err, &walked.inside), path))?;
        let shown = self.show(path);
        let note = |message: String| {
            self.skip(Note {
                path: shown.clone(),
                line: None,
                message,
            })
        };
        if read.truncated {
            note(format!("more than {cap} entries; the rest were not read"));
        }
        if !read.not_utf8.is_empty() {
            let count = read.not_utf8.len();
            let mut named: Vec<String> = read
                .not_utf8
                .iter()
                .take(NAMED_AT_MOST)
                .map(|name| escape_bytes(name))
                .collect();
            if count > NAMED_AT_MOST {
                named.push(format!("and {} more", count - NAMED_AT_MOST));
            }
            let entries = if count == 1 { "entry" } else { "entries" };
            note(format!(
                "{count} {entries} whose name is not UTF-8 skipped: {}",
                named.join(", ")
            ));
        }
        if let Some(err) = read.error {
            note(format!("not listed in full: {err}"));
        }
        let mut names = read.names;
        names.sort();
        Ok(Listing {
            names,
            truncated: read.truncated,
        })
    }

    /// Up to `cap` entries of a folder and their kinds, sorted by name: what
    /// a bounded search walks. The folder is reached as [`Root::list`] reaches
    /// it (every component inside the root), and each entry's kind is asked
    /// of that open folder, a symlink not followed.
    pub fn entries(&self, path: &str, cap: usize) -> Result<Entries, ReadError> {
        let listing = self.list(path, cap)?;
        let walked = self.walk(path)?;
        let at = walked.folders.last().unwrap_or(self.top.as_ref());
        let folder = match &walked.last {
            None => None,
            Some((name, sys::Kind::Dir)) => Some(
                sys::open_folder(at, name)
                    .map_err(|err| self.fail(self.io_error(err, &walked.inside), path))?,
            ),
            Some(_) => return Err(ReadError::NotADir),
        };
        let folder = folder.as_ref().unwrap_or(at);
        let entries = listing
            .names
            .into_iter()
            .map(|name| {
                let kind = match sys::kind(folder, &name) {
                    Ok(sys::Kind::Dir) => EntryKind::Dir,
                    Ok(sys::Kind::File) => EntryKind::File,
                    Ok(sys::Kind::Link) => EntryKind::Symlink,
                    _ => EntryKind::Other,
                };
                (name, kind)
            })
            .collect();
        Ok(Entries {
            entries,
            truncated: listing.truncated,
        })
    }

    /// The folders matching `pattern` (absolute, `/` separated), whose
    /// components may hold one `*` each, sorted within each folder listed.
    ///
    /// Before a folder is listed for a `*`, the folders reached so far are
    /// grouped by where they really lead, and each real folder is listed
    /// once, under the name that is itself real where there is one
    /// (`/usr/local/cuda-12.4` over the link `/usr/local/cuda`): K symlinks
    /// to one folder that holds K entries give K matches, not K². At most
    /// [`MAX_MATCHES`] folders are returned; a cut is recorded.
    pub fn expand(&self, pattern: &str) -> Vec<String> {
        let mut current = vec![String::new()];
        for component in pattern.split('/').filter(|c| !c.is_empty()) {
            let Some((prefix, suffix)) = component.split_once('*') else {
                for base in &mut current {
                    base.push('/');
                    base.push_str(component);
                }
                continue;
            };
            let mut next = Vec::new();
            'bases: for base in self.distinct(current) {
                let dir = if base.is_empty() { "/" } else { base.as_str() };
                let Ok(listing) = self.list(dir, MAX_ENTRIES) else {
                    continue;
                };
                for name in listing.names {
                    if name.len() >= prefix.len() + suffix.len()
                        && name.starts_with(prefix)
                        && name.ends_with(suffix)
                    {
                        if next.len() == MAX_MATCHES {
                            self.skip(Note {
                                path: self.show(pattern),
                                line: None,
                                message: format!(
                                    "more than {MAX_MATCHES} folders match; the rest were not searched"
                                ),
                            });
                            break 'bases;
                        }
                        next.push(format!("{base}/{name}"));
                    }
                }
            }
            current = next;
            if current.is_empty() {
                break;
            }
        }
        current.retain(|p| !p.is_empty() && self.is_dir(p));
        current
    }

    /// `paths` with those that lead to one real folder kept once, in first
    /// order, each under its own real name where one is; those that lead
    /// nowhere are left out.
    fn distinct(&self, paths: Vec<String>) -> Vec<String> {
        let mut kept: Vec<(String, bool)> = Vec::new();
        let mut at: HashMap<String, usize> = HashMap::new();
        for path in paths {
            let asked = if path.is_empty() { "/" } else { path.as_str() };
            let Ok(real) = self.real(asked) else {
                continue;
            };
            let is_real = real == asked;
            match at.get(&real) {
                Some(&i) => {
                    if is_real && !kept[i].1 {
                        kept[i] = (path, true);
                    }
                }
                None => {
                    at.insert(real, kept.len());
                    kept.push((path, is_real));
                }
            }
        }
        kept.into_iter().map(|(path, _)| path).collect()
    }
}

fn join(done: &[String], component: &str) -> String {
    let mut s = String::new();
    for c in done {
        s.push('/');
        s.push_str(c);
    }
    s.push('/');
    s.push_str(component);
    s
}

/// Whether a relative symlink target, taken from the folder `done`, climbs
/// above the root at some point.
fn climbs_out(done: &[String], target: &str) -> bool {
    let mut depth = done.len() as isize;
    for c in target.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                depth -= 1;
                if depth < 0 {
                    return true;
                }
            }
            _ => depth += 1,
        }
    }
    false
}

/// A name that is not UTF-8, readable: valid parts as they are, other bytes
/// as `\xFF`.
fn escape_bytes(name: &[u8]) -> String {
    let mut out = String::new();
    for chunk in name.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02X}"));
        }
    }
    out
}

/// What the system calls do, on Unix through open folders (`openat` and
/// friends, never a full path), elsewhere through paths.
mod sys {
    use std::io;

    /// Why a step failed.
    pub enum Error {
        /// Nothing there (or not a folder where one was needed).
        Missing,
        /// Something else than what was there a moment ago: a symlink or a
        /// file where a folder was.
        Changed,
        Io(io::Error),
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Kind {
        Dir,
        File,
        Link,
        /// A FIFO, socket or device.
        Other,
    }

    /// A folder's entries, up to a cap.
    pub struct Entries {
        pub names: Vec<String>,
        pub not_utf8: Vec<Vec<u8>>,
        pub truncated: bool,
        /// The first error met while listing, if any.
        pub error: Option<io::Error>,
    }

    #[cfg(unix)]
    pub use unix::*;

    #[cfg(not(unix))]
    pub use other::*;

    #[cfg(unix)]
    mod unix {
        use std::fs::File;
        use std::io;
        use std::os::fd::OwnedFd;
        use std::path::Path;

        use rustix::fs::{AtFlags, CWD, Dir, FileType, Mode, OFlags, Stat};
        use rustix::io::Errno;

        use super::{Entries, Error, Kind};

        pub type Folder = OwnedFd;

        /// How folders on the way are opened: only to walk on from (Linux's
        /// `O_PATH` needs no read permission), never through a symlink.
        #[cfg(any(target_os = "linux", target_os = "android"))]
        const WALK: OFlags = OFlags::PATH
            .union(OFlags::DIRECTORY)
            .union(OFlags::NOFOLLOW)
            .union(OFlags::CLOEXEC);
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        const WALK: OFlags = OFlags::RDONLY
            .union(OFlags::DIRECTORY)
            .union(OFlags::NOFOLLOW)
            .union(OFlags::CLOEXEC);

        fn error(errno: Errno) -> Error {
            match errno {
                Errno::NOENT | Errno::NOTDIR => Error::Missing,
                _ => Error::Io(io::Error::from(errno)),
            }
        }

        /// An error opening what was just seen as a folder or a file: a
        /// symlink there now is `ELOOP` (or, for a folder, `ENOTDIR`).
        fn swapped(errno: Errno) -> Error {
            match errno {
                Errno::LOOP | Errno::NOTDIR | Errno::MLINK => Error::Changed,
                other => error(other),
            }
        }

        fn kind_of(stat: &Stat) -> Kind {
            match FileType::from_raw_mode(stat.st_mode) {
                FileType::Directory => Kind::Dir,
                FileType::RegularFile => Kind::File,
                FileType::Symlink => Kind::Link,
                _ => Kind::Other,
            }
        }

        pub fn open_root(dir: &Path) -> io::Result<Folder> {
            Ok(rustix::fs::openat(CWD, dir, WALK, Mode::empty())?)
        }

        /// What `name` in `at` is, a symlink not followed.
        pub fn kind(at: &Folder, name: &str) -> Result<Kind, Error> {
            rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW)
                .map(|stat| kind_of(&stat))
                .map_err(error)
        }

        pub fn read_link(at: &Folder, name: &str) -> Result<String, Error> {
            let target = rustix::fs::readlinkat(at, name, Vec::new()).map_err(error)?;
            String::from_utf8(target.into_bytes()).map_err(|_| {
                Error::Io(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the symlink's target is not UTF-8",
                ))
            })
        }

        /// Opens the folder `name` in `at` to walk on from.
        pub fn open_folder(at: &Folder, name: &str) -> Result<Folder, Error> {
            rustix::fs::openat(at, name, WALK, Mode::empty()).map_err(swapped)
        }

        /// Opens `name` in `at` for reading, without following a symlink and
        /// without waiting on a FIFO; returns what the open file is and its
        /// size.
        pub fn open_file(at: &Folder, name: &str) -> Result<(File, Kind, u64), Error> {
            let flags = OFlags::RDONLY
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::NOCTTY
                | OFlags::CLOEXEC;
            let fd = rustix::fs::openat(at, name, flags, Mode::empty()).map_err(swapped)?;
            let stat = rustix::fs::fstat(&fd).map_err(error)?;
            let size = u64::try_from(stat.st_size).unwrap_or(0);
            Ok((File::from(fd), kind_of(&stat), size))
        }

        /// Up to `cap` names in the folder `name` of `at` (`at` itself for
        /// `None`), opened without following a symlink.
        pub fn list(at: &Folder, name: Option<&str>, cap: usize) -> Result<Entries, Error> {
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let fd = match name {
                None => rustix::fs::openat(at, ".", flags, Mode::empty()),
                Some(name) => rustix::fs::openat(at, name, flags | OFlags::NOFOLLOW, Mode::empty()),
            }
            .map_err(swapped)?;
            let dir = Dir::new(fd).map_err(error)?;
            let mut entries = Entries {
                names: Vec::new(),
                not_utf8: Vec::new(),
                truncated: false,
                error: None,
            };
            for entry in dir {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(errno) => {
                        entries.error = Some(io::Error::from(errno));
                        break;
                    }
                };
                let bytes = entry.file_name().to_bytes();
                if bytes == b"." || bytes == b".." {
                    continue;
                }
                if entries.names.len() == cap {
                    entries.truncated = true;
                    break;
                }
                match std::str::from_utf8(bytes) {
                    Ok(name) => entries.names.push(name.to_string()),
                    Err(_) => entries.not_utf8.push(bytes.to_vec()),
                }
            }
            Ok(entries)
        }
    }

    /// Without `openat`: the same steps through paths. A folder swapped for
    /// a symlink between two steps is not caught here.
    #[cfg(not(unix))]
    mod other {
        use std::fs;
        use std::io;
        use std::path::{Path, PathBuf};

        use super::{Entries, Error, Kind};

        pub type Folder = PathBuf;

        fn error(err: io::Error) -> Error {
            match err.kind() {
                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => Error::Missing,
                _ => Error::Io(err),
            }
        }

        fn kind_of(meta: &fs::Metadata) -> Kind {
            let kind = meta.file_type();
            if kind.is_symlink() {
                Kind::Link
            } else if kind.is_dir() {
                Kind::Dir
            } else if kind.is_file() {
                Kind::File
            } else {
                Kind::Other
            }
        }

        pub fn open_root(dir: &Path) -> io::Result<Folder> {
            Ok(dir.to_path_buf())
        }

        pub fn kind(at: &Folder, name: &str) -> Result<Kind, Error> {
            fs::symlink_metadata(at.join(name))
                .map(|meta| kind_of(&meta))
                .map_err(error)
        }

        pub fn read_link(at: &Folder, name: &str) -> Result<String, Error> {
            let target = fs::read_link(at.join(name)).map_err(error)?;
            target.into_os_string().into_string().map_err(|_| {
                Error::Io(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the symlink's target is not UTF-8",
                ))
            })
        }

        pub fn open_folder(at: &Folder, name: &str) -> Result<Folder, Error> {
            let path = at.join(name);
            match fs::symlink_metadata(&path).map_err(error)? {
                meta if meta.is_dir() => Ok(path),
                _ => Err(Error::Changed),
            }
        }

        pub fn open_file(at: &Folder, name: &str) -> Result<(File, Kind, u64), Error> {
            let file = File::open(at.join(name)).map_err(error)?;
            let meta = file.metadata().map_err(error)?;
            Ok((file, kind_of(&meta), meta.len()))
        }

        pub fn list(at: &Folder, name: Option<&str>, cap: usize) -> Result<Entries, Error> {
            let path = name.map_or_else(|| at.clone(), |name| at.join(name));
            let mut entries = Entries {
                names: Vec::new(),
                not_utf8: Vec::new(),
                truncated: false,
                error: None,
            };
            for entry in fs::read_dir(path).map_err(error)? {
                let entry = match entry {
                    Ok(entry) => entry,
                    Err(err) => {
                        entries.error = Some(err);
                        break;
                    }
                };
                if entries.names.len() == cap {
                    entries.truncated = true;
                    break;
                }
                match entry.file_name().into_string() {
                    Ok(name) => entries.names.push(name),
                    Err(name) => entries
                        .not_utf8
                        .push(name.to_string_lossy().into_owned().into_bytes()),
                }
            }
            Ok(entries)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_targets_that_climb_out_are_spotted() {
        let done = vec!["usr".to_string(), "lib".to_string()];
        assert!(!climbs_out(&done, "../local/x"));
        assert!(!climbs_out(&done, "../../etc"));
        assert!(climbs_out(&done, "../../../etc"));
        assert!(climbs_out(&[], ".."));
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_resolve_inside_the_root_and_never_out_of_it() {
        use std::os::unix::fs::symlink;
        let dir = tempfile::tempdir().unwrap();
        let root_dir = dir.path().join("root");
        fs::create_dir_all(root_dir.join("usr/local/cuda-12.4")).unwrap();
        fs::write(root_dir.join("usr/local/cuda-12.4/version.json"), "{}").unwrap();
        fs::write(dir.path().join("secret"), "outside").unwrap();
        // Absolute: means the image's own /usr/local/cuda-12.4.
        symlink("/usr/local/cuda-12.4", root_dir.join("usr/local/cuda")).unwrap();
        symlink("../../../secret", root_dir.join("usr/local/escape")).unwrap();
        symlink("loop", root_dir.join("loop")).unwrap();
        let root = Root::new(&root_dir).unwrap();
        assert!(!root.is_live());
        let bytes = root.read("/usr/local/cuda/version.json", 100).unwrap();
        assert_eq!(bytes.data, b"{}");
        assert_eq!(
            root.real("/usr/local/cuda").unwrap(),
            "/usr/local/cuda-12.4"
        );
        let err = root.read("/usr/local/escape", 100).unwrap_err();
        assert!(err.to_string().contains("points outside the root"), "{err}");
        assert!(matches!(
            root.read("/loop", 10),
            Err(ReadError::TooManyLinks { .. })
        ));
        assert!(matches!(
            root.read("/usr/local", 10),
            Err(ReadError::NotAFile)
        ));
    }

    #[test]
    fn reads_stop_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), "0123456789").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let b = root.read("/f", 4).unwrap();
        assert_eq!(b.data, b"0123");
        assert!(b.truncated);
        assert_eq!(b.size, 10);
        let b = root.read("/f", 10).unwrap();
        assert!(!b.truncated);
    }
}
