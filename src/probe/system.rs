//! The system around the software: the distribution (`/etc/os-release`),
//! whether this is a container (`/.dockerenv`, `/run/.containerenv`, and on
//! the machine `/proc/1/cgroup`), the NVIDIA kernel module's version
//! (`/proc/driver/nvidia/version`, the machine only: an image has no
//! driver), `nvidia-smi`, and the NVIDIA packages dpkg lists as installed
//! (`/var/lib/dpkg/status`).

use serde::Serialize;

use super::fs::{ReadError, Root};
use super::{Found, Note, RootFacts, SMALL_FILE};

/// The dpkg status file of a full desktop is a few MB; this is far above.
const DPKG_STATUS_CAP: u64 = 32 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OsRelease {
    /// `ubuntu`, `debian`, `rhel` …
    pub id: String,
    /// `22.04`, `12` …; empty on rolling distributions.
    pub version_id: String,
    pub pretty_name: String,
}

impl std::fmt::Display for OsRelease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.id, self.version_id)?;
        if !self.pretty_name.is_empty() {
            write!(f, " ({})", self.pretty_name)?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AptPackage {
    pub name: String,
    pub version: String,
}

pub(super) fn probe(root: &Root, facts: &mut RootFacts, notes: &mut Vec<Note>) {
    facts.os = os_release(root, notes);
    facts.container = container(root, notes);
    if root.is_live() {
        facts.driver = driver(root, notes);
    }
    for dir in ["/usr/bin", "/usr/local/bin", "/bin", "/usr/lib/wsl/lib"] {
        let path = format!("{dir}/nvidia-smi");
        if root.exists(&path) {
            facts.nvidia_smi = Some(Found::new(root.show(&path), root.show(&path)));
            break;
        }
    }
    facts.engines = ENGINES
        .iter()
        .filter(|(_, path)| root.exists(path))
        .map(|(engine, path)| Found::new(engine.to_string(), root.show(path)))
        .collect();
    let (apt, compilers) = dpkg_packages(root, notes);
    facts.apt = apt;
    facts.compiler_packages = compilers;
}

/// Where each container engine's command is installed: Docker's and the
/// distributions' packages, the docker snap's wrapper, Podman's package.
const ENGINES: [(&str, &str); 4] = [
    ("docker", "/usr/bin/docker"),
    ("docker", "/usr/local/bin/docker"),
    ("docker-snap", "/snap/bin/docker"),
    ("podman", "/usr/bin/podman"),
];

/// Reads a small text file; a problem other than absence becomes a note.
pub(super) fn read_text(
    root: &Root,
    path: &str,
    cap: u64,
    notes: &mut Vec<Note>,
) -> Option<String> {
    match root.read(path, cap) {
        Ok(bytes) => {
            if bytes.truncated {
                notes.push(Note {
                    path: root.show(path),
                    line: None,
                    message: format!(
                        "file is {}; read only the first {}",
                        size(bytes.size),
                        size(cap)
                    ),
                });
            }
            Some(String::from_utf8_lossy(&bytes.data).into_owned())
        }
        Err(err) => {
            note_error(root, path, &err, notes);
            None
        }
    }
}

/// A read's problem as a note, naming what is at fault (see
/// `ReadError::note`). The root records the same note itself
/// (`Root::take_skipped`); `probe::run` keeps one of the two.
pub(super) fn note_error(root: &Root, path: &str, err: &ReadError, notes: &mut Vec<Note>) {
    notes.extend(err.note(&root.show(path)));
}

/// A byte count for messages: `64 KiB`, `1.0 GB`.
pub(super) fn size(bytes: u64) -> String {
    if bytes >= 1_000_000_000 {
        format!("{:.1} GB", bytes as f64 / 1e9)
    } else if bytes >= 1024 * 1024 {
        format!("{} MiB", bytes / (1024 * 1024))
    } else if bytes >= 1024 {
        format!("{} KiB", bytes / 1024)
    } else {
        format!("{bytes} bytes")
    }
}

fn os_release(root: &Root, notes: &mut Vec<Note>) -> Option<Found<OsRelease>> {
    for path in ["/etc/os-release", "/usr/lib/os-release"] {
        if !root.exists(path) {
            continue;
        }
        let text = read_text(root, path, SMALL_FILE, notes)?;
        let mut os = OsRelease {
            id: String::new(),
            version_id: String::new(),
            pretty_name: String::new(),
        };
        let mut line_of_id = 1;
        for (i, line) in text.lines().enumerate() {
            let Some((key, value)) = line.split_once('=') else {
                continue;
            };
            let value = value
                .trim()
                .trim_matches('"')
                .trim_matches('\'')
                .to_string();
            match key.trim() {
                "ID" => {
                    os.id = value;
                    line_of_id = i + 1;
                }
                "VERSION_ID" => os.version_id = value,
                "PRETTY_NAME" => os.pretty_name = value,
                _ => {}
            }
        }
        if os.id.is_empty() {
            notes.push(Note {
                path: root.show(path),
                line: None,
                message: "no ID= line; distribution unknown".into(),
            });
            return None;
        }
        return Some(Found::new(os, format!("{}:{line_of_id}", root.show(path))));
    }
    None
}

/// Container markers; on the machine also PID 1's cgroup. With no marker the
/// answer is "host" only on the machine itself: an unpacked image is a
/// container's files whatever they say.
fn container(root: &Root, notes: &mut Vec<Note>) -> Option<Found<bool>> {
    for marker in ["/.dockerenv", "/run/.containerenv"] {
        if root.exists(marker) {
            return Some(Found::new(true, root.show(marker)));
        }
    }
    if !root.is_live() {
        return None;
    }
    if let Some(text) = read_text(root, "/proc/1/cgroup", SMALL_FILE, notes) {
        for (i, line) in text.lines().enumerate() {
            let lower = line.to_ascii_lowercase();
            if ["docker", "kubepods", "containerd", "libpod", "lxc"]
                .iter()
                .any(|k| lower.contains(k))
            {
                return Some(Found::new(true, format!("/proc/1/cgroup:{}", i + 1)));
            }
        }
    }
    Some(Found {
        value: false,
        evidence: vec![
            "/.dockerenv: absent".to_string(),
            "/run/.containerenv: absent".to_string(),
            "/proc/1/cgroup: no container runtime named".to_string(),
        ],
    })
}

fn driver(root: &Root, notes: &mut Vec<Note>) -> Option<Found<String>> {
    let path = "/proc/driver/nvidia/version";
    if !root.exists(path) {
        return None;
    }
    let text = read_text(root, path, SMALL_FILE, notes)?;
    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 …"
    let line = text.lines().next()?;
    let version = line
        .split_whitespace()
        .find(|w| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.'))?;
    Some(Found::new(version.to_string(), format!("{path}:1")))
}

/// Whether a dpkg package name is one of NVIDIA's CUDA, driver or library
/// packages (or a distribution's repackaging of them).
pub fn is_nvidia_package(name: &str) -> bool {
    const PREFIXES: [&str; 23] = [
        "cuda-",
        // Debian's and Ubuntu's names for the toolkit's libraries
        // (source package nvidia-cuda-toolkit): libcudart12, libnvrtc12 …
        "libcudart",
        "libnvrtc",
        "libnvvm",
        "libnvtoolsext",
        "libcufile",
        "libnvfatbin",
        "libnvblas",
        "libcudnn",
        "libnccl",
        "libcublas",
        "libcufft",
        "libcurand",
        "libcusolver",
        "libcusparse",
        "libnpp",
        "libnvjpeg",
        "libnvjitlink",
        "libcupti",
        "nvidia-",
        "libnvidia-",
        "nsight-",
        "tensorrt",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p)) || name == "cuda"
}

/// Whether a dpkg package name is a versioned GCC (`gcc-13`, `g++-13`).
fn is_compiler_package(name: &str) -> bool {
    ["gcc-", "g++-"].iter().any(|p| {
        name.strip_prefix(p)
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()))
    })
}

