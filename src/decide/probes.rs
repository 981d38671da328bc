//! The built-in probes a tree question may name with `probe = "…"`: each
//! maps what `crate::probe` found to one of a fixed set of answers, with the
//! evidence, or says why it cannot tell. A tree can only name one of these;
//! it cannot define a probe or change what one reads. Validation checks that
//! every answer a named probe can give is an option of its question.

use std::borrow::Borrow;

use super::{AnswerSource, DecisionTree, Session, Step};
use crate::probe::images::{self, TorchIn};
use crate::probe::{
    Base, Branch, BranchKind, BuildKind, Dockerfile, Findings, Found, RootFacts, Stage, Torch,
    TorchInstall, TorchRoute, Via, classify, torch_cuda, torch_is_cpu,
};

/// One built-in probe.
pub struct Probe {
    pub name: &'static str,
    /// Every answer it can give.
    pub answers: &'static [&'static str],
    /// What it looks at, for the README and messages.
    pub summary: &'static str,
    settle: fn(&Findings) -> Settled,
}

/// A probe's verdict on one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Answer {
        option: String,
        evidence: Vec<String>,
    },
    /// Not sure: the reason, for the user.
    Unsure(String),
}

impl Probe {
    pub fn settle(&self, findings: &Findings) -> Settled {
        let settled = (self.settle)(findings);
        // A probe answering outside its declared set would slip past
        // validation; treat it as unsure instead.
        match &settled {
            Settled::Answer { option, .. } if !self.answers.contains(&option.as_str()) => {
                Settled::Unsure(format!("probe `{}` gave `{option}`", self.name))
            }
            _ => settled,
        }
    }
}

pub const PROBES: &[Probe] = &[
    Probe {
        name: "torch-install",
        answers: &["pip", "conda", "source"],
        summary: "how PyTorch was installed: dist-info INSTALLER, conda-meta, egg-link or a +git version; or the Dockerfile's final stage and the stages it copies from, and the image table for the image it starts from",
        settle: torch_install,
    },
    Probe {
        name: "torch-wheel",
        answers: &["cu12", "cu13", "cpu"],
        summary: "which build of torch is installed: torch/version.py's `cuda` (none for a CPU build), or the Dockerfile's `+cuXXX`/`+cpu` version or download.pytorch.org/whl/<build> index",
        settle: torch_wheel,
    },
    Probe {
        name: "cupti-import",
        answers: &["fails", "works"],
        summary: "whether a pip-installed CUDA torch can load libcupti.so.12: the nvidia-cuda-cupti wheel's library, other libcupti files and the loader cache",
        settle: cupti_import,
    },
    Probe {
        name: "final-base",
        answers: &["devel", "runtime", "other"],
        summary: "what the final stage starts FROM (Dockerfile; the image table for images built on others), or which NVIDIA CUDA packages an image's dpkg status lists",
        settle: final_base,
    },
    Probe {
        name: "install-target",
        answers: &["container", "host"],
        summary: "a Dockerfile or an image root means a container; on the machine, /.dockerenv, /run/.containerenv and /proc/1/cgroup",
        settle: install_target,
    },
    Probe {
        name: "host-driver",
        answers: &["yes", "no"],
        summary: "on a host: /proc/driver/nvidia/version and nvidia-smi",
        settle: host_driver,
    },
    Probe {
        name: "container-engine",
        answers: &["docker", "docker-snap", "podman"],
        summary: "on a host: which container engine is installed (/usr/bin/docker or /usr/local/bin/docker, the docker snap's /snap/bin/docker, /usr/bin/podman); unsure with none, or more than one",
        settle: container_engine,
    },
    Probe {
        name: "container-toolkit",
        answers: &["yes", "no"],
        summary: "on a host: whether dpkg's status lists the nvidia-container-toolkit package as installed (/var/lib/dpkg/status); unsure where dpkg lists no NVIDIA package at all",
        settle: container_toolkit,
    },
    Probe {
        name: "nvidia-cuda-base",
        answers: &["yes"],
        summary: "whether the Dockerfile already starts FROM an nvidia/cuda image, or one the image table says is built on one",
        settle: nvidia_cuda_base,
    },
    Probe {
        name: "custom-cuda",
        answers: &["yes", "no"],
        summary: "compile steps in the Dockerfile (nvcc, cmake, make, a PyTorch checkout, a project built with TORCH_CUDA_ARCH_LIST or FORCE_CUDA) where a CUDA compiler is, or a source-built torch in the image",
        settle: custom_cuda,
    },
    Probe {
        name: "gpu-generation",
        answers: &[
            "blackwell",
            "turing-hopper",
            "volta",
            "maxwell-pascal",
            "kepler",
        ],
        summary: "the GPUs' compute capability, from their model names in /proc/driver/nvidia/gpus (NVIDIA's table as cuda/03 copies it); unsure for models it does not know, Jetson modules, or GPUs of two generations",
        settle: gpu_generation,
    },
    Probe {
        name: "driver-cuda",
        answers: &["13", "12", "11", "older"],
        summary: "the highest CUDA major the loaded NVIDIA kernel module runs, from /proc/driver/nvidia/version (minor-version compatibility: 450 → 11, 525 → 12, 580 → 13)",
        settle: driver_cuda_major,
    },
];

