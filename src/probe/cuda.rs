//! The CUDA toolkit and where `libcupti` is.
//!
//! Toolkits are NVIDIA's `/usr/local/cuda*` folders, named by the folder a
//! link leads to, and Debian's and Ubuntu's own (`nvidia-cuda-toolkit`:
//! `/usr/bin/nvcc`, `/usr/lib/nvidia-cuda-toolkit`, `/usr/lib/cuda`). The
//! version comes from, in this order of trust: `version.json`
//! (`{"cuda": {"version": "12.4.1"}}`, CUDA 11.1 to 12), `version.txt`
//! (`CUDA Version 11.0.228`), `include/cuda.h` (`#define CUDA_VERSION
//! 13000`), the dpkg record of the package that put nvcc there
//! (`cuda-nvcc-13-0` for `/usr/local/cuda-13.0`, or `nvidia-cuda-toolkit`),
//! and the folder's name as a last resort. Every piece found is compared: one
//! whose major.minor differs makes the version unsure, with both shown.
//! `nvcc` is `bin/nvcc` of each toolkit, present or absent, and on the
//! machine the first `$PATH` folder holding it.
//!
//! `libcupti.so*` is looked for in NVIDIA's CUPTI wheel (where its `RECORD`
//! put it: `nvidia/cuda_cupti/lib`, or CUDA 13's `nvidia/cu13/lib`), the copy
//! Triton bundles (`triton/backends/nvidia/lib/cupti`), each conda
//! environment's `lib`, the toolkit's `lib64`, `targets/*/lib` and
//! `extras/CUPTI/lib64`, the distribution's library folders, and the dynamic
//! loader's cache (`/etc/ld.so.cache`), which is what `dlopen` consults.

use std::collections::HashSet;

use serde::Serialize;

use super::fs::Root;
use super::system::{note_error, read_text};
use super::{Environment, Found, MAX_ENTRIES, Note, RootFacts, SMALL_FILE};

/// ld.so.cache is tens of KB; a cache above this is not one.
const LD_CACHE_CAP: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Toolkit {
    /// `/usr/local/cuda-12.4`
    pub dir: String,
    /// The version and the evidence it was read from.
    pub version: Found<String>,
    /// Evidence of another major.minor: then the version is unsure.
    pub version_disputed: Option<Found<String>>,
    /// `bin/nvcc`, or `None` where it is absent.
    pub nvcc: Option<Found<String>>,
    /// Where nvcc would be (`DIR/bin/nvcc`), for "absent" evidence.
    pub nvcc_expected: String,
}

/// One place a `libcupti.so*` was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CuptiPlace {
    /// The file (or, for the loader cache, the path the cache gives).
    pub path: String,
    /// `wheel`, `triton`, `conda`, `toolkit`, `system` or `ld-cache`.
    pub kind: &'static str,
}

impl std::fmt::Display for CuptiPlace {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.path, self.kind)
    }
}

