//! What the common causes of CUDA failures need to know about the machine
//! beyond the software: the GPUs the driver sees and whether `nvidia_uvm` is
//! loaded (`/proc`: the machine, never an unpacked image), the folders the dynamic loader is
//! configured with (`/etc/ld.so.conf` and the files it includes), the
//! environment that steers loading and builds (`LD_LIBRARY_PATH`,
//! `CUDA_HOME`, `CUDA_PATH`; the machine only), and the GCC a build would
//! use.
//!
//! The driver's `information` file names the GPU's model but not its compute
//! capability; `diag_facts` derives that from the model with the
//! knowledge's table.

use super::fs::Root;
use super::system::{note_error, read_text};
use super::{AptPackage, Environment, Found, Note, RootFacts, SMALL_FILE};

/// Files `ld.so.conf` may include, at most: a real system has a dozen.
const MAX_LD_CONF_FILES: usize = 64;

pub(super) fn probe(
    root: &Root,
    env: Option<&Environment>,
    facts: &mut RootFacts,
    notes: &mut Vec<Note>,
) {
    // `/proc` describes a running kernel: an unpacked image has none, so
    // these are found on the machine (or a root that copies its `/proc`).
    facts.gpus = gpus(root, notes);
    facts.nvidia_uvm = nvidia_uvm(root, notes);
    facts.ld_conf_dirs = ld_conf_dirs(root, notes);
    if let Some(env) = env {
        for name in ["LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH"] {
            if let Some(value) = env.get(name) {
                facts
                    .env
                    .push(Found::new(format!("{name}={value}"), format!("${name}")));
            }
        }
    }
    facts.gcc = gcc(root, env, &facts.compiler_packages);
}

/// `Model:` of each `/proc/driver/nvidia/gpus/*/information`.
fn gpus(root: &Root, notes: &mut Vec<Note>) -> Vec<Found<String>> {
    let mut out = Vec::new();
    for dir in root.expand("/proc/driver/nvidia/gpus/*") {
        let path = format!("{dir}/information");
        if !root.exists(&path) {
            continue;
        }
        let Some(text) = read_text(root, &path, SMALL_FILE, notes) else {
            continue;
        };
        if let Some((i, model)) = text
            .lines()
            .enumerate()
            .find_map(|(i, l)| l.strip_prefix("Model:").map(|m| (i, m.trim().to_string())))
        {
            out.push(Found::new(model, format!("{}:{}", root.show(&path), i + 1)));
        }
    }
    out
}

/// Whether `/proc/modules` lists `nvidia_uvm`; said only where the
/// `nvidia` module is loaded (without it, neither is a question).
fn nvidia_uvm(root: &Root, notes: &mut Vec<Note>) -> Option<Found<bool>> {
    let path = "/proc/modules";
    if !root.exists(path) {
        return None;
    }
    let text = read_text(root, path, 1024 * 1024, notes)?;
    let line = |name: &str| {
        text.lines()
            .position(|l| l.split_whitespace().next() == Some(name))
    };
    let shown = root.show(path);
    match (line("nvidia"), line("nvidia_uvm")) {
        (_, Some(i)) => Some(Found::new(true, format!("{shown}:{}", i + 1))),
        (Some(i), None) => Some(Found::new(
            false,
            format!(
                "{shown}:{}: nvidia is loaded, nvidia_uvm is not listed",
                i + 1
            ),
        )),
        (None, None) => None,
    }
}

/// The folders `/etc/ld.so.conf` configures, in its order, each with the
/// file and line that names it. `include` lines are followed (a `*` in
/// their last component matches as a shell would), once each.
fn ld_conf_dirs(root: &Root, notes: &mut Vec<Note>) -> Vec<Found<String>> {
    let mut out = Vec::new();
    let mut files_read = Vec::new();
    read_ld_conf(root, "/etc/ld.so.conf", &mut out, &mut files_read, notes);
    out
}