/// What [`advance`] did: the answers it gave (`question=option`), and why it
/// stopped where it stopped at a question.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Advanced {
    pub answered: Vec<String>,
    pub stopped: Option<String>,
}

/// From the question a session is at, answers each question whose probe is
/// sure (recorded as probed, with its evidence) and stops at the first one
/// a probe leaves open or no probe covers. Called whenever the walk reaches
/// a new question, after a user's answer too, a walk takes the probes'
/// answer at any question it reaches and asks only what no file tells.
pub fn advance<T: Borrow<DecisionTree>>(session: &mut Session<T>, findings: &Findings) -> Advanced {
    let mut out = Advanced::default();
    // A validated tree has no cycles: at most one answer per node.
    for _ in 0..=session.tree().nodes.len() {
        let Step::Question(q) = session.current() else {
            break;
        };
        let id = q.id.clone();
        let Some(probe) = q.probe.as_ref().and_then(|p| find(&p.name)) else {
            out.stopped = Some(format!("`{id}` needs your answer"));
            break;
        };
        match probe.settle(findings) {
            Settled::Answer { option, evidence } => {
                let source = AnswerSource::Probe { evidence };
                if session.answer_from(&id, &option, source).is_err() {
                    break;
                }
                out.answered.push(format!("{id}={option}"));
            }
            Settled::Unsure(reason) => {
                out.stopped = Some(format!("`{id}` left open: {reason}"));
                break;
            }
        }
    }
    out
}

/// The built-in probe with this name.
pub fn find(name: &str) -> Option<&'static Probe> {
    PROBES.iter().find(|p| p.name == name)
}

pub fn names() -> Vec<String> {
    PROBES.iter().map(|p| p.name.to_string()).collect()
}

fn answer(option: &str, evidence: Vec<String>) -> Settled {
    Settled::Answer {
        option: option.to_string(),
        evidence,
    }
}

fn unsure(reason: impl Into<String>) -> Settled {
    Settled::Unsure(reason.into())
}

/// Combines a root's verdict and a Dockerfile's: agreeing answers merge their
/// evidence, a conflict is unsure, and one side alone stands.
fn combine(root: Option<Settled>, file: Option<Settled>) -> Settled {
    match (root, file) {
        (
            Some(Settled::Answer {
                option: a,
                evidence: mut ea,
            }),
            Some(Settled::Answer {
                option: b,
                evidence: eb,
            }),
        ) => {
            if a == b {
                ea.extend(eb);
                answer(&a, ea)
            } else {
                unsure(format!(
                    "the image's files say `{a}` ({}) but the Dockerfile says `{b}` ({})",
                    ea.join(", "),
                    eb.join(", ")
                ))
            }
        }
        (Some(a @ Settled::Answer { .. }), _) | (_, Some(a @ Settled::Answer { .. })) => a,
        (Some(Settled::Unsure(a)), Some(Settled::Unsure(b))) => unsure(format!("{a}; {b}")),
        (Some(u), None) | (None, Some(u)) => u,
        (None, None) => unsure("nothing was probed"),
    }
}

// ---- torch-install -------------------------------------------------------------

fn torch_install(f: &Findings) -> Settled {
    combine(
        f.root.as_ref().map(torch_install_root),
        f.dockerfile.as_ref().map(torch_install_dockerfile),
    )
}

/// The torch installs that count: on the machine, the one `python3` imports
/// when it imports one; otherwise all of them.
fn counted_torch(root: &RootFacts) -> Vec<&Torch> {
    if let Some(active) = root.python3.as_ref().and_then(|p| p.torch.as_ref())
        && let Some(t) = root.torch.iter().find(|t| t.dir == active.value)
    {
        return vec![t];
    }
    root.torch.iter().collect()
}

fn torch_install_root(root: &RootFacts) -> Settled {
    if root.torch.is_empty() {
        return unsure(format!(
            "no torch/version.py in the Python environments of {}",
            root.dir
        ));
    }
    let torch = counted_torch(root);
    if let Some(t) = torch.iter().find(|t| !t.install_disputed.is_empty())
        && let Some(first) = &t.install
    {
        let other = &t.install_disputed[0];
        return unsure(format!(
            "the files of {} disagree on how it got there: {} ({}) but {} ({})",
            t.dir,
            first.value.route(),
            first.evidence.join(", "),
            other.value.route(),
            other.evidence.join(", ")
        ));
    }
    let installs: Vec<&Found<TorchInstall>> =
        torch.iter().filter_map(|t| t.install.as_ref()).collect();
    if installs.len() < torch.len() {
        let t = torch
            .iter()
            .find(|t| t.install.is_none())
            .map(|t| t.dir.clone());
        return unsure(format!(
            "torch in {} has no dist-info, conda record or egg-link saying how it got there",
            t.unwrap_or_default()
        ));
    }
    let first = installs[0].value.route();
    if let Some(other) = installs.iter().find(|i| i.value.route() != first) {
        return unsure(format!(
            "torch is installed more than once, differently: {first} ({}) and {} ({})",
            installs[0].evidence.join(", "),
            other.value.route(),
            other.evidence.join(", ")
        ));
    }
    let mut evidence: Vec<String> = installs.iter().flat_map(|i| i.evidence.clone()).collect();
    if let Some(active) = root.python3.as_ref().and_then(|p| p.torch.as_ref())
        && torch.len() == 1
        && root.torch.len() > 1
    {
        evidence.extend(active.evidence.clone());
    }
    answer(first, evidence)
}

