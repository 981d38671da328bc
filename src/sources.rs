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
            let mut seen = HashSet::new();
            let mut read =
                |rel: String, path: &Path, meta: &fs::Metadata, warnings: &mut Vec<Diagnostic>| {
                    if let Some(file) = read_overlay_file(root, rel, path, meta, warnings) {
                        files.insert(file.rel.clone(), file);
                    }
                };
            walk_dir(root, root, extension, &mut seen, &mut warnings, &mut read);
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
        let mut files: BTreeMap<String, ScannedFile> = BTreeMap::new();
        let mut warnings = Vec::new();
        if let Some(dir) = self.builtin {
            scan_embedded(dir, extension, &mut files);
        }
        for root in &self.overlays {
            let mut seen = HashSet::new();
            let mut record =
                |rel: String, path: &Path, meta: &fs::Metadata, _: &mut Vec<Diagnostic>| {
                    files.insert(
                        rel.clone(),
                        ScannedFile {
                            rel,
                            origin: Origin::Overlay {
                                root: root.clone(),
                                file: path.to_path_buf(),
                            },
                            stamp: Some(Stamp {
                                size: meta.len(),
                                modified: meta.modified().ok(),
                            }),
                            bytes: None,
                        },
                    );
                };
            walk_dir(root, root, extension, &mut seen, &mut warnings, &mut record);
        }
        files.into_values().collect()
    }
}

/// One file found by `SourceSet::scan`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannedFile {
    pub rel: String,
    pub origin: Origin,
    /// Size and modification time, for overlay files.
    pub stamp: Option<Stamp>,
    /// The bytes, for built-in files (they are in the binary, so this is
    /// free), without a byte-order mark: what `collect` decodes.
    pub bytes: Option<&'static [u8]>,
}

fn scan_embedded(
    dir: &'static Dir<'static>,
    extension: &str,
    files: &mut BTreeMap<String, ScannedFile>,
) {
    for file in dir.files() {
        let rel = file.path().to_string_lossy().replace('\\', "/");
        let bytes = file.contents();
        if !has_extension(&rel, extension) || is_hidden(&rel) || bytes.len() as u64 > MAX_FILE_BYTES
        {
            continue;
        }
        files.insert(
            rel.clone(),
            ScannedFile {
                rel,
                origin: Origin::Builtin,
                stamp: None,
                bytes: Some(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes)),
            },
        );
    }
    for sub in dir.dirs() {
        scan_embedded(sub, extension, files);
    }
}

fn has_extension(name: &str, extension: &str) -> bool {
    Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
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

/// What to do with one candidate file: its id, path and (symlink-followed)
/// metadata, and where to put warnings.
type Visit<'a> = dyn FnMut(String, &Path, &fs::Metadata, &mut Vec<Diagnostic>) + 'a;

/// Walks an overlay folder in name order and calls `visit` for every
/// non-hidden file ending in `.{extension}`.
fn walk_dir(
    root: &Path,
    dir: &Path,
    extension: &str,
    seen: &mut HashSet<PathBuf>,
    warnings: &mut Vec<Diagnostic>,
    visit: &mut Visit<'_>,
) {
    // Canonical paths of folders already walked: a symlink back up the tree is
    // reported once instead of recursing forever.
    let canonical = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if !seen.insert(canonical) {
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
    let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        // Symlinked files and folders count, so follow links; for anything
        // else the entry's own metadata is the same and cheaper to get.
        let meta = match entry.file_type() {
            Ok(kind) if !kind.is_symlink() => entry.metadata(),
            _ => fs::metadata(&path),
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
        if meta.is_dir() {
            walk_dir(root, &path, extension, seen, warnings, visit);
            continue;
        }
        if !meta.is_file() || !has_extension(&name, extension) {
            continue;
        }
        visit(relative_id(root, &path), &path, &meta, warnings);
    }
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

fn relative_id(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
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
