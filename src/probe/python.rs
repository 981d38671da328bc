//! PyTorch and NVIDIA's pip wheels in the Python environments of a root.
//!
//! Environments are searched in the usual places (system and `/usr/local`
//! Pythons, `~/.local`, conda under `/opt/conda` and friends, common venv
//! folders, and on the machine `$VIRTUAL_ENV` and `$CONDA_PREFIX`). In each
//! `site-packages`:
//! - `torch/version.py` gives `__version__` and `cuda` (None on a CPU build);
//! - how torch got there: `conda-meta/pytorch-*.json` in the environment, or
//!   a `torch-*.dist-info` whose `INSTALLER` says `conda`, is conda;
//!   `torch.egg-link`, `__editable__.torch-*`, a `torch-*.egg-info`, a
//!   `direct_url.json` naming a local folder, or a `…a0+git…` version is a
//!   source build; another `INSTALLER` (`pip`, `uv` …) is a wheel;
//! - `nvidia_*_cu12-*.dist-info` are NVIDIA's wheels, whose libraries sit in
//!   `nvidia/<package>/lib/`.

use serde::Serialize;

use super::fs::Root;
use super::system::{note_error, read_text, size};
use super::{Found, MAX_ENTRIES, Note, RootFacts, SMALL_FILE};

/// Python environments searched, at most, so a machine with hundreds of
/// venvs under /home stays fast.
const MAX_ENVIRONMENTS: usize = 64;

/// Where Python packages live; `*` matches within one path component.
const SITE_PATTERNS: &[&str] = &[
    "/usr/lib/python3/dist-packages",
    "/usr/lib/python3*/site-packages",
    "/usr/local/lib/python3*/site-packages",
    "/usr/local/lib/python3*/dist-packages",
    "/opt/conda/lib/python3*/site-packages",
    "/opt/conda/envs/*/lib/python3*/site-packages",
    "/opt/miniconda3/lib/python3*/site-packages",
    "/opt/miniforge3/lib/python3*/site-packages",
    "/root/miniconda3/lib/python3*/site-packages",
    "/root/.local/lib/python3*/site-packages",
    "/home/*/.local/lib/python3*/site-packages",
    "/opt/venv/lib/python3*/site-packages",
    "/venv/lib/python3*/site-packages",
    "/.venv/lib/python3*/site-packages",
    "/app/.venv/lib/python3*/site-packages",
    "/workspace/.venv/lib/python3*/site-packages",
];

/// One torch installation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Torch {
    /// The site-packages folder it is in.
    pub site: String,
    /// The torch package folder, as shown to the user.
    pub dir: String,
    pub version: Option<Found<String>>,
    /// `torch.version.cuda`: `Some("12.4")`, or `None` for a CPU build.
    pub cuda: Option<Found<Option<String>>>,
    pub install: Option<Found<TorchInstall>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TorchInstall {
    /// A wheel installed by pip (or uv, poetry …: `INSTALLER` names it).
    Wheel {
        installer: String,
    },
    Conda,
    Source,
}

impl std::fmt::Display for TorchInstall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TorchInstall::Wheel { installer } => write!(f, "wheel ({installer})"),
            TorchInstall::Conda => write!(f, "conda"),
            TorchInstall::Source => write!(f, "source"),
        }
    }
}

/// One of NVIDIA's `nvidia-*-cu12` (or cu11, cu13) wheels.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wheel {
    /// `nvidia-cuda-cupti-cu12`
    pub name: String,
    pub version: String,
    /// Its `.dist-info` folder.
    pub evidence: String,
    /// Shared libraries in `nvidia/<package>/lib/`.
    pub libs: Vec<String>,
    /// That folder, as shown to the user.
    pub lib_dir: String,
    /// The folder inside the root, for the CUPTI search.
    pub(super) lib_dir_inside: String,
}

pub(super) fn probe(root: &Root, facts: &mut RootFacts, notes: &mut Vec<Note>) {
    let mut patterns: Vec<String> = SITE_PATTERNS.iter().map(|p| p.to_string()).collect();
    if root.is_live() {
        for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
            if let Some(prefix) = std::env::var_os(var).and_then(|v| v.into_string().ok())
                && prefix.starts_with('/')
            {
                patterns.push(format!(
                    "{}/lib/python3*/site-packages",
                    prefix.trim_end_matches('/')
                ));
            }
        }
    }
    let mut seen = Vec::new();
    for pattern in &patterns {
        for site in root.expand(pattern) {
            let Ok(real) = root.real(&site) else { continue };
            if seen.contains(&real) {
                continue;
            }
            if seen.len() == MAX_ENVIRONMENTS {
                notes.push(Note {
                    path: root.show(&site),
                    line: None,
                    message: format!(
                        "more than {MAX_ENVIRONMENTS} Python environments; the rest were not searched"
                    ),
                });
                return;
            }
            seen.push(real);
            site_packages(root, &site, facts, notes);
        }
    }
}