/// What the image table says about the image a stage starts from, with the
/// evidence: the `FROM` line and the row.
fn table_row<'a>(
    d: &'a Dockerfile,
    stage: &'a Stage,
) -> Option<(images::Implied<'static>, Vec<String>)> {
    let (from, base) = d.root_base(stage);
    if !matches!(base, Base::Other | Base::NvidiaCuda { .. }) {
        return None;
    }
    let implied = images::lookup(&from.image)?;
    let evidence = vec![format!("{}:{}", d.path, from.line), implied.evidence()];
    Some((implied, evidence))
}

/// Whether the image a stage starts from has torch: `Some(false)` for
/// images known to have none (a distribution, nvidia/cuda, a table row
/// saying none), `Some(true)` for a row that has it, `None` when unknown.
fn base_has_torch(d: &Dockerfile, stage: &Stage) -> Option<bool> {
    let (_, base) = d.root_base(stage);
    match base {
        Base::Distro { .. } | Base::Scratch | Base::NvidiaCuda { .. } => Some(false),
        Base::Other => table_row(d, stage).map(|(i, _)| i.torch != TorchIn::None),
        Base::Stage { .. } | Base::Unresolved { .. } => None,
    }
}

/// Why a command in a shell branch settles nothing: `the case at
/// Dockerfile:70 takes one branch per build …`.
fn branch_reason(d: &Dockerfile, branch: Option<Branch>) -> String {
    match branch {
        Some(b) => format!(
            "the {} at {}:{} takes one branch per build (chosen by a build argument or the platform), so it may not run",
            match b.kind {
                BranchKind::Case => "case",
                BranchKind::If => "if",
            },
            d.path,
            b.line
        ),
        None => String::new(),
    }
}

/// Why `d` has no final stage: it was read only in part, or it holds no
/// `FROM` at all (a fragment, or a file that is not a Dockerfile), which
/// used to be called "not read to the end" too.
fn no_final_stage(d: &Dockerfile) -> String {
    if d.complete {
        format!("{} has no FROM instruction, so it starts no image", d.path)
    } else {
        format!(
            "{} was not read to the end, so its final stage is unknown",
            d.path
        )
    }
}

fn torch_install_dockerfile(d: &Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(no_final_stage(d));
    };
    let feeding = d.feeding(last);
    let routes: Vec<TorchRoute> = feeding
        .iter()
        .rev()
        .flat_map(|s| d.torch_routes(s))
        .collect();
    let built_here = routes
        .iter()
        .any(|r| matches!(r, TorchRoute::Source { .. }));
    // Installs inside the branches of a `case` or `if` count like the
    // others: branches that agree (pip in every arm) settle the route, and
    // ones that differ leave it open below, as two installs in a row would.
    let base_torch = base_has_torch(d, last);
    let mut found: Vec<(&str, String)> = Vec::new();
    let mut maybe: Vec<String> = Vec::new();
    for route in &routes {
        let at = format!("{} ({})", route.at(), route.describe());
        match route {
            TorchRoute::Named { how, spec, .. } => {
                let kind = match how {
                    Via::Pip => "pip",
                    Via::Conda => "conda",
                    // A wheel file: built in a stage of this file (a
                    // PyTorch checkout) or elsewhere from source (a
                    // `+git` version), else a downloaded wheel.
                    Via::LocalWheel if built_here || spec.contains("+git") => "source",
                    Via::LocalWheel => "pip",
                };
                found.push((kind, at));
            }
            TorchRoute::Source { .. } => found.push(("source", at)),
            // A Python package that requires torch: pip (or uv) installs
            // torch's wheel with it, unless the base image has torch.
            TorchRoute::Dependency { .. } if base_torch == Some(false) => found.push(("pip", at)),
            TorchRoute::Dependency { .. } | TorchRoute::Maybe { .. } => maybe.push(at),
        }
    }
    if let Some((first, _)) = found.first() {
        let first = *first;
        if let Some((other, at)) = found.iter().find(|(k, _)| *k != first) {
            return unsure(format!(
                "the Dockerfile installs torch more than one way: {first} ({}) and {other} ({at})",
                found[0].1
            ));
        }
        return answer(first, found.into_iter().map(|(_, at)| at).collect());
    }
    if !maybe.is_empty() {
        let base = match base_torch {
            Some(true) => "; the base image has torch too, and either may win",
            Some(false) => "",
            None => "; the base image may have torch too",
        };
        return unsure(format!("{}{base}", maybe.join("; ")));
    }
    // No command brings torch: the base image is all there is.
    if let Some((implied, evidence)) = table_row(d, last) {
        let kind = match implied.torch {
            TorchIn::Pip => Some("pip"),
            TorchIn::Conda => Some("conda"),
            TorchIn::Source => Some("source"),
            TorchIn::None => {
                return unsure(format!(
                    "no torch install in the final stage of {} or the stages it copies from, and {} has none ({})",
                    d.path,
                    implied.row.family,
                    evidence.join(", ")
                ));
            }
            TorchIn::Unknown => None,
        };
        return match kind {
            Some(kind) => answer(kind, evidence),
            None => unsure(format!(
                "the image table does not know how torch is installed in {} ({})",
                implied.row.family,
                evidence.join(", ")
            )),
        };
    }
    unsure(format!(
        "no `pip install torch`, `conda install pytorch` or source build in the final stage of {} or the stages it copies from",
        d.path
    ))
}

