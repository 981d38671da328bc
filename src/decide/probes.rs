//! The built-in probes a tree question may name with `probe = "…"`: each
//! maps what `crate::probe` found to one of a fixed set of answers, with the
//! evidence, or says why it cannot tell. A tree can only name one of these;
//! it cannot define a probe or change what one reads. Validation checks that
//! every answer a named probe can give is an option of its question.

use crate::probe::{Base, Findings, Found, RootFacts, Stage, Torch, TorchInstall};

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
        summary: "how PyTorch was installed: dist-info INSTALLER, conda-meta, egg-link or a +git version; or the Dockerfile's final stage and the stages it copies from",
        settle: torch_install,
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
        summary: "what the final stage starts FROM (Dockerfile), or which NVIDIA CUDA packages an image's dpkg status lists",
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
        name: "nvidia-cuda-base",
        answers: &["yes"],
        summary: "whether the Dockerfile already starts FROM an nvidia/cuda image",
        settle: nvidia_cuda_base,
    },
    Probe {
        name: "custom-cuda",
        answers: &["yes", "no"],
        summary: "compile steps in the Dockerfile (nvcc, cmake, make, setup.py, pip install of a folder), or a source-built torch in the image",
        settle: custom_cuda,
    },
];

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

fn torch_install_dockerfile(d: &crate::probe::Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(format!(
            "{} was not read to the end, so its final stage is unknown",
            d.path
        ));
    };
    let mut found: Vec<(&str, String)> = Vec::new();
    for stage in d.feeding(last) {
        for i in &stage.installs {
            let at = format!("{}:{}", d.path, i.line);
            match i.tool {
                crate::probe::InstallTool::Pip if i.has("torch") => found.push(("pip", at)),
                crate::probe::InstallTool::Conda if i.has("pytorch") || i.has("torch") => {
                    found.push(("conda", at))
                }
                _ => {}
            }
        }
        for (what, line) in &stage.builds {
            if what.starts_with("python setup.py") || what.starts_with("pip install") {
                found.push(("source", format!("{}:{line}", d.path)));
            }
        }
    }
    let Some((first, _)) = found.first() else {
        return unsure(format!(
            "no `pip install torch`, `conda install pytorch` or source build in the final stage of {} or the stages it copies from",
            d.path
        ));
    };
    let first = *first;
    if let Some((other, at)) = found.iter().find(|(k, _)| *k != first) {
        return unsure(format!(
            "the Dockerfile installs torch more than one way: {first} ({}) and {other} ({at})",
            found[0].1
        ));
    }
    answer(first, found.into_iter().map(|(_, at)| at).collect())
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

fn final_base_dockerfile(d: &crate::probe::Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(format!(
            "{} was not read to the end, so its final stage is unknown",
            d.path
        ));
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
        Base::Stage { .. } | Base::Other => unsure(format!(
            "the final stage starts FROM `{}` ({}), which lore cannot classify",
            from.image, evidence[0]
        )),
    }
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

fn host_driver(f: &Findings) -> Settled {
    let Some(root) = f.root.as_ref().filter(|r| r.live) else {
        return unsure(
            "the driver is the host's: run lore on the host, without --root or --dockerfile",
        );
    };
    if root.container.as_ref().is_some_and(|c| c.value) {
        return unsure(
            "this is a container; the host's driver is what counts, so run lore on the host",
        );
    }
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

// ---- nvidia-cuda-base, custom-cuda ------------------------------------------------

fn nvidia_cuda_base(f: &Findings) -> Settled {
    let Some(d) = &f.dockerfile else {
        return unsure(
            "whether the image can start FROM nvidia/cuda is read from a Dockerfile (--dockerfile FILE)",
        );
    };
    let Some(last) = d.final_stage() else {
        return unsure(format!("{} was not read to the end", d.path));
    };
    let (from, base) = d.root_base(last);
    if matches!(base, Base::NvidiaCuda { .. }) {
        return answer("yes", vec![format!("{}:{}", d.path, from.line)]);
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

fn custom_cuda_dockerfile(d: &crate::probe::Dockerfile) -> Settled {
    let Some(last) = d.final_stage() else {
        return unsure(format!("{} was not read to the end", d.path));
    };
    let feeding: Vec<&Stage> = d.feeding(last);
    let builds: Vec<String> = feeding
        .iter()
        .flat_map(|s| {
            s.builds
                .iter()
                .map(|(w, l)| format!("{}:{l} ({w})", d.path))
        })
        .collect();
    if !builds.is_empty() {
        return answer("yes", builds);
    }
    // No compile step anywhere that reaches the final stage.
    answer(
        "no",
        vec![format!(
            "{}: no nvcc, cmake, make, ninja, setup.py or pip install of a folder in the final stage or the stages it copies from",
            d.path
        )],
    )
}
