//! Static reading of a Dockerfile: its stages and what each starts `FROM`
//! (for `nvidia/cuda` images the CUDA version, flavour and distribution), the
//! `pip` / `uv` / `conda` / `apt-get` / `dnf` installs, fetches and build
//! commands of each stage's `RUN`s, `COPY --from` and `RUN --mount=…,from=`
//! between stages, and the `ENV` settings that matter to CUDA, each with its
//! line.
//!
//! The syntax handled is the one BuildKit reads: parser directives at the
//! top (`# escape=` changes the line-continuation character), comments,
//! continuation lines (comment lines inside them are dropped), heredocs (a
//! word that starts with `<<`, as BuildKit finds them: `RUN <<EOF` … `EOF`,
//! `<<-`, quoted words, several per instruction; a quoted `"<<EOF"` is
//! text), `RUN` flags (`--mount`, `--network`) before the command, the exec
//! form `RUN ["…"]`, and build arguments: `ARG`s before the first `FROM` are
//! expanded in `FROM` (`$A`, `${A}`, `${A:-x}`, `${A:+x}`), defaults built
//! from earlier `ARG`s included. An `ARG` without a default is set by
//! `--build-arg` at build time: what depends on it is unknown, never a
//! guess. Shell is not executed: commands are split on `&&`, `||`, `;`, `|`
//! and the words of `if`/`for`/`case`, then read word by word, following
//! `cd` within a `RUN`; a command substitution (`$(…)`, backticks) stays
//! inside its word, and what it prints is unknown. A command inside one
//! branch of `case … esac` or `if … fi` is marked with that branch: which
//! one runs depends on the build, so its install is not certain.
//!
//! A file with binary bytes, over `MAX_BYTES`, or longer than `MAX_LINES` is
//! read up to that point with a note naming the line, and marked incomplete
//! so nothing is concluded about its final stage.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::images;
use super::{Fact, Note};

/// Bytes of a Dockerfile read, at most.
const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// Lines read, at most: real Dockerfiles have tens to a few hundred.
pub const MAX_LINES: usize = 5_000;
/// `${A:-${B:-…}}` nesting followed, at most; deeper is left unexpanded.
const MAX_NESTING: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dockerfile {
    pub path: String,
    pub stages: Vec<Stage>,
    /// False when reading stopped early (binary bytes, too many lines or
    /// bytes): the last stage read may not be the final stage.
    pub complete: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stage {
    pub index: usize,
    pub name: Option<String>,
    /// The image as written, `ARG`s substituted where their values are known.
    pub image: String,
    pub line: usize,
    pub base: Base,
    pub installs: Vec<Install>,
    /// `COPY --from` and `RUN --mount=type=bind,from=`.
    pub copies: Vec<CopyFrom>,
    pub env: Vec<EnvSetting>,
    /// Commands that compile or build a package.
    pub builds: Vec<Build>,
    /// Source fetched: `git clone URL`, `ADD URL`, `pip install git+URL`.
    pub fetches: Vec<Fetch>,
    /// The working folder as last set by `WORKDIR` (inherited from the stage
    /// it is built on).
    #[serde(skip)]
    workdir: Option<String>,
    /// `ENV` values (inherited from the stage it is built on) and the
    /// stage's `ARG`s: `None` for a value that is not known.
    #[serde(skip)]
    vars: HashMap<String, Option<String>>,
    /// Each `RUN`'s first and last line (heredoc bodies included).
    #[serde(skip)]
    pub(super) runs: Vec<(usize, usize)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Base {
    /// `nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04`
    NvidiaCuda {
        version: String,
        flavor: Flavor,
        distro: String,
    },
    /// `FROM builder`: an earlier stage, by index.
    Stage {
        index: usize,
    },
    /// A plain distribution or language image: `ubuntu:22.04`, `python:3.11-slim`.
    Distro {
        name: String,
        tag: String,
    },
    Scratch,
    /// The image depends on build arguments whose values the file does not
    /// give (`ARG IMAGE` with no default): set at build time.
    Unresolved {
        args: Vec<String>,
    },
    /// Anything else; the image table may know it.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavor {
    Base,
    Runtime,
    Devel,
    CudnnRuntime,
    CudnnDevel,
}

impl Flavor {
    pub fn is_devel(self) -> bool {
        matches!(self, Flavor::Devel | Flavor::CudnnDevel)
    }

    pub fn name(self) -> &'static str {
        match self {
            Flavor::Base => "base",
            Flavor::Runtime => "runtime",
            Flavor::Devel => "devel",
            Flavor::CudnnRuntime => "cudnn-runtime",
            Flavor::CudnnDevel => "cudnn-devel",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallTool {
    Pip,
    Uv,
    Poetry,
    Pipenv,
    Conda,
    Apt,
    Dnf,
    Yum,
    Microdnf,
}

impl InstallTool {
    pub fn name(self) -> &'static str {
        match self {
            InstallTool::Pip => "pip",
            InstallTool::Uv => "uv",
            InstallTool::Poetry => "poetry",
            InstallTool::Pipenv => "pipenv",
            InstallTool::Conda => "conda",
            InstallTool::Apt => "apt-get",
            InstallTool::Dnf => "dnf",
            InstallTool::Yum => "yum",
            InstallTool::Microdnf => "microdnf",
        }
    }

    /// Installs Python packages from PyPI-style indexes (wheels or sdists).
    pub fn is_python(self) -> bool {
        matches!(
            self,
            InstallTool::Pip | InstallTool::Uv | InstallTool::Poetry | InstallTool::Pipenv
        )
    }

    /// Installs distribution packages (deb or rpm).
    pub fn is_system(self) -> bool {
        matches!(
            self,
            InstallTool::Apt | InstallTool::Dnf | InstallTool::Yum | InstallTool::Microdnf
        )
    }
}

/// One install command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Install {
    pub tool: InstallTool,
    /// As written: `torch==2.5.1`, `cuda-cupti-12-4`, `.`, `./dist/*.whl`.
    pub packages: Vec<String>,
    /// What it installs that the Dockerfile does not show: `-r
    /// requirements.txt`, `uv.lock` for `uv sync`, `environment.yml`,
    /// `$PACKAGES`.
    pub lists: Vec<String>,
    /// `--index-url`, `--extra-index-url`, `-f` values, and conda channels.
    pub indexes: Vec<String>,
    /// Packages it is told not to install: `uv sync --no-install-package X`.
    pub skips: Vec<String>,
    pub line: usize,
    /// Inside one branch of a shell `case` or `if`: it runs only when the
    /// build takes that branch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<Branch>,
}

/// Which shell construct a command's branch belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BranchKind {
    /// An arm of `case … esac`.
    Case,
    /// `then`, `elif` or `else` of `if … fi`.
    If,
}

/// A command inside one branch of a shell `case … esac` or `if … fi` in a
/// `RUN`: which branch runs depends on the build (a build argument, the
/// platform), so what it installs is not certain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Branch {
    pub kind: BranchKind,
    /// The line the `case` or `if` starts on.
    pub line: usize,
}

impl Branch {
    /// `in one branch of a case`, as the facts say it.
    pub fn describe(&self) -> &'static str {
        match self.kind {
            BranchKind::Case => "in one branch of a case",
            BranchKind::If => "in one branch of an if",
        }
    }
}

impl Install {
    /// Whether one of the packages is `name` (any version pin, extras, or a
    /// wheel file of it).
    pub fn has(&self, name: &str) -> bool {
        self.packages.iter().any(|p| package_name(p) == name)
    }

    /// The package spec that names `name`, as written.
    pub fn spec(&self, name: &str) -> Option<&str> {
        self.packages
            .iter()
            .find(|p| package_name(p) == name)
            .map(String::as_str)
    }

    /// A local folder (`pip install .`, `-e ./x`): a build from source. A
    /// local wheel file is not.
    pub fn has_local(&self) -> bool {
        self.packages.iter().any(|p| is_local_project(p))
    }

    /// An index whose address the Dockerfile does not fix: a build
    /// argument without a value, or a command's output (`…/cu$(echo …)`).
    /// Which build it serves is unknown.
    pub fn unfixed_index(&self) -> Option<&str> {
        self.indexes
            .iter()
            .find(|i| !is_fixed(i))
            .map(String::as_str)
    }

    /// Whether the command is told not to install `name` (`uv sync
    /// --no-install-package torch`).
    pub fn skips(&self, name: &str) -> bool {
        self.skips.iter().any(|p| package_name(p) == name)
    }
}

/// Text with nothing left to expand: no `$NAME` whose value is unknown, no
/// command substitution.
fn is_fixed(text: &str) -> bool {
    !text.contains(['$', '`'])
}

/// `torch==2.5.1`, `torch[extra]>=2`, `"torch"`, `pytorch=2.5.1`,
/// `/wheels/torch-2.5.1-cp311-cp311-linux_x86_64.whl` → `torch` /
/// `pytorch`, lower case.
pub fn package_name(spec: &str) -> String {
    let spec = spec.trim_matches(|c| c == '"' || c == '\'');
    if is_archive(spec) {
        // A wheel or sdist file: the name is what comes before the first `-`.
        let file = spec.rsplit('/').next().unwrap_or(spec);
        let name = file.split('-').next().unwrap_or(file);
        return name.to_ascii_lowercase().replace('_', "-");
    }
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(spec.len());
    spec[..end].to_ascii_lowercase().replace('_', "-")
}

fn is_archive(spec: &str) -> bool {
    let lower = spec.to_ascii_lowercase();
    [".whl", ".tar.gz", ".zip", ".tar.bz2"]
        .iter()
        .any(|e| lower.ends_with(e))
}

pub(super) fn is_wheel(spec: &str) -> bool {
    spec.to_ascii_lowercase().ends_with(".whl")
}

pub(super) fn is_path(spec: &str) -> bool {
    spec.starts_with('.')
        || spec.starts_with('/')
        || spec.starts_with('~')
        || spec.starts_with("file:")
}

/// A local project folder or sdist, which pip builds: not a wheel file.
fn is_local_project(spec: &str) -> bool {
    is_path(spec) && !is_wheel(spec)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyFrom {
    /// As written after `--from=` (or `from=` of a mount).
    pub from: String,
    /// The stage it names, if it names one.
    pub stage: Option<usize>,
    /// The rest of the instruction (sources and destination), or the mount's
    /// source and target.
    pub args: String,
    /// A `RUN --mount=type=bind,from=…`, not a `COPY`.
    pub mount: bool,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvSetting {
    pub name: String,
    /// As written: `/opt/conda/bin:$PATH`.
    pub value: String,
    /// With the variables the file fixes expanded (`$PATH` from the base
    /// image's `ENV` where lore knows it); `None` when one is not known.
    pub known: Option<String>,
    pub line: usize,
}

/// A command that compiles, or builds a package from source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Build {
    /// As shown: `nvcc`, `cmake`, `python setup.py install`, `pip install -e .`.
    pub what: String,
    pub kind: BuildKind,
    /// The folder it ran in, where `WORKDIR` or `cd` shows it.
    pub dir: Option<String>,
    /// A PyTorch checkout: torch itself built from source.
    pub torch: bool,
    /// Settings that only a CUDA build reads, in effect for this command
    /// (`TORCH_CUDA_ARCH_LIST`, `FORCE_CUDA` …).
    pub cuda_hints: Vec<String>,
    pub line: usize,
    /// Inside one branch of a shell `case` or `if`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<Branch>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildKind {
    /// `nvcc` itself.
    CudaCompiler,
    /// `cmake`, `make`, `ninja`: compiles something, in any language.
    BuildTool,
    /// A Python package built from source: `setup.py`, `pip install .`,
    /// `pip install git+…`; whether it compiles CUDA depends on the project.
    Project,
}

/// Source code fetched into a stage.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fetch {
    pub url: String,
    /// Where it lands, where the command shows it.
    pub dir: Option<String>,
    pub line: usize,
}

/// The ENV names reported.
const ENV_THAT_MATTERS: [&str; 10] = [
    "LD_LIBRARY_PATH",
    "TORCH_CUDA_ARCH_LIST",
    "FORCE_CUDA",
    "TORCH_NVCC_FLAGS",
    "CMAKE_CUDA_ARCHITECTURES",
    "CUDA_HOME",
    "CUDA_PATH",
    "CUDACXX",
    "CUDA_VISIBLE_DEVICES",
    "PATH",
];

/// Settings only a CUDA build reads: a project built with one of them set
/// compiles CUDA code.
const CUDA_BUILD_HINTS: [&str; 4] = [
    "TORCH_CUDA_ARCH_LIST",
    "FORCE_CUDA",
    "TORCH_NVCC_FLAGS",
    "CMAKE_CUDA_ARCHITECTURES",
];

/// Packages whose every release on PyPI requires torch (their wheels'
/// `Requires-Dist`, read with `pip install --dry-run --report`): installing
/// one installs torch. torchaudio is not here: its 2.9 and later wheels
/// no longer require torch.
pub const NEED_TORCH: [&str; 11] = [
    "torchvision",
    "lightning",
    "pytorch-lightning",
    "accelerate",
    "timm",
    "torchmetrics",
    "peft",
    "sentence-transformers",
    "xformers",
    "vllm",
    "bitsandbytes",
];

/// Reads a Dockerfile from disk (a regular file, up to `MAX_BYTES`, and one
/// byte more so that a longer file is known to be cut).
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    // The open file is checked, not the path: a FIFO swapped in after a
    // look at the path would block the open (and `lore`) forever.
    let file = crate::datafile::open_read(path).map_err(|e| e.to_string())?;
    let mut data = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    Ok(data)
}

/// Reads a Dockerfile piped in (`--dockerfile -`), up to `MAX_BYTES` and
/// one byte more, as `read` does a file. `Err` says why it is not one to
/// probe: nothing came, or the text is not UTF-8 (saved as Latin-1 or
/// UTF-16), which a file on disk only gets as a note since its name is
/// there to find it by; piped text has no name to go back to.
pub fn read_piped(input: impl std::io::Read) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let mut data = Vec::new();
    input
        .take(MAX_BYTES + 1)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    let text = data.strip_prefix(UTF8_BOM).unwrap_or(&data);
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err("standard input is empty; pipe a Dockerfile in".to_string());
    }
    if let Err(e) = std::str::from_utf8(text) {
        // A cut at the byte limit may split a character: that is the
        // limit's note, not an encoding error.
        let cut = e.error_len().is_none() && data.len() as u64 > MAX_BYTES;
        if !cut {
            let at = e.valid_up_to();
            let line = text[..at].iter().filter(|&&b| b == b'\n').count() + 1;
            return Err(format!(
                "standard input is not UTF-8 text (byte 0x{:02x} on line {line}); convert it, e.g. with iconv -t UTF-8",
                text[at]
            ));
        }
    }
    Ok(data)
}

impl Stage {
    /// The installs of a package that brings a CUDA compiler: NVIDIA's
    /// `cuda-nvcc-*` / toolkit packages, Debian's `nvidia-cuda-toolkit`,
    /// conda's `cuda-nvcc`, or the CUDA 13 `nvidia-cuda-nvcc` wheel (the
    /// CUDA 12 `-cu12` wheel ships only ptxas).
    pub fn installs_nvcc(&self) -> impl Iterator<Item = &Install> {
        self.installs.iter().filter(|i| {
            i.packages.iter().any(|p| {
                let name = package_name(p);
                match i.tool {
                    t if t.is_system() => {
                        [
                            "cuda-nvcc-",
                            "cuda-toolkit",
                            "cuda-compiler-",
                            "cuda-minimal-build-",
                        ]
                        .iter()
                        .any(|pre| name.starts_with(pre))
                            && !name.ends_with("config-common")
                            || name == "nvidia-cuda-toolkit"
                            || name == "cuda"
                            || name.starts_with("cuda-1")
                    }
                    InstallTool::Conda => {
                        matches!(
                            name.as_str(),
                            "cuda-nvcc" | "cudatoolkit-dev" | "cuda-toolkit" | "cuda"
                        )
                    }
                    _ => name == "nvidia-cuda-nvcc",
                }
            })
        })
    }
}

