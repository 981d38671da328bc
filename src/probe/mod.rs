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
mod envs;
pub mod fs;
mod host;
pub mod images;
mod names;
mod python;
mod stage_at;
mod system;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use cuda::{CuptiPlace, Toolkit};
pub use diag_facts::{
    LOADER_DIRS, capability, driver_cuda, find_files, glob_match, is_listed_apt, normalise,
};
pub use dockerfile::{
    Base, Branch, BranchKind, Build, BuildKind, CopyFrom, Dockerfile, EnvSetting, Fetch, Flavor,
    Install, InstallTool, NEED_TORCH, Stage, TorchRoute, Via, after_run_flags, classify,
    parse_dockerfile, read as read_dockerfile, read_piped, run_commands, torch_cuda, torch_is_cpu,
};
pub use envs::{NamedEnv, PythonEnv, PythonOnPath};
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
    pub dockerfile: Option<DockerfileSource>,
    /// A line of the Dockerfile whose stage the stage facts describe, as
    /// the stage was when that line ran: a build log's failed `RUN`. The
    /// image flavour, `ENV`s, nvcc and torch then come from that stage and
    /// the lines before it, not from the final stage. `None`: the final
    /// stage, whole.
    pub dockerfile_line: Option<usize>,
}

/// Where the Dockerfile to probe comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DockerfileSource {
    /// A file on disk (`--dockerfile FILE`), read by the probe.
    File(PathBuf),
    /// The text of `--dockerfile -`, read from standard input by the caller
    /// (the library never reads stdin): evidence names it `<stdin>`. There
    /// is no folder next to it, which nothing in the probe needs, since it
    /// reads the build context of no Dockerfile.
    Stdin(Vec<u8>),
}

impl DockerfileSource {
    /// How evidence and notes name the file: its path, or `<stdin>`.
    pub fn name(&self) -> String {
        match self {
            DockerfileSource::File(path) => path.display().to_string(),
            DockerfileSource::Stdin(_) => STDIN_NAME.to_string(),
        }
    }
}

impl From<PathBuf> for DockerfileSource {
    fn from(path: PathBuf) -> Self {
        DockerfileSource::File(path)
    }
}

/// The name evidence gives a Dockerfile read from standard input, as
/// compilers name it.
pub const STDIN_NAME: &str = "<stdin>";

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
        match &self.dockerfile {
            Some(DockerfileSource::File(file)) => {
                parts.push(format!("the Dockerfile {}", file.display()));
            }
            Some(DockerfileSource::Stdin(_)) => parts.push("the Dockerfile from stdin".to_string()),
            None => {}
        }
        parts.join(" and ")
    }
}

/// The process environment as the probes of the machine read it (`PATH`,
/// `HOME`, `VIRTUAL_ENV` …). An unpacked image has none: the caller's `PATH`
/// says nothing about the image's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Environment {
    vars: Vec<(String, String)>,
}

