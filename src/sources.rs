//! Where files come from: the folders compiled into the binary, then the user's
//! overlay folders on top. A file in a later source shadows the file with the same
//! relative path in an earlier one. This module only finds and reads bytes; it
//! knows nothing of Markdown or TOML.

use std::collections::{BTreeMap, HashSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use include_dir::{Dir, include_dir};

use crate::diagnostic::Diagnostic;

/// The knowledge folder of this repository, embedded at build time.
pub static BUILTIN_KNOWLEDGE: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/knowledge");
/// The decision-trees folder of this repository, embedded at build time.
pub static BUILTIN_TREES: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/decision-trees");

/// Files larger than this are reported and skipped: nothing a person writes by
/// hand is this big, and reading it would stall every start-up.
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// Where one file was read from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    Builtin,
    /// An overlay folder (as given by the user) and the file's full path in it.
    Overlay {
        root: PathBuf,
        file: PathBuf,
    },
}

impl Origin {
    pub fn is_builtin(&self) -> bool {
        matches!(self, Origin::Builtin)
    }

    /// The on-disk path of the file, if it has one.
    pub fn file(&self) -> Option<&Path> {
        match self {
            Origin::Builtin => None,
            Origin::Overlay { file, .. } => Some(file),
        }
    }
}

/// Size and modification time of an on-disk file, for cache freshness checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Stamp {
    pub size: u64,
    pub modified: Option<SystemTime>,
}

/// One file's text, not yet understood.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path relative to its root, with `/` separators: the file's id.
    pub rel: String,
    pub origin: Origin,
    pub text: String,
    pub stamp: Option<Stamp>,
}

/// A set of sources for one kind of file (knowledge or trees).
#[derive(Debug, Clone, Default)]
pub struct SourceSet {
    pub builtin: Option<&'static Dir<'static>>,
    pub overlays: Vec<PathBuf>,
}

