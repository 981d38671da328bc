//! A Dockerfile stage as it was when one of its lines ran: whether it had a
//! CUDA compiler (and which CUDA), which packages its installs had named,
//! and which torch. A build log's failed `RUN` ran in one stage, with that
//! stage's own earlier instructions and everything of the stages it is built
//! on; what comes after it, and the other stages, had no part in it.
//!
//! Only what the Dockerfile settles is told: an install inside one branch of
//! a shell `case` or `if`, a requirements file the Dockerfile does not show,
//! a base image the image table does not know, or an install in the failed
//! `RUN` itself (which may have failed before or after it) leaves the answer
//! unknown.

use super::dockerfile::{
    Base, Dockerfile, InstallTool, Stage, TorchRoute, Via, is_path, is_wheel, package_name,
};
use super::images::{self, TorchIn};

/// Whether a stage had nvcc.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compiler {
    pub present: bool,
    /// The toolkit's CUDA where the image tag or the package name gives it
    /// (`12.4.1-devel` → `12.4.1`, `cuda-nvcc-12-4` → `12.4`).
    pub version: Option<String>,
    /// The line that settles it, and why: `Dockerfile:1 (nvidia/cuda
    /// runtime: no nvcc)`.
    pub evidence: String,
}

/// Which torch a stage had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Torch {
    /// No torch: the base image has none and nothing before the line
    /// installs Python packages or copies files in from elsewhere.
    Absent { evidence: String },
    Installed {
        /// The pinned version (`torch==2.5.1` → `2.5.1`), if pinned.
        version: Option<String>,
        /// `Some(None)` a CPU build, `Some(Some("12.4"))` a CUDA 12.4
        /// build, `None` not told.
        cuda: Option<Option<String>>,
        /// `wheel (pip)`, `conda` or `source`, as the machine probe says it.
        install: Option<&'static str>,
        evidence: String,
    },
}

/// Whether the instruction at `at` of `stage` had run when the instruction
/// at `line` of `focus` started: every line of the stages `focus` is built
/// on, and the lines of `focus` before `line`.
pub(super) fn ran(stage: &Stage, focus: &Stage, line: Option<usize>, at: usize) -> bool {
    stage.index != focus.index || line.is_none_or(|l| at < l)
}

/// Whether the line `at` of `stage` is inside its `RUN` that starts at
/// `line`: the failed step itself, which may have failed before or after
/// that line's command ran.
fn in_step(stage: &Stage, line: Option<usize>, at: usize) -> bool {
    line.is_some_and(|start| {
        stage
            .runs
            .iter()
            .any(|&(first, last)| first == start && (first..=last).contains(&at))
    })
}

/// Whether `stage` had a CUDA compiler when its instruction at `line`
/// started (`None`: the whole stage). `None` when the Dockerfile does not
/// settle it: a base image nothing is known about, an install inside one
/// branch of a shell `case` or `if`, or one in the failed step itself.
pub fn compiler(file: &Dockerfile, stage: &Stage, line: Option<usize>) -> Option<Compiler> {
    if stage.installs_nvcc().any(|i| in_step(stage, line, i.line)) {
        return None;
    }
    let mut branched = false;
    for s in file.lineage(stage) {
        for i in s.installs_nvcc().filter(|i| ran(s, stage, line, i.line)) {
            if i.branch.is_some() {
                branched = true;
                continue;
            }
            return Some(Compiler {
                present: true,
                version: i.packages.iter().find_map(|p| toolkit_version(p)),
                evidence: format!(
                    "{}:{} ({} install {})",
                    file.path,
                    i.line,
                    i.tool.name(),
                    i.packages.join(" ")
                ),
            });
        }
    }
    // Installed in one branch of a `case` or `if` only: there when the
    // build takes that branch.
    if branched {
        return None;
    }
    let (from, base) = file.root_base(stage);
    let at = format!("{}:{}", file.path, from.line);
    match base {
        Base::NvidiaCuda {
            version, flavor, ..
        } => Some(Compiler {
            present: flavor.is_devel(),
            version: flavor.is_devel().then(|| version.clone()),
            evidence: format!(
                "{at} (nvidia/cuda {}: {})",
                flavor.name(),
                if flavor.is_devel() {
                    "has nvcc"
                } else {
                    "no nvcc"
                }
            ),
        }),
        Base::Distro { .. } | Base::Scratch => Some(Compiler {
            present: false,
            version: None,
            evidence: format!("{at} ({}: no CUDA compiler)", from.image),
        }),
        Base::Stage { .. } | Base::Unresolved { .. } => None,
        Base::Other => {
            let implied = images::lookup(&from.image)?;
            let present = implied.nvcc?;
            Some(Compiler {
                present,
                version: present
                    .then(|| implied.cuda.known().map(str::to_string))
                    .flatten(),
                evidence: format!("{at}; {}", implied.evidence()),
            })
        }
    }
}

