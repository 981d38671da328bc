//! Reading one overlay file so that what is read is what the walk allowed.
//!
//! The walk follows a symlink only when its target is inside the overlay
//! folder, but it resolves the link before the file is read. A writer in a
//! shared folder can swap the link in between (`doc.md -> notes/doc.md`,
//! then `doc.md -> ~/.ssh/id_rsa`), and a read of the path would follow the
//! new link. So the file is opened once and the *opened* file is checked:
//! its real path (which the kernel keeps for an open file) must still be
//! inside the folder, and it must be a regular file; only then is it read,
//! from the same open file. Every knowledge and tree file lore reads from
//! disk comes through [`read_inside`]; the corpus keeps the text, so
//! `show`, the index, search snippets and the TUI never read a path again.

use std::fs;
use std::io::{self, Read};
use std::path::Path;

/// Reads `path`, at most `limit` bytes, if the file it opens is a regular
/// file inside `root` (a canonical path). Otherwise an error saying why.
pub(super) fn read_inside(root: &Path, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let file = open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::other("not a regular file"));
    }
    if !opened_inside(&file, &meta, path, root) {
        return Err(io::Error::other(format!(
            "it now leads outside the knowledge folder {}",
            root.display()
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(limit)).unwrap_or(0));
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens for reading without blocking: a FIFO swapped in for a file would
/// otherwise hang the open until a writer came.
#[cfg(unix)]
fn open(path: &Path) -> io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let nonblocking = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblocking)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> io::Result<fs::File> {
    fs::File::open(path)
}

/// True if the open file lives inside `root`.
///
/// Linux names an open file's real path under `/proc/self/fd`: that is the
/// answer, whatever the links did before or since. Without it, the path is
/// resolved again and must be inside `root` and name the very file that
/// was opened (same device and inode), so a link swapped back after the
/// open does not pass either.
fn opened_inside(file: &fs::File, meta: &fs::Metadata, path: &Path, root: &Path) -> bool {
    if let Some(real) = opened_path(file) {
        return real.starts_with(root);
    }
    let Ok(resolved) = fs::canonicalize(path) else {
        return false;
    };
    resolved.starts_with(root) && fs::metadata(&resolved).is_ok_and(|now| same_file(meta, &now))
}

#[cfg(target_os = "linux")]
fn opened_path(file: &fs::File) -> Option<std::path::PathBuf> {
    use std::os::fd::AsRawFd;
    fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())).ok()
}

#[cfg(not(target_os = "linux"))]
fn opened_path(_file: &fs::File) -> Option<std::path::PathBuf> {
    None
}

#[cfg(unix)]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (a.dev(), a.ino()) == (b.dev(), b.ino())
}

#[cfg(not(unix))]
fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

#[cfg(all(test, unix))]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};

    use crate::sources::SourceSet;

    const SECRET: &str = "# Secret\n\nthe key outside the knowledge folder\n";

    /// A writer swaps `doc.md` between a file inside the folder and one
    /// outside, as fast as it can, while lore loads the folder again and
    /// again. The outside file's text must never be loaded. (Reading the
    /// path after the walk had checked the link leaked it within a few
    /// hundred loads.)
    #[test]
    fn a_symlink_swapped_after_the_walk_never_reads_outside() {
        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.md");
        fs::write(&secret, SECRET).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("k");
        fs::create_dir_all(root.join("notes")).unwrap();
        fs::write(root.join("notes/real.md"), "# Real\n\ninside\n").unwrap();
        symlink(root.join("notes/real.md"), root.join("doc.md")).unwrap();
        let sources = SourceSet {
            builtin: None,
            overlays: vec![root.clone()],
        };
        let stop = AtomicBool::new(false);
        let mut loads = 0;
        let mut leaked = 0;
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let (inside, spare) = (root.join("notes/real.md"), root.join("notes/.swap"));
                let mut flip = false;
                while !stop.load(Ordering::Relaxed) {
                    let target = if flip { &secret } else { &inside };
                    flip = !flip;
                    let _ = fs::remove_file(&spare);
                    if symlink(target, &spare).is_ok() {
                        let _ = fs::rename(&spare, root.join("doc.md"));
                    }
                }
            });
            let started = Instant::now();
            while started.elapsed() < Duration::from_secs(4) && loads < 4_000 {
                let (files, _) = sources.collect("md");
                loads += 1;
                if files
                    .iter()
                    .any(|f| f.text.contains("outside the knowledge"))
                {
                    leaked += 1;
                    break;
                }
            }
            stop.store(true, Ordering::Relaxed);
        });
        assert_eq!(leaked, 0, "the outside file was loaded after {loads} loads");
    }

    /// A FIFO or a folder where a file was is refused, not waited on.
    #[test]
    fn only_regular_files_inside_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        fs::write(root.join("a.md"), "# A\n").unwrap();
        assert_eq!(
            super::read_inside(&root, &root.join("a.md"), 100).unwrap(),
            b"# A\n"
        );
        let other = tempfile::tempdir().unwrap();
        fs::write(other.path().join("b.md"), "# B\n").unwrap();
        symlink(other.path().join("b.md"), root.join("b.md")).unwrap();
        let err = super::read_inside(&root, &root.join("b.md"), 100).unwrap_err();
        assert!(err.to_string().contains("outside"), "{err}");
        let fifo = root.join("pipe.md");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .is_ok_and(|s| s.success())
        );
        let err = super::read_inside(&root, &fifo, 100).unwrap_err();
        assert!(err.to_string().contains("regular"), "{err}");
    }
}