impl Dockerfile {
    /// The last stage, if the whole file was read.
    pub fn final_stage(&self) -> Option<&Stage> {
        if self.complete {
            self.stages.last()
        } else {
            None
        }
    }

    /// The image a stage ultimately starts from, following `FROM <stage>`.
    pub fn root_base<'a>(&'a self, stage: &'a Stage) -> (&'a Stage, &'a Base) {
        let mut current = stage;
        for _ in 0..self.stages.len() {
            match &current.base {
                Base::Stage { index } if *index < current.index => {
                    current = &self.stages[*index];
                }
                _ => break,
            }
        }
        (current, &current.base)
    }

    /// The stages a stage is built on, itself first, down to the one that
    /// starts from an image.
    pub fn lineage<'a>(&'a self, stage: &'a Stage) -> Vec<&'a Stage> {
        let mut out = vec![stage];
        let mut current = stage;
        while let Base::Stage { index } = current.base {
            if index >= current.index {
                break;
            }
            current = &self.stages[index];
            out.push(current);
        }
        out
    }

    /// A stage and every stage it copies from, mounts or builds on,
    /// transitively: what can end up in its files.
    pub fn feeding<'a>(&'a self, stage: &'a Stage) -> Vec<&'a Stage> {
        let mut out: Vec<&Stage> = vec![stage];
        let mut i = 0;
        while i < out.len() {
            let s = out[i];
            let mut more: Vec<usize> = s.copies.iter().filter_map(|c| c.stage).collect();
            if let Base::Stage { index } = s.base {
                more.push(index);
            }
            for index in more {
                if let Some(next) = self.stages.get(index)
                    && !out.iter().any(|o| o.index == index)
                {
                    out.push(next);
                }
            }
            i += 1;
        }
        out
    }

    /// Whether a CUDA compiler is there when `stage` runs its commands:
    /// `Some((true, evidence))`, `Some((false, evidence))`, or `None` when
    /// the base image is one nothing is known about.
    pub fn has_nvcc(&self, stage: &Stage) -> Option<(bool, String)> {
        super::stage_at::compiler(self, stage, None).map(|c| (c.present, c.evidence))
    }

    /// The stage whose instructions hold `line`: the last one whose `FROM`
    /// is at or above it.
    pub fn stage_at(&self, line: usize) -> Option<&Stage> {
        self.stages.iter().rev().find(|s| s.line <= line)
    }

    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.path)
    }

    /// What the Dockerfile says about torch in a stage's own commands.
    pub fn torch_routes(&self, stage: &Stage) -> Vec<TorchRoute> {
        self.torch_routes_before(stage, None)
    }

    /// `torch_routes` of the stage's commands before `line` (all of them
    /// for `None`): what had run when the instruction at `line` started.
    pub fn torch_routes_before(&self, stage: &Stage, line: Option<usize>) -> Vec<TorchRoute> {
        let ran = |at: usize| line.is_none_or(|l| at < l);
        let mut out = Vec::new();
        for i in stage.installs.iter().filter(|i| ran(i.line)) {
            let at = self.at(i.line);
            if i.tool.is_python() {
                if let Some(spec) = i.spec("torch") {
                    out.push(TorchRoute::Named {
                        how: if is_wheel(spec) && is_path(spec) {
                            Via::LocalWheel
                        } else {
                            Via::Pip
                        },
                        spec: spec.to_string(),
                        cpu: torch_is_cpu(spec, &i.indexes),
                        cuda: torch_cuda(spec, &i.indexes),
                        at,
                        branch: i.branch,
                    });
                    continue;
                }
                if let Some(dep) = i
                    .packages
                    .iter()
                    .find(|p| NEED_TORCH.contains(&package_name(p).as_str()))
                {
                    out.push(TorchRoute::Dependency {
                        what: format!("{} install {}", i.tool.name(), dep),
                        at,
                        branch: i.branch,
                    });
                    continue;
                }
                let local = i.packages.iter().find(|p| is_path(p) || p.contains("git+"));
                let listed = i
                    .lists
                    .first()
                    .filter(|_| !i.skips("torch"))
                    .map(|l| list_command(i.tool, l));
                if let Some(what) =
                    listed.or_else(|| local.map(|p| format!("{} install {p}", i.tool.name())))
                {
                    out.push(TorchRoute::Maybe {
                        what,
                        at,
                        branch: i.branch,
                    });
                }
            } else if i.tool == InstallTool::Conda {
                if let Some(spec) = i.spec("pytorch").or_else(|| i.spec("torch")) {
                    out.push(TorchRoute::Named {
                        how: Via::Conda,
                        spec: spec.to_string(),
                        cpu: conda_torch_is_cpu(&i.packages),
                        cuda: None,
                        at,
                        branch: i.branch,
                    });
                } else if let Some(list) = i.lists.first() {
                    out.push(TorchRoute::Maybe {
                        what: list_command(i.tool, list),
                        at,
                        branch: i.branch,
                    });
                }
            }
        }
        for b in stage.builds.iter().filter(|b| ran(b.line)) {
            if b.torch {
                out.push(TorchRoute::Source {
                    what: b.what.clone(),
                    at: self.at(b.line),
                    branch: b.branch,
                });
            }
        }
        out
    }

    pub fn facts(&self) -> Vec<Fact> {
        let mut out = Vec::new();
        for s in &self.stages {
            let name = stage_label(s);
            out.push(Fact {
                fact: "dockerfile.stage",
                value: format!("{name}: {} ({})", s.image, describe_base(self, s)),
                evidence: vec![self.at(s.line)],
            });
            if !matches!(s.base, Base::Stage { .. })
                && let Some(implied) = images::lookup(&s.image)
            {
                out.push(Fact {
                    fact: "dockerfile.image",
                    value: format!("{name}: {}", implied.summary()),
                    evidence: vec![self.at(s.line), implied.evidence()],
                });
            }
            for i in &s.installs {
                let mut words: Vec<String> = i.packages.clone();
                words.extend(i.lists.iter().cloned());
                if !i.skips.is_empty() {
                    words.push(format!("except {}", i.skips.join(" ")));
                }
                if let Some(branch) = i.branch {
                    words.push(format!("({})", branch.describe()));
                }
                out.push(Fact {
                    fact: "dockerfile.install",
                    value: format!("{name}: {} {}", i.tool.name(), words.join(" ")),
                    evidence: vec![self.at(i.line)],
                });
            }
            for c in &s.copies {
                let how = if c.mount { " (RUN --mount)" } else { "" };
                out.push(Fact {
                    fact: "dockerfile.copy-from",
                    value: format!("{name} from {}{how}: {}", c.from, c.args),
                    evidence: vec![self.at(c.line)],
                });
            }
            for e in &s.env {
                out.push(Fact {
                    fact: "dockerfile.env",
                    value: format!("{name}: {}={}", e.name, e.value),
                    evidence: vec![self.at(e.line)],
                });
            }
            for f in &s.fetches {
                out.push(Fact {
                    fact: "dockerfile.fetch",
                    value: format!("{name}: {}", f.url),
                    evidence: vec![self.at(f.line)],
                });
            }
            for b in &s.builds {
                out.push(Fact {
                    fact: "dockerfile.build",
                    value: match b.branch {
                        Some(branch) => format!("{name}: {} ({})", b.what, branch.describe()),
                        None => format!("{name}: {}", b.what),
                    },
                    evidence: vec![self.at(b.line)],
                });
            }
            for route in self.torch_routes(s) {
                out.push(Fact {
                    fact: "dockerfile.torch",
                    value: format!("{name}: {}", route.describe()),
                    evidence: vec![route.at().to_string()],
                });
            }
        }
        if let Some(last) = self.final_stage() {
            let (from, _) = self.root_base(last);
            let mut evidence = vec![self.at(last.line)];
            if from.index != last.index {
                evidence.push(self.at(from.line));
            }
            out.push(Fact {
                fact: "dockerfile.final-stage",
                value: format!("{}: {}", stage_label(last), describe_base(self, from)),
                evidence,
            });
        }
        out
    }
}

/// How a stage's commands bring torch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TorchRoute {
    /// The command names torch: `pip install torch==2.5.1`, `conda install
    /// pytorch`, a torch wheel file.
    Named {
        how: Via,
        spec: String,
        /// `Some(true)` a CPU build (`+cpu`, the `/whl/cpu` index, conda's
        /// `cpuonly`), `Some(false)` a CUDA build (`+cu124`, `/whl/cu124`),
        /// `None` not shown.
        cpu: Option<bool>,
        /// The CUDA of a CUDA build where the spec or the index names it
        /// (`+cu124`, `/whl/cu124` → `12.4`).
        cuda: Option<String>,
        at: String,
        /// Inside one branch of a shell `case` or `if`.
        branch: Option<Branch>,
    },
    /// A package that requires torch: torch comes with it, version unknown.
    Dependency {
        what: String,
        at: String,
        branch: Option<Branch>,
    },
    /// A list the Dockerfile does not show (`-r requirements.txt`, `uv sync`,
    /// a local project): torch may come from it, version unknown.
    Maybe {
        what: String,
        at: String,
        branch: Option<Branch>,
    },
    /// A PyTorch checkout built in the stage.
    Source {
        what: String,
        at: String,
        branch: Option<Branch>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    Pip,
    Conda,
    /// A wheel file on disk (`pip install /wheels/torch-*.whl`): built
    /// somewhere else, perhaps in another stage.
    LocalWheel,
}

impl TorchRoute {
    pub fn at(&self) -> &str {
        match self {
            TorchRoute::Named { at, .. }
            | TorchRoute::Dependency { at, .. }
            | TorchRoute::Maybe { at, .. }
            | TorchRoute::Source { at, .. } => at,
        }
    }

    /// The shell branch the command runs in, if it is inside one.
    pub fn branch(&self) -> Option<Branch> {
        match self {
            TorchRoute::Named { branch, .. }
            | TorchRoute::Dependency { branch, .. }
            | TorchRoute::Maybe { branch, .. }
            | TorchRoute::Source { branch, .. } => *branch,
        }
    }

    pub fn describe(&self) -> String {
        let Some(branch) = self.branch() else {
            return self.describe_route();
        };
        match self {
            TorchRoute::Named { .. } | TorchRoute::Source { .. } => {
                // `torch (pip, a CPU build)` → `torch (pip, a CPU build; in
                // one branch of a case)`.
                let plain = self.describe_route();
                let open = plain.strip_suffix(')').unwrap_or(&plain);
                format!("{open}; {})", branch.describe())
            }
            _ => format!("{} ({})", self.describe_route(), branch.describe()),
        }
    }

    fn describe_route(&self) -> String {
        match self {
            TorchRoute::Named { how, spec, cpu, .. } => {
                let how = match how {
                    Via::Pip => "pip",
                    Via::Conda => "conda",
                    Via::LocalWheel => "a local wheel file",
                };
                let build = match cpu {
                    Some(true) => ", a CPU build",
                    Some(false) => ", a CUDA build",
                    None => "",
                };
                format!("{spec} ({how}{build})")
            }
            TorchRoute::Dependency { what, .. } => {
                format!("torch comes from a dependency, version unknown: {what}")
            }
            TorchRoute::Maybe { what, .. } => {
                format!("torch may come from a dependency, version unknown: {what}")
            }
            TorchRoute::Source { what, .. } => format!("torch built from source ({what})"),
        }
    }
}

/// Whether a torch spec and the indexes it installs from say CPU or CUDA.
pub fn torch_is_cpu(spec: &str, indexes: &[String]) -> Option<bool> {
    let spec = spec.to_ascii_lowercase();
    if spec.contains("+cpu") || spec.contains("%2bcpu") {
        return Some(true);
    }
    if spec.contains("+cu") || spec.contains("%2bcu") {
        return Some(false);
    }
    // pip takes the best wheel of all its indexes: one not known may
    // serve either build.
    if !indexes.iter().all(|i| is_fixed(i)) {
        return None;
    }
    let mut found = None;
    for index in indexes {
        let index = index.trim_end_matches('/').to_ascii_lowercase();
        let last = index.rsplit('/').next().unwrap_or("");
        if last == "cpu" {
            found = Some(true);
        } else if last.starts_with("cu")
            && last[2..].chars().all(|c| c.is_ascii_digit())
            && last.len() > 2
        {
            found = Some(false);
        }
    }
    found
}

/// The CUDA a torch spec or its one fixed PyTorch index names: `+cu124`
/// or `…/whl/cu124` → `12.4`, `cu130` → `13.0`, `cu92` → `9.2`.
pub fn torch_cuda(spec: &str, indexes: &[String]) -> Option<String> {
    let spec = spec.to_ascii_lowercase().replace("%2b", "+");
    let build = match spec.split_once("+cu") {
        Some((_, rest)) => {
            let digits = rest.split(|c: char| !c.is_ascii_digit()).next()?;
            format!("cu{digits}")
        }
        None => {
            if !indexes.iter().all(|i| is_fixed(i)) {
                return None;
            }
            let mut builds = indexes.iter().filter_map(|i| {
                let last = i.trim_end_matches('/').rsplit('/').next()?;
                let last = last.to_ascii_lowercase();
                super::python::cuda_of_build(&last).map(|_| last)
            });
            let build = builds.next()?;
            // Two CUDA indexes: pip takes the best wheel of both.
            if builds.next().is_some() {
                return None;
            }
            build
        }
    };
    super::python::cuda_of_build(&build)
}

/// An install from a list, as a command: `pip install -r requirements.txt`,
/// `uv sync (uv.lock)`.
fn list_command(tool: InstallTool, list: &str) -> String {
    if list.starts_with(['-', '$']) {
        format!("{} install {list}", tool.name())
    } else {
        format!("{} {list}", tool.name())
    }
}

/// conda: `cpuonly` makes a CPU build; `pytorch-cuda`, `cudatoolkit` or
/// `cuda-version` a CUDA build.
fn conda_torch_is_cpu(packages: &[String]) -> Option<bool> {
    let names: Vec<String> = packages.iter().map(|p| package_name(p)).collect();
    if names.iter().any(|n| n == "cpuonly") {
        Some(true)
    } else if names
        .iter()
        .any(|n| matches!(n.as_str(), "pytorch-cuda" | "cudatoolkit" | "cuda-version"))
    {
        Some(false)
    } else {
        None
    }
}

fn stage_label(s: &Stage) -> String {
    match &s.name {
        Some(name) => format!("stage {} ({name})", s.index),
        None => format!("stage {}", s.index),
    }
}

/// What a stage starts from, in words; an image the image table knows is
/// named by its family, as the `dockerfile.image` line names it.
fn describe_base(file: &Dockerfile, stage: &Stage) -> String {
    match &stage.base {
        Base::NvidiaCuda {
            version,
            flavor,
            distro,
        } => format!("nvidia/cuda {}, CUDA {version}, {distro}", flavor.name()),
        Base::Stage { index } => match file.stages.get(*index) {
            Some(s) => format!("built on {}", stage_label(s)),
            None => format!("built on stage {index}"),
        },
        Base::Distro { name, tag } if tag.is_empty() => format!("{name} image"),
        Base::Distro { name, tag } => format!("{name} {tag} image"),
        Base::Scratch => "empty image".into(),
        Base::Unresolved { args } if args.is_empty() => {
            "set at build time: the file gives no value".into()
        }
        Base::Unresolved { args } => format!(
            "set at build time: {} has no value in the file (--build-arg)",
            args.join(", ")
        ),
        Base::Other => match images::lookup(&stage.image) {
            Some(implied) => implied.row.family.clone(),
            None => "an image lore does not classify".into(),
        },
    }
}