fn site_packages(root: &Root, site: &str, facts: &mut RootFacts, notes: &mut Vec<Note>) {
    let listing = match root.list(site, MAX_ENTRIES) {
        Ok(listing) => listing,
        Err(err) => {
            note_error(root, site, &err, notes);
            return;
        }
    };
    if listing.truncated {
        notes.push(Note {
            path: root.show(site),
            line: None,
            message: format!("more than {MAX_ENTRIES} entries; the rest were not read"),
        });
    }
    let names = &listing.names;
    if names.iter().any(|n| n == "torch") {
        let version_py = format!("{site}/torch/version.py");
        match root.real(&version_py) {
            Ok(_) => facts.torch.push(torch(root, site, names, notes)),
            Err(err) => note_error(root, &version_py, &err, notes),
        }
    }
    for name in names {
        if let Some(wheel) = nvidia_wheel(root, site, name, notes) {
            facts.wheels.push(wheel);
        }
    }
}

fn torch(root: &Root, site: &str, names: &[String], notes: &mut Vec<Note>) -> Torch {
    let version_py = format!("{site}/torch/version.py");
    let shown = root.show(&version_py);
    let mut version = None;
    let mut cuda = None;
    if let Some(text) = read_text(root, &version_py, SMALL_FILE, notes) {
        for (i, line) in text.lines().enumerate() {
            let at = format!("{shown}:{}", i + 1);
            if let Some(value) = assignment(line, "__version__") {
                version = value.map(|v| Found::new(v, at));
            } else if let Some(value) = assignment(line, "cuda") {
                cuda = Some(Found::new(value, at));
            }
        }
        if version.is_none() {
            notes.push(Note {
                path: shown.clone(),
                line: None,
                message: "no `__version__ = '…'` line".into(),
            });
        }
    }
    let install = torch_install(root, site, names, version.as_ref(), notes);
    Torch {
        site: root.show(site),
        dir: root.show(&format!("{site}/torch")),
        version,
        cuda,
        install,
    }
}

/// `name = 'value'`, `name: Optional[str] = 'value'` or `name = None`:
/// `Some(Some(value))`, `Some(None)` for None, `None` when the line assigns
/// something else.
fn assignment(line: &str, name: &str) -> Option<Option<String>> {
    let rest = line.strip_prefix(name)?;
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix(':') {
        Some(annotated) => annotated.split_once('=')?.1,
        None => rest.strip_prefix('=')?,
    };
    let value = rest.trim();
    if value == "None" {
        return Some(None);
    }
    let quote = value.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let inner = &value[1..];
    let end = inner.find(quote)?;
    Some(Some(inner[..end].to_string()))
}

fn torch_install(
    root: &Root,
    site: &str,
    names: &[String],
    version: Option<&Found<String>>,
    notes: &mut Vec<Note>,
) -> Option<Found<TorchInstall>> {
    // site = PREFIX/lib/pythonX.Y/site-packages: conda records live in
    // PREFIX/conda-meta.
    let prefix = site.rsplitn(4, '/').nth(3).unwrap_or("");
    let conda_meta = format!("{prefix}/conda-meta");
    if let Ok(listing) = root.list(&conda_meta, MAX_ENTRIES) {
        for name in &listing.names {
            if conda_package_name(name).is_some_and(|n| n == "pytorch") {
                let path = format!("{conda_meta}/{name}");
                return Some(Found::new(TorchInstall::Conda, root.show(&path)));
            }
        }
    }
    for name in names {
        let path = format!("{site}/{name}");
        let source = name == "torch.egg-link"
            || (name.starts_with("__editable__.torch-") || name.starts_with("__editable___torch_"))
            || (name.starts_with("torch-")
                && (name.ends_with(".egg-info") || name.ends_with(".egg")));
        if source {
            return Some(Found::new(TorchInstall::Source, root.show(&path)));
        }
    }
    let dist_info = names
        .iter()
        .find(|n| n.starts_with("torch-") && n.ends_with(".dist-info"));
    if let Some(dist_info) = dist_info {
        let dir = format!("{site}/{dist_info}");
        let direct_url = format!("{dir}/direct_url.json");
        if root.exists(&direct_url)
            && let Some(text) = read_text(root, &direct_url, SMALL_FILE, notes)
            && let Ok(json) = serde_json::from_str::<serde_json::Value>(&text)
        {
            let local = json["url"].as_str().is_some_and(|u| u.starts_with("file:"));
            if json.get("dir_info").is_some() && local {
                return Some(Found::new(TorchInstall::Source, root.show(&direct_url)));
            }
        }
        check_metadata(root, &dir, notes);
        let installer_path = format!("{dir}/INSTALLER");
        if root.exists(&installer_path)
            && let Some(text) = read_text(root, &installer_path, 1024, notes)
        {
            let installer = text.lines().next().unwrap_or("").trim().to_string();
            let evidence = format!("{}:1", root.show(&installer_path));
            if installer == "conda" {
                return Some(Found::new(TorchInstall::Conda, evidence));
            }
            if !installer.is_empty() && !is_source_version(version) {
                return Some(Found::new(TorchInstall::Wheel { installer }, evidence));
            }
        }
    }
    if let Some(v) = version
        && is_source_version(Some(v))
    {
        return Some(Found {
            value: TorchInstall::Source,
            evidence: v.evidence.clone(),
        });
    }
    None
}

