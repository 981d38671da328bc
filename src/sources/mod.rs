//! Where files come from: the folders compiled into the binary, then the user's
//! overlay folders on top. A file in a later source shadows the file with the same
//! relative path in an earlier one. This module only finds and reads bytes; it
//! knows nothing of Markdown or TOML.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

mod builtin;
mod packing;
mod read;
mod snapshot;
mod walk;

pub use builtin::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, BuiltinFile, BuiltinFolder};
pub use packing::digest;
pub use snapshot::Snapshot;
use walk::walk_dir;

use crate::diagnostic::{Diagnostic, Severity};

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

impl Stamp {
    pub fn of(meta: &fs::Metadata) -> Stamp {
        Stamp {
            size: meta.len(),
            modified: meta.modified().ok(),
        }
    }
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
    pub builtin: Option<&'static BuiltinFolder>,
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

/// Checks that the overlay folder `path` exists and can be listed. `flag`
/// names where it came from, for the error message.
pub fn validate_dir(path: &Path, flag: &'static str) -> Result<(), SourceError> {
    match fs::metadata(path) {
        Err(_) => Err(SourceError::Missing {
            flag,
            path: path.to_path_buf(),
        }),
        Ok(meta) if !meta.is_dir() => Err(SourceError::NotADirectory {
            flag,
            path: path.to_path_buf(),
        }),
        Ok(_) => fs::read_dir(path)
            .map(drop)
            .map_err(|source| SourceError::Unreadable {
                flag,
                path: path.to_path_buf(),
                source,
            }),
    }
}

impl SourceSet {
    /// The built-in knowledge alone, with no overlay folder.
    pub fn builtin_knowledge() -> SourceSet {
        SourceSet {
            builtin: Some(&BUILTIN_KNOWLEDGE),
            overlays: Vec::new(),
        }
    }

    /// Checks that every overlay folder exists and can be listed. `flag` names the
    /// option the folders came from, for the error message.
    pub fn validate(&self, flag: &'static str) -> Result<(), SourceError> {
        self.overlays
            .iter()
            .try_for_each(|path| validate_dir(path, flag))
    }

    /// Reads every file ending in `.{extension}`, later sources shadowing earlier
    /// ones. Problems with single files become warnings; the rest still load.
    pub fn collect(&self, extension: &str) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        self.collect_with(extension, Severity::Warning)
    }