// ---- reading lines into instructions -------------------------------------------

/// One instruction: its keyword, its text split over the physical lines it
/// came from, and the bodies of its heredocs.
#[derive(Debug)]
struct Instruction {
    keyword: String,
    line: usize,
    /// (line, text) of the instruction's own lines, continuation characters
    /// removed; the keyword is cut from the first.
    parts: Vec<(usize, String)>,
    heredocs: Vec<Heredoc>,
}

#[derive(Debug)]
struct Heredoc {
    /// The command the heredoc feeds (empty for `RUN <<EOF`).
    command: String,
    lines: Vec<(usize, String)>,
}

impl Instruction {
    fn text(&self) -> String {
        self.parts
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

/// Parses Dockerfile bytes. `path` names the file in evidence and notes.
pub fn parse_dockerfile(path: &str, bytes: &[u8]) -> (Dockerfile, Vec<Note>) {
    let mut notes = Vec::new();
    let mut complete = true;
    // A UTF-8 byte-order mark (Notepad's and VS Code's "UTF-8 with BOM")
    // is not text: BuildKit drops it before reading the first line.
    let mut usable = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    // A file over the limit was cut by the read: keep whole lines only, and
    // say so, since its final stage is then unknown.
    if usable.len() as u64 > MAX_BYTES {
        let limit = MAX_BYTES as usize;
        let cut = usable[..limit]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        usable = &usable[..cut];
        let line = usable.iter().filter(|&&b| b == b'\n').count() + 1;
        notes.push(Note {
            path: path.to_string(),
            line: Some(line),
            message: format!(
                "more than {} MiB: not plausibly a Dockerfile; read the {} lines before this one, so its final stage is unknown",
                MAX_BYTES / (1024 * 1024),
                line - 1
            ),
        });
        complete = false;
    }
    // Only the part before the first binary byte is read.
    let bad_at = usable
        .iter()
        .position(|&b| b == 0)
        .or_else(|| std::str::from_utf8(usable).err().map(|e| e.valid_up_to()));
    if let Some(at) = bad_at {
        let line_start = usable[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = usable[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        notes.push(Note {
            path: path.to_string(),
            line: Some(line),
            message: format!(
                "binary data (byte 0x{:02x} at column {}): not Dockerfile text; read up to the line before",
                usable[at],
                at - line_start + 1
            ),
        });
        usable = &usable[..line_start];
        complete = false;
    }
    let text = String::from_utf8_lossy(usable);
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_LINES {
        notes.push(Note {
            path: path.to_string(),
            line: Some(MAX_LINES + 1),
            message: format!(
                "more than {MAX_LINES} lines: not plausibly a Dockerfile; read the first {MAX_LINES}"
            ),
        });
        lines.truncate(MAX_LINES);
        complete = false;
    }
    let instructions = instructions(&lines);
    let mut file = Dockerfile {
        path: path.to_string(),
        stages: Vec::new(),
        complete,
    };
    // ARGs declared before the first FROM: the only ones FROM can use, and
    // the defaults a stage's `ARG NAME` takes.
    let mut global: Vars = HashMap::new();
    for ins in &instructions {
        match ins.keyword.as_str() {
            "ARG" if file.stages.is_empty() => {
                declare_args(&mut global, None, ins);
                continue;
            }
            "FROM" => {
                let stage = from(&file, ins, &global);
                file.stages.push(stage);
                continue;
            }
            _ => {}
        }
        let Some(stage) = file.stages.last_mut() else {
            continue;
        };
        match ins.keyword.as_str() {
            "ARG" => {
                let mut vars = std::mem::take(&mut stage.vars);
                declare_args(&mut vars, Some(&global), ins);
                stage.vars = vars;
            }
            "RUN" => run(stage, ins),
            "COPY" | "ADD" => copy(stage, ins),
            "ENV" => env(stage, ins),
            "WORKDIR" => {
                let dir = expand(ins.text().trim(), &stage.vars, false);
                if dir.known() {
                    stage.workdir = Some(join_dir(stage.workdir.as_deref(), unquote(&dir.text)));
                }
            }
            _ => {}
        }
    }
    // COPY --from and mounts may name a stage by name or index; only earlier
    // stages count.
    let names: Vec<(usize, Option<String>)> = file
        .stages
        .iter()
        .map(|s| (s.index, s.name.clone()))
        .collect();
    for stage in &mut file.stages {
        for copy in &mut stage.copies {
            copy.stage = names
                .iter()
                .find(|(i, name)| {
                    *i < stage.index
                        && (name
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(&copy.from))
                            || copy.from == i.to_string())
                })
                .map(|(i, _)| *i);
        }
    }
    (file, notes)
}

/// Each `RUN`'s command as the builder runs it, with the line it starts on:
/// continuation lines joined, its flags (`--mount=…`, `--network=…`) left
/// out, an exec form's words joined by spaces (`["python3", "x.py"]` →
/// `python3 x.py`, as BuildKit prints it in `process "…"`). `lore
/// diagnose` finds a build log's failed step by it.
pub fn run_commands(bytes: &[u8]) -> Vec<(usize, String)> {
    let usable = bytes.strip_prefix(UTF8_BOM).unwrap_or(bytes);
    let text = String::from_utf8_lossy(usable);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.truncate(MAX_LINES);
    instructions(&lines)
        .into_iter()
        .filter(|ins| ins.keyword == "RUN")
        .map(|ins| {
            let text = ins.text();
            let body = after_run_flags(&text).trim_end();
            let command = match serde_json::from_str::<Vec<String>>(body) {
                Ok(argv) if body.starts_with('[') => argv.join(" "),
                _ => body.to_string(),
            };
            (ins.line, command)
        })
        .collect()
}

/// A `RUN`'s text after its flags (`--mount=…`, `--network=…`): the
/// command, shell or exec form.
pub fn after_run_flags(text: &str) -> &str {
    let mut body = text.trim_start();
    while body.starts_with("--") {
        let end = body.find(char::is_whitespace).unwrap_or(body.len());
        body = body[end..].trim_start();
    }
    body
}

/// Groups physical lines into instructions.
fn instructions(lines: &[&str]) -> Vec<Instruction> {
    let mut escape = '\\';
    let mut i = 0;
    // Parser directives: `# name=value` lines at the very top.
    while i < lines.len() {
        let Some(rest) = lines[i].trim().strip_prefix('#') else {
            break;
        };
        let Some((name, value)) = rest.split_once('=') else {
            break;
        };
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || name.contains(' ') {
            break;
        }
        if name == "escape" && value.trim() == "`" {
            escape = '`';
        }
        i += 1;
    }
    let mut out = Vec::new();
    while i < lines.len() {
        let first = lines[i].trim();
        if first.is_empty() || first.starts_with('#') {
            i += 1;
            continue;
        }
        let start = i;
        let mut parts: Vec<(usize, String)> = Vec::new();
        loop {
            let raw = lines[i].trim_end();
            i += 1;
            match raw.strip_suffix(escape) {
                Some(cut) => {
                    parts.push((i, cut.to_string()));
                    // Comment and blank lines inside a continuation are dropped.
                    while i < lines.len() {
                        let t = lines[i].trim();
                        if t.starts_with('#') || t.is_empty() {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    if i >= lines.len() {
                        break;
                    }
                }
                None => {
                    parts.push((i, raw.to_string()));
                    break;
                }
            }
        }
        let (keyword, rest) = split_keyword(&parts[0].1);
        parts[0].1 = rest;
        let mut ins = Instruction {
            keyword,
            line: start + 1,
            parts,
            heredocs: Vec::new(),
        };
        if matches!(ins.keyword.as_str(), "RUN" | "COPY" | "ADD") {
            for (command, word, strip_tabs) in heredoc_markers(&ins.text()) {
                let mut body = Vec::new();
                while i < lines.len() {
                    let line = lines[i];
                    i += 1;
                    let check = if strip_tabs {
                        line.trim_start_matches('\t')
                    } else {
                        line
                    };
                    if check.trim_end() == word {
                        break;
                    }
                    body.push((i, line.to_string()));
                }
                ins.heredocs.push(Heredoc {
                    command,
                    lines: body,
                });
            }
        }
        out.push(ins);
    }
    out
}

fn split_keyword(line: &str) -> (String, String) {
    let line = line.trim_start();
    let end = line.find(char::is_whitespace).unwrap_or(line.len());
    (line[..end].to_ascii_uppercase(), line[end..].to_string())
}

/// Words of an instruction as BuildKit splits them to find heredocs: on
/// whitespace outside quotes, quotes kept.
fn raw_words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\\' => {
                escaped = true;
                start.get_or_insert(i);
            }
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            None if c.is_whitespace() => {
                if let Some(s) = start.take() {
                    out.push(&text[s..i]);
                }
            }
            None => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push(&text[s..]);
    }
    out
}

/// The heredocs an instruction opens, in order: (the command it feeds,
/// terminating word, whether `<<-` strips leading tabs). As in BuildKit, a
/// heredoc is a whole word `<<WORD`, `<<-WORD` or `<<"WORD"` (optionally
/// after a file descriptor number); `<<` inside a quoted word, or inside
/// another word (`1<<20` in Python), is text.
fn heredoc_markers(text: &str) -> Vec<(String, String, bool)> {
    let words = raw_words(text);
    let mut out = Vec::new();
    let separator = |w: &str| matches!(w, "&&" | "||" | ";" | "|" | "&") || w.ends_with(';');
    for (at, word) in words.iter().enumerate() {
        let after_fd = word.trim_start_matches(|c: char| c.is_ascii_digit());
        let Some(rest) = after_fd.strip_prefix("<<") else {
            continue;
        };
        let (strip_tabs, rest) = match rest.strip_prefix('-') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        if rest.is_empty() || rest.contains('<') {
            continue;
        }
        let name: String = rest.chars().filter(|c| *c != '"' && *c != '\'').collect();
        if name.is_empty() {
            continue;
        }
        // The simple command around the marker, other heredoc words left out.
        let begin = words[..at]
            .iter()
            .rposition(|w| separator(w))
            .map_or(0, |i| i + 1);
        let end = words[at + 1..]
            .iter()
            .position(|w| separator(w))
            .map_or(words.len(), |i| at + 1 + i);
        let command = words[begin..end]
            .iter()
            .filter(|w| {
                !w.trim_start_matches(|c: char| c.is_ascii_digit())
                    .starts_with("<<")
            })
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        out.push((command, name, strip_tabs));
    }
    out
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(s)
}

// ---- build arguments ------------------------------------------------------------

/// Build arguments and ENV values by name: `Some(value)`, or `None` when the
/// value is not known here (an `ARG` without a default is set by
/// `--build-arg`).
type Vars = HashMap<String, Option<String>>;

/// Text with `$NAME` / `${NAME…}` replaced where the values are known.
#[derive(Debug, Default, PartialEq, Eq)]
struct Expanded {
    /// The expansion; a reference whose value is unknown stays as written.
    text: String,
    /// Names whose values are unknown.
    unknown: Vec<String>,
    /// A malformed or unsupported reference (`${`, `${A#x}`): the text
    /// after it stays as written and nothing is concluded from it.
    malformed: bool,
    /// A command substitution (`$(…)`, `` `…` ``): its output is known only
    /// when the command runs.
    substituted: bool,
}

impl Expanded {
    fn known(&self) -> bool {
        self.unknown.is_empty() && !self.malformed && !self.substituted
    }
}

/// Expands `$NAME`, `${NAME}`, `${NAME:-word}`, `${NAME-word}`,
/// `${NAME:+word}` and `${NAME+word}` as BuildKit does. `undeclared_empty`:
/// a name with no entry in `vars` is empty (BuildKit's rule for `FROM` and
/// `ARG`), or unknown (a shell variable the base image may set). One pass,
/// each byte looked at once: an unclosed `${` ends the expansion there.
fn expand(text: &str, vars: &Vars, undeclared_empty: bool) -> Expanded {
    let mut out = Expanded::default();
    let mut pos = 0;
    let closed = expand_word(text, &mut pos, vars, undeclared_empty, 0, false, &mut out);
    if !closed {
        out.malformed = true;
    }
    out
}

/// Expands from `*pos` to the end (`nested` false) or to the `}` closing a
/// `${NAME:-word}` word (`nested` true), appending to `out.text`. Returns
/// false when the text ends first or a reference is malformed; the rest is
/// then appended as written and `*pos` is the end.
fn expand_word(
    text: &str,
    pos: &mut usize,
    vars: &Vars,
    undeclared_empty: bool,
    depth: usize,
    nested: bool,
    out: &mut Expanded,
) -> bool {
    let bytes = text.as_bytes();
    loop {
        let rest = &text[*pos..];
        let next = rest.find(|c| c == '$' || c == '\\' || c == '`' || (nested && c == '}'));
        let Some(offset) = next else {
            out.text.push_str(rest);
            *pos = text.len();
            return !nested;
        };
        out.text.push_str(&rest[..offset]);
        let at = *pos + offset;
        match bytes[at] {
            b'}' => {
                *pos = at + 1;
                return true;
            }
            b'`' => {
                out.substituted = true;
                out.text.push('`');
                *pos = at + 1;
            }
            b'\\' => {
                // `\$` is a literal dollar; other escapes stay as written.
                match bytes.get(at + 1) {
                    Some(b'$') => {
                        out.text.push('$');
                        *pos = at + 2;
                    }
                    _ => {
                        out.text.push('\\');
                        *pos = at + 1;
                    }
                }
            }
            _ => {
                let after = at + 1;
                if bytes.get(after) == Some(&b'{') {
                    let name_start = after + 1;
                    let name_end = name_start + name_len(&text[name_start..]);
                    let name = &text[name_start..name_end];
                    if name.is_empty() || name_end >= text.len() {
                        out.text.push_str(&text[at..]);
                        *pos = text.len();
                        return false;
                    }
                    let value = lookup(vars, name, undeclared_empty);
                    let rest = &text[name_end..];
                    let op = ["}", ":-", ":+", "-", "+"]
                        .into_iter()
                        .find(|op| rest.starts_with(op));
                    match op {
                        Some("}") => {
                            push_value(out, &value, name, &text[at..name_end + 1]);
                            *pos = name_end + 1;
                        }
                        Some(op) if depth < MAX_NESTING => {
                            let word_start = name_end + op.len();
                            let mut word = Expanded::default();
                            let mut word_pos = word_start;
                            let closed = expand_word(
                                text,
                                &mut word_pos,
                                vars,
                                undeclared_empty,
                                depth + 1,
                                true,
                                &mut word,
                            );
                            if !closed {
                                out.text.push_str(&text[at..]);
                                *pos = text.len();
                                return false;
                            }
                            let written = &text[at..word_pos];
                            let empty = matches!(&value, Lookup::Known(v) if v.is_empty());
                            let set = match &value {
                                Lookup::Known(_) => true,
                                Lookup::Unset | Lookup::Unknown => false,
                            };
                            let use_word = match op {
                                ":-" => !set || empty,
                                "-" => !set,
                                ":+" => set && !empty,
                                _ => set,
                            };
                            let value_unknown = matches!(value, Lookup::Unknown);
                            if value_unknown && op.ends_with('+') {
                                // Whether the word applies depends on the
                                // unknown value.
                                out.unknown.push(name.to_string());
                                out.text.push_str(written);
                            } else if use_word {
                                out.text.push_str(&word.text);
                                out.unknown.extend(word.unknown);
                                out.malformed |= word.malformed;
                                out.substituted |= word.substituted;
                            } else if op.ends_with('+') {
                                // `${A:+word}` with A empty or unset: nothing.
                            } else {
                                push_value(out, &value, name, written);
                            }
                            *pos = word_pos;
                        }
                        _ => {
                            // Deeper nesting than followed, or an operator
                            // lore does not expand (`${A#x}`, `${A/x/y}`).
                            out.text.push_str(&text[at..]);
                            *pos = text.len();
                            return false;
                        }
                    }
                } else {
                    let len = name_len(&text[after..]);
                    if bytes.get(after) == Some(&b'(') {
                        out.substituted = true;
                    }
                    if len == 0 {
                        out.text.push('$');
                        *pos = after;
                    } else {
                        let name = &text[after..after + len];
                        let value = lookup(vars, name, undeclared_empty);
                        push_value(out, &value, name, &text[at..after + len]);
                        *pos = after + len;
                    }
                }
            }
        }
    }
}

/// The names `$NAME` and `${NAME…}` in `text`.
fn referenced_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('$') {
        let rest = &text[i + 1..];
        let rest = rest.strip_prefix('{').unwrap_or(rest);
        let len = name_len(rest);
        if len > 0 && !out.iter().any(|n: &String| n == &rest[..len]) {
            out.push(rest[..len].to_string());
        }
    }
    out
}

/// Length of the variable name at the start of `text`.
fn name_len(text: &str) -> usize {
    let mut len = 0;
    for (i, c) in text.char_indices() {
        let ok = c == '_' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit());
        if !ok {
            break;
        }
        len = i + 1;
    }
    len
}