// ---- torch-wheel -------------------------------------------------------------------

/// `12.4` → `cu12` (CUDA 11 wheels have the same layout with `-cu11`
/// names), `13.0` → `cu13`.
fn wheel_family(cuda_version: &str) -> Option<&'static str> {
    match cuda_version.split('.').next()? {
        "11" | "12" => Some("cu12"),
        "13" => Some("cu13"),
        _ => None,
    }
}

fn torch_wheel(f: &Findings) -> Settled {
    combine(
        f.root.as_ref().map(torch_wheel_root),
        f.dockerfile.as_ref().map(torch_wheel_dockerfile),
    )
}

fn torch_wheel_root(root: &RootFacts) -> Settled {
    let mut seen: Vec<(&'static str, Vec<String>)> = Vec::new();
    for t in &root.torch {
        let Some(cuda) = &t.cuda else {
            return unsure(format!("{}/version.py has no `cuda` line", t.dir));
        };
        let family = match &cuda.value {
            None => "cpu",
            Some(v) => match wheel_family(v) {
                Some(f) => f,
                None => {
                    return unsure(format!(
                        "torch in {} is built for CUDA {v}, which this question does not cover",
                        t.dir
                    ));
                }
            },
        };
        if let Some((other, evidence)) = seen.iter().find(|(f, _)| *f != family) {
            return unsure(format!(
                "two torch builds: {other} ({}) and {family} ({})",
                evidence.join(", "),
                cuda.evidence.join(", ")
            ));
        }
        seen.push((family, cuda.evidence.clone()));
    }
    match seen.first() {
        Some((family, _)) => answer(family, seen.iter().flat_map(|(_, e)| e.clone()).collect()),
        None => unsure(format!(
            "no torch/version.py in the Python environments of {}",
            root.dir
        )),
    }
}

fn torch_wheel_dockerfile(d: &Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(no_final_stage(d));
    };
    let mut seen: Vec<(&'static str, String)> = Vec::new();
    for stage in d.feeding(last) {
        for i in stage.installs.iter().filter(|i| i.tool.is_python()) {
            let Some(spec) = i.spec("torch") else {
                continue;
            };
            let at = format!("{}:{}", d.path, i.line);
            // The same reading of `+cu124` / `+cpu` and of the PyTorch index
            // as the Dockerfile's `torch` facts: pip takes the best wheel of
            // all the indexes, so one the file does not fix (`…/cu$(echo
            // …)`, an ARG without a value), or two CUDA ones, may serve
            // either build.
            let cpu = torch_is_cpu(spec, &i.indexes);
            let family = match (cpu, torch_cuda(spec, &i.indexes)) {
                (Some(true), _) => "cpu",
                (_, Some(cuda)) => match wheel_family(&cuda) {
                    Some(family) => family,
                    None => {
                        return unsure(format!(
                            "{at} installs `{spec}`, a build for CUDA {cuda}, which this question does not cover"
                        ));
                    }
                },
                _ => {
                    if let Some(index) = i.unfixed_index() {
                        return unsure(format!(
                            "{at} installs `{spec}` from `{index}`, an index the Dockerfile does not fix (a command's output or a build argument set at build time): which build it serves is unknown"
                        ));
                    }
                    let rocm = |t: &str| t.to_ascii_lowercase().contains("rocm");
                    if rocm(spec) || i.indexes.iter().any(|u| rocm(u)) {
                        return unsure(format!(
                            "{at} installs `{spec}`, a ROCm build, which this question does not cover"
                        ));
                    }
                    if cpu == Some(false) {
                        return unsure(format!(
                            "{at} installs `{spec}` from more than one CUDA index ({}): pip takes the best wheel of all of them",
                            i.indexes.join(", ")
                        ));
                    }
                    return unsure(format!(
                        "{at} installs `{spec}` without a `+cuXXX`/`+cpu` version or a download.pytorch.org/whl/<build> index: which build pip picks depends on the version and the platform"
                    ));
                }
            };
            seen.push((family, format!("{at} ({spec})")));
        }
    }
    let Some((first, _)) = seen.first() else {
        return unsure(format!(
            "no `pip install torch` in the final stage of {} or the stages it copies from",
            d.path
        ));
    };
    let first = *first;
    if let Some((other, at)) = seen.iter().find(|(f, _)| *f != first) {
        return unsure(format!(
            "the Dockerfile installs two torch builds: {first} ({}) and {other} ({at})",
            seen[0].1
        ));
    }
    answer(first, seen.into_iter().map(|(_, at)| at).collect())
}

// ---- cupti-import --------------------------------------------------------------

fn cupti_import(f: &Findings) -> Settled {
    let Some(root) = &f.root else {
        return unsure(
            "whether the import fails needs the image's files (--root DIR), not only the Dockerfile",
        );
    };
    let pip: Vec<&Torch> = counted_torch(root)
        .into_iter()
        .filter(|t| {
            matches!(
                t.install.as_ref().map(|i| &i.value),
                Some(TorchInstall::Wheel { .. })
            )
        })
        .collect();
    let [torch] = pip.as_slice() else {
        return unsure(if pip.is_empty() {
            "no pip-installed torch found".to_string()
        } else {
            "more than one pip-installed torch; cannot tell which one runs".to_string()
        });
    };
    if let (Some(said), Some(tag)) = (&torch.cuda, &torch.cuda_disputed) {
        return unsure(format!(
            "{} disagrees with itself on its CUDA version: {} ({}) but {} ({})",
            torch.dir,
            said.value.as_deref().unwrap_or("None"),
            said.evidence.join(", "),
            tag.value.as_deref().unwrap_or("CPU"),
            tag.evidence.join(", ")
        ));
    }
    let major = match torch.cuda.as_ref() {
        Some(Found {
            value: None,
            evidence,
        }) => {
            let mut evidence = evidence.clone();
            evidence[0].push_str(" (a CPU build: it does not load CUPTI)");
            return answer("works", evidence);
        }
        None => return unsure(format!("{}/version.py has no `cuda` line", torch.dir)),
        Some(Found {
            value: Some(version),
            ..
        }) => version.split('.').next().unwrap_or("").to_string(),
    };
    // The soname this torch asks for: libcupti.so.13 for CUDA 13.x,
    // libcupti.so.11.8 for 11.8.
    let wanted = format!("libcupti.so.{major}");
    let matches = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        name.strip_prefix(&wanted)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
    };
    // The wheel's own copy in the same environment is what torch's RPATH finds.
    let in_env = root.cupti.iter().find(|c| {
        c.value.kind == "wheel" && c.value.path.starts_with(&torch.site) && matches(&c.value.path)
    });
    if let Some(place) = in_env {
        return answer("works", place.evidence.clone());
    }
    if let Some(cached) = root
        .cupti
        .iter()
        .find(|c| c.value.kind == "ld-cache" && matches(&c.value.path))
    {
        return answer("works", cached.evidence.clone());
    }
    let mut evidence = vec![format!(
        "{}: no {wanted} from the nvidia-cuda-cupti wheel beside this torch",
        torch.site
    )];
    if let Some(cuda) = &torch.cuda {
        evidence.extend(cuda.evidence.clone());
    }
    for w in root
        .wheels
        .iter()
        .filter(|w| w.evidence.starts_with(&torch.site))
    {
        for m in w.missing.iter().filter(|m| matches(&m.value)) {
            evidence.extend(m.evidence.clone());
        }
    }
    evidence.push(format!(
        "{}/etc/ld.so.cache: no {wanted} entry",
        root.dir.trim_end_matches('/')
    ));
    answer("fails", evidence)
}