/// `cuda-nvcc-12-4`, `cuda-toolkit-12-4`, `cuda-12-4` → `12.4`.
fn toolkit_version(spec: &str) -> Option<String> {
    let name = package_name(spec);
    let rest = [
        "cuda-nvcc-",
        "cuda-toolkit-",
        "cuda-compiler-",
        "cuda-minimal-build-",
        "cuda-",
    ]
    .iter()
    .find_map(|p| name.strip_prefix(p))?;
    let (major, minor) = rest.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    (digits(major) && digits(minor)).then(|| format!("{major}.{minor}"))
}

/// A package the installs of a stage had put in by a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// An apt package (else a Python or conda one).
    pub apt: bool,
    /// Lower case, `_` as `-`: `flash-attn`.
    pub name: String,
    /// The version the install pins: `==2.7.4`, conda's `=12.4`, apt's `=1.11.1-1`.
    pub version: Option<String>,
    /// `Dockerfile:5 (pip install ninja)`.
    pub evidence: String,
}

/// The packages `stage` had installed, by name, when its instruction at
/// `line` started (`None`: the whole stage): pip, uv, poetry, pipenv,
/// conda and apt-get installs outside shell branches, in the stage and the
/// stages it is built on. Local folders and URLs are left out (their
/// names are not in the command).
pub fn packages(file: &Dockerfile, stage: &Stage, line: Option<usize>) -> Vec<Package> {
    let mut out = Vec::new();
    let mut lineage = file.lineage(stage);
    lineage.reverse();
    for s in lineage {
        for i in s
            .installs
            .iter()
            .filter(|i| i.branch.is_none() && ran(s, stage, line, i.line))
        {
            let apt = i.tool == InstallTool::Apt;
            if !(apt || i.tool.is_python() || i.tool == InstallTool::Conda) {
                continue;
            }
            for spec in &i.packages {
                let spec_text = spec.trim_matches(|c| c == '"' || c == '\'');
                if spec_text.contains("://")
                    || spec_text.starts_with("git+")
                    || (is_path(spec_text) && !is_wheel(spec_text))
                {
                    continue;
                }
                out.push(Package {
                    apt,
                    name: package_name(spec),
                    version: pinned(spec),
                    evidence: format!(
                        "{}:{} ({} install {spec})",
                        file.path,
                        i.line,
                        i.tool.name()
                    ),
                });
            }
        }
    }
    out
}