enum Lookup {
    Known(String),
    /// Declared without a value and not otherwise known: empty if nobody
    /// passes `--build-arg`, but somebody may.
    Unknown,
    /// Never declared (BuildKit expands it to nothing).
    Unset,
}

fn lookup(vars: &Vars, name: &str, undeclared_empty: bool) -> Lookup {
    match vars.get(name) {
        Some(Some(v)) => Lookup::Known(v.clone()),
        Some(None) => Lookup::Unknown,
        None if undeclared_empty => Lookup::Unset,
        None => Lookup::Unknown,
    }
}

fn push_value(out: &mut Expanded, value: &Lookup, name: &str, written: &str) {
    match value {
        Lookup::Known(v) => out.text.push_str(v),
        Lookup::Unset => {}
        Lookup::Unknown => {
            out.unknown.push(name.to_string());
            out.text.push_str(written);
        }
    }
}

/// `ARG A`, `ARG A=1 B="x y"`: each default expanded with the values known
/// so far, so `ARG B=${A}-x` takes A's value. In a stage, `ARG A` without a
/// default takes the value A had before the first `FROM`.
fn declare_args(vars: &mut Vars, global: Option<&Vars>, ins: &Instruction) {
    for word in shell_words(&ins.text()) {
        let (name, value) = match word.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (word.clone(), None),
        };
        if name_len(&name) != name.len() || name.is_empty() {
            continue;
        }
        let value = match value {
            Some(value) => {
                let e = expand(&value, vars, true);
                e.known().then_some(e.text)
            }
            None => global.and_then(|g| g.get(&name).cloned().flatten()),
        };
        vars.insert(name, value);
    }
}

// ---- FROM ---------------------------------------------------------------------------

fn from(file: &Dockerfile, ins: &Instruction, args: &Vars) -> Stage {
    let text = ins.text();
    // Flags (`--platform=…`) first, then the image, then `AS name`. The
    // words are taken before expansion, so an unknown `${IMAGE}` stays one
    // word and `AS` is never taken for the image.
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.starts_with("--"))
        .collect();
    let written = words.first().copied().unwrap_or("");
    let name = match words.get(1..3) {
        Some([as_, name]) if as_.eq_ignore_ascii_case("as") => Some(name.to_string()),
        _ => None,
    };
    let expanded = expand(written, args, true);
    let image = expanded.text.clone();
    let earlier = file.stages.iter().find(|s| {
        s.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(&image))
    });
    let (base, inherited) = match earlier {
        Some(s) if expanded.known() => (
            Base::Stage { index: s.index },
            Some((s.workdir.clone(), s.vars.clone())),
        ),
        _ if !expanded.known() || (image.trim().is_empty() && !written.is_empty()) => {
            let mut args = expanded.unknown.clone();
            if args.is_empty() {
                args = referenced_names(written);
            }
            args.dedup();
            (Base::Unresolved { args }, None)
        }
        _ => {
            // An image the image table knows starts with its own `ENV`s.
            let vars = images::lookup(&image)
                .map(|implied| {
                    implied
                        .row
                        .env
                        .iter()
                        .map(|(name, value)| (name.clone(), Some(value.clone())))
                        .collect()
                })
                .unwrap_or_default();
            (classify(&image), Some((None, vars)))
        }
    };
    let (workdir, vars) = inherited.unwrap_or_default();
    Stage {
        index: file.stages.len(),
        name,
        image,
        line: ins.line,
        base,
        installs: Vec::new(),
        copies: Vec::new(),
        env: Vec::new(),
        builds: Vec::new(),
        fetches: Vec::new(),
        workdir,
        vars,
        runs: Vec::new(),
    }
}

/// What an image reference is: `nvidia/cuda:TAG` (any registry), a plain
/// distribution or language image, or something else.
pub fn classify(image: &str) -> Base {
    let image = image.split('@').next().unwrap_or(image);
    if image == "scratch" {
        return Base::Scratch;
    }
    let Some((repo, tag)) = images::split_reference(image) else {
        return Base::Other;
    };
    if repo == "nvidia/cuda" || repo.ends_with("/nvidia/cuda") {
        return nvidia_cuda(&tag).unwrap_or(Base::Other);
    }
    const DISTROS: [&str; 14] = [
        "ubuntu",
        "debian",
        "python",
        "alpine",
        "centos",
        "rockylinux",
        "almalinux",
        "fedora",
        "amazonlinux",
        "busybox",
        "redhat/ubi8",
        "redhat/ubi9",
        "opensuse/leap",
        "oraclelinux",
    ];
    let short = repo
        .strip_prefix("amd64/")
        .or_else(|| repo.strip_prefix("arm64v8/"))
        .unwrap_or(&repo);
    if DISTROS.contains(&short) {
        return Base::Distro {
            name: short.to_string(),
            tag,
        };
    }
    Base::Other
}

/// `12.4.1-cudnn-devel-ubuntu22.04`, `12.1.0-runtime-ubi8`,
/// `11.8.0-cudnn8-devel-ubuntu22.04`.
fn nvidia_cuda(tag: &str) -> Option<Base> {
    let mut parts = tag.split('-');
    let version = parts.next()?;
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut cudnn = false;
    let mut kind = None;
    let mut distro = Vec::new();
    for part in parts {
        match part {
            p if p.starts_with("cudnn") => cudnn = true,
            "base" | "runtime" | "devel" => kind = Some(part),
            p => distro.push(p),
        }
    }
    let flavor = match (kind?, cudnn) {
        ("devel", false) => Flavor::Devel,
        ("devel", true) => Flavor::CudnnDevel,
        ("runtime", false) => Flavor::Runtime,
        ("runtime", true) => Flavor::CudnnRuntime,
        _ => Flavor::Base,
    };
    Some(Base::NvidiaCuda {
        version: version.to_string(),
        flavor,
        distro: distro.join("-"),
    })
}

// ---- ENV, COPY, WORKDIR -----------------------------------------------------------

fn env(stage: &mut Stage, ins: &Instruction) {
    let text = ins.text();
    let text = text.trim();
    let first = text.split_whitespace().next().unwrap_or("");
    let pairs: Vec<(String, String)> = if first.contains('=') {
        shell_words(text)
            .into_iter()
            .filter_map(|w| {
                w.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect()
    } else {
        // Legacy `ENV NAME value with spaces`.
        let value = text[first.len()..].trim();
        vec![(first.to_string(), unquote(value).to_string())]
    };
    for (name, value) in pairs {
        let expanded = expand(&value, &stage.vars, false);
        let known = expanded.known().then(|| expanded.text.clone());
        if ENV_THAT_MATTERS.contains(&name.as_str()) {
            stage.env.push(EnvSetting {
                name: name.clone(),
                value,
                known: known.clone(),
                line: ins.line,
            });
        }
        stage.vars.insert(name, known);
    }
}

fn copy(stage: &mut Stage, ins: &Instruction) {
    let text = ins.text();
    let mut from = None;
    let mut rest = Vec::new();
    for word in text.split_whitespace() {
        if let Some(value) = word.strip_prefix("--from=") {
            let value = expand(unquote(value), &stage.vars, false);
            from = Some(value.text);
        } else if !word.starts_with("--") {
            // `${CPP_BUILD_DIR}/lib.so` as BuildKit copies it; an ARG with
            // no value stays as written.
            rest.push(known_or_written(word, &stage.vars));
        }
    }
    if ins.keyword == "ADD"
        && let Some(url) = rest.first().filter(|w| is_source_url(w))
    {
        stage.fetches.push(Fetch {
            url: url.to_string(),
            dir: rest.get(1).map(|d| join_dir(stage.workdir.as_deref(), d)),
            line: ins.line,
        });
    }
    if let Some(from) = from {
        stage.copies.push(CopyFrom {
            stage: None,
            from,
            args: rest.join(" "),
            mount: false,
            line: ins.line,
        });
    }
}

/// A git repository address (`https://github.com/…`, `git@…`, `….git`).
fn is_source_url(word: &str) -> bool {
    let w = word.trim_start_matches("git+");
    (w.starts_with("https://")
        || w.starts_with("http://")
        || w.starts_with("git@")
        || w.starts_with("git://"))
        && (w.contains("github.com/")
            || w.contains("gitlab.com/")
            || w.ends_with(".git")
            || w.contains(".git#")
            || w.contains(".git@")
            || word.starts_with("git+"))
}

/// Whether a URL is the PyTorch repository itself (not pytorch/vision…).
fn is_pytorch_repo(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(at) = lower.find("github.com/pytorch/pytorch") else {
        return lower.contains("github.com:pytorch/pytorch")
            && is_pytorch_repo(&lower.replace("github.com:", "github.com/"));
    };
    let rest = &lower[at + "github.com/pytorch/pytorch".len()..];
    let rest = rest.strip_prefix(".git").unwrap_or(rest);
    rest.is_empty() || rest.starts_with(['/', '@', '#', '?'])
}

/// `dir` taken from `base` (`/`, Docker's default, when none is set).
fn join_dir(base: Option<&str>, dir: &str) -> String {
    let base = if dir.starts_with('/') {
        "/"
    } else {
        base.unwrap_or("/")
    };
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for part in dir.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    format!("/{}", parts.join("/"))
}

// ---- RUN ------------------------------------------------------------------------

/// Words of a shell-ish string with quotes removed (no expansion).
fn shell_words(text: &str) -> Vec<String> {
    words(&[(0, text.to_string())])
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w, _) => Some(w),
            Token::Op(_) => None,
        })
        .collect()
}

#[derive(Debug)]
enum Token {
    Word(String, usize),
    /// `&&`, `||`, `;`, `|`, `&`, `(`, `)`, a line break in a heredoc: the
    /// end of a simple command, as written (`;;` ends a `case` arm).
    Op(String),
}

/// Splits (line, text) parts into words and command separators. Quotes
/// group; a backslash escapes the next character. A command substitution
/// (`$(…)`, `` `…` ``, also `$((…))`) is part of the word it is in, kept as
/// written: its `(`, `)`, `|` and quotes are its own, not the command's. A
/// part's end is a word break (the continuation joined the lines with
/// whitespace), or a space inside quotes or a substitution.
fn words(parts: &[(usize, String)]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut word_line = 0;
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut subst = Substitution::default();
    for (line, text) in parts {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if subst.is_open() {
                subst.feed(c);
                word.push(c);
                continue;
            }
            let opens = (c == '$' && chars.peek() == Some(&'(')) || c == '`';
            if opens && quote != Some('\'') {
                if !in_word {
                    in_word = true;
                    word_line = *line;
                }
                word.push(c);
                if c == '$' {
                    chars.next();
                    word.push('(');
                }
                subst.open(c);
                continue;
            }
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                } else {
                    word.push(c);
                }
                continue;
            }
            match c {
                '\'' | '"' => {
                    quote = Some(c);
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                }
                '\\' => {
                    if let Some(next) = chars.next() {
                        word.push(next);
                    }
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                }
                c if c.is_whitespace() => {
                    if in_word {
                        out.push(Token::Word(std::mem::take(&mut word), word_line));
                        in_word = false;
                    }
                }
                '&' | '|' | ';' | '(' | ')' => {
                    if in_word {
                        out.push(Token::Word(std::mem::take(&mut word), word_line));
                        in_word = false;
                    }
                    let mut op = c.to_string();
                    if let Some(next) = chars.next_if(|n| matches!(n, '&' | '|' | ';')) {
                        op.push(next);
                    }
                    out.push(Token::Op(op));
                }
                c => {
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                    word.push(c);
                }
            }
        }
        if subst.is_open() {
            subst.feed(' ');
            word.push(' ');
        } else if in_word && quote.is_none() {
            out.push(Token::Word(std::mem::take(&mut word), word_line));
            in_word = false;
        }
    }
    if in_word {
        out.push(Token::Word(word, word_line));
    }
    out
}

/// Where a command substitution's text is, read one character at a time to
/// find its end: the open `$(`, `(`, backticks and quotes inside it.
#[derive(Debug, Default)]
struct Substitution {
    open: Vec<Within>,
    escaped: bool,
    after_dollar: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Within {
    Paren,
    Backtick,
    Single,
    Double,
}

impl Substitution {
    fn is_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Starts at `$(` (`c` is `$`) or a backtick.
    fn open(&mut self, c: char) {
        self.open.push(if c == '`' {
            Within::Backtick
        } else {
            Within::Paren
        });
    }