// ---- final-base ----------------------------------------------------------------

fn final_base(f: &Findings) -> Settled {
    combine(
        f.root.as_ref().map(final_base_root),
        f.dockerfile.as_ref().map(final_base_dockerfile),
    )
}

/// What a final stage's image is, as the final-base question asks: an
/// nvidia/cuda flavour, another base, or unknown. Images the table knows
/// are followed to the image they are built on.
fn final_base_dockerfile(d: &Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(no_final_stage(d));
    };
    let (from, base) = d.root_base(last);
    let mut evidence = vec![format!("{}:{}", d.path, last.line)];
    if from.index != last.index {
        evidence.push(format!("{}:{}", d.path, from.line));
    }
    match base {
        Base::NvidiaCuda { flavor, .. } if flavor.is_devel() => answer("devel", evidence),
        Base::NvidiaCuda { .. } => answer("runtime", evidence),
        Base::Distro { .. } | Base::Scratch => answer("other", evidence),
        Base::Unresolved { .. } => unsure(format!(
            "the final stage starts FROM `{}` ({}), which is set at build time",
            from.image, evidence[0]
        )),
        Base::Stage { .. } | Base::Other => match follow_table(&from.image) {
            Ok((option, rows)) => {
                evidence.extend(rows);
                answer(option, evidence)
            }
            Err(why) => unsure(format!(
                "the final stage starts FROM `{}` ({}): {why}",
                from.image, evidence[0]
            )),
        },
    }
}