/// An overlay folder that cannot be used at all: a usage error (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("{flag} {}: no such directory", path.display())]
    Missing { flag: &'static str, path: PathBuf },
    #[error("{flag} {}: not a directory", path.display())]
    NotADirectory { flag: &'static str, path: PathBuf },
    #[error("{flag} {}: cannot read directory: {source}", path.display())]
    Unreadable {
        flag: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
}

impl SourceSet {
    /// Checks that every overlay folder exists and can be listed. `flag` names the
    /// option the folders came from, for the error message.
    pub fn validate(&self, flag: &'static str) -> Result<(), SourceError> {
        for path in &self.overlays {
            match fs::metadata(path) {
                Err(_) => {
                    return Err(SourceError::Missing {
                        flag,
                        path: path.clone(),
                    });
                }
                Ok(meta) if !meta.is_dir() => {
                    return Err(SourceError::NotADirectory {
                        flag,
                        path: path.clone(),
                    });
                }
                Ok(_) => {
                    if let Err(source) = fs::read_dir(path) {
                        return Err(SourceError::Unreadable {
                            flag,
                            path: path.clone(),
                            source,
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads every file ending in `.{extension}`, later sources shadowing earlier
    /// ones. Problems with single files become warnings; the rest still load.
    pub fn collect(&self, extension: &str) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        let mut files: BTreeMap<String, SourceFile> = BTreeMap::new();
        let mut warnings = Vec::new();
        if let Some(dir) = self.builtin {
            collect_embedded(dir, extension, &mut files, &mut warnings);
        }
        for root in &self.overlays {
            let mut found = Vec::new();
            walk_dir(root, extension, &mut warnings, &mut found);
            for file in found {
                let path = file.entry.path();
                let meta = match file.meta {
                    Some(meta) => Ok(meta),
                    None => file.entry.metadata(),
                };
                let meta = match meta {
                    Ok(meta) => meta,
                    Err(err) => {
                        warnings.push(Diagnostic::warning(
                            path.display().to_string(),
                            None,
                            format!("cannot read, skipped: {err}"),
                        ));
                        continue;
                    }
                };
                if let Some(file) = read_overlay_file(root, file.rel, &path, &meta, &mut warnings) {
                    files.insert(file.rel.clone(), file);
                }
            }
        }
        (files.into_values().collect(), warnings)
    }

    /// The files `collect` would read, found without reading them: relative
    /// path, origin and, for overlay files, size and modification time; for
    /// built-in files, their embedded bytes. Sorted by path, shadowing applied.
    /// It walks the folders exactly as `collect` does (same hidden-file,
    /// extension and symlink rules), so a cache keyed on it stays in step with
    /// what `collect` loads. Files `collect` would skip for not being UTF-8
    /// (and overlay files too big to read) are still listed: only reading
    /// them could tell.
    pub fn scan(&self, extension: &str) -> Vec<ScannedFile> {
        let mut files: Vec<ScannedFile> = Vec::new();
        if let Some(dir) = self.builtin {
            scan_embedded(dir, extension, &mut files);
        }
        for (index, root) in self.overlays.iter().enumerate() {
            let mut found = Vec::new();
            walk_dir(root, extension, &mut Vec::new(), &mut found);
            for (rel, stamp) in stamps(found) {
                // A file that cannot be stat'ed is one `collect` skips too.
                if let Some(stamp) = stamp {
                    files.push(ScannedFile {
                        rel,
                        overlay: Some(index),
                        stamp: Some(stamp),
                        bytes: None,
                    });
                }
            }
        }
        // Later sources shadow earlier ones: keep the last of each path.
        files.reverse();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files.dedup_by(|later, kept| later.rel == kept.rel);
        files
    }
}

/// One file found by `SourceSet::scan`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedFile {
    pub rel: String,
    /// Index of its folder in `SourceSet::overlays`; `None` if built in.
    pub overlay: Option<usize>,
    /// Size and modification time, for overlay files.
    pub stamp: Option<Stamp>,
    /// The bytes, for built-in files (they are in the binary, so this is
    /// free), without a byte-order mark: what `collect` decodes.
    pub bytes: Option<&'static [u8]>,
}

fn scan_embedded(dir: &'static Dir<'static>, extension: &str, files: &mut Vec<ScannedFile>) {
    for file in dir.files() {
        let rel = file.path().to_string_lossy().replace('\\', "/");
        let bytes = file.contents();
        if !has_extension(&rel, extension) || is_hidden(&rel) || bytes.len() as u64 > MAX_FILE_BYTES
        {
            continue;
        }
        files.push(ScannedFile {
            rel,
            overlay: None,
            stamp: None,
            bytes: Some(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)),
        });
    }
    for sub in dir.dirs() {
        scan_embedded(sub, extension, files);
    }
}

fn has_extension(name: &str, extension: &str) -> bool {
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && ext.eq_ignore_ascii_case(extension))
}

fn collect_embedded(
    dir: &'static Dir<'static>,
    extension: &str,
    files: &mut BTreeMap<String, SourceFile>,
    warnings: &mut Vec<Diagnostic>,
) {
    for file in dir.files() {
        let rel = file.path().to_string_lossy().replace('\\', "/");
        if !has_extension(&rel, extension) || is_hidden(&rel) {
            continue;
        }
        match decode(&rel, file.contents(), warnings) {
            Some(text) => {
                files.insert(
                    rel.clone(),
                    SourceFile {
                        rel,
                        origin: Origin::Builtin,
                        text,
                        stamp: None,
                    },
                );
            }
            None => continue,
        }
    }
    for sub in dir.dirs() {
        collect_embedded(sub, extension, files, warnings);
    }
}

fn is_hidden(rel: &str) -> bool {
    rel.split('/').any(|part| part.starts_with('.'))
}

/// A candidate file found by `walk_dir`: its id and folder entry, and its
/// metadata if it was reached through a symlink (which had to be followed).
struct Found {
    rel: String,
    entry: fs::DirEntry,
    meta: Option<fs::Metadata>,
}

/// Walks an overlay folder in name order and lists every non-hidden file
/// ending in `.{extension}`, with ids relative to the overlay root. Folder
/// entries say what they are, so only symlinks are stat'ed here.
///
/// Symlinks are followed only while they stay inside the overlay folder: a
/// link to `/` would walk the whole file system, and a link to
/// `~/.ssh/id_rsa` named `notes.md` would put a file the user never meant to
/// share into the index and onto the screen. Knowledge from elsewhere is
/// added with its own `--knowledge` folder instead.
fn walk_dir(root: &Path, extension: &str, warnings: &mut Vec<Diagnostic>, found: &mut Vec<Found>) {
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let walk = Walk {
        root: &canonical,
        extension,
    };
    walk.folder(root, &canonical, "", &mut HashSet::new(), warnings, found);
}

/// What every folder of one overlay walk shares.
struct Walk<'a> {
    /// The overlay folder's canonical path: nothing outside it is read.
    root: &'a Path,
    extension: &'a str,
}

impl Walk<'_> {
    /// Lists one folder whose canonical path is known: a real sub-folder's
    /// is its parent's joined with its name, so only the root and symlinks
    /// need resolving. `rel_dir` is the folder's id, empty for the root.
    fn folder(
        &self,
        dir: &Path,
        canonical: &Path,
        rel_dir: &str,
        seen: &mut HashSet<PathBuf>,
        warnings: &mut Vec<Diagnostic>,
        found: &mut Vec<Found>,
    ) {
        // Canonical paths of folders already walked: a symlink back up the
        // tree is reported once instead of recursing forever.
        if !seen.insert(canonical.to_path_buf()) {
            warnings.push(Diagnostic::warning(
                dir.display().to_string(),
                None,
                "symlink loop: this folder was already read, skipped",
            ));
            return;
        }
        let entries = match fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(err) => {
                warnings.push(Diagnostic::warning(
                    dir.display().to_string(),
                    None,
                    format!("cannot read folder, skipped: {err}"),
                ));
                return;
            }
        };
        let mut entries: Vec<(std::ffi::OsString, fs::DirEntry)> = entries
            .filter_map(Result::ok)
            .map(|e| (e.file_name(), e))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        for (os_name, entry) in entries {
            let name = os_name.to_string_lossy();
            if name.starts_with('.') {
                continue;
            }
            // Where the entry really is, and its metadata if it had to be
            // looked up (symlinks only).
            let (is_dir, is_file, target, meta) = match entry.file_type() {
                Ok(kind) if !kind.is_symlink() => (
                    kind.is_dir(),
                    kind.is_file(),
                    canonical.join(&os_name),
                    None,
                ),
                _ => match self.follow(&entry.path()) {
                    Ok((target, meta)) => (meta.is_dir(), meta.is_file(), target, Some(meta)),
                    Err(message) => {
                        warnings.push(Diagnostic::warning(
                            entry.path().display().to_string(),
                            None,
                            message,
                        ));
                        continue;
                    }
                },
            };
            let wanted = is_file && has_extension(&name, self.extension);
            if !is_dir && !wanted {
                continue;
            }
            let rel = if rel_dir.is_empty() {
                name.into_owned()
            } else {
                format!("{rel_dir}/{name}")
            };
            if is_dir {
                self.folder(&entry.path(), &target, &rel, seen, warnings, found);
            } else {
                found.push(Found { rel, entry, meta });
            }
        }
    }

    /// Resolves a symlink: its canonical target and metadata, or why it is
    /// skipped (dangling, unreadable, or pointing outside the overlay).
    fn follow(&self, link: &Path) -> Result<(PathBuf, fs::Metadata), String> {
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
        Ok((target, meta))
    }
}

/// The size and modification time of each found file. A stat costs about a
/// microsecond and a big overlay has thousands of files, so they are split
/// between threads when there are enough to pay for starting them.
fn stamps(found: Vec<Found>) -> Vec<(String, Option<Stamp>)> {
    fn stamp(file: Found) -> (String, Option<Stamp>) {
        let meta = match file.meta {
            Some(meta) => Some(meta),
            None => file.entry.metadata().ok(),
        };
        let stamp = meta.map(|m| Stamp {
            size: m.len(),
            modified: m.modified().ok(),
        });
        (file.rel, stamp)
    }
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(4));
    if threads < 2 || found.len() < 2_000 {
        return found.into_iter().map(stamp).collect();
    }
    let per_thread = found.len().div_ceil(threads);
    let mut parts: Vec<Vec<Found>> = Vec::new();
    let mut rest = found.into_iter();
    loop {
        let part: Vec<Found> = rest.by_ref().take(per_thread).collect();
        if part.is_empty() {
            break;
        }
        parts.push(part);
    }
    std::thread::scope(|scope| {
        let workers: Vec<_> = parts
            .into_iter()
            .map(|part| scope.spawn(move || part.into_iter().map(stamp).collect::<Vec<_>>()))
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_default())
            .collect()
    })
}

