//! The CUDA toolkit and where `libcupti` is.
//!
//! Toolkits are the `/usr/local/cuda*` folders: the version from
//! `version.json` (`{"cuda": {"version": "12.4.1"}}`, CUDA 11.1 and later) or
//! `version.txt` (`CUDA Version 11.0.228`, older), and whether `bin/nvcc` is
//! there. `libcupti.so*` is looked for in the NVIDIA wheel
//! (`nvidia/cuda_cupti/lib`), the toolkit's `lib64`, `targets/*/lib` and
//! `extras/CUPTI/lib64`, the distribution's library folders, and the dynamic
//! loader's cache (`/etc/ld.so.cache`), which is what `dlopen` consults.

use std::collections::HashSet;

use serde::Serialize;

use super::fs::Root;
use super::system::{note_error, read_text};
use super::{Found, MAX_ENTRIES, Note, RootFacts, SMALL_FILE};

/// ld.so.cache is tens of KB; a cache above this is not one.
const LD_CACHE_CAP: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toolkit {
    /// `/usr/local/cuda-12.4`
    pub dir: String,
    pub version: Found<String>,
    pub nvcc: Option<Found<String>>,
}

/// One place a `libcupti.so*` was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CuptiPlace {
    /// The file (or, for the loader cache, the path the cache gives).
    pub path: String,
    /// `wheel`, `toolkit`, `system` or `ld-cache`.
    pub kind: &'static str,
}

impl std::fmt::Display for CuptiPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path, self.kind)
    }
}

pub(super) fn probe(root: &Root, facts: &mut RootFacts, notes: &mut Vec<Note>) {
    facts.toolkits = toolkits(root, notes);
    let mut places: Vec<Found<CuptiPlace>> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut add = |root: &Root, dir: &str, kind: &'static str, notes: &mut Vec<Note>| {
        let Ok(real) = root.real(dir) else { return };
        if !seen.insert(real) {
            return;
        }
        let listing = match root.list(dir, MAX_ENTRIES) {
            Ok(listing) => listing,
            Err(err) => {
                note_error(root, dir, &err, notes);
                return;
            }
        };
        for name in listing
            .names
            .iter()
            .filter(|n| n.starts_with("libcupti.so"))
        {
            let path = root.show(&format!("{dir}/{name}"));
            places.push(Found::new(
                CuptiPlace {
                    path: path.clone(),
                    kind,
                },
                path,
            ));
        }
    };
    for wheel in &facts.wheels {
        if wheel.name.starts_with("nvidia-cuda-cupti-") {
            add(root, &wheel.lib_dir_inside, "wheel", notes);
        }
    }
    for pattern in [
        "/usr/local/cuda*/lib64",
        "/usr/local/cuda*/targets/*/lib",
        "/usr/local/cuda*/extras/CUPTI/lib64",
    ] {
        for dir in root.expand(pattern) {
            add(root, &dir, "toolkit", notes);
        }
    }
    for pattern in ["/usr/lib/*-linux-gnu", "/usr/lib64", "/usr/lib"] {
        for dir in root.expand(pattern) {
            add(root, &dir, "system", notes);
        }
    }
    places.extend(ld_cache_cupti(root, notes));
    facts.cupti = places;
}

fn toolkits(root: &Root, notes: &mut Vec<Note>) -> Vec<Toolkit> {
    let mut out: Vec<Toolkit> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let dirs = root.expand("/usr/local/cuda*");
    // Versioned folders first, so `/usr/local/cuda` (a link to one) is named
    // by the folder it leads to.
    let (versioned, plain): (Vec<String>, Vec<String>) =
        dirs.into_iter().partition(|d| d.contains("cuda-"));
    for dir in versioned.into_iter().chain(plain) {
        let Ok(real) = root.real(&dir) else { continue };
        if !seen.insert(real) {
            continue;
        }
        let Some(version) = toolkit_version(root, &dir, notes) else {
            continue;
        };
        let nvcc_path = format!("{dir}/bin/nvcc");
        let nvcc = root
            .exists(&nvcc_path)
            .then(|| Found::new(root.show(&nvcc_path), root.show(&nvcc_path)));
        out.push(Toolkit {
            dir: root.show(&dir),
            version,
            nvcc,
        });
    }
    out
}

