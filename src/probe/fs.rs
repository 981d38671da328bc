//! Reading a filesystem root the way a probe may: read-only, bounded, and
//! confined. Paths are resolved one component at a time. A symlink's target
//! is read and resolved inside the root: an absolute target starts again at
//! the root (as it would inside the image), and a `..` that would climb above
//! the root is refused with a message naming the link, so nothing outside the
//! root is ever opened. Only regular files are read (a FIFO or a device is
//! never opened), each up to a byte cap; directory listings stop at an entry
//! cap. Nothing here writes, and nothing here runs a program.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::{Path, PathBuf};

/// Symlinks followed while resolving one path, at most (as the kernel's
/// limit): a loop ends here instead of spinning.
const MAX_LINKS: usize = 40;

/// A filesystem root: `/` for the running machine, or an unpacked image.
#[derive(Debug, Clone)]
pub struct Root {
    dir: PathBuf,
    live: bool,
}

/// Why a path inside the root could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// Nothing there (or a component is not a folder).
    Missing,
    /// A symlink on the way leads out of the root; it was not followed.
    Outside {
        link: String,
        target: String,
    },
    /// More than `MAX_LINKS` symlinks, probably a loop.
    TooManyLinks {
        link: String,
    },
    /// There, but not a regular file (a folder, FIFO, socket or device).
    NotAFile,
    /// There, but not a folder.
    NotADir,
    Io(io::Error),
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
            ReadError::Io(err) => write!(f, "cannot read: {err}"),
        }
    }
}

impl ReadError {
    /// Whether the problem is worth telling the user: a missing file is the
    /// normal answer to "is it there?", the others are not.
    pub fn is_notable(&self) -> bool {
        !matches!(self, ReadError::Missing | ReadError::NotADir)
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
        let live = dir == Path::new("/");
        Ok(Root { dir, live })
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

    /// Resolves `path` (absolute inside the root, `/` separated) to a path on
    /// this machine, following symlinks inside the root only. Returns the
    /// resolved path inside the root too.
    fn resolve(&self, path: &str) -> Result<(PathBuf, String), ReadError> {
        let mut todo: Vec<String> = split(path).rev().map(str::to_string).collect();
        let mut done: Vec<String> = Vec::new();
        let mut links = 0;
        while let Some(component) = todo.pop() {
            match component.as_str() {
                "" | "." => continue,
                ".." => {
                    // `..` of the root is the root itself on the machine;
                    // inside an image it would leave the image.
                    done.pop();
                    continue;
                }
                _ => {}
            }
            let inside = join(&done, &component);
            let host = self.host(&inside);
            let meta = match fs::symlink_metadata(&host) {
                Ok(meta) => meta,
                Err(err) => return Err(io_error(err)),
            };
            if meta.file_type().is_symlink() {
                links += 1;
                if links > MAX_LINKS {
                    return Err(ReadError::TooManyLinks { link: inside });
                }
                let target = fs::read_link(&host).map_err(io_error)?;
                let target_text = target.to_string_lossy().into_owned();
                if target_text.starts_with('/') {
                    done.clear();
                } else if !self.live && climbs_out(&done, &target_text) {
                    return Err(ReadError::Outside {
                        link: self.show(&inside),
                        target: target_text,
                    });
                }
                todo.extend(split(&target_text).rev().map(str::to_string));
                continue;
            }
            if !todo.is_empty() && !meta.is_dir() {
                return Err(ReadError::Missing);
            }
            done.push(component);
        }
        let inside = format!("/{}", done.join("/"));
        Ok((self.host(&inside), inside))
    }

    fn host(&self, inside: &str) -> PathBuf {
        self.dir.join(inside.trim_start_matches('/'))
    }

    /// Where `path` leads inside the root, symlinks resolved.
    pub fn real(&self, path: &str) -> Result<String, ReadError> {
        self.resolve(path).map(|(_, inside)| inside)
    }

    /// Whether `path` exists (as anything) inside the root.
    pub fn exists(&self, path: &str) -> bool {
        self.resolve(path).is_ok()
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.resolve(path)
            .ok()
            .and_then(|(host, _)| fs::metadata(host).ok())
            .is_some_and(|m| m.is_dir())
    }

    /// The first `cap` bytes of a regular file.
    pub fn read(&self, path: &str, cap: u64) -> Result<Bytes, ReadError> {
        let (host, _) = self.resolve(path)?;
        let meta = fs::symlink_metadata(&host).map_err(io_error)?;
        if !meta.is_file() {
            return Err(ReadError::NotAFile);
        }
        let file = open_no_follow(&host).map_err(io_error)?;
        // Check again on the open file: the path may have been swapped.
        let size = file.metadata().map_err(io_error)?;
        if !size.is_file() {
            return Err(ReadError::NotAFile);
        }
        let size = size.len();
        let mut data = Vec::with_capacity(size.min(cap) as usize);
        file.take(cap.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(io_error)?;
        let truncated = data.len() as u64 > cap;
        data.truncate(cap as usize);
        Ok(Bytes {
            data,
            size,
            truncated,
        })
    }

    /// Up to `cap` entry names of a folder, sorted.
    pub fn list(&self, path: &str, cap: usize) -> Result<Listing, ReadError> {
        let (host, _) = self.resolve(path)?;
        let entries = fs::read_dir(&host).map_err(|err| match err.kind() {
            io::ErrorKind::NotADirectory => ReadError::NotADir,
            _ => io_error(err),
        })?;
        let mut listing = Listing::default();
        for entry in entries {
            let Ok(entry) = entry else { continue };
            if listing.names.len() == cap {
                listing.truncated = true;
                break;
            }
            if let Some(name) = entry.file_name().to_str() {
                listing.names.push(name.to_string());
            }
        }
        listing.names.sort();
        Ok(listing)
    }
}

/// What a folder entry is, as the folder listing says (no extra `stat`):
/// a symlink is reported as one, not as what it points to.
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

impl Root {
    /// Up to `cap` entries of a folder and their kinds, sorted by name: what
    /// a bounded search walks, since knowing which entries are folders costs
    /// no further system call.
    pub fn entries(&self, path: &str, cap: usize) -> Result<Entries, ReadError> {
        let (host, _) = self.resolve(path)?;
        let read = fs::read_dir(&host).map_err(|err| match err.kind() {
            io::ErrorKind::NotADirectory => ReadError::NotADir,
            _ => io_error(err),
        })?;
        let mut out = Entries::default();
        for entry in read {
            let Ok(entry) = entry else { continue };
            if out.entries.len() == cap {
                out.truncated = true;
                break;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_string) else {
                continue;
            };
            let kind = match entry.file_type() {
                Ok(t) if t.is_symlink() => EntryKind::Symlink,
                Ok(t) if t.is_dir() => EntryKind::Dir,
                Ok(t) if t.is_file() => EntryKind::File,
                _ => EntryKind::Other,
            };
            out.entries.push((name, kind));
        }
        out.entries.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(out)
    }
}

fn split(path: &str) -> std::str::Split<'_, char> {
    path.split('/')
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

fn io_error(err: io::Error) -> ReadError {
    match err.kind() {
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory => ReadError::Missing,
        _ => ReadError::Io(err),
    }
}

/// Opens for reading without following a final symlink and without blocking
/// on a FIFO swapped in after the check.
#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(flags.bits() as i32)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<File> {
    File::open(path)
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
