//! Reading the small files lore keeps in its own folders: `config.toml`,
//! saved walks, the search cache's records. Anyone who can write to those
//! folders can put something else there, so a read opens the path once, asks
//! the opened file (not the path) what it is, and reads at most a size
//! limit:
//!
//! - only a regular file is read: a FIFO would block the open or the read
//!   forever, and a device such as `/dev/zero` never ends (the open does
//!   not block, so the check after it is reached);
//! - a regular file over the limit is refused rather than read into memory.
//!
//! A missing file is `io::ErrorKind::NotFound` as usual, so callers keep
//! treating it as "nothing saved". Files lore writes in place (the log, the
//! search cache's lock) are opened under the same rules.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// Reads `path` if it is a regular file of at most `limit` bytes.
pub fn read(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open_read(path)?;
    let meta = file.metadata()?;
    if meta.len() > limit {
        return Err(too_big(limit));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // The size may have grown since the stat: never read past the limit.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_big(limit));
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_to_string(path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(path, limit)?)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "not UTF-8 text"))
}

/// Writes `bytes` to a temporary file beside `file`, then renames it over
/// `file`: a crash mid-write leaves the old file, never half a file. The
/// folder is created if needed.
///
/// Each write has a temporary file of its own: with one shared name, two
/// lores saving at once (two TUIs quitting together) removed or replaced
/// each other's, or failed with `File exists`.
pub fn write_atomically(file: &Path, bytes: &[u8]) -> io::Result<()> {
    let dir = file.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let (tmp, mut out) = create_temporary(file)?;
    let written = io::Write::write_all(&mut out, bytes);
    drop(out);
    match written.and_then(|()| std::fs::rename(&tmp, file)) {
        Ok(()) => Ok(()),
        Err(err) => {
            let _ = std::fs::remove_file(&tmp);
            Err(err)
        }
    }
}

/// A new file beside `file`, named after it, this process and a counter
/// (`history.json.4242.0.tmp`). Created exclusively: whatever already sits
/// at a name (a FIFO would block the open, a link would be written through)
/// is passed over, never opened.
fn create_temporary(file: &Path) -> io::Result<(std::path::PathBuf, File)> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = file.file_name().unwrap_or_default();
    let mut last = None;
    for _ in 0..100 {
        let mut tmp_name = name.to_os_string();
        tmp_name.push(format!(
            ".{}.{}.tmp",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = file.with_file_name(tmp_name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
        {
            Ok(out) => return Ok((tmp, out)),
            Err(err) if err.kind() == io::ErrorKind::AlreadyExists => last = Some(err),
            Err(err) => return Err(err),
        }
    }
    Err(last.unwrap_or_else(|| io::Error::other("no temporary file name was free")))
}

/// Opens `path` for reading if it is a regular file, under the rules above:
/// never waiting on a FIFO, and asking the opened file, so a FIFO or device
/// swapped in after a look at the path is refused too. For files read in
/// part (a Dockerfile is read up to its own cap).
pub fn open_read(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    open_regular(path, options)
}

/// Opens (creating it if needed) a lock file to take a lock on: like a read,
/// it must not block on a FIFO put there, and must be a regular file.
pub fn open_lock(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    open_regular(path, options)
}

/// Opens (creating it if needed) a file to append to, such as the log, under
/// the same rules.
pub fn open_append(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    open_regular(path, options)
}

fn open_regular(path: &Path, mut options: std::fs::OpenOptions) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let flags = rustix::fs::OFlags::NONBLOCK | rustix::fs::OFlags::NOCTTY;
        options.custom_flags(flags.bits() as i32);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("not a regular file but {}", kind(&meta)),
        ));
    }
    Ok(file)
}

fn too_big(limit: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("larger than {limit} bytes, not read"),
    )
}

/// What a file that is not a regular file is, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    let kind = meta.file_type();
    if kind.is_dir() {
        return "a folder";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_fifo() {
            return "a named pipe (FIFO)";
        }
        if kind.is_char_device() || kind.is_block_device() {
            return "a device";
        }
        if kind.is_socket() {
            return "a socket";
        }
    }
    "not a file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        std::fs::write(&path, "{}").unwrap();
        assert_eq!(read(&path, 2).unwrap(), b"{}");
        let err = read(&path, 1).unwrap_err();
        assert_eq!(err.to_string(), "larger than 1 bytes, not read");
        let missing = read(&dir.path().join("none"), 10).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
        let folder = read(dir.path(), 10).unwrap_err();
        assert_eq!(folder.to_string(), "not a regular file but a folder");
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let err = read(&fifo, 1 << 20).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a regular file but a named pipe (FIFO)"
        );
        let zero = dir.path().join("zero.json");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let err = read(&zero, 1 << 20).unwrap_err();
        assert_eq!(err.to_string(), "not a regular file but a device");
    }

    /// Two writers of one file at once (two TUIs saving a walk, or their
    /// history) shared one temporary name: one removed or replaced the
    /// other's temporary file, or failed with `File exists (os error 17)`.
    /// Each write now has its own: every write succeeds, and the file is
    /// one of them whole.
    #[test]
    fn concurrent_writes_of_one_file_all_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("history.json");
        const WRITERS: usize = 8;
        for round in 0..20 {
            let texts: Vec<Vec<u8>> = (0..WRITERS)
                .map(|w| {
                    format!("round {round} writer {w} ")
                        .repeat(1000)
                        .into_bytes()
                })
                .collect();
            let start = std::sync::Barrier::new(WRITERS);
            let results: Vec<io::Result<()>> = std::thread::scope(|scope| {
                let writers: Vec<_> = texts
                    .iter()
                    .map(|text| {
                        let (start, file) = (&start, &file);
                        scope.spawn(move || {
                            start.wait();
                            write_atomically(file, text)
                        })
                    })
                    .collect();
                writers.into_iter().map(|w| w.join().unwrap()).collect()
            });
            for result in results {
                result.expect("every write succeeds");
            }
            let written = std::fs::read(&file).unwrap();
            assert!(texts.contains(&written), "round {round}: a mixed file");
        }
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["history.json"], "temporary files left behind");
    }
}