pub(super) fn probe(
    root: &Root,
    env: Option<&Environment>,
    facts: &mut RootFacts,
    notes: &mut Vec<Note>,
) {
    facts.toolkits = toolkits(root, &facts.apt, notes);
    facts.nvcc_on_path = env.and_then(|env| {
        env.path_entries().iter().enumerate().find_map(|(i, dir)| {
            let path = format!("{}/nvcc", dir.trim_end_matches('/'));
            root.exists(&path).then(|| Found {
                value: root.show(&path),
                evidence: vec![format!(
                    "$PATH entry {}: {dir} is the first holding nvcc",
                    i + 1
                )],
            })
        })
    });
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
        if wheel.name.starts_with("nvidia-cuda-cupti") {
            add(root, &wheel.lib_dir_inside, "wheel", notes);
        }
    }
    for env in &facts.python_envs {
        for site in &env.sites {
            let triton = format!("{site}/triton/backends/nvidia/lib/cupti");
            if root.is_dir(&triton) {
                add(root, &triton, "triton", notes);
            }
        }
        if env.kind == "conda" {
            add(root, &format!("{}/lib", env.inside), "conda", notes);
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

/// One reading of a toolkit's version: the value and its evidence. Pieces
/// are kept most trusted first.
type Piece = Found<String>;

fn toolkits(root: &Root, apt: &[Found<super::AptPackage>], notes: &mut Vec<Note>) -> Vec<Toolkit> {
    let mut out: Vec<Toolkit> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for dir in root.expand("/usr/local/cuda*") {
        let Ok(real) = root.real(&dir) else { continue };
        if seen.contains(&real) || !root.is_dir(&real) {
            continue;
        }
        seen.push(real.clone());
        let mut pieces = version_files(root, &real, notes);
        // The folder a package of NVIDIA's repository installs into:
        // cuda-nvcc-13-0 puts nvcc in /usr/local/cuda-13.0.
        let folder = real
            .rsplit('/')
            .next()
            .and_then(|n| n.strip_prefix("cuda-"))
            .filter(|v| v.contains('.'));
        let nvcc_packages: Vec<&Found<super::AptPackage>> = apt
            .iter()
            .filter(|p| p.value.name.starts_with("cuda-nvcc-"))
            .collect();
        let package = match folder {
            Some(v) => {
                let name = format!("cuda-nvcc-{}", v.replace('.', "-"));
                nvcc_packages.iter().find(|p| p.value.name == name).copied()
            }
            None if nvcc_packages.len() == 1 => Some(nvcc_packages[0]),
            None => None,
        };
        if let Some(p) = package {
            let v = p.value.name["cuda-nvcc-".len()..].replace('-', ".");
            pieces.push(with_note(
                p,
                v,
                &format!("{} {}", p.value.name, p.value.version),
            ));
        }
        if let Some(v) = folder {
            pieces.push(Found::new(
                v.to_string(),
                format!("{} (the folder's name)", root.show(&real)),
            ));
        }
        if pieces.is_empty() && !root.exists(&format!("{real}/bin/nvcc")) {
            continue;
        }
        out.push(toolkit(root, &real, pieces));
    }
    if let Some(t) = debian_toolkit(root, apt, notes) {
        out.push(t);
    }
    out
}

/// The evidence of `p` with a note on what it says.
fn with_note(p: &Found<super::AptPackage>, value: String, note: &str) -> Piece {
    Found {
        value,
        evidence: p.evidence.iter().map(|e| format!("{e} ({note})")).collect(),
    }
}

/// A toolkit from its version pieces, most trusted first: the first gives the
/// version, one that disagrees on major.minor disputes it, and the others
/// that agree add their evidence (the folder's name only when nothing else
/// was found).
fn toolkit(root: &Root, dir: &str, pieces: Vec<Piece>) -> Toolkit {
    let mut pieces = pieces.into_iter();
    let mut version = pieces.next().unwrap_or_else(|| {
        Found::new(
            "unknown version".to_string(),
            format!(
                "{}: no version.json, version.txt, include/cuda.h or package record",
                root.show(dir)
            ),
        )
    });
    let mut version_disputed = None;
    for piece in pieces {
        if major_minor(&piece.value) != major_minor(&version.value) {
            version_disputed.get_or_insert(piece);
        } else if !piece
            .evidence
            .iter()
            .any(|e| e.ends_with("(the folder's name)"))
        {
            version.evidence.extend(piece.evidence);
        }
    }
    let nvcc_path = format!("{dir}/bin/nvcc");
    let nvcc = root
        .exists(&nvcc_path)
        .then(|| Found::new(root.show(&nvcc_path), root.show(&nvcc_path)));
    Toolkit {
        dir: root.show(dir),
        version,
        version_disputed,
        nvcc,
        nvcc_expected: root.show(&nvcc_path),
    }
}

fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// Debian's and Ubuntu's own toolkit (`nvidia-cuda-toolkit`): `/usr/bin/nvcc`
/// (a wrapper around `/usr/lib/nvidia-cuda-toolkit/bin/nvcc`), headers in
/// `/usr/include`, libraries in the multiarch folder. A `/usr/bin/nvcc` that
/// leads into `/usr/local` is NVIDIA's toolkit, already counted.
fn debian_toolkit(
    root: &Root,
    apt: &[Found<super::AptPackage>],
    notes: &mut Vec<Note>,
) -> Option<Toolkit> {
    let package = apt.iter().find(|p| p.value.name == "nvidia-cuda-toolkit");
    let usr_bin_nvcc = root
        .real("/usr/bin/nvcc")
        .ok()
        .filter(|real| !real.starts_with("/usr/local/"));
    let own = "/usr/lib/nvidia-cuda-toolkit";
    let has_own = root.exists(&format!("{own}/bin/nvcc"));
    if package.is_none() && usr_bin_nvcc.is_none() && !has_own {
        return None;
    }
    let mut pieces = Vec::new();
    if let Some(p) = package {
        // 11.5.1-1ubuntu1, or 12.0.140~12.0.1-4 where the part after `~`
        // is the toolkit's release.
        let upstream = p
            .value
            .version
            .rsplit_once('-')
            .map_or(p.value.version.as_str(), |(u, _)| u);
        let upstream = upstream.split_once(':').map_or(upstream, |(_, u)| u);
        let release = upstream.rsplit('~').next().unwrap_or(upstream);
        pieces.push(with_note(
            p,
            release.to_string(),
            &format!("nvidia-cuda-toolkit {}", p.value.version),
        ));
    }
    if let Some(h) = cuda_h(root, "/usr/include/cuda.h", notes) {
        pieces.insert(0, h);
    }
    let dir = ["/usr/lib/cuda", own]
        .into_iter()
        .find(|d| root.is_dir(d))
        .unwrap_or("/usr");
    let mut t = toolkit(root, dir, pieces);
    let own_nvcc = format!("{own}/bin/nvcc");
    let nvcc = ["/usr/bin/nvcc", own_nvcc.as_str()]
        .into_iter()
        .find(|p| root.exists(p))
        .map(|p| Found::new(root.show(p), root.show(p)));
    if nvcc.is_some() {
        t.nvcc = nvcc;
    }
    t.nvcc_expected = root.show("/usr/bin/nvcc");
    Some(t)
}

/// The version files of a toolkit folder: version.json, version.txt and
/// include/cuda.h, in that order of trust.
fn version_files(root: &Root, dir: &str, notes: &mut Vec<Note>) -> Vec<Piece> {
    let mut out = Vec::new();
    let json_path = format!("{dir}/version.json");
    if root.exists(&json_path)
        && let Some(text) = read_text(root, &json_path, SMALL_FILE, notes)
    {
        let version = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v["cuda"]["version"].as_str().map(str::to_string));
        match version {
            Some(version) => {
                // The line of the first "version" key after "cuda", for the evidence.
                let line = text
                    .find("\"cuda\"")
                    .and_then(|at| text[at..].find("\"version\"").map(|v| at + v))
                    .map_or(1, |at| text[..at].matches('\n').count() + 1);
                out.push(Found::new(
                    version,
                    format!("{}:{line}", root.show(&json_path)),
                ));
            }
            None => notes.push(Note {
                path: root.show(&json_path),
                line: None,
                message: "no `cuda.version` in this JSON; other evidence is used".into(),
            }),
        }
    }
    let txt_path = format!("{dir}/version.txt");
    if root.exists(&txt_path)
        && let Some(text) = read_text(root, &txt_path, SMALL_FILE, notes)
        && let Some(version) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("CUDA Version "))
    {
        out.push(Found::new(
            version.trim().to_string(),
            format!("{}:1", root.show(&txt_path)),
        ));
    }
    if let Some(h) = cuda_h(root, &format!("{dir}/include/cuda.h"), notes) {
        out.push(h);
    }
    out
}

