//! Probes: facts about a machine, an unpacked image or a Dockerfile, each
//! with the evidence it rests on (a file, and a line where there is one).
//!
//! A probe only reads files. It never runs a program, never follows a symlink
//! out of its root (`fs`), and bounds what it reads: bytes per file, entries
//! per folder, folders searched. Problems (an unreadable file, a symlink out of
//! the root, a 1 GB `METADATA`) become `notes` naming the file and line, and
//! the other facts still come.
//!
//! This layer knows nothing of decision trees: `decide` maps these findings to
//! answers through the built-in probe a question names, and `commands` / `tui`
//! print them. Data files cannot add a probe or change what one reads.

mod cuda;
mod diag_facts;
mod dockerfile;
pub mod fs;
mod names;
mod python;
mod system;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use cuda::{CuptiPlace, Toolkit};
pub use diag_facts::{
    LOADER_DIRS, capability, driver_cuda, find_files, glob_match, is_listed_apt, normalise,
};
pub use dockerfile::{
    Base, CopyFrom, Dockerfile, EnvSetting, Flavor, Install, InstallTool, Stage, parse_dockerfile,
};
pub use names::{
    ENV_NAMES, ENV_PREFIX, FACT_NAMES, FactName, Many, Scope, closest, env_name, fact_name,
    is_fact_name,
};
pub use python::{Torch, TorchInstall, Wheel};
pub use system::{AptPackage, OsRelease, is_nvidia_package};

/// Bytes read from a small text file (versions, INSTALLER, os-release), at most.
pub(crate) const SMALL_FILE: u64 = 64 * 1024;
/// Entries listed per folder, at most.
pub(crate) const MAX_ENTRIES: usize = 20_000;

/// What to probe: the running machine (no root, no Dockerfile), an unpacked
/// image, a Dockerfile, or an image and its Dockerfile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProbeOptions {
    /// An unpacked image filesystem; `None` with no Dockerfile means `/`.
    pub root: Option<PathBuf>,
    pub dockerfile: Option<PathBuf>,
}

impl ProbeOptions {
    /// The root to read: `--root`, or the machine unless only a Dockerfile
    /// was asked for.
    pub fn root_dir(&self) -> Option<PathBuf> {
        match (&self.root, &self.dockerfile) {
            (Some(root), _) => Some(root.clone()),
            (None, Some(_)) => None,
            (None, None) => Some(PathBuf::from("/")),
        }
    }

    /// One line saying what is probed, for headers and status bars.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match self.root_dir() {
            Some(dir) if dir == Path::new("/") => parts.push("this machine".to_string()),
            Some(dir) => parts.push(format!("the image files in {}", dir.display())),
            None => {}
        }
        if let Some(file) = &self.dockerfile {
            parts.push(format!("the Dockerfile {}", file.display()));
        }
        parts.join(" and ")
    }
}

/// A value and where it was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Found<T> {
    pub value: T,
    /// `path` or `path:line`, as the user can open them.
    pub evidence: Vec<String>,
}

impl<T> Found<T> {
    pub fn new(value: T, evidence: impl Into<String>) -> Found<T> {
        Found {
            value,
            evidence: vec![evidence.into()],
        }
    }
}

/// A problem met while probing: the file (and line) and what went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Note {
    pub path: String,
    pub line: Option<usize>,
    pub message: String,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

/// What the files of one root say.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RootFacts {
    /// The root as given (`/` for the machine).
    pub dir: String,
    /// The running machine, so `/proc` describes its kernel.
    pub live: bool,
    pub os: Option<Found<OsRelease>>,
    /// A container (`true`) or a host; `None` when nothing tells.
    pub container: Option<Found<bool>>,
    /// The NVIDIA kernel module's version (the machine only).
    pub driver: Option<Found<String>>,
    /// `nvidia-smi` on the machine's PATH folders.
    pub nvidia_smi: Option<Found<String>>,
    pub torch: Vec<Torch>,
    pub wheels: Vec<Wheel>,
    pub toolkits: Vec<Toolkit>,
    pub cupti: Vec<Found<CuptiPlace>>,
    pub apt: Vec<Found<AptPackage>>,
}

/// Everything the probes found, and the problems they met.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Findings {
    pub root: Option<RootFacts>,
    pub dockerfile: Option<Dockerfile>,
    /// The facts `lore diagnose` needs beyond the above (`diag_facts`).
    pub diag: Vec<Fact>,
    pub notes: Vec<Note>,
}

/// The probe itself could not start: the root or the Dockerfile is missing.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    #[error("--root {}: {source}", path.display())]
    Root {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("--dockerfile {}: {message}", path.display())]
    Dockerfile { path: PathBuf, message: String },
}