    /// [`collect`](Self::collect), reporting a file that was found but not
    /// read (too big, unreadable, not UTF-8) with `skipped`: a Markdown
    /// note lore cannot show is a warning, while a decision tree the user
    /// wrote and expects to walk is an error, like a tree that does not parse.
    pub fn collect_with(
        &self,
        extension: &str,
        skipped: Severity,
    ) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        let collected = self.collect_all(extension, skipped);
        (collected.files, collected.warnings)
    }

    /// [`collect`](Self::collect) of only the files whose id is in `ids`,
    /// later sources still shadowing earlier ones; the others are not read
    /// (a built-in one not decompressed). `lore diagnose` reads the few
    /// documents its hits name so.
    pub fn collect_named(
        &self,
        extension: &str,
        ids: &[&str],
    ) -> (Vec<SourceFile>, Vec<Diagnostic>) {
        let collected = self.collect_where(extension, Severity::Warning, &|id| ids.contains(&id));
        (collected.files, collected.warnings)
    }

    /// [`collect`](Self::collect), and what else the folders hold that a
    /// link may name (see [`Collected::others`]).
    pub fn collect_all(&self, extension: &str, skipped: Severity) -> Collected {
        self.collect_where(extension, skipped, &|_| true)
    }

    /// [`collect_all`](Self::collect_all) of the files whose id `wanted` takes.
    fn collect_where(
        &self,
        extension: &str,
        skipped: Severity,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Collected {
        let mut others = BTreeSet::new();
        let mut files: BTreeMap<String, SourceFile> = BTreeMap::new();
        let mut warnings = Vec::new();
        let mut unread = Vec::new();
        if let Some(dir) = self.builtin {
            collect_embedded(dir, extension, wanted, &mut files, &mut unread);
        }
        // Which overlay each path was read from, and what later ones hid.
        let mut from: BTreeMap<String, usize> = BTreeMap::new();
        let mut hidden: BTreeMap<(usize, usize), Vec<String>> = BTreeMap::new();
        let mut canonicals: Vec<PathBuf> = Vec::new();
        for (index, root) in self.overlays.iter().enumerate() {
            // What is read is checked against the folder's real path.
            let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.clone());
            canonicals.push(canonical.clone());
            let walked = walk_dir(root, extension, &mut warnings);
            others.extend(walked.others);
            for file in walked.found {
                if !wanted(&file.rel) {
                    continue;
                }
                let path = file.path;
                let stamp = match file.stamp {
                    Ok(stamp) => stamp,
                    Err(err) => {
                        unread.push(
                            Diagnostic::warning(
                                file.rel,
                                None,
                                format!("cannot read, skipped: {err}"),
                            )
                            .in_file(Some(&path)),
                        );
                        continue;
                    }
                };
                let place = Place {
                    root,
                    canonical: &canonical,
                    path: &path,
                };
                if let Some(file) = read_overlay_file(place, file.rel, stamp, &mut unread) {
                    // A folder given twice hides nothing from itself.
                    if let Some(earlier) = from.insert(file.rel.clone(), index)
                        && canonicals[earlier] != canonical
                    {
                        hidden
                            .entry((earlier, index))
                            .or_default()
                            .push(file.rel.clone());
                    }
                    files.insert(file.rel.clone(), file);
                }
            }
        }
        let hidden = hidden
            .into_iter()
            .map(|((earlier, later), mut paths)| {
                paths.sort();
                Hidden {
                    earlier: self.overlays[earlier].clone(),
                    later: self.overlays[later].clone(),
                    paths,
                }
            })
            .collect();
        warnings.extend(unread.into_iter().map(|d| Diagnostic {
            severity: skipped,
            ..d
        }));
        if let Some(dir) = self.builtin {
            others.extend(dir.folders().iter().map(|folder| folder.to_string()));
        }
        Collected {
            files: files.into_values().collect(),
            warnings,
            others,
            hidden,
        }
    }

    /// The files `collect` would read, found without reading them: relative
    /// path, origin and, for overlay files, size and modification time; for
    /// built-in files, the digest of their content (nothing is
    /// decompressed). Sorted by path, shadowing applied.
    /// It walks the folders exactly as `collect` does (same hidden-file,
    /// extension and symlink rules), so a cache keyed on it stays in step with
    /// what `collect` loads. Files `collect` would skip for not being UTF-8
    /// (and overlay files too big to read) are still listed: only reading
    /// them could tell.
    pub fn scan(&self, extension: &str) -> Vec<ScannedFile> {
        self.scan_with_snapshot(extension).0
    }

    /// `scan`, and a snapshot of the overlay folders that can later tell
    /// quickly whether anything changed (`None` when the scan saw something
    /// a snapshot cannot vouch for: see `Snapshot`).
    pub fn scan_with_snapshot(&self, extension: &str) -> (Vec<ScannedFile>, Option<Snapshot>) {
        let mut files: Vec<ScannedFile> = Vec::new();
        if let Some(dir) = self.builtin {
            scan_embedded(dir, extension, &mut files);
        }
        let mut recorder = snapshot::Recorder::new();
        for (index, root) in self.overlays.iter().enumerate() {
            let mut warnings = Vec::new();
            let walked = walk_dir(root, extension, &mut warnings);
            if walked.uncertain {
                recorder.spoil();
            }
            let folders: Vec<usize> = walked
                .folders
                .iter()
                .map(|f| recorder.folder(&f.canonical, f.modified))
                .collect();
            let mut found = walked.found;
            // The snapshot groups files by folder.
            found.sort_by_key(|f| f.folder);
            for file in found {
                recorder.file(
                    folders[file.folder],
                    file.name,
                    file.stamp.as_ref().ok().copied(),
                );
                // A file that cannot be stat'ed is one `collect` skips too.
                if let Ok(stamp) = file.stamp {
                    files.push(ScannedFile {
                        rel: file.rel,
                        overlay: Some(index),
                        stamp: Some(stamp),
                        digest: None,
                    });
                }
            }
        }
        // Later sources shadow earlier ones: keep the last of each path.
        files.reverse();
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        files.dedup_by(|later, kept| later.rel == kept.rel);
        (files, recorder.finish())
    }
}

/// What `SourceSet::collect_all` read.
#[derive(Debug, Default)]
pub struct Collected {
    pub files: Vec<SourceFile>,
    pub warnings: Vec<Diagnostic>,
    /// Ids of the folders of all sources and of their files with no
    /// extension (`LICENSE`): not read, but there for a link to name.
    pub others: BTreeSet<String>,
    /// Files of an overlay folder that a later one's same-named files hid,
    /// one entry per pair of folders, in the order the folders were given.
    /// Replacing a built-in file is what overlays are for: not listed.
    pub hidden: Vec<Hidden>,
}

/// The files of `earlier` that `later` hides ("later wins"): two doc sets
/// overlaid that both have a `README.md` or `docs/install.md`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hidden {
    pub earlier: PathBuf,
    pub later: PathBuf,
    /// Relative paths, sorted.
    pub paths: Vec<String>,
}

