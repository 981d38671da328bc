//! The on-disk index cache: one index per set of knowledge sources, under
//! `<cache dir>/search/v<schema>-<key>/`, rebuilt whenever a file is added,
//! removed or changed.
//!
//! - The *key* names the set of sources: whether built-in knowledge is in it
//!   and which overlay folders (canonical paths) contribute files.
//! - The *fingerprint* says what they hold: each built-in file's path and
//!   content hash, each overlay file's path, size and modification time. It
//!   is recorded in a manifest beside the index; a different fingerprint
//!   means a rebuild.
//! - Builds go into a fresh `gen-*` folder; a `current` file names the live
//!   one and is replaced by an atomic rename, so a crash never leaves a half
//!   index in use. Builders take a file lock so two `lore` processes never
//!   build the same index at once (the second waits, then uses the first's).
//! - A damaged index is rebuilt, with one warning. Same-size damage to a
//!   segment file makes tantivy panic, or silently change or lose hits, so
//!   every opening checks each file against the manifest, which records its
//!   size, CRC-32 and stamp (modification and change times, inode) from the
//!   build. A stat per file is all a search pays: anything that writes a file
//!   changes its stamp (the change time cannot be set back), and a file
//!   whose stamp moved is checksummed in full before it is used (then the
//!   manifest takes the new stamp, so a copied cache is checked once). Damage
//!   that no write made (the disk itself) is caught by a full check of every
//!   file once a day, and as a last resort a panic in a query is caught
//!   (`panics`) and the index rebuilt. Checking every file on every search
//!   would cost more than the search: 53 MB at 10,000 documents.
//! - A cache folder that cannot be written gives an in-memory index and one
//!   warning.
//!
//! This module decides where indexes live and whether they are fresh; it
//! does not know what is in them.

use std::collections::HashMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tantivy::Index;

use super::schema::{self, SCHEMA_VERSION};
use super::{BuildStats, IndexReport, OpenOptions, SearchError, SearchIndex};
use crate::corpus::Corpus;
use crate::diagnostic::Diagnostic;
use crate::hash::Hasher;
use crate::sources::{Origin, Snapshot, SourceSet, Stamp};

const MANIFEST: &str = "lore-manifest.json";
/// Beside the manifest: its modification time is when every file of the
/// generation was last checksummed.
const VERIFIED: &str = "lore-verified";
/// Every file of an index is checksummed in full at least this often (on
/// the first opening after), whatever its stamp says.
const VERIFY_EVERY: Duration = Duration::from_secs(24 * 3600);
/// The cache's own small files (`current`, a manifest) are read only up to
/// this size, and only if they are regular files (`datafile`).
const SMALL_FILE_LIMIT: u64 = 16 << 20;
/// A record of the last scan takes 35 bytes a file.
const RECORD_LIMIT: u64 = 256 << 20;
const CURRENT: &str = "current";
const LOCK: &str = "build.lock";
/// How long to wait for another process's build before building in memory.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(60);
/// An index folder or scan record nothing has used for this long is
/// removed the next time any index is built: knowledge folders come and go
/// (a 10,000-file index takes 53 MB), and the cache must not grow forever.
const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 3600);
/// Using an index or a record moves its file's modification time to now,
/// at most this often (one write a day, not one per search).
const MARK_USE_EVERY: Duration = Duration::from_secs(24 * 3600);