/// Probes what `options` name. Missing files are simply absent facts; a
/// root or Dockerfile that cannot be opened at all is an error.
pub fn run(options: &ProbeOptions) -> Result<Findings, ProbeError> {
    let mut findings = Findings::default();
    if let Some(dir) = options.root_dir() {
        let root = fs::Root::new(&dir).map_err(|source| ProbeError::Root {
            path: dir.clone(),
            source,
        })?;
        let mut facts = RootFacts {
            dir: dir.display().to_string(),
            live: root.is_live(),
            ..RootFacts::default()
        };
        let notes = &mut findings.notes;
        system::probe(&root, &mut facts, notes);
        python::probe(&root, &mut facts, notes);
        cuda::probe(&root, &mut facts, notes);
        findings.root = Some(facts);
    }
    if let Some(path) = &options.dockerfile {
        let file = dockerfile::read(path).map_err(|message| ProbeError::Dockerfile {
            path: path.clone(),
            message,
        })?;
        let (parsed, notes) = parse_dockerfile(&path.display().to_string(), &file);
        findings.notes.extend(notes);
        findings.dockerfile = Some(parsed);
    }
    let root = match (options.root_dir(), &findings.root) {
        (Some(dir), Some(facts)) => fs::Root::new(&dir).ok().map(|r| (r, facts)),
        _ => None,
    };
    let live = root.as_ref().is_some_and(|(r, _)| r.is_live());
    let env = |name: &str| std::env::var(name).ok();
    let env: Option<diag_facts::EnvLookup<'_>> = if live { Some(&env) } else { None };
    findings.diag = diag_facts::probe(
        root.as_ref().map(|(r, f)| (r, *f)),
        findings.dockerfile.as_ref(),
        env,
        &mut findings.notes,
    );
    Ok(findings)
}

/// One fact as printed by `lore probe`: a name from a fixed set, a value, and
/// its evidence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fact {
    pub fact: &'static str,
    pub value: String,
    pub evidence: Vec<String>,
}

impl Findings {
    /// Every fact, machine first, then the Dockerfile, in a stable order.
    pub fn facts(&self) -> Vec<Fact> {
        let mut out = Vec::new();
        let mut push = |fact: &'static str, value: String, evidence: &[String]| {
            out.push(Fact {
                fact,
                value,
                evidence: evidence.to_vec(),
            });
        };
        if let Some(root) = &self.root {
            if let Some(os) = &root.os {
                push("os", os.value.to_string(), &os.evidence);
            }
            if let Some(c) = &root.container {
                let value = if c.value { "container" } else { "host" };
                push("container", value.to_string(), &c.evidence);
            }
            if let Some(d) = &root.driver {
                push("driver", d.value.clone(), &d.evidence);
            }
            if let Some(s) = &root.nvidia_smi {
                push("nvidia-smi", s.value.clone(), &s.evidence);
            }
            for t in &root.torch {
                let version = t.version.as_ref();
                push(
                    "torch",
                    version.map_or("unknown version".to_string(), |v| v.value.clone()),
                    version.map_or(std::slice::from_ref(&t.dir), |v| &v.evidence),
                );
                if let Some(cuda) = &t.cuda {
                    let value = cuda.value.clone().unwrap_or_else(|| "none (CPU)".into());
                    push("torch.cuda", value, &cuda.evidence);
                }
                if let Some(install) = &t.install {
                    push(
                        "torch.install",
                        install.value.to_string(),
                        &install.evidence,
                    );
                }
            }
            for w in &root.wheels {
                push(
                    "nvidia-wheel",
                    format!("{} {}", w.name, w.version),
                    std::slice::from_ref(&w.evidence),
                );
                if !w.libs.is_empty() {
                    push(
                        "nvidia-wheel.libs",
                        w.libs.join(" "),
                        std::slice::from_ref(&w.lib_dir),
                    );
                }
            }
            for c in &root.cupti {
                push("libcupti", c.value.to_string(), &c.evidence);
            }
            for t in &root.toolkits {
                push(
                    "cuda-toolkit",
                    format!("{} {}", t.dir, t.version.value),
                    &t.version.evidence,
                );
                if let Some(nvcc) = &t.nvcc {
                    push("nvcc", nvcc.value.clone(), &nvcc.evidence);
                }
            }
            for p in &root.apt {
                push(
                    "apt-package",
                    format!("{} {}", p.value.name, p.value.version),
                    &p.evidence,
                );
            }
        }
        if let Some(d) = &self.dockerfile {
            for f in d.facts() {
                out.push(f);
            }
        }
        out.extend(self.diag.iter().cloned());
        out
    }
}