impl Environment {
    /// The variables the probes read.
    pub const NAMES: &'static [&'static str] = &[
        "PATH",
        "HOME",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYTHONPATH",
        "PYTHONNOUSERSITE",
        "PYENV_VERSION",
        "LD_LIBRARY_PATH",
        "CUDA_HOME",
        "CUDA_PATH",
    ];

    /// This process's values of `NAMES` (those set and valid UTF-8).
    pub fn of_process() -> Environment {
        let mut env = Environment::default();
        for name in Self::NAMES {
            if let Some(value) = std::env::var_os(name).and_then(|v| v.into_string().ok()) {
                env = env.with(name, &value);
            }
        }
        env
    }

    /// The same with `name` set to `value`.
    pub fn with(mut self, name: &str, value: &str) -> Environment {
        self.vars.retain(|(n, _)| n != name);
        self.vars.push((name.to_string(), value.to_string()));
        self
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The absolute entries of `PATH`, in order (a relative one depends on
    /// the folder a command runs in, so it is skipped).
    pub(crate) fn path_entries(&self) -> Vec<&str> {
        self.get("PATH")
            .unwrap_or("")
            .split(':')
            .filter(|e| e.starts_with('/'))
            .collect()
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
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
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
    /// Container engines installed: `docker` (a package's `/usr/bin/docker`),
    /// `docker-snap` (`/snap/bin/docker`), `podman`.
    pub engines: Vec<Found<String>>,
    /// Python environments found, each with how it was found.
    pub python_envs: Vec<PythonEnv>,
    /// The Python `python3` runs (the machine only: it needs `PATH`).
    pub python3: Option<PythonOnPath>,
    pub torch: Vec<Torch>,
    pub wheels: Vec<Wheel>,
    /// `cuda-toolkit` metapackage wheels (`cuda_toolkit-13.0.2.dist-info`).
    pub toolkit_wheels: Vec<Found<String>>,
    pub toolkits: Vec<Toolkit>,
    /// `nvcc` in the first `$PATH` folder holding it (the machine only).
    pub nvcc_on_path: Option<Found<String>>,
    pub cupti: Vec<Found<CuptiPlace>>,
    pub apt: Vec<Found<AptPackage>>,
    /// Versioned GCC packages dpkg lists as installed (`gcc-13`).
    pub compiler_packages: Vec<Found<AptPackage>>,
    /// GPU models from the driver's `/proc` files (the machine only).
    pub gpus: Vec<Found<String>>,
    /// Whether `nvidia_uvm` is loaded (the machine, with a driver, only).
    pub nvidia_uvm: Option<Found<bool>>,
    /// The dynamic loader's configured folders (`/etc/ld.so.conf` and its
    /// includes), in order.
    pub ld_conf_dirs: Vec<Found<String>>,
    /// `LD_LIBRARY_PATH`, `CUDA_HOME`, `CUDA_PATH` as `NAME=value` (the
    /// machine only).
    pub env: Vec<Found<String>>,
    /// The GCC a build would run.
    pub gcc: Option<Found<String>>,
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
/// root or Dockerfile that cannot be opened at all is an error. On the
/// machine the process environment is read too; an image has none.
pub fn run(options: &ProbeOptions) -> Result<Findings, ProbeError> {
    run_with_named_envs(options, &[])
}

/// `run`, with Python environments named from elsewhere (by the paths of a
/// pasted message: `lore diagnose`) probed beside those the system finds.
pub fn run_with_named_envs(
    options: &ProbeOptions,
    named: &[NamedEnv],
) -> Result<Findings, ProbeError> {
    let live = options
        .root_dir()
        .and_then(|d| std::fs::canonicalize(d).ok())
        .is_some_and(|d| d == Path::new("/"));
    let env = live.then(Environment::of_process);
    probe_all(options, env.as_ref(), named)
}

/// `run` with the process environment given: `None` for an unpacked image,
/// or the variables a machine laid out like `--root` would have.
pub fn run_with(options: &ProbeOptions, env: Option<&Environment>) -> Result<Findings, ProbeError> {
    probe_all(options, env, &[])
}

fn probe_all(
    options: &ProbeOptions,
    env: Option<&Environment>,
    named: &[NamedEnv],
) -> Result<Findings, ProbeError> {
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
        // What the root's reads skipped goes in after each probe's own
        // notes, so problems stay near the facts they cost.
        system::probe(&root, &mut facts, notes);
        notes.extend(root.take_skipped());
        python::probe(&root, env, named, &mut facts, notes);
        notes.extend(root.take_skipped());
        cuda::probe(&root, env, &mut facts, notes);
        notes.extend(root.take_skipped());
        host::probe(&root, env, &mut facts, notes);
        notes.extend(root.take_skipped());
        findings.root = Some(facts);
    }
    if let Some(source) = &options.dockerfile {
        let read;
        let file = match source {
            DockerfileSource::File(path) => {
                read = dockerfile::read(path).map_err(|message| ProbeError::Dockerfile {
                    path: path.clone(),
                    message,
                })?;
                &read
            }
            DockerfileSource::Stdin(bytes) => bytes,
        };
        let (parsed, notes) = parse_dockerfile(&source.name(), file);
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
        findings
            .dockerfile
            .as_ref()
            .map(|file| (file, options.dockerfile_line)),
        env,
        &mut findings.notes,
    );
    // One problem met by several probes (a folder every CUDA pattern
    // lists) is said once, where it was first met.
    let mut seen = std::collections::HashSet::new();
    findings.notes.retain(|note| seen.insert(note.clone()));
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

/// A fact's value and evidence where a second piece of evidence may
/// contradict the first: then the value is `unsure: A or B` and both are
/// shown.
fn disputed<T>(
    first: Option<&Found<T>>,
    second: Option<&Found<T>>,
    show: impl Fn(&T) -> String,
) -> (Option<String>, Vec<String>) {
    match (first, second) {
        (Some(a), Some(b)) => {
            let mut evidence = a.evidence.clone();
            evidence.extend(b.evidence.clone());
            (
                Some(format!("unsure: {} or {}", show(&a.value), show(&b.value))),
                evidence,
            )
        }
        (Some(a), None) => (Some(show(&a.value)), a.evidence.clone()),
        (None, _) => (None, Vec::new()),
    }
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
            for e in &root.engines {
                push("container-engine", e.value.clone(), &e.evidence);
            }
            for g in &root.gpus {
                push("gpu", g.value.clone(), &g.evidence);
            }
            if let Some(u) = &root.nvidia_uvm {
                let value = if u.value { "loaded" } else { "not loaded" };
                push("nvidia_uvm", value.to_string(), &u.evidence);
            }
            for e in &root.env {
                push("env", e.value.clone(), &e.evidence);
            }
            for e in &root.python_envs {
                push(
                    "python-env",
                    format!("{} ({})", e.prefix, e.kind),
                    &e.found_by,
                );
            }
            if let Some(p) = &root.python3 {
                push("python3", p.exe.value.clone(), &p.exe.evidence);
                match &p.torch {
                    Some(t) => push("python3.torch", t.value.clone(), &t.evidence),
                    None if p.sites.is_empty() => push(
                        "python3.torch",
                        "unknown: no site folder found for this python3".into(),
                        &p.exe.evidence,
                    ),
                    None => push(
                        "python3.torch",
                        "none: `import torch` finds no torch".into(),
                        &p.sites,
                    ),
                }
            }
            for t in &root.torch {
                let (value, evidence) =
                    disputed(t.version.as_ref(), t.version_disputed.as_ref(), |v| {
                        v.clone()
                    });
                push(
                    "torch",
                    value.unwrap_or_else(|| "unknown version".to_string()),
                    if evidence.is_empty() {
                        std::slice::from_ref(&t.dir)
                    } else {
                        evidence.as_slice()
                    },
                );
                let show_cuda =
                    |c: &Option<String>| c.clone().unwrap_or_else(|| "none (CPU)".into());
                let (value, evidence) =
                    disputed(t.cuda.as_ref(), t.cuda_disputed.as_ref(), show_cuda);
                if let Some(value) = value {
                    push("torch.cuda", value, &evidence);
                }
                let (value, evidence) = disputed(
                    t.install.as_ref(),
                    t.install_disputed.first(),
                    TorchInstall::to_string,
                );
                if let Some(value) = value {
                    push("torch.install", value, &evidence);
                }
            }
            for w in &root.wheels {
                push(
                    "nvidia-wheel",
                    format!("{} {}", w.name, w.version),
                    std::slice::from_ref(&w.evidence),
                );
                if !w.libs.is_empty() {
                    let mut evidence = vec![w.lib_dir.clone()];
                    evidence.extend(w.record.clone());
                    push("nvidia-wheel.libs", w.libs.join(" "), &evidence);
                }
                for m in &w.missing {
                    push("nvidia-wheel.missing", m.value.clone(), &m.evidence);
                }
                if let Some(n) = &w.nvcc {
                    push("nvcc.wheel", n.value.clone(), &n.evidence);
                }
            }
            for t in &root.toolkit_wheels {
                push("cuda-toolkit-wheel", t.value.clone(), &t.evidence);
            }
            for c in &root.cupti {
                push("libcupti", c.value.to_string(), &c.evidence);
            }
            for t in &root.toolkits {
                let (value, evidence) =
                    disputed(Some(&t.version), t.version_disputed.as_ref(), |v| v.clone());
                push(
                    "cuda-toolkit",
                    format!("{} {}", t.dir, value.unwrap_or_default()),
                    &evidence,
                );
                match &t.nvcc {
                    Some(nvcc) => push("nvcc", nvcc.value.clone(), &nvcc.evidence),
                    None => push(
                        "nvcc",
                        format!("absent from {}", t.dir),
                        &[format!("{}: not there", t.nvcc_expected)],
                    ),
                }
            }
            if let Some(n) = &root.nvcc_on_path {
                push("nvcc.path", n.value.clone(), &n.evidence);
            }
            for p in &root.apt {
                push(
                    "apt-package",
                    format!("{} {}", p.value.name, p.value.version),
                    &p.evidence,
                );
            }
            for d in &root.ld_conf_dirs {
                push("ld.so.conf", d.value.clone(), &d.evidence);
            }
            if let Some(g) = &root.gcc {
                push("gcc", g.value.clone(), &g.evidence);
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
