//! PyTorch and NVIDIA's pip wheels in the Python environments of a root
//! (`envs` finds the environments). In each site folder:
//! - `torch/version.py` gives `__version__` and `cuda` (None on a CPU build);
//! - how torch got there: `conda-meta/pytorch-*.json` in the environment, or
//!   a `torch-*.dist-info` whose `INSTALLER` says `conda`, is conda;
//!   `torch.egg-link`, `__editable__.torch-*`, a `torch-*.egg-info`, a
//!   `direct_url.json` naming a local folder, or a `…a0+git…` version is a
//!   source build; another `INSTALLER` (`pip`, `uv` …) is a wheel. Evidence
//!   for conda beside evidence for pip or a source build is a dispute, shown
//!   with both sides, never settled by a guess;
//! - NVIDIA's library wheels: `nvidia_*_cu12-*.dist-info` (and cu11, cu13),
//!   and CUDA 13's suffixless `nvidia_*-13.*.dist-info`. Their `RECORD` says
//!   which libraries each installed and where (`nvidia/cuda_cupti/lib/`,
//!   CUDA 13's shared `nvidia/cu13/lib/`), so a listed file that is missing
//!   is seen; without a `RECORD`, `nvidia/<package>/lib/` is listed. A
//!   suffixless wheel counts when it installed a library or anything under
//!   `nvidia/cuNN/` (CUDA 13's nvcc wheel has no library); nvidia-ml-py's
//!   lone `pynvml.py` does not;
//! - `cuda_toolkit-*.dist-info`, the metapackage CUDA 13 torch wheels
//!   depend on.

use serde::Serialize;

use super::envs;
use super::fs::Root;
use super::system::{note_error, read_text, size};
use super::{Environment, Found, MAX_ENTRIES, Note, RootFacts, SMALL_FILE};

/// A wheel's `RECORD` lists every file it installed: a few KB for NVIDIA's
/// wheels; far above that is not one.
const RECORD_CAP: u64 = 1024 * 1024;

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
    /// Other evidence about how torch got there that contradicts `install`
    /// (a conda record beside a dist-info that uv wrote).
    pub install_disputed: Vec<Found<TorchInstall>>,
    /// A version that contradicts `version`: the dist-info folder's, when
    /// its public part differs from `__version__`'s.
    pub version_disputed: Option<Found<String>>,
    /// A CUDA version that contradicts `cuda`: the `+cuXYZ` tag of
    /// `__version__`.
    pub cuda_disputed: Option<Found<Option<String>>>,
    /// The site folder inside the root, symlinks resolved.
    #[serde(skip)]
    pub(super) site_real: String,
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

impl TorchInstall {
    /// `pip`, `conda` or `source`: the answer a question about it takes.
    pub fn route(&self) -> &'static str {
        match self {
            TorchInstall::Wheel { .. } => "pip",
            TorchInstall::Conda => "conda",
            TorchInstall::Source => "source",
        }
    }
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

/// One of NVIDIA's library wheels: `nvidia-cuda-cupti-cu12`, or CUDA 13's
/// suffixless `nvidia-cuda-cupti`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Wheel {
    /// `nvidia-cuda-cupti-cu12`
    pub name: String,
    pub version: String,
    /// Its `.dist-info` folder.
    pub evidence: String,
    /// The CUDA major version it is built for (`12`, `13`): the `-cuNN`
    /// suffix, the `nvidia/cuNN/` folder its libraries are in, or for a
    /// suffixless `nvidia-cuda-*` wheel its own major version.
    pub cuda: Option<String>,
    /// Shared libraries it installed that are there, file names.
    pub libs: Vec<String>,
    /// The folder they are in, as shown to the user.
    pub lib_dir: String,
    /// Libraries its `RECORD` lists that are not there, each with the
    /// `RECORD` line.
    pub missing: Vec<Found<String>>,
    /// The `RECORD` the libraries were read from, when there is one.
    pub record: Option<String>,
    /// The `nvcc` its `RECORD` installs (CUDA 13's `nvidia-cuda-nvcc` puts
    /// one in `nvidia/cu13/bin`; CUDA 12's `nvidia-cuda-nvcc-cu12` has only
    /// `ptxas`), when it is there: a compiler outside any toolkit folder and
    /// off `$PATH`, which `CUDA_HOME` can be pointed at.
    pub nvcc: Option<Found<String>>,
    /// The folder inside the root, for the CUPTI search.
    pub(super) lib_dir_inside: String,
}