/// Follows the image table from `image` through the images each row is
/// built on, to an nvidia/cuda flavour or a plain distribution. Gives the
/// answer and the rows used, or why it cannot.
fn follow_table(image: &str) -> Result<(&'static str, Vec<String>), String> {
    let mut rows = Vec::new();
    let mut current = image.to_string();
    // Whether an image on the way brings a CUDA compiler of its own (a
    // runfile toolkit on AlmaLinux): then "another base" would be wrong.
    let mut own_cuda = false;
    for _ in 0..4 {
        match classify(&current) {
            Base::NvidiaCuda { flavor, .. } => {
                return Ok((
                    if flavor.is_devel() {
                        "devel"
                    } else {
                        "runtime"
                    },
                    rows,
                ));
            }
            Base::Distro { .. } | Base::Scratch if !own_cuda => return Ok(("other", rows)),
            Base::Distro { .. } | Base::Scratch => {
                return Err(format!(
                    "{} installs CUDA itself on {current}, which no answer here describes",
                    rows.last().cloned().unwrap_or_default()
                ));
            }
            _ => {}
        }
        let Some(implied) = images::lookup(&current) else {
            return Err(if rows.is_empty() {
                "lore cannot classify it, and the image table has no row for it".to_string()
            } else {
                format!("the image table has no row for `{current}`")
            });
        };
        rows.push(implied.evidence());
        own_cuda |= implied.nvcc != Some(false);
        let Some(next) = implied.built_on.clone() else {
            return Err(format!(
                "{} ({}: CUDA {}, CUPTI {}); what it is built on is unknown",
                implied.evidence(),
                implied.row.family,
                implied.cuda,
                implied.cupti
            ));
        };
        current = next;
    }
    Err("the image table's rows lead too far".into())
}

fn final_base_root(root: &RootFacts) -> Settled {
    if root.live && !root.container.as_ref().is_some_and(|c| c.value) {
        return unsure(
            "this machine is not a container; probe the image with --root DIR or --dockerfile FILE",
        );
    }
    let find = |prefixes: &[&str]| {
        root.apt
            .iter()
            .find(|p| prefixes.iter().any(|pre| p.value.name.starts_with(pre)))
    };
    if let Some(p) = find(&["cuda-nvcc-", "cuda-command-line-tools-"]) {
        return answer("devel", p.evidence.clone());
    }
    if let Some(p) = find(&["cuda-cudart-", "cuda-libraries-", "cuda-compat-"]) {
        return answer("runtime", p.evidence.clone());
    }
    if root.toolkits.is_empty() && root.apt.iter().all(|p| !p.value.name.starts_with("cuda-")) {
        let dpkg = format!("{}/var/lib/dpkg/status", root.dir.trim_end_matches('/'));
        return answer(
            "other",
            vec![
                format!("{dpkg}: no cuda-* package"),
                format!(
                    "{}/usr/local: no cuda* folder",
                    root.dir.trim_end_matches('/')
                ),
            ],
        );
    }
    unsure("a CUDA toolkit folder without NVIDIA's packages in dpkg: installed another way")
}

// ---- install-target, host-driver -------------------------------------------------

fn install_target(f: &Findings) -> Settled {
    if let Some(d) = &f.dockerfile {
        let at = d
            .stages
            .first()
            .map_or(d.path.clone(), |s| format!("{}:{}", d.path, s.line));
        return answer("container", vec![at]);
    }
    let Some(root) = &f.root else {
        return unsure("nothing was probed");
    };
    if !root.live {
        return answer(
            "container",
            vec![format!("{} (--root: an image's files)", root.dir)],
        );
    }
    match &root.container {
        Some(c) if c.value => answer("container", c.evidence.clone()),
        Some(c) => answer("host", c.evidence.clone()),
        None => unsure("no sign either way of a container"),
    }
}

/// The facts of the host lore runs on, for a question about the host
/// (`what`: "the driver"); why not, when lore was given an image or a
/// Dockerfile, or runs in a container.
fn host_facts<'a>(f: &'a Findings, what: &str) -> Result<&'a RootFacts, Settled> {
    let Some(root) = f.root.as_ref().filter(|r| r.live) else {
        return Err(unsure(format!(
            "{what} is the host's: run lore on the host, without --root or --dockerfile"
        )));
    };
    if root.container.as_ref().is_some_and(|c| c.value) {
        return Err(unsure(format!(
            "this is a container; {what} that counts is the host's, so run lore on the host"
        )));
    }
    Ok(root)
}

fn host_driver(f: &Findings) -> Settled {
    let root = match host_facts(f, "the driver") {
        Ok(root) => root,
        Err(why) => return why,
    };
    match (&root.driver, &root.nvidia_smi) {
        (Some(driver), Some(smi)) => {
            let mut evidence = driver.evidence.clone();
            evidence[0].push_str(&format!(" (kernel module {})", driver.value));
            evidence.extend(smi.evidence.clone());
            answer("yes", evidence)
        }
        (Some(driver), None) => {
            let mut evidence = driver.evidence.clone();
            evidence.push("nvidia-smi: not in /usr/bin, /usr/local/bin or /bin".into());
            answer("no", evidence)
        }
        (None, _) => answer(
            "no",
            vec!["/proc/driver/nvidia/version: absent (no NVIDIA kernel module loaded)".into()],
        ),
    }
}

// ---- container-engine, container-toolkit --------------------------------------------