/// `#define CUDA_VERSION 13000` in a `cuda.h` is 13.0 (major × 1000 +
/// minor × 10). It is near the top; only the first 64 KiB are read.
fn cuda_h(root: &Root, path: &str, notes: &mut Vec<Note>) -> Option<Piece> {
    if !root.exists(path) {
        return None;
    }
    let bytes = match root.read(path, SMALL_FILE) {
        Ok(bytes) => bytes,
        Err(err) => {
            note_error(root, path, &err, notes);
            return None;
        }
    };
    let text = String::from_utf8_lossy(&bytes.data);
    text.lines().enumerate().find_map(|(i, line)| {
        let rest = line.trim().strip_prefix("#define")?.trim_start();
        let number = rest.strip_prefix("CUDA_VERSION")?.trim();
        let n: u32 = number.parse().ok()?;
        Some(Found::new(
            format!("{}.{}", n / 1000, (n % 1000) / 10),
            format!("{}:{} (CUDA_VERSION {n})", root.show(path), i + 1),
        ))
    })
}

/// `libcupti` entries of the loader cache (see [`cupti_in_ld_cache`]).
fn ld_cache_cupti(root: &Root, notes: &mut Vec<Note>) -> Vec<Found<CuptiPlace>> {
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
    let shown = root.show(path);
    let cache = cupti_in_ld_cache(&bytes.data);
    if let Some(message) = cache.problem {
        notes.push(Note {
            path: shown.clone(),
            line: None,
            message,
        });
    }
    cache
        .entries
        .into_iter()
        .map(|(key, value)| {
            let evidence = format!("{shown} ({key} => {value})");
            Found::new(
                CuptiPlace {
                    path: value,
                    kind: "ld-cache",
                },
                evidence,
            )
        })
        .collect()
}