    fn feed(&mut self, c: char) {
        if std::mem::take(&mut self.escaped) {
            return;
        }
        let within = self.open.last().copied();
        if within == Some(Within::Single) {
            if c == '\'' {
                self.open.pop();
            }
            return;
        }
        let after_dollar = std::mem::take(&mut self.after_dollar);
        let code = matches!(within, Some(Within::Paren | Within::Backtick));
        match c {
            '\\' => self.escaped = true,
            '$' => self.after_dollar = true,
            '(' if after_dollar || within == Some(Within::Paren) => self.open.push(Within::Paren),
            ')' if within == Some(Within::Paren) => {
                self.open.pop();
            }
            '`' if within == Some(Within::Backtick) => {
                self.open.pop();
            }
            '`' => self.open.push(Within::Backtick),
            '"' if within == Some(Within::Double) => {
                self.open.pop();
            }
            '"' if code => self.open.push(Within::Double),
            '\'' if code => self.open.push(Within::Single),
            _ => {}
        }
    }
}

/// A simple command: its words with their lines, and the shell branch it
/// runs in, if any.
#[derive(Debug)]
struct Command {
    words: Vec<(String, usize)>,
    branch: Option<Branch>,
}

/// The `if … fi` and `case … esac` a `RUN` is inside, as its commands are
/// read (kept across the lines of a heredoc).
#[derive(Debug, Default)]
struct Nesting {
    frames: Vec<Frame>,
}

#[derive(Debug)]
enum Frame {
    /// `taken`: past `then`, `elif` or `else`, where commands run only in
    /// one branch (the condition after `if` always runs).
    If {
        line: usize,
        taken: bool,
    },
    Case {
        line: usize,
        at: CasePart,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CasePart {
    /// `case WORD` before `in`.
    Header,
    /// A pattern, up to its `)`: words that are no command.
    Pattern,
    /// The commands of an arm, up to `;;`.
    Arm,
}

impl Nesting {
    /// The innermost branch commands read now run in.
    fn branch(&self) -> Option<Branch> {
        self.frames.iter().rev().find_map(|f| match *f {
            Frame::If { line, taken: true } => Some(Branch {
                kind: BranchKind::If,
                line,
            }),
            Frame::Case {
                line,
                at: CasePart::Arm,
            } => Some(Branch {
                kind: BranchKind::Case,
                line,
            }),
            _ => None,
        })
    }

    fn case_part(&self) -> Option<CasePart> {
        match self.frames.last() {
            Some(Frame::Case { at, .. }) => Some(*at),
            _ => None,
        }
    }

    fn set_case_part(&mut self, part: CasePart) {
        if let Some(Frame::Case { at, .. }) = self.frames.last_mut() {
            *at = part;
        }
    }

    /// A word at the start of a command: the grammar of `if` and `case`.
    fn keyword(&mut self, word: &str, line: usize) {
        match (word, self.frames.last_mut()) {
            ("if", _) => self.frames.push(Frame::If { line, taken: false }),
            ("then" | "elif" | "else", Some(Frame::If { taken, .. })) => *taken = true,
            ("fi", Some(Frame::If { .. })) | ("esac", Some(Frame::Case { .. })) => {
                self.frames.pop();
            }
            ("case", _) => self.frames.push(Frame::Case {
                line,
                at: CasePart::Header,
            }),
            _ => {}
        }
    }
}

/// Simple commands, each with the branch of an `if` or `case` it is in.
/// Separators end a command; in a `case`, the pattern before `)` is no
/// command and `;;` ends an arm.
fn commands(tokens: Vec<Token>, nesting: &mut Nesting) -> Vec<Command> {
    let mut out = Vec::new();
    let mut words: Vec<(String, usize)> = Vec::new();
    let mut at_start = true;
    let mut branch = nesting.branch();
    let mut end = |words: &mut Vec<(String, usize)>, branch: Option<Branch>| {
        if !words.is_empty() {
            out.push(Command {
                words: std::mem::take(words),
                branch,
            });
        }
    };
    for token in tokens {
        match token {
            Token::Word(w, line) => {
                if nesting.case_part() == Some(CasePart::Pattern) {
                    if w == "esac" {
                        nesting.frames.pop();
                        branch = nesting.branch();
                        at_start = false;
                    }
                    continue;
                }
                if at_start {
                    nesting.keyword(&w, line);
                    branch = nesting.branch();
                    at_start = RESERVED.contains(&w.as_str());
                } else if w == "in" && nesting.case_part() == Some(CasePart::Header) {
                    words.push((w, line));
                    end(&mut words, branch);
                    nesting.set_case_part(CasePart::Pattern);
                    continue;
                }
                words.push((w, line));
            }
            Token::Op(op) => {
                match nesting.case_part() {
                    // `(` before a pattern, `|` between patterns.
                    Some(CasePart::Pattern) if op != ")" => continue,
                    Some(CasePart::Pattern) => nesting.set_case_part(CasePart::Arm),
                    Some(CasePart::Arm) if op.starts_with(";;") || op == ";&" => {
                        end(&mut words, branch);
                        nesting.set_case_part(CasePart::Pattern);
                    }
                    _ => end(&mut words, branch),
                }
                at_start = true;
                branch = nesting.branch();
            }
        }
    }
    end(&mut words, branch);
    out
}

/// What one `RUN` has set so far: the folder `cd` moved to, and variables
/// exported or set.
struct RunState {
    dir: Option<String>,
    exported: Vec<String>,
    /// The shell branch the command being read runs in.
    branch: Option<Branch>,
}

fn run(stage: &mut Stage, ins: &Instruction) {
    let last = ins
        .parts
        .iter()
        .map(|(l, _)| *l)
        .chain(
            ins.heredocs
                .iter()
                .flat_map(|h| h.lines.iter().map(|(l, _)| *l)),
        )
        .max()
        .unwrap_or(ins.line);
    stage.runs.push((ins.line, last.max(ins.line)));
    // Flags come first: `RUN --mount=type=cache,target=/root/.cache pip …`.
    let tokens = words(&ins.parts);
    let mut flags = Vec::new();
    let mut body_start = 0;
    for token in &tokens {
        match token {
            Token::Word(w, _) if w.starts_with("--") => {
                flags.push(w.clone());
                body_start += 1;
            }
            _ => break,
        }
    }
    for flag in &flags {
        if let Some(spec) = flag.strip_prefix("--mount=") {
            mount(stage, spec, ins.line);
        }
    }
    let mut state = RunState {
        dir: stage.workdir.clone(),
        exported: Vec::new(),
        branch: None,
    };
    // The exec form: a JSON array after the flags.
    let text = ins.text();
    let body = after_run_flags(&text);
    if body.starts_with('[')
        && let Ok(argv) = serde_json::from_str::<Vec<String>>(body.trim_end())
    {
        let shell = argv
            .first()
            .map(|p| p.rsplit('/').next().unwrap_or(p))
            .is_some_and(|p| matches!(p, "sh" | "bash" | "dash" | "zsh"));
        let script = argv
            .iter()
            .position(|a| a.starts_with('-') && a.contains('c'));
        match (shell, script.and_then(|i| argv.get(i + 1))) {
            (true, Some(script)) => {
                let mut nesting = Nesting::default();
                for cmd in commands(words(&[(ins.line, script.clone())]), &mut nesting) {
                    state.branch = cmd.branch;
                    command(stage, &cmd.words, &mut state);
                }
            }
            _ => {
                let cmd: Vec<(String, usize)> = argv.into_iter().map(|a| (a, ins.line)).collect();
                command(stage, &cmd, &mut state);
            }
        }
        return;
    }
    let mut nesting = Nesting::default();
    let mut cmds = commands(tokens.into_iter().skip(body_start).collect(), &mut nesting);
    for heredoc in &ins.heredocs {
        // A heredoc is shell when it is the RUN itself or fed to a shell;
        // `python3 <<EOF` is Python, not commands.
        let program = heredoc.command.split_whitespace().next().unwrap_or("");
        let program = program.rsplit('/').next().unwrap_or(program);
        let shell = heredoc.command.is_empty() || matches!(program, "sh" | "bash" | "dash" | "zsh");
        if shell {
            for line in &heredoc.lines {
                cmds.extend(commands(words(std::slice::from_ref(line)), &mut nesting));
            }
        }
    }
    for cmd in cmds {
        state.branch = cmd.branch;
        command(stage, &cmd.words, &mut state);
    }
}

/// `type=bind,from=builder,source=/wheels,target=/wheels`: a bind mount
/// from another stage or image makes that stage's files visible to the
/// command; a cache, secret or tmpfs mount does not.
fn mount(stage: &mut Stage, spec: &str, line: usize) {
    let mut kind = "bind";
    let mut from = None;
    let mut shown = Vec::new();
    for field in spec.split(',') {
        let (key, value) = field.split_once('=').unwrap_or((field, ""));
        match key {
            "type" => kind = value,
            "from" => from = Some(value.to_string()),
            "source" | "src" | "target" | "dst" | "destination" => {
                shown.push(format!("{key}={value}"));
            }
            _ => {}
        }
    }
    if kind == "bind"
        && let Some(from) = from
    {
        let from = expand(&from, &stage.vars, false).text;
        stage.copies.push(CopyFrom {
            from,
            stage: None,
            args: shown.join(" "),
            mount: true,
            line,
        });
    }
}

/// Options of `pip install` that take a value in the next word (or after
/// `=`): every option whose `takes_value()` is true in the install parser
/// of pip 21.0, 23.0, 24.0, 25.0 and 26.2, pip's general options included.
/// `--index` is how pip (optparse) reads an abbreviated `--index-url`. `-e`
/// is read on its own.
const PIP_VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "--build-constraint",
    "-i",
    "--index-url",
    "--pypi-url",
    "--index",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--group",
    "--requirements-from-script",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--src",
    "--source",
    "--source-dir",
    "--source-directory",
    "-b",
    "--build",
    "--build-dir",
    "--build-directory",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--no-binary",
    "--only-binary",
    "--only-final",
    "--all-releases",
    "--upgrade-strategy",
    "--uploaded-prior-to",
    "--refresh-package",
    "-C",
    "--config-settings",
    "--global-option",
    "--install-option",
    "--progress-bar",
    "--report",
    "--root-user-action",
    "--exists-action",
    "--keyring-provider",
    "--trusted-host",
    "--cert",
    "--client-cert",
    "--cache-dir",
    "--log",
    "--log-file",
    "--local-log",
    "--proxy",
    "--timeout",
    "--default-timeout",
    "--retries",
    "--resume-retries",
    "--python",
    "--use-feature",
    "--use-deprecated",
];
/// uv's options that take a value in every command it installs with (uv
/// 0.12.5's `--help` of `uv pip install` and `uv add`, and their hidden
/// aliases in `uv-cli`): indexes, resolver, installer, build and global
/// options.
const UV_VALUE_OPTIONS: &[&str] = &[
    "-r",
    "--requirements",
    "--requirement",
    "-c",
    "--constraints",
    "--constraint",
    "--extra",
    "--group",
    "--index",
    "--default-index",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "--index-strategy",
    "--keyring-provider",
    "-P",
    "--upgrade-package",
    "--upgrade-group",
    "--resolution",
    "--prerelease",
    "--prerelease-package",
    "--fork-strategy",
    "--exclude-newer",
    "--exclude-newer-package",
    "--no-sources-package",
    "--reinstall-package",
    "--link-mode",
    "-C",
    "--config-setting",
    "--config-settings",
    "--config-settings-package",
    "--no-build-isolation-package",
    "--no-editable-package",
    "--refresh-package",
    "-p",
    "--python",
    "--cache-dir",
    "--color",
    "--allow-insecure-host",
    "--trusted-host",
    "--directory",
    "--project",
    "--config-file",
    "--python-preference",
    "--python-fetch",
    "--preview-features",
    "--preview-feature",
];
/// `uv pip install`'s own (`uv pip sync` reads no packages).
const UV_PIP_VALUE_OPTIONS: &[&str] = &[
    "--overrides",
    "--override",
    "--excludes",
    "--exclude",
    "-b",
    "--build-constraints",
    "--build-constraint",
    "--cert",
    "-t",
    "--target",
    "--prefix",
    "--no-binary",
    "--only-binary",
    "--python-version",
    "--python-platform",
    "--torch-backend",
];
/// `uv add`'s own: where the dependency goes and how it is pinned
/// (`--no-binary` is a switch here, unlike in `uv pip install`).
const UV_ADD_VALUE_OPTIONS: &[&str] = &[
    "-m",
    "--marker",
    "--optional",
    "--bounds",
    "--rev",
    "--tag",
    "--branch",
    "--package",
    "--script",
    "--no-install-package",
    "--only-install-package",
    "--no-build-package",
    "--no-binary-package",
];
/// uv's options before the command (`uv --directory /app sync`).
const UV_GLOBAL_VALUE_OPTIONS: &[&str] = &[
    "--directory",
    "--project",
    "--python",
    "--cache-dir",
    "--color",
    "--allow-insecure-host",
    "--config-file",
    "--python-preference",
    "--python-fetch",
    "--preview-features",
];
const CONDA_VALUE_OPTIONS: [&str; 8] = [
    "-c",
    "--channel",
    "-n",
    "--name",
    "-p",
    "--prefix",
    "--file",
    "-f",
];
const APT_VALUE_OPTIONS: [&str; 4] = ["-o", "-t", "--target-release", "--option"];
const DNF_VALUE_OPTIONS: [&str; 10] = [
    "-x",
    "--exclude",
    "--repo",
    "--enablerepo",
    "--disablerepo",
    "--setopt",
    "--releasever",
    "--installroot",
    "-c",
    "--config",
];
/// Options of pip itself (before `install`) that take a value.
const PIP_GLOBAL_VALUE_OPTIONS: [&str; 6] = [
    "--cache-dir",
    "--log",
    "--proxy",
    "--timeout",
    "--retries",
    "--python",
];

/// Shell words that are grammar, not commands.
const RESERVED: [&str; 12] = [
    "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "!", "{", "}",
];

fn command(stage: &mut Stage, cmd: &[(String, usize)], state: &mut RunState) {
    // Skip grammar, `VAR=value`, `sudo`, `env`, `time`, `exec` in front.
    let mut start = 0;
    let mut inline: Vec<String> = Vec::new();
    while let Some((w, _)) = cmd.get(start) {
        let assignment = w.contains('=')
            && !w.starts_with('-')
            && name_len(w) == w.find('=').unwrap_or(0)
            && name_len(w) > 0;
        if matches!(w.as_str(), "for" | "case" | "select" | "esac" | "in" | ";;") {
            // A loop or case header: its words are not a command.
            return;
        }
        if assignment {
            inline.push(w[..w.find('=').unwrap_or(0)].to_string());
            start += 1;
        } else if RESERVED.contains(&w.as_str())
            || matches!(
                w.as_str(),
                "sudo" | "env" | "time" | "exec" | "command" | "nohup"
            )
            || (start > 0 && cmd[start - 1].0 == "sudo" && w.starts_with('-'))
        {
            start += 1;
        } else {
            break;
        }
    }
    let cmd = &cmd[start..];
    let Some((program, line)) = cmd.first() else {
        return;
    };
    let line = *line;
    let program = program.rsplit('/').next().unwrap_or(program);
    let word = |i: usize| cmd.get(i).map(|(w, _)| w.as_str());
    match program {
        "cd" => {
            if let Some(dir) = word(1).filter(|d| !d.starts_with('-')) {
                state.dir = Some(join_dir(state.dir.as_deref(), dir));
            }
            return;
        }
        "export" => {
            for (w, _) in &cmd[1..] {
                if let Some((name, _)) = w.split_once('=') {
                    state.exported.push(name.to_string());
                }
            }
            return;
        }
        "git" if word(1) == Some("clone") => {
            let args: Vec<&str> = cmd[2..]
                .iter()
                .map(|(w, _)| w.as_str())
                .scan(false, |skip, w| {
                    let out = if *skip {
                        *skip = false;
                        None
                    } else if matches!(
                        w,
                        "-b" | "--branch"
                            | "--depth"
                            | "-c"
                            | "--config"
                            | "--origin"
                            | "-o"
                            | "--reference"
                            | "--jobs"
                            | "-j"
                            | "--filter"
                    ) {
                        *skip = true;
                        None
                    } else if w.starts_with('-') {
                        None
                    } else {
                        Some(Some(w))
                    };
                    Some(out.flatten())
                })
                .flatten()
                .collect();
            if let Some(url) = args.first() {
                let named = url
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(url)
                    .trim_end_matches(".git");
                let dir = args.get(1).copied().unwrap_or(named);
                stage.fetches.push(Fetch {
                    url: url.to_string(),
                    dir: Some(join_dir(state.dir.as_deref(), dir)),
                    line,
                });
            }
            return;
        }
        _ => {}
    }
    if let Some(invocation) = install_of(program, cmd) {
        install(stage, invocation, cmd, line, state, &inline);
        return;
    }
    let build = match program {
        "nvcc" => Some(("nvcc".to_string(), BuildKind::CudaCompiler)),
        "cmake" | "make" | "ninja" => Some((program.to_string(), BuildKind::BuildTool)),
        p if p.starts_with("python") && word(1) == Some("setup.py") => Some((
            format!("python setup.py {}", word(2).unwrap_or(""))
                .trim()
                .to_string(),
            BuildKind::Project,
        )),
        p if p.starts_with("python") && word(1) == Some("-m") && word(2) == Some("build") => {
            Some(("python -m build".to_string(), BuildKind::Project))
        }
        p if is_pip(p) && word(1) == Some("wheel") => {
            let what = cmd[2..]
                .iter()
                .map(|(w, _)| w.as_str())
                .find(|w| is_path(w) || w.starts_with("git+"));
            what.map(|w| (format!("pip wheel {w}"), BuildKind::Project))
        }
        _ => None,
    };
    if let Some((what, kind)) = build {
        push_build(stage, state, what, kind, None, line, &inline);
        // `make triton` in a PyTorch checkout installs Triton; only a bare
        // `make` (or `make all`) is taken for a build of torch itself.
        if program == "make"
            && let Some(target) = make_target(&cmd[1..])
            && target != "all"
            && let Some(build) = stage.builds.last_mut()
        {
            build.what = format!("make {target}");
            build.torch = false;
        }
    }
}

/// The first target a `make` command names, past its options (`-j8`,
/// `-C dir`) and variable settings (`VAR=value`).
fn make_target(args: &[(String, usize)]) -> Option<&str> {
    let mut words = args.iter().map(|(w, _)| w.as_str());
    while let Some(word) = words.next() {
        if matches!(
            word,
            "-C" | "-f" | "-j" | "-l" | "-o" | "-W" | "-I" | "--directory" | "--file"
        ) {
            words.next();
        } else if !word.starts_with('-') && !word.contains('=') {
            return Some(word);
        }
    }
    None
}

fn push_build(
    stage: &mut Stage,
    state: &RunState,
    what: String,
    kind: BuildKind,
    url: Option<&str>,
    line: usize,
    inline: &[String],
) {
    let dir = state.dir.clone();
    let torch = url.is_some_and(is_pytorch_repo)
        || (kind != BuildKind::CudaCompiler
            && dir.as_deref().is_some_and(|d| {
                d.rsplit('/').next() == Some("pytorch")
                    || stage
                        .fetches
                        .iter()
                        .any(|f| is_pytorch_repo(&f.url) && f.dir.as_deref() == Some(d))
            }));
    let mut cuda_hints: Vec<String> = CUDA_BUILD_HINTS
        .iter()
        .filter(|h| {
            inline.iter().any(|i| i == *h)
                || state.exported.iter().any(|e| e == *h)
                || stage.vars.contains_key(**h)
        })
        .map(|h| h.to_string())
        .collect();
    cuda_hints.dedup();
    stage.builds.push(Build {
        what,
        kind,
        dir,
        torch,
        cuda_hints,
        line,
        branch: state.branch,
    });
}

/// An install command as `install_of` reads it.
struct Invocation {
    tool: InstallTool,
    /// Where the arguments that name packages start (the command's end
    /// when it names none).
    from: usize,
    /// What it installs from a list the Dockerfile does not show (`uv sync`).
    lists: Vec<String>,
    /// Its options that take a value in the next word.
    value_options: &'static [&'static [&'static str]],
    /// Packages it is told not to install.
    skips: Vec<String>,
    /// `--group NAME` installs a dependency group of pyproject.toml (`pip
    /// install`, `uv pip install`), rather than naming where a package
    /// goes (`uv add`, `poetry add`).
    groups_are_lists: bool,
}

/// Which install a command is: the tool, where its arguments start, and
/// what it installs from a list the Dockerfile does not show (`uv sync`).
fn install_of(program: &str, cmd: &[(String, usize)]) -> Option<Invocation> {
    let word = |i: usize| cmd.get(i).map(|(w, _)| w.as_str());
    // The subcommand after options of the tool itself (`pip -q install`,
    // `dnf -y install`, `apt-get -qq install`).
    let sub = |from: usize, value_options: &[&str]| {
        let mut i = from;
        while let Some(w) = word(i) {
            if value_options.contains(&w) {
                i += 2;
            } else if w.starts_with('-') {
                i += 1;
            } else {
                return Some((w, i));
            }
        }
        None
    };
    let at = |tool, from, value_options| Invocation {
        tool,
        from,
        lists: Vec::new(),
        value_options,
        skips: Vec::new(),
        groups_are_lists: tool == InstallTool::Pip,
    };
    let listed = |tool, list: &str| Invocation {
        lists: vec![list.to_string()],
        ..at(tool, cmd.len(), &[])
    };
    const PIP: &[&[&str]] = &[PIP_VALUE_OPTIONS];
    if is_pip(program) {
        let (w, i) = sub(1, &PIP_GLOBAL_VALUE_OPTIONS)?;
        return (w == "install").then(|| at(InstallTool::Pip, i + 1, PIP));
    }
    if program.starts_with("python") && !program.ends_with("-config") {
        if word(1) == Some("-m") && word(2).is_some_and(|w| w == "pip") {
            let (w, i) = sub(3, &PIP_GLOBAL_VALUE_OPTIONS)?;
            return (w == "install").then(|| at(InstallTool::Pip, i + 1, PIP));
        }
        return None;
    }
    match program {
        "uv" => {
            let (w, i) = sub(1, UV_GLOBAL_VALUE_OPTIONS)?;
            match w {
                "pip" => match word(i + 1)? {
                    "install" => Some(Invocation {
                        groups_are_lists: true,
                        ..at(
                            InstallTool::Uv,
                            i + 2,
                            &[UV_VALUE_OPTIONS, UV_PIP_VALUE_OPTIONS],
                        )
                    }),
                    "sync" => {
                        // `uv pip sync requirements.txt`: the files are lists.
                        let files: Vec<String> = cmd[i + 2..]
                            .iter()
                            .filter(|(w, _)| !w.starts_with('-'))
                            .map(|(w, _)| format!("pip sync {w}"))
                            .collect();
                        Some(Invocation {
                            lists: files,
                            ..at(InstallTool::Uv, cmd.len(), &[])
                        })
                    }
                    _ => None,
                },
                // The project's locked dependencies, none named: `--extra`,
                // `--group` and `--package` pick parts of the lock file, and
                // `--no-install-package X` leaves X out.
                "sync" => Some(Invocation {
                    skips: option_values(&cmd[i + 1..], "--no-install-package"),
                    ..listed(InstallTool::Uv, "sync (uv.lock)")
                }),
                "add" => Some(at(
                    InstallTool::Uv,
                    i + 1,
                    &[UV_VALUE_OPTIONS, UV_ADD_VALUE_OPTIONS],
                )),
                _ => None,
            }
        }
        "poetry" => match sub(1, &[])?.0 {
            "install" => Some(listed(InstallTool::Poetry, "install (poetry.lock)")),
            "add" => Some(at(InstallTool::Poetry, sub(1, &[])?.1 + 1, PIP)),
            _ => None,
        },
        "pipenv" => {
            let (w, i) = sub(1, &[])?;
            match w {
                "install" if cmd[i + 1..].iter().all(|(w, _)| w.starts_with('-')) => {
                    Some(listed(InstallTool::Pipenv, "install (Pipfile)"))
                }
                "install" => Some(at(InstallTool::Pipenv, i + 1, PIP)),
                "sync" => Some(listed(InstallTool::Pipenv, "sync (Pipfile.lock)")),
                _ => None,
            }
        }
        "conda" | "mamba" | "micromamba" => {
            let (w, i) = sub(1, &CONDA_VALUE_OPTIONS)?;
            const CONDA: &[&[&str]] = &[&CONDA_VALUE_OPTIONS];
            match w {
                "install" | "create" => Some(at(InstallTool::Conda, i + 1, CONDA)),
                "env" if matches!(word(i + 1), Some("create" | "update")) => {
                    Some(at(InstallTool::Conda, i + 2, CONDA))
                }
                _ => None,
            }
        }
        "apt-get" | "apt" | "aptitude" => {
            let (w, i) = sub(1, &APT_VALUE_OPTIONS)?;
            (w == "install").then(|| at(InstallTool::Apt, i + 1, &[&APT_VALUE_OPTIONS]))
        }
        "dnf" | "yum" | "microdnf" | "dnf5" | "tdnf" => {
            let (w, i) = sub(1, &DNF_VALUE_OPTIONS)?;
            let tool = match program {
                "yum" => InstallTool::Yum,
                "microdnf" => InstallTool::Microdnf,
                _ => InstallTool::Dnf,
            };
            (w == "install").then(|| at(tool, i + 1, &[&DNF_VALUE_OPTIONS]))
        }
        _ => None,
    }
}

/// The values of `option` in `args` (`--opt X` and `--opt=X`).
fn option_values(args: &[(String, usize)], option: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = args.iter().map(|(w, _)| w.as_str());
    while let Some(w) = words.next() {
        if w == option {
            out.extend(words.next().map(str::to_string));
        } else if let Some(value) = w.strip_prefix(option).and_then(|r| r.strip_prefix('=')) {
            out.push(value.to_string());
        }
    }
    out
}

fn install(
    stage: &mut Stage,
    invocation: Invocation,
    cmd: &[(String, usize)],
    line: usize,
    state: &RunState,
    inline: &[String],
) {
    let Invocation {
        tool,
        from,
        mut lists,
        value_options,
        skips,
        groups_are_lists,
    } = invocation;
    let args = cmd.get(from..).unwrap_or_default();
    let takes_value = |option: &str| value_options.iter().any(|list| list.contains(&option));
    let mut packages = Vec::new();
    let mut editable = Vec::new();
    let mut indexes = Vec::new();
    // Index options on the command line, which win over the same setting
    // in the environment.
    let mut index_options = Vec::new();
    let mut first_line = None;
    let mut i = 0;
    while let Some((w, l)) = args.get(i) {
        i += 1;
        // `--index-url=URL` and `--index-url URL` alike.
        let (option, inline_value) = match w.split_once('=') {
            Some((o, v)) if o.starts_with('-') => (o, Some(v.to_string())),
            _ => (w.as_str(), None),
        };
        if tool.is_python() && (option == "-e" || option == "--editable") {
            let value = inline_value.or_else(|| {
                i += 1;
                args.get(i - 1).map(|(v, _)| v.clone())
            });
            if let Some(path) = value {
                editable.push(path.clone());
                packages.push(path);
                first_line.get_or_insert(*l);
            }
        } else if takes_value(option) {
            let value = inline_value.or_else(|| {
                i += 1;
                args.get(i - 1).map(|(v, _)| v.clone())
            });
            let Some(value) = value else { continue };
            // `--index-url https://download.pytorch.org/whl/${CU}` as the
            // shell runs it, like a package spec below.
            let value = known_or_written(&value, &stage.vars);
            match option {
                "-r" | "--requirement" | "--requirements" | "--file" => {
                    lists.push(format!("{option} {value}"))
                }
                // A dependency group of pyproject.toml, or a script's
                // inline metadata: packages the Dockerfile does not show.
                "--group" | "--requirements-from-script" if groups_are_lists => {
                    lists.push(format!("{option} {value}"))
                }
                "-f" if tool == InstallTool::Conda => lists.push(format!("-f {value}")),
                "-i" | "--index-url" | "--pypi-url" | "--extra-index-url" | "-f"
                | "--find-links" | "--index" | "--default-index" => {
                    index_options.push(option);
                    indexes.push(value)
                }
                "-c" | "--channel" if tool == InstallTool::Conda => indexes.push(value),
                "--torch-backend" if tool == InstallTool::Uv => {
                    index_options.push(option);
                    indexes.extend(torch_backend_index(&value));
                }
                _ => {}
            }
            first_line.get_or_insert(*l);
        } else if w.starts_with('-') {
            continue;
        } else if w.starts_with('$') {
            // `$PACKAGES`: a list set somewhere, known or not.
            let spec = expand(w, &stage.vars, false);
            if spec.known() {
                packages.extend(spec.text.split_whitespace().map(str::to_string));
            } else {
                lists.push(w.clone());
            }
            first_line.get_or_insert(*l);
        } else {
            packages.push(known_or_written(w, &stage.vars));
            first_line.get_or_insert(*l);
        }
    }
    if packages.is_empty() && lists.is_empty() {
        return;
    }
    indexes.extend(index_variables(tool, &index_options, &stage.vars));
    if tool == InstallTool::Uv
        && !index_options.contains(&"--torch-backend")
        && let Some(Some(backend)) = stage.vars.get("UV_TORCH_BACKEND")
    {
        indexes.extend(torch_backend_index(backend));
    }
    if tool.is_python() {
        for p in &packages {
            let git = p.split_once("git+").map(|(_, url)| url);
            if let Some(url) = git {
                let url = url.split('#').next().unwrap_or(url);
                stage.fetches.push(Fetch {
                    url: url.to_string(),
                    dir: None,
                    line: first_line.unwrap_or(line),
                });
                push_build(
                    stage,
                    state,
                    format!("{} install {p}", tool.name()),
                    BuildKind::Project,
                    Some(url),
                    first_line.unwrap_or(line),
                    inline,
                );
            } else if is_local_project(p) {
                let mut local_state = RunState {
                    dir: state.dir.clone(),
                    exported: state.exported.clone(),
                    branch: state.branch,
                };
                // `pip install .[dev]` builds the folder it names.
                if !p.starts_with("file:") {
                    let folder = p.split('[').next().unwrap_or(p);
                    local_state.dir = Some(join_dir(state.dir.as_deref(), folder));
                }
                let flag = if editable.contains(p) { "-e " } else { "" };
                push_build(
                    stage,
                    &local_state,
                    format!("{} install {flag}{p}", tool.name()),
                    BuildKind::Project,
                    None,
                    first_line.unwrap_or(line),
                    inline,
                );
            }
        }
    }
    stage.installs.push(Install {
        tool,
        packages,
        lists,
        indexes,
        skips,
        line: first_line.unwrap_or(line),
        branch: state.branch,
    });
}

/// The PyTorch index uv's `--torch-backend` (or `UV_TORCH_BACKEND`) picks
/// for torch: `cu126` → `…/whl/cu126`, `cpu` → `…/whl/cpu` (uv's PyTorch
/// guide). `auto` is decided on the machine that runs the install, by the
/// CUDA driver it finds (CPU without one), so it names no build here; nor do
/// ROCm and XPU backends, which are not CUDA builds lore tells apart.
fn torch_backend_index(backend: &str) -> Option<String> {
    let backend = backend.trim().to_ascii_lowercase();
    let cuda = backend
        .strip_prefix("cu")
        .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()));
    (cuda || backend == "cpu").then(|| format!("https://download.pytorch.org/whl/{backend}"))
}

/// `text` with its variables expanded where all are known, else as written.
fn known_or_written(text: &str, vars: &Vars) -> String {
    let e = expand(text, vars, false);
    if e.known() { e.text } else { text.to_string() }
}

/// How an environment variable holds several values.
#[derive(Clone, Copy)]
enum Split {
    One,
    Whitespace,
    Comma,
}

/// The indexes an installer takes from its environment variables (`ENV`,
/// or a stage's `ARG`, which `RUN` sees too), each with the command-line
/// options that replace it and how a list is split. pip reads every option
/// from `PIP_<OPTION>` (lists split at whitespace), a command-line
/// `--index-url` replacing `PIP_INDEX_URL` and the repeatable ones adding to
/// theirs (pip's `ConfigOptionParser`); uv reads only its own `UV_*`, each
/// replaced by its option (uv's `EnvVars`; "uv does not read PIP_INDEX_URL").
fn index_variables(tool: InstallTool, given: &[&str], vars: &Vars) -> Vec<String> {
    use Split::{Comma, One, Whitespace};
    const PIP: [(&str, &[&str], Split); 3] = [
        ("PIP_INDEX_URL", &["-i", "--index-url", "--index"], One),
        ("PIP_EXTRA_INDEX_URL", &[], Whitespace),
        ("PIP_FIND_LINKS", &[], Whitespace),
    ];
    const UV: [(&str, &[&str], Split); 5] = [
        ("UV_DEFAULT_INDEX", &["--default-index"], One),
        ("UV_INDEX_URL", &["-i", "--index-url"], One),
        ("UV_INDEX", &["--index"], Whitespace),
        ("UV_EXTRA_INDEX_URL", &["--extra-index-url"], Whitespace),
        ("UV_FIND_LINKS", &["-f", "--find-links"], Comma),
    ];
    let table: &[(&str, &[&str], Split)] = match tool {
        InstallTool::Pip => &PIP,
        InstallTool::Uv => &UV,
        _ => &[],
    };
    let mut out = Vec::new();
    for (name, options, split) in table {
        if options.iter().any(|o| given.contains(o)) {
            continue;
        }
        let Some(Some(value)) = vars.get(*name) else {
            continue;
        };
        let values: Vec<&str> = match split {
            One => vec![value.trim()],
            Whitespace => value.split_whitespace().collect(),
            Comma => value.split(',').map(str::trim).collect(),
        };
        out.extend(
            values
                .into_iter()
                .filter(|v| !v.is_empty())
                .map(str::to_string),
        );
    }
    out
}

fn is_pip(program: &str) -> bool {
    program == "pip"
        || program
            .strip_prefix("pip")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Dockerfile, Vec<Note>) {
        parse_dockerfile("Dockerfile", text.as_bytes())
    }