fn toolkit_version(root: &Root, dir: &str, notes: &mut Vec<Note>) -> Option<Found<String>> {
    let json_path = format!("{dir}/version.json");
    if root.exists(&json_path) {
        let text = read_text(root, &json_path, SMALL_FILE, notes)?;
        let version = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["cuda"]["version"].as_str().map(str::to_string));
        let Some(version) = version else {
            notes.push(Note {
                path: root.show(&json_path),
                line: None,
                message: "no `cuda.version` in this JSON; toolkit version unknown".into(),
            });
            return None;
        };
        // The line of the first "version" key after "cuda", for the evidence.
        let line = text
            .find("\"cuda\"")
            .and_then(|at| text[at..].find("\"version\"").map(|v| at + v))
            .map_or(1, |at| text[..at].matches('\n').count() + 1);
        return Some(Found::new(
            version,
            format!("{}:{line}", root.show(&json_path)),
        ));
    }
    let txt_path = format!("{dir}/version.txt");
    if root.exists(&txt_path) {
        let text = read_text(root, &txt_path, SMALL_FILE, notes)?;
        let version = text
            .lines()
            .next()?
            .strip_prefix("CUDA Version ")?
            .trim()
            .to_string();
        return Some(Found::new(version, format!("{}:1", root.show(&txt_path))));
    }
    None
}

/// `libcupti` entries of the loader cache. The file is glibc's format: the
/// magic `glibc-ld.so.cache1.1` (possibly after the old `ld.so-1.7.0`
/// table), the entry count, the string table's size, 20 more header bytes,
/// then 24-byte entries (flags, key, value, os version, hwcap) whose key
/// (soname) and value (path) are offsets from the start of that header.
fn ld_cache_cupti(root: &Root, notes: &mut Vec<Note>) -> Vec<Found<CuptiPlace>> {
    const MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
    const HEADER: usize = 48;
    const ENTRY: usize = 24;
    let path = "/etc/ld.so.cache";
    if !root.exists(path) {
        return Vec::new();
    }
    let bytes = match root.read(path, LD_CACHE_CAP) {
        Ok(bytes) => bytes,
        Err(err) => {
            note_error(root, path, &err, notes);
            return Vec::new();
        }
    };
    let data = &bytes.data;
    let shown = root.show(path);
    let bad = |notes: &mut Vec<Note>, why: &str| {
        notes.push(Note {
            path: shown.clone(),
            line: None,
            message: format!("not a glibc loader cache ({why}); skipped"),
        });
    };
    let Some(start) = find(data, MAGIC) else {
        bad(notes, "no `glibc-ld.so.cache1.1` header");
        return Vec::new();
    };
    let u32_at = |at: usize| -> Option<u32> {
        data.get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let Some(count) = u32_at(start + 20) else {
        bad(notes, "header cut short");
        return Vec::new();
    };
    let string_at = |offset: u32| -> Option<&str> {
        let from = start.checked_add(offset as usize)?;
        let rest = data.get(from..)?;
        let end = rest.iter().position(|&b| b == 0)?;
        std::str::from_utf8(&rest[..end]).ok()
    };
    let mut out: Vec<Found<CuptiPlace>> = Vec::new();
    for i in 0..count as usize {
        let at = start + HEADER + i * ENTRY;
        let (Some(key), Some(value)) = (u32_at(at + 4), u32_at(at + 8)) else {
            bad(notes, "entries cut short");
            break;
        };
        let (Some(key), Some(value)) = (string_at(key), string_at(value)) else {
            continue;
        };
        if key.starts_with("libcupti.so") && !out.iter().any(|f| f.value.path == value) {
            out.push(Found::new(
                CuptiPlace {
                    path: value.to_string(),
                    kind: "ld-cache",
                },
                format!("{shown} ({key} => {value})"),
            ));
        }
    }
    out
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