/// Where the knowledge comes from.
pub(super) enum Source<'a> {
    Corpus(&'a Corpus),
    Sources(&'a SourceSet),
}

impl<'a> Source<'a> {
    /// The corpus to index: the one given, or the sources loaded into
    /// `owned` (only when an index must be built).
    fn corpus(&self, owned: &'a mut Option<Corpus>) -> &'a Corpus {
        match *self {
            Source::Corpus(corpus) => corpus,
            Source::Sources(sources) => owned.insert(Corpus::load(sources)),
        }
    }
}

/// What the sources hold now.
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    key: String,
    /// Fingerprint of the files a corpus loaded.
    loaded: Option<String>,
    /// Fingerprint of every file the sources list, loadable or not.
    all: Option<String>,
}

/// Recorded beside each index.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Manifest {
    schema: u32,
    loaded: String,
    all: Option<String>,
    documents: usize,
    sections: usize,
    bytes: u64,
    /// Every index file as it was built.
    files: Vec<IndexFile>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct IndexFile {
    name: String,
    size: u64,
    crc32: u32,
    stamp: FileStamp,
}

/// What changes when anything writes a file: its modification time, its
/// change time (which no tool can set back) and, if it was replaced, its
/// inode. Only the modification time on systems without the others.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
struct FileStamp {
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
}

impl FileStamp {
    #[cfg(unix)]
    fn of(meta: &fs::Metadata) -> FileStamp {
        use std::os::unix::fs::MetadataExt;
        FileStamp {
            modified: (meta.mtime(), meta.mtime_nsec()),
            changed: (meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }

    #[cfg(not(unix))]
    fn of(meta: &fs::Metadata) -> FileStamp {
        let modified = meta.modified().ok().map_or(0, nanos_since_epoch);
        FileStamp {
            modified: (
                (modified / 1_000_000_000) as i64,
                (modified % 1_000_000_000) as i64,
            ),
            ..FileStamp::default()
        }
    }
}

/// Why a cached index cannot be used.
#[derive(Debug)]
enum Unusable {
    /// There is none yet, or it was built from other sources or by another
    /// version of lore: build, say nothing.
    Stale,
    /// It is damaged: build, and say so once.
    Damaged(String),
}

type Found = (SearchIndex, IndexReport);

impl Manifest {
    fn fresh_for(&self, state: &State) -> bool {
        self.schema == SCHEMA_VERSION
            && (state.loaded.as_ref() == Some(&self.loaded)
                || (state.all.is_some() && state.all == self.all))
    }
}

pub(super) fn open(
    source: Source<'_>,
    cache_dir: Option<&Path>,
    options: OpenOptions<'_>,
) -> Result<(SearchIndex, IndexReport), SearchError> {
    open_inner(source, cache_dir, options, true)
}

/// `open` on folders on disk, then `then` on the index. With a record of
/// the last scan, the index it names is searched while other threads check
/// its snapshot (this one joins them when done), and the answer is kept
/// only if the snapshot holds: on a big overlay the stats and the search
/// share the cores instead of taking turns.
///
/// If `then` found the index damaged (a query panicked inside it), the index
/// is rebuilt and `then` runs again on the new one, with a warning.
pub(super) fn open_then<T>(
    sources: &SourceSet,
    cache_dir: Option<&Path>,
    mut options: OpenOptions<'_>,
    then: impl Fn(&SearchIndex) -> T,
) -> Result<(SearchIndex, IndexReport, T), SearchError> {
    let (index, report, answer) = open_then_once(sources, cache_dir, options.reborrow(), &then)?;
    let Some(why) = index.damage().map(str::to_string) else {
        return Ok((index, report, answer));
    };
    let location = report.location.clone();
    drop(index);
    options.rebuild = true;
    let (index, mut report) = open_inner(Source::Sources(sources), cache_dir, options, false)?;
    report
        .warnings
        .insert(0, damage_warning(location.as_deref(), &why));
    let answer = then(&index);
    Ok((index, report, answer))
}

/// The warning for an index that a query found damaged and that was rebuilt.
pub(super) fn damage_warning(location: Option<&Path>, panic: &str) -> Diagnostic {
    Diagnostic::warning(
        location.map_or("search index".to_string(), |l| l.display().to_string()),
        None,
        format!("the search index was damaged (a search failed inside it: {panic}); rebuilt it"),
    )
}

fn open_then_once<T>(
    sources: &SourceSet,
    cache_dir: Option<&Path>,
    options: OpenOptions<'_>,
    then: &impl Fn(&SearchIndex) -> T,
) -> Result<(SearchIndex, IndexReport, T), SearchError> {
    if let Some(cache_dir) = cache_dir
        && !options.rebuild
        && let Some(record) = SourcesRecord::read(&SourcesRecord::path(cache_dir, sources))
        && record.builtin == builtin_fingerprint(sources)
    {
        let check = record.snapshot.check();
        let answered = crate::cores::share_out(
            check.helpers(),
            || check.work(),
            || {
                record
                    .open(cache_dir, options.verify)
                    .map(|(index, report)| {
                        let answer = then(&index);
                        (index, report, answer)
                    })
            },
        );
        if let Some(found) = answered.filter(|_| check.unchanged()) {
            return Ok(found);
        }
    }
    let (index, report) = open_inner(Source::Sources(sources), cache_dir, options, false)?;
    let answer = then(&index);
    Ok((index, report, answer))
}

/// `open`; `try_record` says whether a `SourcesRecord` may vouch for the
/// sources (false when the caller has just found that it does not).
fn open_inner(
    source: Source<'_>,
    cache_dir: Option<&Path>,
    mut options: OpenOptions<'_>,
    try_record: bool,
) -> Result<(SearchIndex, IndexReport), SearchError> {
    let Some(cache_dir) = cache_dir else {
        let mut owned = None;
        let corpus = source.corpus(&mut owned);
        return SearchIndex::build_in_memory_with(corpus, options.progress.as_deref_mut());
    };
    // For folders on disk: a record of the last full scan, checked with a
    // stat per file instead of a walk.
    let mut record = None;
    let state = match source {
        Source::Corpus(corpus) => State::of_corpus(corpus),
        Source::Sources(sources) => {
            let path = SourcesRecord::path(cache_dir, sources);
            if try_record
                && !options.rebuild
                && let Some(record) = SourcesRecord::read(&path)
                && record.builtin == builtin_fingerprint(sources)
                && record.snapshot.unchanged()
                && let Some(found) = record.open(cache_dir, options.verify)
            {
                return Ok(found);
            }
            let (state, snapshot) = State::of_sources(sources);
            record = snapshot.map(|snapshot| (path, snapshot, builtin_fingerprint(sources)));
            state
        }
    };
    let dir = cache_dir
        .join("search")
        .join(format!("v{SCHEMA_VERSION}-{}", state.key));
    let remember = |record: Option<(PathBuf, Snapshot, String)>| {
        if let Some((path, snapshot, builtin)) = record {
            SourcesRecord {
                key: state.key.clone(),
                all: state.all.clone().unwrap_or_default(),
                builtin,
                snapshot,
            }
            .write(&path);
        }
    };
    let mut damage = None;
    if !options.rebuild {
        match open_current(&dir, &state, options.verify) {
            Ok(found) => {
                remember(record);
                return Ok(found);
            }
            Err(Unusable::Stale) => {}
            Err(Unusable::Damaged(why)) => {
                log::warn!("search index {}: {why}; rebuilding", dir.display());
                damage = Some(Diagnostic::warning(
                    dir.display().to_string(),
                    None,
                    format!("the search index was damaged ({why}); rebuilt it"),
                ));
            }
        }
    }
    let mut owned = None;
    let corpus = source.corpus(&mut owned);
    match build_cached(&dir, corpus, &state, &mut options) {
        Ok((index, mut report)) => {
            remember(record);
            report.warnings.extend(damage);
            Ok((index, report))
        }
        Err(err) => {
            log::warn!("search cache {}: {err}", dir.display());
            let (index, mut report) =
                SearchIndex::build_in_memory_with(corpus, options.progress.as_deref_mut())?;
            report.warnings.extend(damage);
            report.warnings.push(Diagnostic::warning(
                cache_dir.display().to_string(),
                None,
                format!(
                    "cannot use the search cache ({err}); searching an in-memory index, rebuilt on every run"
                ),
            ));
            Ok((index, report))
        }
    }
}

/// Opens the live index in `dir` if it is intact and fresh for `state`.
fn open_current(dir: &Path, state: &State, verify: bool) -> Result<Found, Unusable> {
    // A builder may swap `current` and delete the old generation between
    // our reading the name and opening the files: then read it again.
    let mut last: Option<(String, Unusable)> = None;
    for _ in 0..2 {
        let name = match read_marking_use(&dir.join(CURRENT), SMALL_FILE_LIMIT) {
            Ok(name) => name,
            // Something other than a small regular file there is damage;
            // no file (or no folder) is just no index yet.
            Err(err) if err.kind() == std::io::ErrorKind::InvalidData => {
                return Err(Unusable::Damaged(format!("{CURRENT}: {err}")));
            }
            Err(_) => return Err(last.map_or(Unusable::Stale, |(_, why)| why)),
        };
        let Ok(name) = String::from_utf8(name).map(|n| n.trim().to_string()) else {
            return Err(Unusable::Damaged(format!("{CURRENT} is not a name")));
        };
        if let Some((last_name, why)) = last.take()
            && last_name == name
        {
            return Err(why);
        }
        match open_generation(dir, &name, state, verify) {
            Ok(found) => return Ok(found),
            Err(why) => last = Some((name, why)),
        }
    }
    Err(last.map_or(Unusable::Stale, |(_, why)| why))
}

fn open_generation(dir: &Path, name: &str, state: &State, verify: bool) -> Result<Found, Unusable> {
    if !name.starts_with("gen-") || name.contains(['/', '\\']) {
        return Err(Unusable::Damaged(format!(
            "{CURRENT} names {:?}, not an index",
            crate::text::sanitize(name)
        )));
    }
    let generation = dir.join(name);
    let damaged = |why: String| Unusable::Damaged(why);
    let manifest_bytes = crate::datafile::read(&generation.join(MANIFEST), SMALL_FILE_LIMIT)
        .map_err(|err| damaged(format!("{name}/{MANIFEST}: {err}")))?;
    let mut manifest: Manifest = serde_json::from_slice(&manifest_bytes)
        .map_err(|err| damaged(format!("{name}/{MANIFEST}: {err}")))?;
    if !manifest.fresh_for(state) {
        return Err(Unusable::Stale);
    }
    check_files(&generation, &mut manifest, verify).map_err(damaged)?;
    // The last resort: damage that slipped past the checks can make tantivy
    // panic while opening, as well as while searching.
    let opened = crate::panics::catch(|| -> Result<Option<SearchIndex>, SearchError> {
        let index = Index::open_in_dir(&generation)?;
        let (expected, fields) = schema::build_schema();
        if index.schema() != expected {
            return Ok(None);
        }
        super::register_tokenizer(&index);
        SearchIndex::from_index(index, fields).map(Some)
    });
    let search = match opened {
        Ok(Ok(Some(search))) => search,
        Ok(Ok(None)) => return Err(Unusable::Stale),
        Ok(Err(err)) => return Err(damaged(err.to_string())),
        Err(panic) => return Err(damaged(format!("opening it failed: {panic}"))),
    };
    Ok((
        search,
        IndexReport {
            documents: manifest.documents,
            sections: manifest.sections,
            bytes: manifest.bytes,
            build_time: None,
            rebuilt: false,
            location: Some(generation),
            warnings: Vec::new(),
        },
    ))
}

/// Checks every file of a generation against its manifest entry: present,
/// a regular file, the same size, and, if its stamp moved or `verify` is
/// set or the daily full check is due, the same checksum. Files that pass
/// with a new stamp get it recorded. The error says what is wrong.
fn check_files(generation: &Path, manifest: &mut Manifest, verify: bool) -> Result<(), String> {
    let marker = generation.join(VERIFIED);
    let now = SystemTime::now();
    let last_full = fs::metadata(&marker).and_then(|m| m.modified()).ok();
    let full = verify
        || last_full.is_none_or(|t| now.duration_since(t).is_ok_and(|age| age > VERIFY_EVERY));
    let mut restamped = false;
    for file in &mut manifest.files {
        let path = generation.join(&file.name);
        let meta = fs::metadata(&path).map_err(|err| format!("{}: {err}", file.name))?;
        if !meta.is_file() || meta.len() != file.size {
            return Err(format!(
                "{} is {} bytes, not {}",
                file.name,
                meta.len(),
                file.size
            ));
        }
        let stamp = FileStamp::of(&meta);
        if full || stamp != file.stamp {
            let crc = crc32_of(&path).map_err(|err| format!("{}: {err}", file.name))?;
            if crc != file.crc32 {
                return Err(format!("{} does not match its checksum", file.name));
            }
            if stamp != file.stamp {
                file.stamp = stamp;
                restamped = true;
            }
        }
    }
    // Best effort: a read-only cache is checked in full every time instead.
    if restamped {
        let path = generation.join(MANIFEST);
        let pending = generation.join(format!("{MANIFEST}.{}", generation_name()));
        let json = serde_json::to_vec(manifest).unwrap_or_default();
        if write_synced(&pending, &json).is_err() || fs::rename(&pending, &path).is_err() {
            let _ = fs::remove_file(&pending);
        }
    }
    if full {
        let _ = write_synced(&marker, b"");
    }
    Ok(())
}

/// The CRC-32 of a whole file.
fn crc32_of(path: &Path) -> std::io::Result<u32> {
    let mut file = fs::File::open(path)?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buffer = vec![0; 256 * 1024];
    loop {
        let n = std::io::Read::read(&mut file, &mut buffer)?;
        if n == 0 {
            return Ok(hasher.finalize());
        }
        hasher.update(&buffer[..n]);
    }
}

/// Builds into a new generation under `dir` and makes it current. Any error
/// means the cache cannot be used this time.
fn build_cached(
    dir: &Path,
    corpus: &Corpus,
    state: &State,
    options: &mut OpenOptions<'_>,
) -> Result<(SearchIndex, IndexReport), CacheError> {
    fs::create_dir_all(dir).map_err(|e| CacheError::io(dir, e))?;
    let lock_path = dir.join(LOCK);
    let lock = crate::datafile::open_lock(&lock_path).map_err(|e| CacheError::io(&lock_path, e))?;
    let locked = wait_for_lock(&lock)?;
    if !options.rebuild
        && let Ok(found) = open_current(dir, state, options.verify)
    {
        return Ok(found);
    }
    let started = Instant::now();
    let name = generation_name();
    let generation = dir.join(&name);
    fs::create_dir(&generation).map_err(|e| CacheError::io(&generation, e))?;
    let result = build_generation(&generation, corpus, state, options);
    let (index, fields, stats) = match result {
        Ok(built) => built,
        Err(err) => {
            let _ = fs::remove_dir_all(&generation);
            return Err(err);
        }
    };
    // Make it live: write the name aside, then rename over `current`.
    let pending = dir.join(format!("{CURRENT}.{name}"));
    write_synced(&pending, format!("{name}\n").as_bytes())
        .map_err(|e| CacheError::io(&pending, e))?;
    fs::rename(&pending, dir.join(CURRENT)).map_err(|e| CacheError::io(&pending, e))?;
    if locked {
        remove_stale(dir, &name);
    }
    if let Some(search) = dir.parent() {
        remove_unused(search, dir);
    }
    drop(lock);
    let search = SearchIndex::from_index(index, fields).map_err(CacheError::Search)?;
    Ok((search, IndexReport::built(stats, started, Some(generation))))
}

fn build_generation(
    generation: &Path,
    corpus: &Corpus,
    state: &State,
    options: &mut OpenOptions<'_>,
) -> Result<(Index, schema::Fields, BuildStats), CacheError> {
    let (schema, fields) = schema::build_schema();
    let index = Index::builder()
        .schema(schema)
        .settings(schema::index_settings())
        .create_in_dir(generation)
        .map_err(CacheError::Tantivy)?;
    super::register_tokenizer(&index);
    let stats = super::build(&index, &fields, corpus, options.progress.as_deref_mut())
        .map_err(CacheError::Tantivy)?;
    let mut files = Vec::new();
    for entry in fs::read_dir(generation).map_err(|e| CacheError::io(generation, e))? {
        let entry = entry.map_err(|e| CacheError::io(generation, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let meta = entry
            .metadata()
            .map_err(|e| CacheError::io(generation, e))?;
        if meta.is_file() && !name.starts_with('.') && name != MANIFEST && name != VERIFIED {
            let path = entry.path();
            files.push(IndexFile {
                crc32: crc32_of(&path).map_err(|e| CacheError::io(&path, e))?,
                size: meta.len(),
                stamp: FileStamp::of(&meta),
                name,
            });
        }
    }
    files.sort_by(|a, b| a.name.cmp(&b.name));
    let fingerprint = State::of_corpus(corpus);
    let manifest = Manifest {
        schema: SCHEMA_VERSION,
        loaded: fingerprint.loaded.unwrap_or_default(),
        // What a scan of the sources will see next time: the state we were
        // asked about if it came from a scan, else the corpus's own.
        all: state.all.clone().or(fingerprint.all),
        documents: stats.documents,
        sections: stats.sections,
        bytes: stats.bytes,
        files,
    };
    let json = serde_json::to_vec(&manifest).unwrap_or_default();
    let path = generation.join(MANIFEST);
    write_synced(&path, &json).map_err(|e| CacheError::io(&path, e))?;
    // Every file was just checksummed.
    let marker = generation.join(VERIFIED);
    write_synced(&marker, b"").map_err(|e| CacheError::io(&marker, e))?;
    Ok((index, fields, stats))
}

/// Takes the build lock, waiting while another lore builds (then its index
/// is used). Without lock support (some network file systems) builds may
/// overlap; each writes its own generation, so that only costs time. A lock
/// held for longer than a build could take means a stuck process: give up on
/// the cache rather than hang.
fn wait_for_lock(lock: &fs::File) -> Result<bool, CacheError> {
    let started = Instant::now();
    loop {
        match lock.try_lock() {
            Ok(()) => return Ok(true),
            Err(fs::TryLockError::WouldBlock) if started.elapsed() < LOCK_PATIENCE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(fs::TryLockError::WouldBlock) => return Err(CacheError::Busy),
            Err(fs::TryLockError::Error(_)) => return Ok(false),
        }
    }
}

/// Removes generations other than `keep`, and pending `current` files left
/// by crashed builds. Called with the build lock held, so no build is
/// writing them; a reader that still has an old generation open keeps its
/// files until it closes them.
fn remove_stale(dir: &Path, keep: &str) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("gen-") && name != keep {
            let _ = fs::remove_dir_all(entry.path());
        } else if name.starts_with(&format!("{CURRENT}.")) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Removes what sits unused in the `search` cache folder (index folders of
/// any schema version, scan records, leftovers of interrupted writes) for
/// longer than `UNUSED_FOR`, except `keep`. An index folder was last used
/// when its `current` file or the folder itself last changed: a build in
/// progress has just created its folder.
fn remove_unused(search: &Path, keep: &Path) {
    let Ok(entries) = fs::read_dir(search) else {
        return;
    };
    let now = SystemTime::now();
    let modified = |path: &Path| fs::metadata(path).and_then(|m| m.modified()).ok();
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        if path == keep || !name.to_string_lossy().starts_with('v') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let last_used = if kind.is_dir() {
            modified(&path).max(modified(&path.join(CURRENT)))
        } else {
            modified(&path)
        };
        let unused = last_used
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > UNUSED_FOR);
        if unused {
            log::info!("search cache: removing {} (unused)", path.display());
            let _ = if kind.is_dir() {
                fs::remove_dir_all(&path)
            } else {
                fs::remove_file(&path)
            };
        }
    }
}

/// Reads a file, and marks it used (its modification time moves to now) if
/// that was last done more than `MARK_USE_EVERY` ago. Marking is best
/// effort: a read-only cache is still read.
fn read_marking_use(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let bytes = crate::datafile::read(path, limit)?;
    let now = SystemTime::now();
    let stale = fs::metadata(path)
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|t| now.duration_since(t).ok())
        .is_some_and(|age| age > MARK_USE_EVERY);
    if stale && let Ok(file) = fs::OpenOptions::new().write(true).open(path) {
        let _ = file.set_modified(now);
    }
    Ok(bytes)
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = fs::File::create(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

/// A name no other build uses: time and process id.
fn generation_name() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("gen-{nanos:x}-{}", std::process::id())
}

#[derive(Debug, thiserror::Error)]
enum CacheError {
    #[error("another lore has been building this index for over {} s", LOCK_PATIENCE.as_secs())]
    Busy,
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Tantivy(tantivy::TantivyError),
    #[error("{0}")]
    Search(SearchError),
}

impl CacheError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        CacheError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

impl State {
    fn of_corpus(corpus: &Corpus) -> State {
        let mut roots = Roots::default();
        let mut fingerprint = Hasher::new();
        let mut builtin = false;
        let mut root_set = Vec::new();
        for doc in &corpus.documents {
            let file = match &doc.origin {
                Origin::Builtin => {
                    builtin = true;
                    File::Builtin(crate::sources::digest(doc.text.as_bytes()))
                }
                Origin::Overlay { root, .. } => {
                    let root = roots.canonical(root);
                    if !root_set.contains(&root) {
                        root_set.push(root.clone());
                    }
                    entry(&mut fingerprint, &doc.path, File::Overlay(&root, doc.stamp));
                    continue;
                }
            };
            entry(&mut fingerprint, &doc.path, file);
        }
        let loaded = fingerprint.hex();
        State {
            key: key(builtin, root_set),
            all: corpus.warnings.is_empty().then(|| loaded.clone()),
            loaded: Some(loaded),
        }
    }

    fn of_sources(sources: &SourceSet) -> (State, Option<Snapshot>) {
        let mut roots = Roots::default();
        let canonical: Vec<String> = sources
            .overlays
            .iter()
            .map(|r| roots.canonical(r))
            .collect();
        let mut used = vec![false; canonical.len()];
        let mut fingerprint = Hasher::new();
        let mut builtin = false;
        let (files, snapshot) = sources.scan_with_snapshot("md");
        for file in files {
            let kind = match file.overlay {
                None => {
                    builtin = true;
                    File::Builtin(file.digest.unwrap_or_default())
                }
                Some(i) => {
                    used[i] = true;
                    File::Overlay(&canonical[i], file.stamp)
                }
            };
            entry(&mut fingerprint, &file.rel, kind);
        }
        let mut root_set: Vec<String> = Vec::new();
        for (root, used) in canonical.into_iter().zip(used) {
            if used && !root_set.contains(&root) {
                root_set.push(root);
            }
        }
        let state = State {
            key: key(builtin, root_set),
            loaded: None,
            all: Some(fingerprint.hex()),
        };
        (state, snapshot)
    }
}

/// Beside the indexes, one per set of sources (built-in or not, and the
/// overlay folders in order): the snapshot of the last full scan whose index
/// was fresh or built, and what that scan worked out. While the snapshot
/// holds, the same index is fresh without walking the folders again.
struct SourcesRecord {
    key: String,
    all: String,
    /// `builtin_fingerprint` of the sources: another lore binary carries
    /// other built-in files.
    builtin: String,
    snapshot: Snapshot,
}

const RECORD_MAGIC: &str = "lore-sources 1";

impl SourcesRecord {
    fn path(cache_dir: &Path, sources: &SourceSet) -> PathBuf {
        let mut roots = Roots::default();
        let mut h = Hasher::new();
        h.write(b"lore-sources-record");
        h.write(&[u8::from(sources.builtin.is_some())]);
        for root in &sources.overlays {
            h.write(roots.canonical(root).as_bytes());
        }
        cache_dir
            .join("search")
            .join(format!("v{SCHEMA_VERSION}-sources-{}", &h.hex()[..16]))
    }

    fn read(path: &Path) -> Option<SourcesRecord> {
        let mut bytes = read_marking_use(path, RECORD_LIMIT).ok()?;
        let mut rest = bytes.as_slice();
        let mut line = || {
            let end = rest.iter().position(|&b| b == b'\n')?;
            let text = std::str::from_utf8(&rest[..end]).ok()?.to_string();
            rest = &rest[end + 1..];
            Some(text)
        };
        if line()? != RECORD_MAGIC {
            return None;
        }
        let (key, all, builtin) = (line()?, line()?, line()?);
        // The snapshot keeps the rest of the buffer.
        let header = bytes.len() - rest.len();
        bytes.drain(..header);
        Some(SourcesRecord {
            key,
            all,
            builtin,
            snapshot: Snapshot::from_bytes(bytes)?,
        })
    }

    /// Opens the index the record names, if it is intact and was built
    /// from what the record says (the snapshot is not checked here).
    fn open(&self, cache_dir: &Path, verify: bool) -> Option<Found> {
        let state = State {
            key: self.key.clone(),
            loaded: None,
            all: Some(self.all.clone()),
        };
        let dir = cache_dir
            .join("search")
            .join(format!("v{SCHEMA_VERSION}-{}", state.key));
        open_current(&dir, &state, verify).ok()
    }

    /// Replaces the record (atomically: a reader sees the old or the new).
    /// It is only a shortcut, so failing to write it is not an error.
    fn write(&self, path: &Path) {
        let mut bytes = format!(
            "{RECORD_MAGIC}\n{}\n{}\n{}\n",
            self.key, self.all, self.builtin
        )
        .into_bytes();
        bytes.extend_from_slice(&self.snapshot.to_bytes());
        let pending = path.with_extension(generation_name());
        if fs::write(&pending, &bytes).is_err() || fs::rename(&pending, path).is_err() {
            let _ = fs::remove_file(&pending);
        }
    }
}

/// What the built-in files of `sources` hold ("none" without them).
fn builtin_fingerprint(sources: &SourceSet) -> String {
    let Some(builtin) = sources.builtin else {
        return "none".to_string();
    };
    let mut h = Hasher::new();
    let only_builtin = SourceSet {
        builtin: Some(builtin),
        overlays: Vec::new(),
    };
    for file in only_builtin.scan("md") {
        entry(
            &mut h,
            &file.rel,
            File::Builtin(file.digest.unwrap_or_default()),
        );
    }
    h.hex()
}

fn key(builtin: bool, mut roots: Vec<String>) -> String {
    roots.sort();
    let mut h = Hasher::new();
    h.write(b"lore-search-sources");
    h.write(&[u8::from(builtin)]);
    for root in &roots {
        h.write(root.as_bytes());
    }
    h.hex()[..16].to_string()
}

/// What a fingerprint records of one file.
enum File<'a> {
    /// A built-in file's content, by its digest (`sources::digest`).
    Builtin(u128),
    /// An overlay file's canonical root and stamp.
    Overlay(&'a str, Option<Stamp>),
}

/// Adds one file to a fingerprint: built-in files by content, overlay files
/// by where they are, their size and their modification time.
fn entry(h: &mut Hasher, rel: &str, file: File<'_>) {
    h.write(rel.as_bytes());
    match file {
        File::Builtin(digest) => {
            h.write(b"B");
            h.write(&digest.to_le_bytes());
        }
        File::Overlay(root, stamp) => {
            h.write(b"O");
            h.write(root.as_bytes());
            let (size, modified) = stamp.map_or((u64::MAX, 0), |s| {
                (s.size, s.modified.map_or(0, nanos_since_epoch))
            });
            h.write(&size.to_le_bytes());
            h.write(&modified.to_le_bytes());
        }
    }
}

fn nanos_since_epoch(time: SystemTime) -> i128 {
    match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Canonical overlay roots, each looked up once.
#[derive(Default)]
struct Roots(HashMap<PathBuf, String>);

impl Roots {
    fn canonical(&mut self, root: &Path) -> String {
        self.0
            .entry(root.to_path_buf())
            .or_insert_with(|| {
                fs::canonicalize(root)
                    .unwrap_or_else(|_| root.to_path_buf())
                    .to_string_lossy()
                    .into_owned()
            })
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corpus_and_a_scan_of_its_sources_agree() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "# A\n\ntext\n").unwrap();
        let sources = SourceSet {
            builtin: Some(&crate::sources::BUILTIN_KNOWLEDGE),
            overlays: vec![dir.path().to_path_buf()],
        };
        let corpus = Corpus::load(&sources);
        let from_corpus = State::of_corpus(&corpus);
        let (from_scan, _) = State::of_sources(&sources);
        assert_eq!(from_corpus.key, from_scan.key);
        assert_eq!(from_corpus.all, from_scan.all);
        assert_eq!(from_corpus.loaded, from_scan.all);
    }

    /// An edited built-in file (a new lore binary) makes the index stale,
    /// though the fingerprint reads only digests worked out at build time.
    #[test]
    fn a_changed_built_in_file_changes_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.md"), "# A\n\naardvark\n").unwrap();
        fs::write(dir.path().join("b.md"), "# B\n\nbadger\n").unwrap();
        let fingerprints = || {
            let sources = SourceSet {
                builtin: Some(crate::sources::BuiltinFolder::from_folder(dir.path()).unwrap()),
                overlays: Vec::new(),
            };
            (
                builtin_fingerprint(&sources),
                State::of_sources(&sources).0.all,
            )
        };
        let before = fingerprints();
        assert_eq!(fingerprints(), before, "nothing changed");
        fs::write(dir.path().join("b.md"), "# B\n\nbodger\n").unwrap();
        let after = fingerprints();
        assert_ne!(after.0, before.0);
        assert_ne!(after.1, before.1);
    }

    /// The digests the build script wrote are those of the files in the
    /// repository: the fingerprint of the shipped knowledge is that of the
    /// folder read now.
    #[test]
    fn the_shipped_fingerprint_is_that_of_the_knowledge_folder() {
        let shipped = SourceSet {
            builtin: Some(&crate::sources::BUILTIN_KNOWLEDGE),
            overlays: Vec::new(),
        };
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("knowledge");
        let read_now = SourceSet {
            builtin: Some(crate::sources::BuiltinFolder::from_folder(&folder).unwrap()),
            overlays: Vec::new(),
        };
        assert_eq!(
            builtin_fingerprint(&shipped),
            builtin_fingerprint(&read_now)
        );
    }
}
