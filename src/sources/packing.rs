//! How a folder is built into the binary: which of its files and folders
//! are taken, how each file is stored (lz4, the compression tantivy already
//! links), and the digest that stands for a file's content.
//!
//! The build script (`src/build.rs`) compiles this file too, to write the
//! built-in folders; [`BuiltinFolder::from_folder`] uses it to do the same at
//! run time for a test's own folder. So it uses nothing but `std`,
//! `lz4_flex` and `crate::hash`.
//!
//! [`BuiltinFolder::from_folder`]: super::BuiltinFolder::from_folder

use std::fs;
use std::io;
use std::path::Path;

use crate::hash::Hasher;

/// Everything under a folder, as paths relative to it with `/` separators,
/// each list sorted. Hidden files and folders are taken too (as
/// `include_dir!` took them before): what lore reads is decided when it
/// reads, the same way for built-in and overlay files.
#[derive(Debug, Default)]
pub struct FolderContents {
    /// Every file, with its bytes.
    pub files: Vec<(String, Vec<u8>)>,
    /// Every sub-folder at any depth.
    pub folders: Vec<String>,
}

/// Reads every file and sub-folder under `root`. Symlinks are followed.
/// A name that is not UTF-8 is an error: it could not be a file's id.
pub fn read_folder(root: &Path) -> io::Result<FolderContents> {
    let mut contents = FolderContents::default();
    read_into(root, "", &mut contents)?;
    contents.files.sort();
    contents.folders.sort();
    Ok(contents)
}

fn read_into(folder: &Path, prefix: &str, contents: &mut FolderContents) -> io::Result<()> {
    for entry in fs::read_dir(folder)? {
        let entry = entry?;
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            return Err(io::Error::other(format!(
                "{}: the name is not UTF-8",
                path.display()
            )));
        };
        let rel = format!("{prefix}{name}");
        if fs::metadata(&path)?.is_dir() {
            read_into(&path, &format!("{rel}/"), contents)?;
            contents.folders.push(rel);
        } else {
            contents.files.push((rel, fs::read(&path)?));
        }
    }
    Ok(())
}

/// `bytes` compressed as one lz4 block (the size is kept beside it).
pub fn compress(bytes: &[u8]) -> Vec<u8> {
    let mut compressed = vec![0; lz4_flex::block::get_maximum_output_size(bytes.len())];
    // Cannot fail: the output has the room lz4 asks for in the worst case.
    let written = lz4_flex::block::compress_into(bytes, &mut compressed).unwrap_or(0);
    compressed.truncate(written);
    compressed
}

/// The `size` bytes that `compress` made `compressed` of, or why not.
pub fn decompress(compressed: &[u8], size: usize) -> Result<Vec<u8>, String> {
    let mut bytes = vec![0; size];
    match lz4_flex::block::decompress_into(compressed, &mut bytes) {
        Ok(written) if written == size => Ok(bytes),
        Ok(written) => Err(format!("{written} bytes instead of {size}")),
        Err(err) => Err(err.to_string()),
    }
}

/// What stands for a file's content in the search cache's fingerprint: a
/// hash of its bytes without a UTF-8 byte-order mark, which is the text
/// lore decodes.
pub fn digest(bytes: &[u8]) -> u128 {
    let mut h = Hasher::new();
    h.write(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes));
    h.finish()
}