fn read_ld_conf(
    root: &Root,
    path: &str,
    out: &mut Vec<Found<String>>,
    files_read: &mut Vec<String>,
    notes: &mut Vec<Note>,
) {
    if files_read.len() >= MAX_LD_CONF_FILES || files_read.iter().any(|f| f == path) {
        return;
    }
    files_read.push(path.to_string());
    if !root.exists(path) {
        return;
    }
    let Some(text) = read_text(root, path, SMALL_FILE, notes) else {
        return;
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if let Some(pattern) = line.strip_prefix("include") {
            let pattern = pattern.trim();
            // ldconfig takes a relative include from the including file's folder.
            let pattern = if pattern.starts_with('/') {
                pattern.to_string()
            } else {
                let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
                format!("{dir}/{pattern}")
            };
            for file in included(root, &pattern, notes) {
                read_ld_conf(root, &file, out, files_read, notes);
            }
        } else if line.starts_with('/') && !out.iter().any(|f| f.value == line) {
            out.push(Found::new(
                line.to_string(),
                format!("{}:{}", root.show(path), i + 1),
            ));
        }
    }
}

/// The files an `include` pattern names, sorted (as glob(3) returns them).
fn included(root: &Root, pattern: &str, notes: &mut Vec<Note>) -> Vec<String> {
    let Some((dir, name)) = pattern.rsplit_once('/') else {
        return Vec::new();
    };
    let Some((prefix, suffix)) = name.split_once('*') else {
        return vec![pattern.to_string()];
    };
    let dir = if dir.is_empty() { "/" } else { dir };
    let listing = match root.list(dir, super::MAX_ENTRIES) {
        Ok(listing) => listing,
        Err(err) => {
            note_error(root, dir, &err, notes);
            return Vec::new();
        }
    };
    listing
        .names
        .into_iter()
        .filter(|n| {
            n.len() >= prefix.len() + suffix.len() && n.starts_with(prefix) && n.ends_with(suffix)
        })
        .map(|n| format!("{}/{n}", dir.trim_end_matches('/')))
        .collect()
}

/// The `gcc` a build runs: on the machine the first on `$PATH`, in an image
/// `/usr/bin/gcc`; its version from the name it leads to (`gcc-13`,
/// `x86_64-linux-gnu-gcc-13`) and the dpkg record of that `gcc-N` package.
fn gcc(
    root: &Root,
    env: Option<&Environment>,
    packages: &[Found<AptPackage>],
) -> Option<Found<String>> {
    let (path, mut evidence) = match env {
        Some(env) => env.path_entries().iter().enumerate().find_map(|(i, dir)| {
            let path = format!("{}/gcc", dir.trim_end_matches('/'));
            root.exists(&path).then(|| {
                (
                    path,
                    vec![format!(
                        "$PATH entry {}: {dir} is the first holding gcc",
                        i + 1
                    )],
                )
            })
        })?,
        None => {
            let path = "/usr/bin/gcc".to_string();
            if !root.exists(&path) {
                return None;
            }
            (path, Vec::new())
        }
    };
    let real = root.real(&path).ok()?;
    if real != path {
        evidence.push(format!(
            "{} leads to {}",
            root.show(&path),
            root.show(&real)
        ));
    } else {
        evidence.push(root.show(&path));
    }
    let name = real.rsplit('/').next().unwrap_or("");
    let major = name
        .rsplit_once('-')
        .map(|(_, v)| v)
        .filter(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()));
    let Some(major) = major else {
        return Some(Found {
            value: format!("{} (version not in its name)", root.show(&real)),
            evidence,
        });
    };
    let package = format!("gcc-{major}");
    match packages.iter().find(|p| p.value.name == package) {
        Some(p) => {
            evidence.extend(
                p.evidence
                    .iter()
                    .map(|e| format!("{e} ({package} {})", p.value.version)),
            );
            Some(Found {
                value: format!("{major} ({package} {})", p.value.version),
                evidence,
            })
        }
        None => Some(Found {
            value: major.to_string(),
            evidence,
        }),
    }
}