/// `2.5.0a0+git1234abc`: the version a build from a checkout reports.
fn is_source_version(version: Option<&Found<String>>) -> bool {
    version.is_some_and(|v| v.value.contains("+git"))
}

/// The package name of a conda-meta record file: `pytorch` for
/// `pytorch-2.5.1-py3.11_cuda12.4_cudnn9.1.0_0.json` (version and build
/// never contain `-`, names may).
pub(super) fn conda_package_name(file: &str) -> Option<&str> {
    let stem = file.strip_suffix(".json")?;
    let mut parts = stem.rsplitn(3, '-');
    let _build = parts.next()?;
    let _version = parts.next()?;
    parts.next()
}

/// Reads the head of `METADATA` for its `Version:` header, so a damaged or
/// absurd file (a sparse 1 GB one) is reported rather than trusted.
fn check_metadata(root: &Root, dist_info: &str, notes: &mut Vec<Note>) {
    let path = format!("{dist_info}/METADATA");
    let Ok(bytes) = root.read(&path, SMALL_FILE) else {
        return;
    };
    let text = String::from_utf8_lossy(&bytes.data);
    let has_version = text
        .lines()
        .take_while(|l| !l.is_empty())
        .any(|l| l.starts_with("Version:"));
    if !has_version {
        let mut message = format!("no `Version:` header in the first {}", size(SMALL_FILE));
        if bytes.truncated {
            message.push_str(&format!(" (the file is {})", size(bytes.size)));
        }
        message.push_str("; the version is taken from the folder name");
        notes.push(Note {
            path: root.show(&path),
            line: Some(1),
            message,
        });
    }
}

fn nvidia_wheel(root: &Root, site: &str, name: &str, notes: &mut Vec<Note>) -> Option<Wheel> {
    let stem = name.strip_suffix(".dist-info")?;
    let (dist, version) = stem.split_once('-')?;
    let package = dist.strip_prefix("nvidia_")?;
    let package = ["_cu11", "_cu12", "_cu13"]
        .iter()
        .find_map(|s| package.strip_suffix(s))?;
    let lib_dir_inside = format!("{site}/nvidia/{package}/lib");
    let libs = match root.list(&lib_dir_inside, MAX_ENTRIES) {
        Ok(listing) => listing
            .names
            .into_iter()
            .filter(|n| n.contains(".so"))
            .collect(),
        Err(err) => {
            note_error(root, &lib_dir_inside, &err, notes);
            Vec::new()
        }
    };
    check_metadata(root, &format!("{site}/{name}"), notes);
    Some(Wheel {
        name: dist.replace('_', "-"),
        version: version.to_string(),
        evidence: root.show(&format!("{site}/{name}")),
        libs,
        lib_dir: root.show(&lib_dir_inside),
        lib_dir_inside,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_py_assignments() {
        assert_eq!(
            assignment("__version__ = '2.5.1+cu124'", "__version__"),
            Some(Some("2.5.1+cu124".into()))
        );
        assert_eq!(
            assignment("cuda: Optional[str] = '12.4'", "cuda"),
            Some(Some("12.4".into()))
        );
        assert_eq!(assignment("cuda: Optional[str] = None", "cuda"), Some(None));
        assert_eq!(assignment("cuda = None", "cuda"), Some(None));
        assert_eq!(assignment("cudnn = '9'", "cuda"), None);
        assert_eq!(assignment("debug = False", "debug"), None);
    }

    #[test]
    fn conda_record_names() {
        assert_eq!(
            conda_package_name("pytorch-2.5.1-py3.11_cuda12.4_cudnn9.1.0_0.json"),
            Some("pytorch")
        );
        assert_eq!(
            conda_package_name("cuda-cupti-12.4.127-0.json"),
            Some("cuda-cupti")
        );
        assert_eq!(conda_package_name("history"), None);
    }
}