impl Hidden {
    /// The warning `lore check` gives: both folders, the count and up to
    /// three of the paths.
    pub fn to_diagnostic(&self) -> Diagnostic {
        let n = self.paths.len();
        let mut examples = self
            .paths
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if n > 3 {
            examples.push_str(", …");
        }
        Diagnostic::warning(
            self.later.display().to_string(),
            None,
            format!(
                "{n} document{} of {} {} hidden by same-named document{} of {} (later wins): {examples}",
                if n == 1 { "" } else { "s" },
                self.earlier.display(),
                if n == 1 { "is" } else { "are" },
                if n == 1 { "" } else { "s" },
                self.later.display(),
            ),
        )
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
    /// For built-in files, the [`digest`] of their content, worked out when
    /// lore was built: a scan decompresses nothing.
    pub digest: Option<u128>,
}

fn scan_embedded(dir: &'static BuiltinFolder, extension: &str, files: &mut Vec<ScannedFile>) {
    for file in dir.files() {
        let rel = file.path();
        if !has_extension(rel, extension) || is_hidden(rel) || file.size() as u64 > MAX_FILE_BYTES {
            continue;
        }
        files.push(ScannedFile {
            rel: rel.to_string(),
            overlay: None,
            stamp: None,
            digest: Some(file.digest()),
        });
    }
}

/// Whether `name` ends in `.{extension}` (any case). Markdown (`md`) takes
/// MDX pages (`.mdx`) too: Docusaurus, Nextra and Mintlify keep their pages
/// so, and `corpus` reads them as Markdown.
fn has_extension(name: &str, extension: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty()
            && (ext.eq_ignore_ascii_case(extension)
                || extension == "md" && ext.eq_ignore_ascii_case("mdx"))
    })
}

fn collect_embedded(
    dir: &'static BuiltinFolder,
    extension: &str,
    wanted: &dyn Fn(&str) -> bool,
    files: &mut BTreeMap<String, SourceFile>,
    warnings: &mut Vec<Diagnostic>,
) {
    for file in dir.files() {
        let rel = file.path();
        if !has_extension(rel, extension) || is_hidden(rel) || !wanted(rel) {
            continue;
        }
        if file.size() as u64 > MAX_FILE_BYTES {
            warnings.push(too_big(rel, file.size() as u64));
            continue;
        }
        let text = match file.bytes() {
            Ok(bytes) => decode(rel, &bytes, warnings),
            Err(err) => {
                warnings.push(Diagnostic::warning(
                    rel,
                    None,
                    format!("cannot read, skipped: {err}"),
                ));
                None
            }
        };
        if let Some(text) = text {
            files.insert(
                rel.to_string(),
                SourceFile {
                    rel: rel.to_string(),
                    origin: Origin::Builtin,
                    text,
                    stamp: None,
                },
            );
        }
    }
}

fn is_hidden(rel: &str) -> bool {
    rel.split('/').any(|part| part.starts_with('.'))
}

/// Where an overlay file is: its folder as given and as resolved, and its
/// path through the folders as walked.
#[derive(Clone, Copy)]
struct Place<'a> {
    root: &'a Path,
    canonical: &'a Path,
    path: &'a Path,
}

/// Reads one overlay file, or reports in `unread` why it cannot be used
/// (naming the file as the user can open it).
fn read_overlay_file(
    place: Place<'_>,
    rel: String,
    stamp: Stamp,
    unread: &mut Vec<Diagnostic>,
) -> Option<SourceFile> {
    let Place {
        root,
        canonical,
        path,
    } = place;
    let mut problems = Vec::new();
    let text = if stamp.size > MAX_FILE_BYTES {
        problems.push(too_big(&rel, stamp.size));
        None
    } else {
        match read::read_inside(canonical, path, MAX_FILE_BYTES) {
            Ok(bytes) => decode(&rel, &bytes, &mut problems),
            Err(err) => {
                problems.push(Diagnostic::warning(
                    &rel,
                    None,
                    format!("cannot read, skipped: {err}"),
                ));
                None
            }
        }
    };
    unread.extend(problems.into_iter().map(|d| d.in_file(Some(path))));
    let text = text?;
    Some(SourceFile {
        rel,
        origin: Origin::Overlay {
            root: root.to_path_buf(),
            file: path.to_path_buf(),
        },
        text,
        stamp: Some(stamp),
    })
}

/// `text` with each carriage return that is not followed by a line feed
/// made one: a classic Mac file, or a paste saved from a terminal that sends
/// CR for each line break, ends its lines in CR alone, which CommonMark
/// reads as a line end too, and which would otherwise make the whole file
/// one line (its title the whole text). CRLF is left as it is, and every
/// byte stays where it was.
fn lone_carriage_returns_end_lines(text: &str) -> String {
    let bytes = text.as_bytes();
    if !bytes.contains(&b'\r') {
        return text.to_string();
    }
    let fixed: Vec<u8> = bytes
        .iter()
        .enumerate()
        .map(|(i, &b)| match b {
            b'\r' if bytes.get(i + 1) != Some(&b'\n') => b'\n',
            _ => b,
        })
        .collect();
    // Swapping one ASCII byte for another keeps the text UTF-8.
    String::from_utf8(fixed).unwrap_or_else(|_| text.to_string())
}

fn too_big(rel: &str, size: u64) -> Diagnostic {
    Diagnostic::warning(
        rel,
        None,
        format!(
            "file is {size} bytes, over the {} MiB limit, skipped",
            MAX_FILE_BYTES / 1024 / 1024
        ),
    )
}

/// UTF-8 text or a warning naming the line of the first bad byte.
fn decode(rel: &str, bytes: &[u8], warnings: &mut Vec<Diagnostic>) -> Option<String> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        warnings.push(too_big(rel, bytes.len() as u64));
        return None;
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => Some(lone_carriage_returns_end_lines(
            text.strip_prefix('\u{feff}').unwrap_or(text),
        )),
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