/// Which torch `stage` had when its instruction at `line` started (`None`:
/// the whole stage); `None` when the Dockerfile does not settle it.
pub fn torch(file: &Dockerfile, stage: &Stage, line: Option<usize>) -> Option<Torch> {
    let (from, base) = file.root_base(stage);
    let at = format!("{}:{}", file.path, from.line);
    let mut state = match base {
        Base::NvidiaCuda { .. } | Base::Distro { .. } | Base::Scratch => Some(Torch::Absent {
            evidence: format!("{at} ({}: no torch)", from.image),
        }),
        Base::Stage { .. } | Base::Unresolved { .. } => None,
        Base::Other => images::lookup(&from.image).and_then(|implied| {
            let evidence = format!("{at}; {}", implied.evidence());
            match implied.torch {
                TorchIn::None => Some(Torch::Absent { evidence }),
                TorchIn::Unknown => None,
                how => Some(Torch::Installed {
                    version: implied.torch_version.known().map(str::to_string),
                    // The image's torch is built for the image's CUDA.
                    cuda: implied.cuda.known().map(|c| Some(c.to_string())),
                    install: Some(match how {
                        TorchIn::Conda => "conda",
                        TorchIn::Source => "source",
                        _ => "wheel (pip)",
                    }),
                    evidence,
                }),
            }
        }),
    };
    // The failed step installs torch itself: it may have failed before or
    // after that.
    let names_torch = |i: &super::dockerfile::Install| i.has("torch") || i.has("pytorch");
    if stage
        .installs
        .iter()
        .any(|i| names_torch(i) && in_step(stage, line, i.line))
    {
        return None;
    }
    let mut lineage = file.lineage(stage);
    lineage.reverse();
    for s in lineage {
        let limit = if s.index == stage.index { line } else { None };
        // Files copied in from another stage or image may hold a torch.
        let copies = s.copies.iter().any(|c| ran(s, stage, line, c.line));
        // A Python install that names no torch: a dependency the table of
        // torch's dependents misses could bring one.
        let python = s.installs.iter().any(|i| {
            (i.tool.is_python() || i.tool == InstallTool::Conda) && ran(s, stage, line, i.line)
        });
        if (copies || python) && matches!(state, Some(Torch::Absent { .. })) {
            state = None;
        }
        for route in file.torch_routes_before(s, limit) {
            state = next(state, route);
        }
    }
    state
}

/// The torch after one more command that brings one.
fn next(state: Option<Torch>, route: TorchRoute) -> Option<Torch> {
    let at = route.at().to_string();
    match route {
        TorchRoute::Named {
            how,
            spec,
            cpu,
            cuda,
            branch: None,
            ..
        } => Some(Torch::Installed {
            version: pinned(&spec),
            cuda: match cpu {
                Some(true) => Some(None),
                Some(false) => cuda.map(Some),
                None => None,
            },
            install: Some(match how {
                Via::Conda => "conda",
                Via::Pip | Via::LocalWheel => "wheel (pip)",
            }),
            evidence: format!("{at} ({spec})"),
        }),
        // Another torch may replace the one there, or none may come.
        _ => match state {
            Some(Torch::Installed { .. }) => Some(Torch::Installed {
                version: None,
                cuda: None,
                install: None,
                evidence: format!("{at} ({})", route.describe()),
            }),
            Some(Torch::Absent { .. })
                if matches!(
                    route,
                    TorchRoute::Dependency { branch: None, .. }
                        | TorchRoute::Source { branch: None, .. }
                ) =>
            {
                Some(Torch::Installed {
                    version: None,
                    cuda: None,
                    install: matches!(route, TorchRoute::Source { .. }).then_some("source"),
                    evidence: format!("{at} ({})", route.describe()),
                })
            }
            _ => None,
        },
    }
}