fn container_engine(f: &Findings) -> Settled {
    let root = match host_facts(f, "the container engine") {
        Ok(root) => root,
        Err(why) => return why,
    };
    // The probe lists engines in `ENGINES` order, so a kind's paths are
    // neighbours and `dedup` leaves each kind once.
    let mut kinds: Vec<&str> = root.engines.iter().map(|e| e.value.as_str()).collect();
    kinds.dedup();
    match kinds.as_slice() {
        [one] => answer(
            one,
            root.engines
                .iter()
                .flat_map(|e| e.evidence.clone())
                .collect(),
        ),
        [] => unsure(
            "no docker or podman command in /usr/bin, /usr/local/bin or /snap/bin (a Kubernetes node, or an engine installed elsewhere)",
        ),
        several => unsure(format!(
            "more than one engine is installed ({}): which one starts the container is yours to say",
            several.join(", ")
        )),
    }
}

/// The package that installs `nvidia-container-runtime-hook`, which dockerd
/// needs on its `PATH` to register its GPU driver (cuda/14).
const CONTAINER_TOOLKIT_PACKAGE: &str = "nvidia-container-toolkit";

fn container_toolkit(f: &Findings) -> Settled {
    let root = match host_facts(f, "the container toolkit") {
        Ok(root) => root,
        Err(why) => return why,
    };
    if let Some(p) = root
        .apt
        .iter()
        .find(|p| p.value.name == CONTAINER_TOOLKIT_PACKAGE)
    {
        let mut evidence = p.evidence.clone();
        if let Some(first) = evidence.first_mut() {
            first.push_str(&format!(
                " ({CONTAINER_TOOLKIT_PACKAGE} {})",
                p.value.version
            ));
        }
        return answer("yes", evidence);
    }
    // An empty list is a host without dpkg, or one whose NVIDIA software
    // did not come from packages (a runfile driver, an RPM system): the
    // toolkit may still be there.
    match root.apt.first() {
        Some(listed) => {
            let file = listed.evidence[0]
                .rsplit_once(':')
                .map_or(listed.evidence[0].as_str(), |(file, _)| file);
            answer(
                "no",
                vec![format!(
                    "{file}: {} NVIDIA packages installed, {CONTAINER_TOOLKIT_PACKAGE} not among them",
                    root.apt.len()
                )],
            )
        }
        None => unsure(
            "dpkg lists no NVIDIA package here (no /var/lib/dpkg/status, or a driver not installed from packages): check with `command -v nvidia-container-runtime-hook nvidia-ctk`",
        ),
    }
}

// ---- nvidia-cuda-base, custom-cuda ------------------------------------------------

fn nvidia_cuda_base(f: &Findings) -> Settled {
    let Some(d) = &f.dockerfile else {
        return unsure(
            "whether the image can start FROM nvidia/cuda is read from a Dockerfile (--dockerfile FILE)",
        );
    };
    let Some(last) = d.final_stage() else {
        return unsure(no_final_stage(d));
    };
    let (from, base) = d.root_base(last);
    let at = format!("{}:{}", d.path, from.line);
    if matches!(base, Base::NvidiaCuda { .. }) {
        return answer("yes", vec![at]);
    }
    if matches!(base, Base::Other)
        && let Ok((option, rows)) = follow_table(&from.image)
        && option != "other"
    {
        let mut evidence = vec![at];
        evidence.extend(rows);
        return answer("yes", evidence);
    }
    unsure(format!(
        "the final stage starts FROM `{}`; whether it could be nvidia/cuda instead is your call",
        from.image
    ))
}

fn custom_cuda(f: &Findings) -> Settled {
    let file = f.dockerfile.as_ref().map(custom_cuda_dockerfile);
    let root = f.root.as_ref().map(|root| {
        match root.torch.iter().find(|t| {
            matches!(
                t.install.as_ref().map(|i| &i.value),
                Some(TorchInstall::Source)
            )
        }) {
            Some(t) => answer(
                "yes",
                t.install
                    .as_ref()
                    .map(|i| i.evidence.clone())
                    .unwrap_or_default(),
            ),
            None => unsure(format!(
                "the files of {} cannot show whether other code was compiled against CUDA",
                root.dir
            )),
        }
    });
    combine(root, file)
}