    fn vars(pairs: &[(&str, Option<&str>)]) -> Vars {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.map(str::to_string)))
            .collect()
    }

    #[test]
    fn tags_classify() {
        assert_eq!(
            classify("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04"),
            Base::NvidiaCuda {
                version: "12.4.1".into(),
                flavor: Flavor::CudnnDevel,
                distro: "ubuntu22.04".into()
            }
        );
        assert_eq!(
            classify("docker.io/nvidia/cuda:12.1.0-runtime-ubi8@sha256:abc"),
            Base::NvidiaCuda {
                version: "12.1.0".into(),
                flavor: Flavor::Runtime,
                distro: "ubi8".into()
            }
        );
        assert!(matches!(
            classify("nvcr.io/nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"),
            Base::NvidiaCuda {
                flavor: Flavor::CudnnRuntime,
                ..
            }
        ));
        assert!(matches!(
            classify("nvidia/cuda:12.4.1-base-ubuntu22.04"),
            Base::NvidiaCuda {
                flavor: Flavor::Base,
                ..
            }
        ));
        assert_eq!(
            classify("python:3.11-slim-bookworm"),
            Base::Distro {
                name: "python".into(),
                tag: "3.11-slim-bookworm".into()
            }
        );
        assert_eq!(
            classify("amd64/almalinux:8"),
            Base::Distro {
                name: "almalinux".into(),
                tag: "8".into()
            }
        );
        assert_eq!(classify("localhost:5000/company/base:1"), Base::Other);
        assert_eq!(
            classify("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel"),
            Base::Other
        );
    }

    #[test]
    fn continuations_comments_and_lines() {
        let (file, notes) = parse(
            "# syntax=docker/dockerfile:1\n\
             ARG CUDA=12.4.1\n\
             FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS builder\n\
             RUN apt-get update \\\n\
             # a comment inside\n\
             \x20&& apt-get install -y --no-install-recommends \\\n\
             \x20     git cuda-cupti-dev-12-4 \\\n\
             \x20&& rm -rf /var/lib/apt/lists/*\n\
             RUN pip install --index-url https://download.pytorch.org/whl/cu124 torch==2.5.1 numpy\n\
             FROM builder AS final\n\
             ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64 OTHER=1\n\
             COPY --from=builder /opt/venv /opt/venv\n",
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(file.stages.len(), 2);
        let s0 = &file.stages[0];
        assert_eq!(s0.image, "nvidia/cuda:12.4.1-devel-ubuntu22.04");
        assert_eq!(s0.line, 3);
        assert_eq!(s0.installs[0].tool, InstallTool::Apt);
        assert_eq!(s0.installs[0].packages, ["git", "cuda-cupti-dev-12-4"]);
        assert_eq!(s0.installs[0].line, 7);
        assert_eq!(s0.installs[1].packages, ["torch==2.5.1", "numpy"]);
        assert_eq!(
            s0.installs[1].indexes,
            ["https://download.pytorch.org/whl/cu124"]
        );
        assert!(s0.installs[1].has("torch"));
        assert_eq!(s0.installs[1].line, 9);
        let s1 = &file.stages[1];
        assert_eq!(s1.base, Base::Stage { index: 0 });
        assert_eq!(s1.env[0].name, "LD_LIBRARY_PATH");
        assert_eq!(s1.env[0].line, 11);
        assert_eq!(s1.copies[0].stage, Some(0));
        let (_, base) = file.root_base(file.final_stage().unwrap());
        assert!(matches!(
            base,
            Base::NvidiaCuda {
                flavor: Flavor::Devel,
                ..
            }
        ));
    }

    #[test]
    fn heredocs_are_shell_unless_fed_to_another_program() {
        let (file, notes) = parse(
            "FROM ubuntu:22.04\n\
             RUN <<EOF\n\
             apt-get update\n\
             apt-get install -y python3-pip\n\
             pip3 install torch\n\
             EOF\n\
             RUN python3 <<'PY'\n\
             import os; os.system('pip install evil')\n\
             PY\n\
             RUN <<-EOT bash\n\
             \tnvcc -o x x.cu\n\
             \tEOT\n\
             ENV TORCH_CUDA_ARCH_LIST=\"8.0 8.6\"\n",
        );
        assert!(notes.is_empty(), "{notes:?}");
        let s = &file.stages[0];
        let installs: Vec<(InstallTool, usize)> =
            s.installs.iter().map(|i| (i.tool, i.line)).collect();
        assert_eq!(installs, [(InstallTool::Apt, 4), (InstallTool::Pip, 5)]);
        let builds: Vec<(&str, usize)> =
            s.builds.iter().map(|b| (b.what.as_str(), b.line)).collect();
        assert_eq!(builds, [("nvcc", 11)]);
        assert_eq!(s.env[0].value, "8.0 8.6");
        assert_eq!(s.env[0].line, 13);
    }

    /// issue #30 item 14: BuildKit finds a heredoc only in a word that starts
    /// with `<<`; `echo "<<EOF"` and Python's `1<<20` are text, and the
    /// instructions after them are read.
    #[test]
    fn quoted_or_embedded_shift_operators_are_not_heredocs() {
        let (file, notes) = parse(
            "FROM ubuntu:22.04\n\
             RUN echo \"<<EOF\" > /marker\n\
             RUN python3 -c 'print(1<<20)'\n\
             RUN python3 -c \"x = 1 << 4\"\n\
             RUN pip install torch==2.5.1\n\
             FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
             RUN apt-get install -y cuda-cupti-12-4\n",
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(file.stages.len(), 2);
        assert_eq!(file.stages[0].installs[0].packages, ["torch==2.5.1"]);
        assert_eq!(file.stages[0].installs[0].line, 5);
        assert_eq!(file.stages[1].installs[0].line, 7);
        // A real heredoc still is one, fd prefix and quotes included.
        let (file, _) = parse(
            "FROM ubuntu:22.04\nRUN cat 0<<'EOF' > /x\npip install notme\nEOF\nRUN pip install yes\n",
        );
        let all: Vec<&str> = file.stages[0]
            .installs
            .iter()
            .flat_map(|i| i.packages.iter().map(String::as_str))
            .collect();
        assert_eq!(all, ["yes"]);
    }

    #[test]
    fn escape_directive_changes_the_continuation() {
        let (file, _) =
            parse("# escape=`\nFROM ubuntu:22.04\nRUN apt-get install -y `\n    cuda-cupti-12-4\n");
        assert_eq!(file.stages[0].installs[0].packages, ["cuda-cupti-12-4"]);
        assert_eq!(file.stages[0].installs[0].line, 4);
    }

    /// A Dockerfile saved by Windows Notepad or VS Code as "UTF-8 with BOM"
    /// starts with EF BB BF. BuildKit drops it; read without it, the first
    /// line was no instruction and the file had no stage at all.
    #[test]
    fn a_dockerfile_saved_by_notepad_with_a_utf8_bom_reads_like_one_without() {
        let text = "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN pip install torch==2.5.1\n";
        let (plain, _) = parse(text);
        let (file, notes) = parse_dockerfile("Dockerfile", format!("\u{feff}{text}").as_bytes());
        assert!(notes.is_empty(), "{notes:?}");
        assert!(file.complete);
        assert_eq!(file.stages, plain.stages);
        assert_eq!(file.stages[0].line, 1);
        // The parser directive on the first line still counts behind a BOM.
        let (file, _) = parse_dockerfile(
            "Dockerfile",
            "\u{feff}# escape=`\nFROM ubuntu:22.04\nRUN apt-get install -y `\n    git\n".as_bytes(),
        );
        assert_eq!(file.stages[0].installs[0].packages, ["git"]);
        // Only a leading BOM is dropped: one inside a line is text.
        let (file, _) = parse("FROM ubuntu:22.04\nRUN apt-get install -y \u{feff}git\n");
        assert_eq!(file.stages[0].installs[0].packages, ["\u{feff}git"]);
    }

    /// `ARG CU=cu124` then `--index-url https://download.pytorch.org/whl/${CU}`:
    /// the index is expanded like the package specs are, so the build it
    /// picks is known.
    #[test]
    fn an_index_url_built_from_an_arg_or_env_is_expanded() {
        let (file, _) = parse(
            "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
             ARG CU=cu124\n\
             RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/${CU}\n\
             ENV WHL=https://download.pytorch.org/whl\n\
             RUN pip install torch==2.5.1 --extra-index-url=$WHL/cpu -f ${WHL}/torch_stable.html\n\
             ARG LATER\n\
             RUN pip install torch==2.5.1 -i https://download.pytorch.org/whl/${LATER}\n",
        );
        let s = &file.stages[0];
        assert_eq!(
            s.installs[0].indexes,
            ["https://download.pytorch.org/whl/cu124"]
        );
        assert_eq!(
            s.installs[1].indexes,
            [
                "https://download.pytorch.org/whl/cpu",
                "https://download.pytorch.org/whl/torch_stable.html"
            ]
        );
        // A value set only by --build-arg stays as written.
        assert_eq!(
            s.installs[2].indexes,
            ["https://download.pytorch.org/whl/${LATER}"]
        );
        assert_eq!(
            torch_is_cpu("torch==2.5.1", &s.installs[0].indexes),
            Some(false)
        );
    }

    /// pip reads `PIP_INDEX_URL`, `PIP_EXTRA_INDEX_URL` and `PIP_FIND_LINKS`
    /// from the environment (`ENV` or a stage's `ARG`), the lists split at
    /// whitespace; `--index-url` on the command line wins over
    /// `PIP_INDEX_URL`, while the extra indexes add up. uv reads its own
    /// `UV_*` variables and never pip's.
    /// Each install's indexes in the first stage, in order.
    fn install_indexes(file: &Dockerfile) -> Vec<Vec<&str>> {
        file.stages[0]
            .installs
            .iter()
            .map(|i| i.indexes.iter().map(String::as_str).collect())
            .collect()
    }

    #[test]
    fn uv_torch_backend_picks_the_pytorch_index() {
        // uv's PyTorch guide: `--torch-backend=cu126` or `UV_TORCH_BACKEND`
        // picks the PyTorch index; `auto` is decided where the install runs.
        let (file, _) = parse(
            "FROM python:3.12-slim\n\
             RUN uv pip install --system torch torchvision --torch-backend=cu126\n\
             RUN uv pip install --system torch --torch-backend cpu\n\
             RUN uv pip install --system torch --torch-backend=auto\n\
             ENV UV_TORCH_BACKEND=cu128\n\
             RUN uv pip install --system torch\n\
             RUN uv pip install --system torch --torch-backend=cu126\n\
             RUN pip install torch\n",
        );
        assert_eq!(
            install_indexes(&file),
            [
                vec!["https://download.pytorch.org/whl/cu126"],
                vec!["https://download.pytorch.org/whl/cpu"],
                vec![],
                vec!["https://download.pytorch.org/whl/cu128"],
                // The option wins over the variable, as uv reads them.
                vec!["https://download.pytorch.org/whl/cu126"],
                // pip never reads uv's variable.
                vec![],
            ]
        );
        assert_eq!(
            file.stages[0].installs[0].packages,
            ["torch", "torchvision"]
        );
    }

    #[test]
    fn pip_and_uv_index_variables_set_by_env_count_as_the_install_index() {
        let (file, _) = parse(
            "FROM python:3.11-slim\n\
             ENV PIP_INDEX_URL=https://download.pytorch.org/whl/cpu\n\
             RUN pip install torch==2.5.1\n\
             RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n\
             ARG PIP_EXTRA_INDEX_URL=\"https://a.example/simple https://b.example/simple\"\n\
             RUN python3 -m pip install torch==2.5.1\n\
             RUN uv pip install --system torch==2.5.1\n\
             ENV UV_INDEX_URL=https://download.pytorch.org/whl/cu121 \\\n\
             \x20   UV_EXTRA_INDEX_URL=https://c.example/simple \\\n\
             \x20   UV_FIND_LINKS=https://d.example/a,https://d.example/b\n\
             RUN uv pip install --system torch==2.5.1\n\
             RUN uv pip install --system torch==2.5.1 --extra-index-url https://e.example/simple\n\
             ENV PIP_INDEX_URL=\n\
             RUN pip install torch==2.5.1\n",
        );
        assert_eq!(
            install_indexes(&file),
            [
                vec!["https://download.pytorch.org/whl/cpu"],
                vec!["https://download.pytorch.org/whl/cu124"],
                vec![
                    "https://download.pytorch.org/whl/cpu",
                    "https://a.example/simple",
                    "https://b.example/simple"
                ],
                vec![],
                vec![
                    "https://download.pytorch.org/whl/cu121",
                    "https://c.example/simple",
                    "https://d.example/a",
                    "https://d.example/b"
                ],
                // uv takes an option given on the command line instead of
                // its variable.
                vec![
                    "https://e.example/simple",
                    "https://download.pytorch.org/whl/cu121",
                    "https://d.example/a",
                    "https://d.example/b"
                ],
                vec!["https://a.example/simple", "https://b.example/simple"],
            ]
        );
        // uv's `--index [NAME=]URL` and `--default-index URL` take a value:
        // an index, not a package.
        let (file, _) = parse(
            "FROM python:3.11-slim\n\
             ENV UV_INDEX=https://f.example/simple UV_DEFAULT_INDEX=https://g.example/simple\n\
             RUN uv pip install --system --index pytorch=https://download.pytorch.org/whl/cu124 \\\n\
             \x20   --default-index=https://pypi.org/simple torch==2.5.1\n",
        );
        let install = &file.stages[0].installs[0];
        assert_eq!(install.packages, ["torch==2.5.1"]);
        assert_eq!(
            install.indexes,
            [
                "pytorch=https://download.pytorch.org/whl/cu124",
                "https://pypi.org/simple"
            ]
        );
    }

    #[test]
    fn binary_bytes_stop_reading_with_the_line() {
        let (file, notes) = parse_dockerfile(
            "Dockerfile",
            b"FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN echo\n\x7fELF\x00\x01\n",
        );
        assert_eq!(file.stages.len(), 1);
        assert!(!file.complete);
        assert!(file.final_stage().is_none());
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].line, Some(3));
        assert!(
            notes[0]
                .message
                .starts_with("binary data (byte 0x00 at column 5)")
        );
    }

    /// issue #30 item 13: bytes past the read limit mean the file was cut;
    /// the note names the line and no final stage is concluded.
    #[test]
    fn a_file_cut_at_the_byte_limit_says_so_and_has_no_final_stage() {
        let mut text = String::from("FROM ubuntu:22.04\nRUN echo ");
        text.push_str(&"x".repeat(MAX_BYTES as usize));
        text.push_str("\nFROM nvidia/cuda:12.4.1-devel-ubuntu22.04\n");
        let (file, notes) = parse(&text[..MAX_BYTES as usize + 1]);
        assert!(!file.complete);
        assert!(file.final_stage().is_none());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(notes[0].line, Some(2));
        assert!(notes[0].message.starts_with("more than 4 MiB"), "{notes:?}");
    }

    /// issue #30 items 15 and #27 item 3: defaults built from earlier ARGs
    /// are expanded; `${A:-x}` and `${A:+x}` follow BuildKit.
    #[test]
    fn arg_defaults_built_from_earlier_args_are_expanded() {
        let (file, _) = parse(
            "ARG CUDA=12.4.1\n\
             ARG FLAVOR=devel\n\
             ARG BASE=nvidia/cuda:${CUDA}-${FLAVOR}-ubuntu22.04\n\
             ARG NESTED=${BASE}\n\
             FROM ${NESTED} AS build\n\
             FROM ${MISSING:-nvidia/cuda:${CUDA}-runtime-ubuntu22.04}\n",
        );
        assert_eq!(file.stages[0].image, "nvidia/cuda:12.4.1-devel-ubuntu22.04");
        assert_eq!(file.stages[0].name.as_deref(), Some("build"));
        assert!(matches!(
            file.stages[0].base,
            Base::NvidiaCuda {
                flavor: Flavor::Devel,
                ..
            }
        ));
        assert_eq!(
            file.stages[1].image,
            "nvidia/cuda:12.4.1-runtime-ubuntu22.04"
        );
        let v = vars(&[("A", Some("1")), ("E", Some("")), ("U", None)]);
        let e = |t: &str| expand(t, &v, true);
        assert_eq!(
            e("${A:+yes}${E:+no}${E:-dflt}${Z-unset}$A").text,
            "yesdfltunset1"
        );
        assert_eq!(e("${U:+x}").unknown, ["U"]);
        assert_eq!(e("\\$A").text, "$A");
    }

    /// issue #27 item 3: an ARG without a default is set at build time; the
    /// `AS name` after it is never taken for the image.
    #[test]
    fn an_arg_without_a_default_leaves_the_image_unknown() {
        let (file, _) = parse(
            "ARG IMAGE\n\
             ARG TAG=22.04\n\
             FROM ${IMAGE} AS base\n\
             FROM ubuntu:${TAG}${SUFFIX}\n\
             FROM base\n",
        );
        assert_eq!(file.stages[0].image, "${IMAGE}");
        assert_eq!(file.stages[0].name.as_deref(), Some("base"));
        assert_eq!(
            file.stages[0].base,
            Base::Unresolved {
                args: vec!["IMAGE".into()]
            }
        );
        // Never declared: BuildKit expands it to nothing.
        assert_eq!(file.stages[1].image, "ubuntu:22.04");
        assert_eq!(file.stages[2].base, Base::Stage { index: 0 });
        let facts = file.facts();
        let stage = facts.iter().find(|f| f.fact == "dockerfile.stage").unwrap();
        assert_eq!(
            stage.value,
            "stage 0 (base): ${IMAGE} (set at build time: IMAGE has no value in the file (--build-arg))"
        );
    }

    /// issue #30 item 4: an unclosed `${` is malformed (the image is
    /// unknown), read in one pass; `benches/probe.rs` times 1 MiB of it.
    #[test]
    fn an_unclosed_substitution_is_malformed_not_an_image() {
        let mut text = String::from("FROM ");
        text.push_str(&"${".repeat(10_000));
        text.push('\n');
        let (file, notes) = parse(&text);
        assert!(notes.is_empty());
        assert!(
            matches!(file.stages[0].base, Base::Unresolved { .. }),
            "{:?}",
            file.stages[0].base
        );
        let v = vars(&[("A", Some("x"))]);
        let e = expand("a${A:-${A:-${A", &v, true);
        assert!(e.malformed);
        assert_eq!(e.text, "a${A:-${A:-${A");
        let deep = format!("{}x{}", "${A:-".repeat(100), "}".repeat(100));
        assert!(expand(&deep, &v, true).malformed, "deeper than followed");
    }

    /// issue #27 item 3: `RUN --mount=…` flags come before the command; a
    /// bind mount from a stage joins the two stages, a cache mount does not.
    #[test]
    fn run_mount_flags_are_read_and_bind_mounts_join_stages() {
        let (file, _) = parse(
            "FROM python:3.11 AS wheels\n\
             RUN pip wheel --wheel-dir /wheels torch==2.5.1\n\
             FROM python:3.11-slim\n\
             RUN --mount=type=cache,target=/root/.cache/pip \\\n\
             \x20   --mount=type=bind,from=wheels,source=/wheels,target=/w \\\n\
             \x20   pip install --no-index --find-links /w torch==2.5.1\n\
             RUN --mount=type=cache,from=wheels,target=/c --network=none pip install numpy\n",
        );
        let last = &file.stages[1];
        assert_eq!(last.installs[0].packages, ["torch==2.5.1"]);
        assert_eq!(last.installs[0].line, 6);
        assert_eq!(last.installs[1].packages, ["numpy"]);
        assert_eq!(last.copies.len(), 1, "the cache mount joins nothing");
        assert_eq!(last.copies[0].stage, Some(0));
        assert!(last.copies[0].mount);
        assert_eq!(last.copies[0].args, "source=/wheels target=/w");
        assert_eq!(file.feeding(last).len(), 2);
    }

    /// issue #27 item 3: `if`/`then`/`else`, `for`/`do`/`done`, `case` and
    /// the exec form are read as a shell reads them.
    #[test]
    fn shell_control_flow_and_the_exec_form() {
        let (file, _) = parse(
            "FROM ubuntu:22.04\n\
             RUN if [ \"$CPU\" = 1 ]; then pip install torch --index-url https://download.pytorch.org/whl/cpu; \\\n\
             \x20   else pip install torch==2.5.1; fi\n\
             RUN for p in a b; do pip install \"$p\"; done && dnf -y install cuda-cupti-12-4\n\
             RUN case \"$TARGETPLATFORM\" in \\\n\
             \x20   \"linux/arm64\") yum install -y gcc ;; \\\n\
             \x20   *) microdnf install -y --nodocs make ;; \\\n\
             \x20   esac\n\
             RUN [\"pip\", \"install\", \"accelerate\"]\n\
             RUN [\"/bin/bash\", \"-c\", \"apt-get update && apt-get install -y git\"]\n",
        );
        let s = &file.stages[0];
        let seen: Vec<(InstallTool, String)> = s
            .installs
            .iter()
            .map(|i| {
                (
                    i.tool,
                    [i.packages.clone(), i.lists.clone()].concat().join(" "),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (InstallTool::Pip, "torch".to_string()),
                (InstallTool::Pip, "torch==2.5.1".to_string()),
                (InstallTool::Pip, "$p".to_string()),
                (InstallTool::Dnf, "cuda-cupti-12-4".to_string()),
                (InstallTool::Yum, "gcc".to_string()),
                (InstallTool::Microdnf, "make".to_string()),
                (InstallTool::Pip, "accelerate".to_string()),
                (InstallTool::Apt, "git".to_string()),
            ]
        );
        assert_eq!(
            s.installs[0].indexes,
            ["https://download.pytorch.org/whl/cpu"]
        );
    }

    /// Commands in an arm of `case … esac` or a branch of `if … fi` are
    /// conditional, nested ones too, across the lines of a heredoc; a
    /// pattern (`make)`, `a|b)`) is no command; the condition after `if`,
    /// loops, subshells and what follows `fi` / `esac` are unconditional.
    #[test]
    fn commands_in_shell_branches_are_marked_conditional() {
        let (file, _) = parse(
            "FROM ubuntu:22.04\n\
             RUN case \"$X\" in (make) pip install a ;; linux/amd64|linux/arm64) \\\n\
             \x20   if [ -n \"$Y\" ]; then pip install b; fi; pip install c ;; esac; pip install d\n\
             RUN if pip install e; then (cd /x && pip install f); else for p in g; do pip install \"$p\"; done; fi\n\
             RUN <<EOF\n\
             if [ -n \"$Z\" ]; then\n\
             \x20 pip install h\n\
             fi\n\
             pip install i\n\
             EOF\n",
        );
        let s = &file.stages[0];
        let seen: Vec<(String, Option<(BranchKind, usize)>)> = s
            .installs
            .iter()
            .map(|i| {
                (
                    [i.packages.clone(), i.lists.clone()].concat().join(" "),
                    i.branch.map(|b| (b.kind, b.line)),
                )
            })
            .collect();
        let case = Some((BranchKind::Case, 2));
        let if_at = |line| Some((BranchKind::If, line));
        assert_eq!(
            seen,
            [
                ("a".to_string(), case),
                ("b".to_string(), if_at(3)),
                ("c".to_string(), case),
                ("d".to_string(), None),
                ("e".to_string(), None),
                ("f".to_string(), if_at(4)),
                ("$p".to_string(), if_at(4)),
                ("h".to_string(), if_at(6)),
                ("i".to_string(), None),
            ]
        );
        assert!(s.builds.is_empty(), "a `make)` pattern is no build");
    }

    /// PyTorch's own Dockerfile runs `make triton` in its checkout before
    /// `python setup.py install`: the first installs Triton, and was taken
    /// for a build of torch ("torch built from source (make)").
    #[test]
    fn make_with_a_named_target_in_a_pytorch_checkout_is_not_a_torch_build() {
        let (file, _) = parse(
            "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n\
             WORKDIR /opt/pytorch\n\
             RUN make triton\n\
             RUN make -j8 all\n\
             RUN make -C third_party VERBOSE=1 docs\n\
             RUN python setup.py install\n",
        );
        let seen: Vec<(&str, bool)> = file.stages[0]
            .builds
            .iter()
            .map(|b| (b.what.as_str(), b.torch))
            .collect();
        assert_eq!(
            seen,
            [
                ("make triton", false),
                ("make", true),
                ("make docs", false),
                ("python setup.py install", true),
            ]
        );
    }

    #[test]
    fn wheels_local_projects_and_pytorch_checkouts() {
        let (file, _) = parse(
            "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n\
             WORKDIR /src\n\
             RUN git clone --depth 1 https://github.com/pytorch/pytorch /src/pt \\\n\
             \x20&& cd pt && python3 setup.py bdist_wheel\n\
             RUN git clone https://github.com/pytorch/vision && cd vision && pip install -e .\n\
             ENV TORCH_CUDA_ARCH_LIST=\"8.0\"\n\
             RUN pip install --no-build-isolation git+https://github.com/NVIDIA/apex.git\n\
             FROM python:3.11-slim\n\
             RUN pip install ./dist/*.whl /w/torch-2.5.0a0+git1234-cp311-cp311-linux_x86_64.whl\n",
        );
        let b = &file.stages[0].builds;
        let seen: Vec<(&str, Option<&str>, bool)> = b
            .iter()
            .map(|b| (b.what.as_str(), b.dir.as_deref(), b.torch))
            .collect();
        assert_eq!(
            seen,
            [
                ("python setup.py bdist_wheel", Some("/src/pt"), true),
                ("pip install -e .", Some("/src/vision"), false),
                (
                    "pip install git+https://github.com/NVIDIA/apex.git",
                    Some("/src"),
                    false
                ),
            ]
        );
        assert!(b[0].cuda_hints.is_empty());
        assert_eq!(b[2].cuda_hints, ["TORCH_CUDA_ARCH_LIST"]);
        let urls: Vec<&str> = file.stages[0]
            .fetches
            .iter()
            .map(|f| f.url.as_str())
            .collect();
        assert_eq!(
            urls,
            [
                "https://github.com/pytorch/pytorch",
                "https://github.com/pytorch/vision",
                "https://github.com/NVIDIA/apex.git"
            ]
        );
        let last = &file.stages[1];
        assert!(last.builds.is_empty(), "wheel files are not source builds");
        assert!(last.installs[0].has("torch"));
        assert!(!last.installs[0].has_local());
        let routes = file.torch_routes(last);
        assert!(
            matches!(
                &routes[0],
                TorchRoute::Named {
                    how: Via::LocalWheel,
                    ..
                }
            ),
            "{routes:?}"
        );
    }

    #[test]
    fn the_cuda_a_torch_spec_or_its_index_names() {
        let idx = |urls: &[&str]| urls.iter().map(|u| u.to_string()).collect::<Vec<_>>();
        assert_eq!(
            torch_cuda("torch==2.5.1+cu124", &[]).as_deref(),
            Some("12.4")
        );
        assert_eq!(
            torch_cuda("torch==2.5.1%2Bcu118", &[]).as_deref(),
            Some("11.8")
        );
        let cu130 = idx(&["https://download.pytorch.org/whl/cu130/"]);
        assert_eq!(torch_cuda("torch", &cu130).as_deref(), Some("13.0"));
        // Two CUDA indexes, or one the file does not fix: not told.
        let two = idx(&[
            "https://download.pytorch.org/whl/cu126",
            "https://download.pytorch.org/whl/cu128",
        ]);
        assert_eq!(torch_cuda("torch", &two), None);
        assert_eq!(torch_cuda("torch", &idx(&["https://x/whl/cu$CU"])), None);
        assert_eq!(torch_cuda("torch==2.5.1+cpu", &[]), None);
    }

    #[test]
    fn torch_that_no_command_names() {
        let (file, _) = parse(
            "FROM python:3.11\n\
             COPY requirements.txt .\n\
             RUN pip install -r requirements.txt\n\
             RUN uv sync --frozen\n\
             RUN pip install torchvision==0.20.1\n\
             RUN poetry install --no-root\n\
             RUN conda env create -f environment.yml\n",
        );
        let routes: Vec<String> = file
            .torch_routes(&file.stages[0])
            .iter()
            .map(TorchRoute::describe)
            .collect();
        assert_eq!(
            routes,
            [
                "torch may come from a dependency, version unknown: pip install -r requirements.txt",
                "torch may come from a dependency, version unknown: uv sync (uv.lock)",
                "torch comes from a dependency, version unknown: pip install torchvision==0.20.1",
                "torch may come from a dependency, version unknown: poetry install (poetry.lock)",
                "torch may come from a dependency, version unknown: conda install -f environment.yml",
            ]
        );
        assert!(file.stages[0].builds.is_empty());
    }

    #[test]
    fn stage_args_and_env_expand_in_package_names() {
        let (file, _) = parse(
            "ARG TORCH=2.5.1\n\
             FROM ubuntu:22.04\n\
             ARG TORCH\n\
             ENV CUDA_MAJOR=12 CUDA_MINOR=4\n\
             RUN pip install torch==${TORCH} && apt-get install -y cuda-cupti-${CUDA_MAJOR}-${CUDA_MINOR} libfoo-$UNKNOWN\n",
        );
        let i = &file.stages[0].installs;
        assert_eq!(i[0].packages, ["torch==2.5.1"]);
        assert_eq!(i[1].packages, ["cuda-cupti-12-4", "libfoo-$UNKNOWN"]);
    }

    #[test]
    fn nvcc_comes_from_the_base_or_an_install() {
        let (file, _) = parse(
            "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS a\n\
             FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS b\n\
             RUN apt-get install -y cuda-nvcc-12-4\n\
             FROM b AS c\n\
             FROM pytorch/pytorch:2.1.0-cuda11.8-cudnn8-devel AS d\n\
             FROM company/base:1\n",
        );
        let nvcc: Vec<Option<bool>> = file
            .stages
            .iter()
            .map(|s| file.has_nvcc(s).map(|(yes, _)| yes))
            .collect();
        assert_eq!(
            nvcc,
            [Some(false), Some(true), Some(true), Some(true), None]
        );
        let (_, evidence) = file.has_nvcc(&file.stages[3]).unwrap();
        assert!(
            evidence
                .ends_with("image table: pytorch-devel-conda (pytorch/pytorch devel (before 2.5))"),
            "{evidence}"
        );
    }
}