pub(super) fn probe(
    root: &Root,
    env: Option<&Environment>,
    named: &[envs::NamedEnv],
    facts: &mut RootFacts,
    notes: &mut Vec<Note>,
) {
    let (found, mut on_path) = envs::find(root, env, named, notes);
    let mut seen: Vec<String> = Vec::new();
    for e in &found {
        for site in &e.sites {
            let Ok(real) = root.real(site) else { continue };
            if seen.contains(&real) {
                continue;
            }
            seen.push(real.clone());
            site_packages(root, site, &real, facts, notes);
        }
    }
    if let Some(python) = on_path.as_mut() {
        python.torch = python.sites_real.iter().find_map(|site| {
            let t = facts.torch.iter().find(|t| t.site_real == *site)?;
            let mut evidence = python.exe.evidence.clone();
            if let Some(v) = &t.version {
                evidence.extend(v.evidence.clone());
            }
            Some(Found {
                value: t.dir.clone(),
                evidence,
            })
        });
    }
    facts.python_envs = found;
    facts.python3 = on_path;
}

fn site_packages(
    root: &Root,
    site: &str,
    real: &str,
    facts: &mut RootFacts,
    notes: &mut Vec<Note>,
) {
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
            Ok(_) => {
                let mut t = torch(root, site, names, notes);
                t.site_real = real.to_string();
                facts.torch.push(t);
            }
            Err(err) => note_error(root, &version_py, &err, notes),
        }
    }
    for name in names {
        if let Some(wheel) = nvidia_wheel(root, site, name, notes) {
            facts.wheels.push(wheel);
        } else if let Some(version) = name
            .strip_prefix("cuda_toolkit-")
            .and_then(|rest| rest.strip_suffix(".dist-info"))
        {
            facts.toolkit_wheels.push(Found::new(
                version.to_string(),
                root.show(&format!("{site}/{name}")),
            ));
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
    let (install, install_disputed) = torch_install(root, site, names, version.as_ref(), notes);
    let dist_info = names
        .iter()
        .find(|n| n.starts_with("torch-") && n.ends_with(".dist-info"));
    // The dist-info folder is named by the version pip recorded; a
    // `version.py` that says otherwise means two installs overlaid.
    let version_disputed = match (&version, dist_info) {
        (Some(v), Some(folder)) => {
            let recorded = &folder["torch-".len()..folder.len() - ".dist-info".len()];
            (public(recorded) != public(&v.value))
                .then(|| Found::new(recorded.to_string(), root.show(&format!("{site}/{folder}"))))
        }
        _ => None,
    };
    // `2.5.1+cu124` names the CUDA it was built for; `cuda = '12.4'` must agree.
    let cuda_disputed = version.as_ref().and_then(|v| {
        let tagged = cuda_of_tag(&v.value)?;
        let said = cuda.as_ref()?;
        let agrees = match (&tagged, &said.value) {
            (Some(t), Some(s)) => major_minor(s) == *t,
            (None, None) => true,
            _ => false,
        };
        (!agrees).then(|| Found {
            value: tagged,
            evidence: v.evidence.clone(),
        })
    });
    Torch {
        site: root.show(site),
        dir: root.show(&format!("{site}/torch")),
        version,
        cuda,
        install,
        install_disputed,
        version_disputed,
        cuda_disputed,
        site_real: String::new(),
    }
}

/// `2.5.1` of `2.5.1+cu124`.
fn public(version: &str) -> &str {
    version.split('+').next().unwrap_or(version)
}

/// `12.4` of `12.4.131`.
fn major_minor(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

/// What a local version tag says of CUDA: `+cu124` is `Some(Some("12.4"))`,
/// `+cpu` is `Some(None)`; no tag (or another one, `+git…`) says nothing.
fn cuda_of_tag(version: &str) -> Option<Option<String>> {
    let tag = version.split_once('+')?.1;
    if tag == "cpu" || tag.starts_with("cpu.") {
        return Some(None);
    }
    cuda_of_build(tag).map(Some)
}

/// The CUDA a PyTorch build name stands for, as a wheel tag or an index
/// folder names it: `cu124` → `12.4`, `cu130` → `13.0`, `cu92` → `9.2`.
pub(super) fn cuda_of_build(build: &str) -> Option<String> {
    let digits = build.strip_prefix("cu")?;
    if !(2..=3).contains(&digits.len()) || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    Some(format!("{major}.{minor}"))
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

/// How torch got into `site`, and evidence that contradicts it. Conda on one
/// side and pip or a source build on the other is a dispute; a source build
/// that pip installed (`pip install .`, `-e .`) is not.
fn torch_install(
    root: &Root,
    site: &str,
    names: &[String],
    version: Option<&Found<String>>,
    notes: &mut Vec<Note>,
) -> (Option<Found<TorchInstall>>, Vec<Found<TorchInstall>>) {
    let mut conda: Vec<String> = Vec::new();
    let mut source: Vec<String> = Vec::new();
    let mut wheel: Option<Found<TorchInstall>> = None;
    // site = PREFIX/lib/pythonX.Y/site-packages: conda records live in
    // PREFIX/conda-meta.
    let prefix = site.rsplitn(4, '/').nth(3).unwrap_or("");
    let conda_meta = format!("{prefix}/conda-meta");
    if let Ok(listing) = root.list(&conda_meta, MAX_ENTRIES)
        && let Some(name) = listing
            .names
            .iter()
            .find(|n| conda_package_name(n).is_some_and(|p| p == "pytorch"))
    {
        conda.push(root.show(&format!("{conda_meta}/{name}")));
    }
    for name in names {
        let marker = name == "torch.egg-link"
            || (name.starts_with("__editable__.torch-") || name.starts_with("__editable___torch_"))
            || (name.starts_with("torch-")
                && (name.ends_with(".egg-info") || name.ends_with(".egg")));
        if marker {
            source.push(root.show(&format!("{site}/{name}")));
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
                source.push(root.show(&direct_url));
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
                conda.push(evidence);
            } else if !installer.is_empty() {
                wheel = Some(Found::new(TorchInstall::Wheel { installer }, evidence));
            }
        }
    }
    if let Some(v) = version
        && is_source_version(Some(v))
    {
        source.extend(v.evidence.clone());
    }
    let conda = (!conda.is_empty()).then_some(Found {
        value: TorchInstall::Conda,
        evidence: conda,
    });
    let source = (!source.is_empty()).then_some(Found {
        value: TorchInstall::Source,
        evidence: source,
    });
    // pip wrote the files of a source build it installed: that is a source
    // build, and INSTALLER is part of its evidence.
    let pip_side = match (source, wheel) {
        (Some(mut s), Some(w)) => {
            s.evidence.extend(w.evidence);
            Some(s)
        }
        (s, w) => s.or(w),
    };
    match (pip_side, conda) {
        (Some(p), Some(c)) => (Some(p), vec![c]),
        (p, c) => (p.or(c), Vec::new()),
    }
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
    let suffixed = ["_cu11", "_cu12", "_cu13"]
        .iter()
        .find_map(|s| package.strip_suffix(s).map(|p| (p, s[3..].to_string())));
    let (package, mut cuda) = match suffixed {
        Some((p, c)) => (p, Some(c)),
        None => (package, None),
    };
    let dist_info = format!("{site}/{name}");
    let record_path = format!("{dist_info}/RECORD");
    // (path inside the site, RECORD line) of each shared library.
    let mut listed: Vec<(String, Option<usize>)> = Vec::new();
    let mut record = None;
    // The CUDA major of the `nvidia/cuNN/` folder its RECORD installs into.
    let mut record_cuda = None;
    let mut nvcc = None;
    if root.exists(&record_path)
        && let Some(text) = read_text(root, &record_path, RECORD_CAP, notes)
    {
        record = Some(root.show(&record_path));
        listed = record_libraries(&text)
            .into_iter()
            .map(|(p, l)| (p, Some(l)))
            .collect();
        record_cuda = record_cuda_folder(&text);
        nvcc = record_nvcc(&text).and_then(|(path, line)| {
            let inside = format!("{site}/{path}");
            root.exists(&inside).then(|| Found {
                value: root.show(&inside),
                evidence: vec![format!("{}:{line}", root.show(&record_path))],
            })
        });
    } else {
        let dir = format!("nvidia/{package}/lib");
        if let Ok(listing) = root.list(&format!("{site}/{dir}"), MAX_ENTRIES) {
            listed = listing
                .names
                .into_iter()
                .filter(|n| n.contains(".so"))
                .map(|n| (format!("{dir}/{n}"), None))
                .collect();
        }
    }
    if cuda.is_none() {
        cuda = listed
            .iter()
            .find_map(|(p, _)| {
                p.split('/')
                    .find_map(|c| c.strip_prefix("cu").filter(|d| is_number(d)))
                    .map(str::to_string)
            })
            .or(record_cuda);
    }
    // A suffixless `nvidia_*` that installed no library and nothing under
    // `nvidia/cuNN/` (nvidia-ml-py's `pynvml.py`) is not one of the CUDA
    // wheels; CUDA 13's nvcc wheel (`nvidia/cu13/bin/nvcc`, no library) is.
    if listed.is_empty() && cuda.is_none() {
        return None;
    }
    if cuda.is_none() && package.starts_with("cuda_") {
        cuda = version.split('.').next().map(str::to_string);
    }
    let mut libs = Vec::new();
    let mut missing = Vec::new();
    let mut lib_dir = String::new();
    let mut dirs: Vec<(String, Vec<String>)> = Vec::new();
    for (path, line) in &listed {
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let dir = format!("{site}/{dir}");
        if lib_dir.is_empty() {
            lib_dir = dir.clone();
        }
        // One listing per folder, not one lookup per file.
        let present = match dirs.iter().find(|(d, _)| *d == dir) {
            Some((_, names)) => names.iter().any(|n| n == file),
            None => {
                let names = root
                    .list(&dir, MAX_ENTRIES)
                    .map(|l| l.names)
                    .unwrap_or_default();
                let present = names.iter().any(|n| n == file);
                dirs.push((dir.clone(), names));
                present
            }
        };
        if present {
            libs.push(file.to_string());
        } else {
            let at = match (line, &record) {
                (Some(l), Some(r)) => format!("{r}:{l}"),
                _ => root.show(&dist_info),
            };
            missing.push(Found {
                value: root.show(&format!("{site}/{path}")),
                evidence: vec![at, format!("{}: not there", root.show(&dir))],
            });
        }
    }
    if lib_dir.is_empty() {
        lib_dir = format!("{site}/nvidia/{package}/lib");
    }
    check_metadata(root, &dist_info, notes);
    Some(Wheel {
        name: dist.replace('_', "-"),
        version: version.to_string(),
        evidence: root.show(&dist_info),
        cuda,
        libs,
        lib_dir: root.show(&lib_dir),
        missing,
        record,
        nvcc,
        lib_dir_inside: lib_dir,
    })
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `13` when a wheel's `RECORD` installs files under `nvidia/cu13/`, the
/// folder CUDA 13's wheels share (libraries, `bin/nvcc`, headers).
fn record_cuda_folder(text: &str) -> Option<String> {
    record_paths(text).find_map(|(path, _)| {
        let rest = path.strip_prefix("nvidia/cu")?;
        let (digits, _) = rest.split_once('/')?;
        is_number(digits).then(|| digits.to_string())
    })
}

/// Each path a wheel's `RECORD` lists, with its line number. A line is
/// `path,hash,size`; a path holding a comma is quoted. Paths leading out of
/// the site folder (`..`) are left out.
fn record_paths(text: &str) -> impl Iterator<Item = (&str, usize)> {
    text.lines().enumerate().filter_map(|(i, line)| {
        let path = match line.strip_prefix('"') {
            Some(quoted) => quoted.split_once('"').map_or(quoted, |(p, _)| p),
            None => line.split(',').next().unwrap_or(""),
        };
        (!path.contains("..")).then_some((path, i + 1))
    })
}

/// The `nvidia/…/bin/nvcc` a wheel's `RECORD` lists, with its line.
fn record_nvcc(text: &str) -> Option<(String, usize)> {
    record_paths(text)
        .find(|(path, _)| path.starts_with("nvidia/") && path.ends_with("/bin/nvcc"))
        .map(|(path, line)| (path.to_string(), line))
}

/// The shared libraries a wheel's `RECORD` lists under `nvidia/…/lib/`:
/// (path inside the site folder, line).
fn record_libraries(text: &str) -> Vec<(String, usize)> {
    record_paths(text)
        .filter(|(path, _)| {
            path.rsplit_once('/').is_some_and(|(dir, file)| {
                let in_lib = dir.starts_with("nvidia/") && dir.split('/').any(|c| c == "lib");
                in_lib && (file.ends_with(".so") || file.contains(".so."))
            })
        })
        .map(|(path, line)| (path.to_string(), line))
        .collect()
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
    fn record_lines_name_the_libraries_a_wheel_installed() {
        let record = "nvidia/cu13/lib/libcupti.so.13,sha256=x,1\n\
                      nvidia/cu13/include/cupti.h,sha256=x,1\n\
                      \"nvidia/cu13/lib/lib,odd.so.1\",sha256=x,1\n\
                      nvidia/cu13/lib/libcudart_static.a,sha256=x,1\n\
                      ../../bin/tool.so,sha256=x,1\n\
                      nvidia/cudnn/lib/libcudnn.so.9,sha256=x,1\n";
        assert_eq!(
            record_libraries(record),
            [
                ("nvidia/cu13/lib/libcupti.so.13".to_string(), 1),
                ("nvidia/cu13/lib/lib,odd.so.1".to_string(), 3),
                ("nvidia/cudnn/lib/libcudnn.so.9".to_string(), 6),
            ]
        );
    }

    #[test]
    fn local_version_tags_name_a_cuda_version() {
        assert_eq!(cuda_of_tag("2.11.0+cu130"), Some(Some("13.0".into())));
        assert_eq!(cuda_of_tag("2.5.1+cu124"), Some(Some("12.4".into())));
        assert_eq!(cuda_of_tag("2.3.1+cpu"), Some(None));
        assert_eq!(cuda_of_tag("2.5.0a0+git1234abc"), None);
        assert_eq!(cuda_of_tag("2.5.1"), None);
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