/// The installed NVIDIA packages and versioned GCC packages of the dpkg
/// status, one pass over it.
#[allow(clippy::type_complexity)]
fn dpkg_packages(
    root: &Root,
    notes: &mut Vec<Note>,
) -> (Vec<Found<AptPackage>>, Vec<Found<AptPackage>>) {
    let path = "/var/lib/dpkg/status";
    if !root.exists(path) {
        return (Vec::new(), Vec::new());
    }
    let Some(text) = read_text(root, path, DPKG_STATUS_CAP, notes) else {
        return (Vec::new(), Vec::new());
    };
    let shown = root.show(path);
    let mut out = Vec::new();
    let mut compilers = Vec::new();
    let mut name: Option<(String, usize)> = None;
    let mut version = String::new();
    let mut installed = false;
    let mut flush =
        |name: &mut Option<(String, usize)>, version: &mut String, installed: &mut bool| {
            if let Some((n, line)) = name.take()
                && *installed
            {
                let list = if is_nvidia_package(&n) {
                    &mut out
                } else if is_compiler_package(&n) {
                    &mut compilers
                } else {
                    version.clear();
                    *installed = false;
                    return;
                };
                list.push(Found::new(
                    AptPackage {
                        name: n,
                        version: std::mem::take(version),
                    },
                    format!("{shown}:{line}"),
                ));
            }
            version.clear();
            *installed = false;
        };
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            flush(&mut name, &mut version, &mut installed);
        } else if let Some(n) = line.strip_prefix("Package:") {
            flush(&mut name, &mut version, &mut installed);
            name = Some((n.trim().to_string(), i + 1));
        } else if let Some(s) = line.strip_prefix("Status:") {
            installed = s.trim().ends_with(" installed");
        } else if let Some(v) = line.strip_prefix("Version:") {
            version = v.trim().to_string();
        }
    }
    flush(&mut name, &mut version, &mut installed);
    (out, compilers)
}