/// The version a spec pins: `torch==2.5.1+cu124` → `2.5.1+cu124`, conda's
/// `pytorch=2.5.1`, a wheel file `torch-2.5.1+cu124-cp311-….whl`; `None`
/// for a range or no version.
fn pinned(spec: &str) -> Option<String> {
    let spec = spec.trim_matches(|c| c == '"' || c == '\'');
    if spec.to_ascii_lowercase().ends_with(".whl") {
        let file = spec.rsplit('/').next()?;
        let version = file.split('-').nth(1)?;
        return Some(version.replace("%2B", "+").replace("%2b", "+"));
    }
    let name_end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(spec.len());
    let rest = spec[name_end..].trim_start();
    // Extras first: `torch[opt]==2.5.1`.
    let rest = match rest.strip_prefix('[') {
        Some(r) => r.split_once(']')?.1.trim_start(),
        None => rest,
    };
    let version = rest
        .strip_prefix("===")
        .or_else(|| rest.strip_prefix("=="))
        .or_else(|| rest.strip_prefix('='))?
        .trim();
    let version = version.split([',', ';', ' ', '=']).next()?;
    let exact = !version.is_empty()
        && version.starts_with(|c: char| c.is_ascii_digit())
        && !version.contains('*');
    exact.then(|| version.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::dockerfile::parse_dockerfile;

    fn parse(text: &str) -> Dockerfile {
        parse_dockerfile("Dockerfile", text.as_bytes()).0
    }

    #[test]
    fn pinned_versions() {
        assert_eq!(pinned("torch==2.5.1+cu124").as_deref(), Some("2.5.1+cu124"));
        assert_eq!(pinned("\"torch[opt]==2.5.1\"").as_deref(), Some("2.5.1"));
        assert_eq!(pinned("pytorch=2.1.0").as_deref(), Some("2.1.0"));
        assert_eq!(
            pinned("/wheels/torch-2.5.1%2Bcu124-cp311-cp311-linux_x86_64.whl").as_deref(),
            Some("2.5.1+cu124")
        );
        assert_eq!(pinned("torch>=2.1"), None);
        assert_eq!(pinned("torch==2.*"), None);
        assert_eq!(pinned("torch"), None);
    }

    #[test]
    fn toolkit_versions_from_package_names() {
        assert_eq!(toolkit_version("cuda-nvcc-12-4").as_deref(), Some("12.4"));
        assert_eq!(
            toolkit_version("cuda-toolkit-13-0=13.0.1-1").as_deref(),
            Some("13.0")
        );
        assert_eq!(toolkit_version("cuda-toolkit"), None);
        assert_eq!(toolkit_version("nvidia-cuda-toolkit"), None);
    }

    /// Pattern: a multi-stage build, a `-devel` builder stage and a
    /// `-runtime` final stage. A line of the builder ran with nvcc and the
    /// builder's torch; the final stage has neither compiler nor install.
    #[test]
    fn the_stage_that_holds_a_line_as_it_was_then() {
        let file = parse(
            "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n\
             RUN apt-get update && apt-get install -y python3-pip\n\
             RUN pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124\n\
             RUN pip install flash-attn --no-build-isolation\n\
             RUN pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cpu\n\
             FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
             RUN apt-get install -y cuda-nvcc-12-4\n",
        );
        let build = file.stage_at(4).unwrap();
        assert_eq!(build.index, 0);
        let c = compiler(&file, build, Some(4)).unwrap();
        assert!(c.present);
        assert_eq!(c.version.as_deref(), Some("12.4.1"));
        assert_eq!(
            torch(&file, build, Some(4)),
            Some(Torch::Installed {
                version: Some("2.5.1".into()),
                cuda: Some(Some("12.4".into())),
                install: Some("wheel (pip)"),
                evidence: "Dockerfile:3 (torch==2.5.1)".into(),
            })
        );
        // The whole stage: the later CPU install wins.
        let Some(Torch::Installed { cuda, .. }) = torch(&file, build, None) else {
            panic!()
        };
        assert_eq!(cuda, Some(None));
        // When line 2 ran, nothing had installed torch and the nvidia/cuda
        // image has none; line 3 installs it itself, so for it torch is not
        // told.
        assert!(matches!(
            torch(&file, build, Some(2)),
            Some(Torch::Absent { .. })
        ));
        assert_eq!(torch(&file, build, Some(3)), None);

        let last = file.stage_at(7).unwrap();
        assert_eq!(last.index, 1);
        // Line 7 installs nvcc itself: not told for it. At its FROM the
        // runtime image had none.
        assert_eq!(compiler(&file, last, Some(7)), None);
        let before = compiler(&file, last, Some(6)).unwrap();
        assert!(!before.present, "{before:?}");
        assert_eq!(
            before.evidence,
            "Dockerfile:6 (nvidia/cuda runtime: no nvcc)"
        );
        let after = compiler(&file, last, None).unwrap();
        assert!(after.present);
        assert_eq!(after.version.as_deref(), Some("12.4"));
    }

    /// Pattern: the failed `RUN` installs the compiler or torch itself
    /// (`apt-get install cuda-nvcc-12-4 && pip install flash-attn`): which
    /// of its commands failed is not in the log, so neither is told.
    #[test]
    fn what_the_failed_step_installs_itself_is_unknown() {
        let file = parse(
            "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n\
             RUN apt-get update && apt-get install -y python3-pip cuda-nvcc-12-4 \\\n\
             && pip install torch==2.5.1 flash-attn\n\
             RUN echo done\n",
        );
        let stage = &file.stages[0];
        assert_eq!(stage.runs, [(2, 3), (4, 4)]);
        assert_eq!(compiler(&file, stage, Some(2)), None);
        assert_eq!(torch(&file, stage, Some(2)), None);
        // The step after it had both.
        assert!(compiler(&file, stage, Some(4)).unwrap().present);
        assert!(matches!(
            torch(&file, stage, Some(4)),
            Some(Torch::Installed { .. })
        ));
    }

    #[test]
    fn packages_installed_before_the_line() {
        let file = parse(
            "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\n\
             RUN apt-get install -y ninja-build=1.10.1-1 && pip install \"ninja==1.11.1\" ./local git+https://github.com/x/y\n\
             RUN if [ \"$A\" = 1 ]; then pip install packaging; fi\n\
             FROM build\n\
             RUN pip install flash-attn\n\
             RUN pip install wheel\n",
        );
        let shown: Vec<(bool, String, Option<String>)> =
            packages(&file, file.stage_at(5).unwrap(), Some(5))
                .into_iter()
                .map(|p| (p.apt, p.name, p.version))
                .collect();
        assert_eq!(
            shown,
            [
                (true, "ninja-build".into(), Some("1.10.1-1".into())),
                (false, "ninja".into(), Some("1.11.1".into())),
            ]
        );
    }

    #[test]
    fn torch_is_unknown_where_the_file_does_not_settle_it() {
        let file = parse(
            "FROM python:3.11\n\
             RUN pip install -r requirements.txt\n\
             RUN echo\n\
             FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04 AS two\n\
             COPY --from=0 /usr/local/lib/python3.11 /usr/local/lib/python3.11\n\
             RUN echo\n\
             FROM pytorch/pytorch:2.1.0-cuda11.8-cudnn8-devel\n\
             RUN pip install xformers\n\
             RUN echo\n",
        );
        assert_eq!(torch(&file, &file.stages[0], Some(3)), None);
        assert_eq!(torch(&file, &file.stages[1], Some(6)), None);
        assert!(matches!(
            torch(&file, &file.stages[1], Some(5)),
            Some(Torch::Absent { .. })
        ));
        // The image table's torch (conda, before 2.5), then xformers, which
        // may replace it.
        let Some(Torch::Installed {
            version,
            cuda,
            install,
            ..
        }) = torch(&file, &file.stages[2], Some(8))
        else {
            panic!()
        };
        assert_eq!(version.as_deref(), Some("2.1.0"));
        assert_eq!(cuda, Some(Some("11.8".into())));
        assert_eq!(install, Some("conda"));
        assert!(matches!(
            torch(&file, &file.stages[2], Some(9)),
            Some(Torch::Installed {
                version: None,
                cuda: None,
                ..
            })
        ));
    }
}