/// `libcupti` entries taken from a loader cache, at most: a real cache has a
/// few (one per architecture and version).
const LD_CACHE_CUPTI_MAX: usize = 64;

/// A soname or path longer than this (Linux's `PATH_MAX`) is not one the
/// loader would use.
const LD_CACHE_STRING_MAX: usize = 4096;

/// What a loader cache says about `libcupti`.
#[derive(Debug, Default, PartialEq, Eq)]
struct LdCache {
    /// `(soname, path)` of each `libcupti.so*` entry, in cache order, each
    /// path once.
    entries: Vec<(String, String)>,
    /// Why the file was not read, or not read in full.
    problem: Option<String>,
}

/// The `libcupti.so*` entries of a loader cache's bytes. The file is glibc's
/// format: the magic `glibc-ld.so.cache1.1` (possibly after the old
/// `ld.so-1.7.0` table), the entry count, the string table's size, 20 more
/// header bytes, then 24-byte entries (flags, key, value, os version, hwcap)
/// whose key (soname) and value (path) are offsets from the start of that
/// header to NUL-terminated strings.
///
/// Linear in the file's size, whatever the offsets say: the strings wanted
/// are looked up in offset order in one sweep, so a byte is scanned for its
/// NUL once even when every entry points into one long unterminated run
/// (looking each string up on its own was quadratic: a crafted 1 MiB cache
/// took 10 s).
fn cupti_in_ld_cache(data: &[u8]) -> LdCache {
    const MAGIC: &[u8] = b"glibc-ld.so.cache1.1";
    const HEADER: usize = 48;
    const ENTRY: usize = 24;
    const KEY: &[u8] = b"libcupti.so";
    let not_a_cache = |why: &str| Some(format!("not a glibc loader cache ({why}); skipped"));
    let mut cache = LdCache::default();
    let Some(start) = memchr::memmem::find(data, MAGIC) else {
        cache.problem = not_a_cache("no `glibc-ld.so.cache1.1` header");
        return cache;
    };
    let u32_at = |at: usize| -> Option<u32> {
        data.get(at..at.checked_add(4)?)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let Some(count) = u32_at(start + 20) else {
        cache.problem = not_a_cache("header cut short");
        return cache;
    };
    // Where a string starts in `data`, if it does.
    let at = |offset: u32| {
        start
            .checked_add(offset as usize)
            .filter(|&p| p < data.len())
    };
    // The entries whose key starts like a libcupti soname: a bounded look
    // at each entry.
    let mut wanted: Vec<(usize, usize)> = Vec::new();
    for i in 0..count as usize {
        let entry = start + HEADER + i * ENTRY;
        let (Some(key), Some(value)) = (u32_at(entry + 4), u32_at(entry + 8)) else {
            cache.problem = not_a_cache("entries cut short");
            break;
        };
        if let (Some(key), Some(value)) = (at(key), at(value))
            && data[key..].starts_with(KEY)
        {
            wanted.push((key, value));
        }
    }
    // Each string's end, found in one sweep in order of where they start:
    // a string that starts inside the last one found ends where it does.
    let mut starts: Vec<usize> = wanted.iter().flat_map(|&(k, v)| [k, v]).collect();
    starts.sort_unstable();
    starts.dedup();
    let mut ends: Vec<(usize, usize)> = Vec::with_capacity(starts.len());
    let mut last_nul: Option<usize> = None;
    for start in starts {
        let end = match last_nul {
            Some(nul) if nul >= start => Some(nul),
            _ => memchr::memchr(0, &data[start..]).map(|i| start + i),
        };
        let Some(end) = end else {
            // No NUL from here to the end: nor for any later start.
            break;
        };
        last_nul = Some(end);
        ends.push((start, end));
    }
    let text = |start: usize| -> Option<&str> {
        let i = ends.binary_search_by_key(&start, |&(s, _)| s).ok()?;
        let end = ends[i].1;
        if end - start > LD_CACHE_STRING_MAX {
            return None;
        }
        std::str::from_utf8(&data[start..end]).ok()
    };
    let mut paths: HashSet<&str> = HashSet::new();
    for (key, value) in wanted {
        let (Some(key), Some(value)) = (text(key), text(value)) else {
            continue;
        };
        if paths.contains(value) {
            continue;
        }
        if paths.len() == LD_CACHE_CUPTI_MAX {
            cache.problem = Some(format!(
                "more than {LD_CACHE_CUPTI_MAX} `libcupti` entries; the rest were not read"
            ));
            break;
        }
        paths.insert(value);
        cache.entries.push((key.to_string(), value.to_string()));
    }
    cache
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A glibc loader cache (new format only) with `entries` as (key, value)
    /// offsets into `strings`, which follows the entries.
    fn ld_cache(entries: &[(u32, u32)], strings: &[u8]) -> Vec<u8> {
        let table = (48 + 24 * entries.len()) as u32;
        let mut data = b"glibc-ld.so.cache1.1".to_vec();
        data.extend((entries.len() as u32).to_le_bytes());
        data.extend((strings.len() as u32).to_le_bytes());
        data.extend([0u8; 20]);
        for (key, value) in entries {
            data.extend(1u32.to_le_bytes());
            data.extend((table + key).to_le_bytes());
            data.extend((table + value).to_le_bytes());
            data.extend([0u8; 12]);
        }
        data.extend(strings);
        data
    }

    #[test]
    fn the_loader_cache_gives_each_libcupti_path_once_in_cache_order() {
        let strings = b"libcupti.so.12\0/usr/local/cuda-12.4/lib64/libcupti.so.12\0\
libc.so.6\0/lib/x86_64-linux-gnu/libc.so.6\0libcupti.so\0/usr/lib/libcupti.so\0";
        let at = |s: &str| {
            strings
                .windows(s.len())
                .position(|w| w == s.as_bytes())
                .unwrap() as u32
        };
        let cupti12 = (at("libcupti.so.12"), at("/usr/local/cuda-12.4"));
        let data = ld_cache(
            &[
                cupti12,
                (at("libc.so.6"), at("/lib/x86_64")),
                (at("libcupti.so\0"), at("/usr/lib/libcupti.so")),
                cupti12,
            ],
            strings,
        );
        let cache = cupti_in_ld_cache(&data);
        assert_eq!(cache.problem, None);
        assert_eq!(
            cache.entries,
            [
                (
                    "libcupti.so.12".to_string(),
                    "/usr/local/cuda-12.4/lib64/libcupti.so.12".to_string()
                ),
                (
                    "libcupti.so".to_string(),
                    "/usr/lib/libcupti.so".to_string()
                ),
            ]
        );
        let cut = &data[..data.len() - strings.len() - 20];
        assert_eq!(
            cupti_in_ld_cache(cut).problem.as_deref(),
            Some("not a glibc loader cache (entries cut short); skipped")
        );
    }

    /// A crafted cache (the red team's): every entry's soname and path point
    /// into one long run of bytes, unterminated or ended far away. Looking
    /// each string up on its own scanned the run once per entry: quadratic,
    /// minutes for this 1 MiB file in a debug build. In one sweep it is
    /// milliseconds; the watchdog only catches a return of the quadratic
    /// scan (it is not a speed claim: see `benches/probe.rs`).
    #[test]
    fn a_crafted_loader_cache_of_entries_into_one_long_string_is_read_in_one_pass() {
        let entries = 20_000;
        let mut run = b"libcupti.so".to_vec();
        run.resize(1024 * 1024 - 48 - 24 * entries, b'a');
        let unterminated: Vec<(u32, u32)> = (0..entries as u32).map(|i| (0, 11 + i)).collect();
        let mut terminated = run.clone();
        *terminated.last_mut().unwrap() = 0;
        let cases = [
            ld_cache(&unterminated, &run),
            ld_cache(&unterminated, &terminated),
        ];
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for data in &cases {
                let _ = done.send(cupti_in_ld_cache(data));
            }
        });
        for _ in 0..2 {
            let cache = finished
                .recv_timeout(std::time::Duration::from_secs(60))
                .expect("a 1 MiB loader cache still being read after 60 s: quadratic again");
            // Nothing usable: no NUL at all, or strings far longer than a path.
            assert_eq!(cache.entries, []);
            assert_eq!(cache.problem, None);
        }
    }
}