/// Reads one overlay file, or reports why it cannot be used.
fn read_overlay_file(
    root: &Path,
    rel: String,
    path: &Path,
    meta: &fs::Metadata,
    warnings: &mut Vec<Diagnostic>,
) -> Option<SourceFile> {
    if meta.len() > MAX_FILE_BYTES {
        warnings.push(Diagnostic::warning(
            rel,
            None,
            format!(
                "file is {} bytes, over the {} MiB limit, skipped",
                meta.len(),
                MAX_FILE_BYTES / 1024 / 1024
            ),
        ));
        return None;
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(err) => {
            warnings.push(Diagnostic::warning(
                rel,
                None,
                format!("cannot read, skipped: {err}"),
            ));
            return None;
        }
    };
    let text = decode(&rel, &bytes, warnings)?;
    Some(SourceFile {
        rel,
        origin: Origin::Overlay {
            root: root.to_path_buf(),
            file: path.to_path_buf(),
        },
        text,
        stamp: Some(Stamp {
            size: meta.len(),
            modified: meta.modified().ok(),
        }),
    })
}

/// UTF-8 text or a warning naming the line of the first bad byte.
fn decode(rel: &str, bytes: &[u8], warnings: &mut Vec<Diagnostic>) -> Option<String> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        warnings.push(Diagnostic::warning(
            rel,
            None,
            format!(
                "file is {} bytes, over the {} MiB limit, skipped",
                bytes.len(),
                MAX_FILE_BYTES / 1024 / 1024
            ),
        ));
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(text.strip_prefix('\u{feff}').unwrap_or(text).to_string()),
        Err(err) => {
            let at = err.valid_up_to();
            let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            warnings.push(Diagnostic::warning(
                rel,
                Some(line),
                format!("not valid UTF-8 (byte {at}), skipped"),
            ));
            None
        }
    }
}
