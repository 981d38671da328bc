//! The knowledge and decision trees compiled into the binary.
//!
//! The build script (`src/build.rs`) reads `knowledge/` and
//! `decision-trees/` with [`packing`](super::packing), compresses each file
//! with lz4 and writes the list of files (path, size, digest of the
//! content, compressed bytes) as Rust code that this module includes. A file
//! is decompressed only when its bytes are asked for, and every time they
//! are (nothing is kept): the corpus keeps the text it reads. The search
//! cache's freshness check needs only the digests, so a `lore search` on a
//! fresh index decompresses no document.
//!
//! Stored as they were (`include_dir!`), the files took 3.3 MB of the
//! binary; see `docs/performance.md` (2026-11-28).

use std::fmt;
use std::io;
use std::path::Path;

use super::packing;

/// The knowledge folder of this repository, embedded at build time.
pub static BUILTIN_KNOWLEDGE: BuiltinFolder =
    include!(concat!(env!("OUT_DIR"), "/builtin_knowledge.rs"));
/// The decision-trees folder of this repository, embedded at build time.
pub static BUILTIN_TREES: BuiltinFolder = include!(concat!(env!("OUT_DIR"), "/builtin_trees.rs"));

/// A folder built into the binary: its files and sub-folders.
pub struct BuiltinFolder {
    /// Sorted by path.
    files: &'static [BuiltinFile],
    /// Every sub-folder at any depth, sorted.
    folders: &'static [&'static str],
}

/// One file of a [`BuiltinFolder`], compressed.
pub struct BuiltinFile {
    /// Relative to the folder, with `/` separators.
    path: &'static str,
    /// Bytes once decompressed.
    size: usize,
    /// `packing::digest` of the bytes, worked out when they were stored.
    digest: u128,
    compressed: &'static [u8],
}

impl BuiltinFolder {
    /// Every file at any depth, sorted by path.
    pub fn files(&self) -> &'static [BuiltinFile] {
        self.files
    }

    /// The file at `path` (relative, `/`-separated), if there is one.
    pub fn file(&self, path: &str) -> Option<&'static BuiltinFile> {
        let files = self.files;
        files
            .binary_search_by(|file| file.path.cmp(path))
            .ok()
            .map(|at| &files[at])
    }

    /// Every sub-folder at any depth, relative and `/`-separated, sorted.
    pub fn folders(&self) -> &'static [&'static str] {
        self.folders
    }

    /// The folder `root` on disk, stored as the build script stores the
    /// built-in ones: for tests that need built-in files of their own. What
    /// it reads is never freed, like the real built-in folders.
    pub fn from_folder(root: &Path) -> io::Result<&'static BuiltinFolder> {
        let contents = packing::read_folder(root)?;
        let files: Vec<BuiltinFile> = contents
            .files
            .into_iter()
            .map(|(path, bytes)| BuiltinFile {
                size: bytes.len(),
                digest: packing::digest(&bytes),
                compressed: packing::compress(&bytes).leak(),
                path: path.leak(),
            })
            .collect();
        let folders: Vec<&'static str> = contents.folders.into_iter().map(|f| &*f.leak()).collect();
        Ok(Box::leak(Box::new(BuiltinFolder {
            files: files.leak(),
            folders: folders.leak(),
        })))
    }
}

impl fmt::Debug for BuiltinFolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltinFolder")
            .field("files", &self.files.len())
            .field("folders", &self.folders.len())
            .finish()
    }
}

impl BuiltinFile {
    /// Relative to its folder, with `/` separators: the file's id.
    pub fn path(&self) -> &'static str {
        self.path
    }

    /// How many bytes [`bytes`](Self::bytes) gives, known without
    /// decompressing.
    pub fn size(&self) -> usize {
        self.size
    }

    /// A hash of the content (less a byte-order mark), worked out when it
    /// was stored: what the search cache's fingerprint takes for the file,
    /// without decompressing it.
    pub fn digest(&self) -> u128 {
        self.digest
    }

    /// The file's bytes, decompressed now. An error only if the binary is
    /// damaged.
    pub fn bytes(&self) -> io::Result<Vec<u8>> {
        packing::decompress(self.compressed, self.size)
            .map_err(|why| io::Error::other(format!("built-in file damaged in the binary: {why}")))
    }

    /// The file's text, if it is UTF-8 (and the binary is not damaged).
    pub fn text(&self) -> Option<String> {
        String::from_utf8(self.bytes().ok()?).ok()
    }
}