/// Compiled CUDA code reaches the final stage when a stage feeding it
/// compiles where a CUDA compiler is: `nvcc`, a PyTorch checkout, `cmake`
/// or `make`, or a Python project built with a setting only CUDA builds
/// read. A project built without such a setting, or packages from a list
/// the file does not show, may or may not compile CUDA: unsure. Where no
/// stage has a compiler, nothing compiled CUDA.
fn custom_cuda_dockerfile(d: &Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(no_final_stage(d));
    };
    let mut yes = Vec::new();
    let mut maybe = Vec::new();
    let mut no_compiler = Vec::new();
    for stage in d.feeding(last) {
        let nvcc = d.has_nvcc(stage);
        let compiles_cuda = nvcc.as_ref().map(|(yes, _)| *yes);
        if let Some((false, why)) = &nvcc {
            no_compiler.push(why.clone());
        }
        for b in &stage.builds {
            let at = format!("{}:{} ({})", d.path, b.line, b.what);
            if b.branch.is_some() {
                if compiles_cuda != Some(false) || b.kind == BuildKind::CudaCompiler {
                    maybe.push(format!(
                        "{at} runs {}: {}",
                        b.branch.map_or("", |b| b.describe()),
                        branch_reason(d, b.branch)
                    ));
                }
                continue;
            }
            let certain = b.kind == BuildKind::CudaCompiler
                || b.torch
                || b.kind == BuildKind::BuildTool
                || !b.cuda_hints.is_empty();
            match compiles_cuda {
                Some(false) if b.kind != BuildKind::CudaCompiler => {}
                Some(true) if certain => yes.push(at),
                _ if b.kind == BuildKind::CudaCompiler => yes.push(at),
                _ => maybe.push(format!(
                    "{at}: whether this project compiles CUDA code the Dockerfile does not show"
                )),
            }
        }
        if compiles_cuda != Some(false) {
            for i in stage
                .installs
                .iter()
                .filter(|i| i.tool.is_python() && !i.lists.is_empty())
            {
                maybe.push(format!(
                    "{}:{} ({} {}): the list may hold packages built from source",
                    d.path,
                    i.line,
                    i.tool.name(),
                    i.lists.join(" ")
                ));
            }
        }
    }
    // The image itself may carry a source-built torch (NVIDIA's PyTorch
    // containers): compiled against its CUDA.
    if let Some((implied, evidence)) = table_row(d, last)
        && implied.torch == TorchIn::Source
    {
        yes.push(format!(
            "{} (torch built from source: {})",
            evidence.join(", "),
            implied.row.family
        ));
    }
    if !yes.is_empty() {
        return answer("yes", yes);
    }
    if !maybe.is_empty() {
        return unsure(maybe.join("; "));
    }
    let mut evidence = vec![format!(
        "{}: no nvcc, cmake, make, ninja or CUDA project build in the final stage or the stages it copies from",
        d.path
    )];
    evidence.extend(no_compiler);
    answer("no", evidence)
}

// ---- gpu-generation, driver-cuda --------------------------------------------------

/// Which family of PyTorch wheel architectures a compute capability falls
/// in; `None` for Jetson modules (their own wheels) and unknown numbers.
fn generation(capability: &str) -> Option<&'static str> {
    let (major, minor) = capability.split_once('.')?;
    let (major, minor): (u32, u32) = (major.parse().ok()?, minor.parse().ok()?);
    match (major, minor) {
        // Jetson: TX1 5.3, TX2 6.2, Xavier 7.2, Orin 8.7, Thor 11.0.
        (5, 3) | (6, 2) | (7, 2) | (8, 7) | (11, _) => None,
        (10..=12, _) => Some("blackwell"),
        (7, 5..) | (8, _) | (9, _) => Some("turing-hopper"),
        (7, 0) => Some("volta"),
        (5 | 6, _) => Some("maxwell-pascal"),
        (..=3, _) => Some("kepler"),
        _ => None,
    }
}

fn gpu_generation(f: &Findings) -> Settled {
    let facts = f.facts();
    let known: Vec<_> = facts
        .iter()
        .filter(|x| x.fact == "gpu.capability")
        .collect();
    let models = facts.iter().filter(|x| x.fact == "gpu").count();
    if known.is_empty() {
        return unsure(if models == 0 {
            "no GPU found in /proc/driver/nvidia/gpus (no driver loaded, or not the machine that runs the code)"
        } else {
            "the GPU's model is not in lore's compute capability table"
        });
    }
    if known.len() < models {
        return unsure("one of the GPUs' models is not in lore's compute capability table");
    }
    let mut found: Option<&str> = None;
    let mut evidence = Vec::new();
    for fact in known {
        let Some(generation) = generation(&fact.value) else {
            return unsure(format!(
                "compute capability {} is a Jetson module's or one lore does not place: NVIDIA's JetPack wheels are its own",
                fact.value
            ));
        };
        if found.is_some_and(|g| g != generation) {
            return unsure("the GPUs are of two generations: answer for the one the code runs on");
        }
        found = Some(generation);
        evidence.extend(fact.evidence.iter().cloned());
    }
    evidence.dedup();
    match found {
        Some(generation) => answer(generation, evidence),
        None => unsure("no GPU found"),
    }
}

fn driver_cuda_major(f: &Findings) -> Settled {
    let facts = f.facts();
    if let Some(fact) = facts.iter().find(|x| x.fact == "driver.cuda") {
        let option = match fact.value.as_str() {
            "13" => "13",
            "12" => "12",
            "11" => "11",
            other => {
                return unsure(format!(
                    "driver.cuda {other}: not a CUDA major this tree knows"
                ));
            }
        };
        return answer(option, fact.evidence.clone());
    }
    match facts.iter().find(|x| x.fact == "driver") {
        // A driver too old for minor-version compatibility: before 450.
        Some(driver) => answer("older", driver.evidence.clone()),
        None => unsure(
            "no NVIDIA kernel module loaded here (/proc/driver/nvidia/version): run lore on the machine that runs the code",
        ),
    }
}