impl fmt::Debug for BuiltinFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltinFile")
            .field("path", &self.path)
            .field("size", &self.size)
            .field("compressed", &self.compressed.len())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::fs;
    use std::path::Path;

    use super::*;

    /// Every file and folder under `root`, read with nothing of lore's:
    /// files with their bytes, folders with `None`.
    fn on_disk(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
        let mut found = BTreeMap::new();
        let mut folders = vec![root.to_path_buf()];
        while let Some(folder) = folders.pop() {
            for entry in fs::read_dir(&folder).unwrap() {
                let path = entry.unwrap().path();
                let rel = path.strip_prefix(root).unwrap().to_str().unwrap();
                let rel = rel.replace('\\', "/");
                if path.is_dir() {
                    found.insert(rel, None);
                    folders.push(path);
                } else {
                    found.insert(rel, Some(fs::read(&path).unwrap()));
                }
            }
        }
        found
    }

    fn as_stored(folder: &BuiltinFolder) -> BTreeMap<String, Option<Vec<u8>>> {
        let files = folder
            .files()
            .iter()
            .map(|f| (f.path().to_string(), Some(f.bytes().unwrap())));
        let folders = folder.folders().iter().map(|f| (f.to_string(), None));
        files.chain(folders).collect()
    }

    /// What lore shows of a built-in file is the file in the repository,
    /// byte for byte, and no file or folder is missing or extra: the build
    /// script stored them all and this binary is not stale.
    #[test]
    fn built_in_files_read_back_as_the_files_in_the_repository() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        for (name, folder) in [
            ("knowledge", &BUILTIN_KNOWLEDGE),
            ("decision-trees", &BUILTIN_TREES),
        ] {
            let disk = on_disk(&root.join(name));
            let stored = as_stored(folder);
            assert_eq!(
                stored.keys().collect::<Vec<_>>(),
                disk.keys().collect::<Vec<_>>(),
                "{name}: the listing"
            );
            for (path, bytes) in &disk {
                assert!(stored[path] == *bytes, "{name}/{path}: the bytes differ");
            }
            for file in folder.files() {
                let bytes = disk[file.path()].as_deref().unwrap();
                assert_eq!(file.size(), bytes.len(), "{}", file.path());
                assert_eq!(file.digest(), packing::digest(bytes), "{}", file.path());
                assert_eq!(
                    file.text(),
                    std::str::from_utf8(bytes).ok().map(str::to_string),
                    "{}",
                    file.path()
                );
                assert_eq!(
                    folder.file(file.path()).map(BuiltinFile::path),
                    Some(file.path())
                );
            }
            assert!(folder.file("no/such/file.md").is_none());
        }
        assert!(
            BUILTIN_KNOWLEDGE.files().len() > 50,
            "the corpus is built in"
        );
        assert!(BUILTIN_KNOWLEDGE.file("vocabulary.toml").is_some());
    }

    /// A folder stored at run time reads back the same way, and the
    /// compressed form is what is kept.
    #[test]
    fn a_folder_stored_at_run_time_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("cuda/empty")).unwrap();
        let text = "# Title\n\n".to_string() + &"the same line again\n".repeat(200);
        fs::write(dir.path().join("cuda/a.md"), &text).unwrap();
        fs::write(dir.path().join("b.md"), "\u{feff}# B\n").unwrap();
        let folder = BuiltinFolder::from_folder(dir.path()).unwrap();
        assert_eq!(as_stored(folder), on_disk(dir.path()));
        let a = folder.file("cuda/a.md").unwrap();
        assert_eq!(a.text().as_deref(), Some(text.as_str()));
        assert!(
            a.compressed.len() * 10 < text.len(),
            "{}",
            a.compressed.len()
        );
        // The digest is of the text lore decodes: no byte-order mark.
        assert_eq!(
            folder.file("b.md").unwrap().digest(),
            packing::digest(b"# B\n")
        );
        assert_eq!(folder.folders(), ["cuda", "cuda/empty"]);
    }
}
