//! Where a root's Python environments are, found as the system finds them,
//! and which one `python3` runs.
//!
//! - On the machine, from the process environment: each `$PATH` folder that
//!   holds `python3`, or whose parent holds a `pyvenv.cfg` (a venv);
//!   `$VIRTUAL_ENV`, `$CONDA_PREFIX` and `$PYTHONPATH`. An unpacked image has
//!   no process environment, so none of these apply to `--root`.
//! - Everywhere: the system prefixes (`/usr`, `/usr/local`), conda
//!   installations in their usual folders and their `envs/*`, the prefixes
//!   each home's `.conda/environments.txt` lists, `~/.local`, pyenv,
//!   virtualenvwrapper, pipenv (`~/.local/share/virtualenvs/*`), poetry
//!   (`~/.cache/pypoetry/virtualenvs/*`), uv tools
//!   (`~/.local/share/uv/tools/*`) and the usual venv folders (`/opt/venv`,
//!   `/venv`, `/app/.venv` …).
//! - In an unpacked image: a bounded search under `/opt`, `/usr/src`, `/srv`,
//!   `/app`, `/workspace`, `/home/*` and `/root` for
//!   `lib/python3*/site-packages/torch/version.py`, at most `SEARCH_DEPTH`
//!   folders deep and `SEARCH_ENTRIES` folder entries in all, never into
//!   conda's package cache (`pkgs`, unpacked packages that are not
//!   environments) or through a symlink.
//! - Named by a pasted message (`lore diagnose`): the prefix of each site
//!   folder its paths lead into, as the program that failed ran there.
//!
//! `python3` on the machine is the first `$PATH` folder holding it. A venv
//! (a `pyvenv.cfg` beside its folder) imports from its own site-packages,
//! and from its base Python's too when `include-system-site-packages = true`;
//! another Python from its prefix (the parent of the folder its real
//! executable is in) after the user's `~/.local` site; `$PYTHONPATH` comes
//! before all of them. Debian's `/usr` Python reads `dist-packages`.

use std::collections::VecDeque;

use serde::Serialize;

use super::fs::{EntryKind, Root};
use super::system::{note_error, read_text};
use super::{Environment, Found, MAX_ENTRIES, Note, SMALL_FILE};

/// Python environments searched, at most, so a machine with hundreds of
/// venvs under /home stays fast.
pub(super) const MAX_ENVIRONMENTS: usize = 64;
/// Folders below a search start, at most: `/home/me/work/project/.venv` is 4
/// below `/home/me`.
const SEARCH_DEPTH: usize = 4;
/// Folder entries the search in an image reads, at most, over all starts.
const SEARCH_ENTRIES: usize = 20_000;
/// Folder names the search never enters: conda's package cache (unpacked
/// packages, each with its own `lib/python3*/site-packages`), version
/// control, caches and build trees.
const SEARCH_SKIP: &[&str] = &[
    "pkgs",
    ".git",
    "node_modules",
    "__pycache__",
    ".cache",
    "proc",
    "sys",
];
/// Inside an environment's prefix, folders that hold no further environment.
const PREFIX_SKIP: &[&str] = &["lib", "lib64", "bin", "include", "share", "conda-meta"];

/// Conda installations, relative to `/opt` and to each home.
const CONDA_BASES: &[&str] = &[
    "conda",
    "miniconda3",
    "miniforge3",
    "mambaforge",
    "anaconda3",
    "micromamba",
];

/// One Python environment: a prefix with `lib/python3*/site-packages` (or
/// Debian's `dist-packages`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythonEnv {
    /// The prefix, as the user can open it.
    pub prefix: String,
    /// `venv (uv)`, `venv (virtualenv)`, `conda`, `system`, `user site` …
    pub kind: String,
    /// How it was found: `$PATH entry 1: /opt/torch/.venv/bin`,
    /// `/root/.conda/environments.txt:2`, `search under /opt` …
    pub found_by: Vec<String>,
    /// The prefix inside the root.
    #[serde(skip)]
    pub(super) inside: String,
    /// Its site folders inside the root.
    #[serde(skip)]
    pub(super) sites: Vec<String>,
    /// Found only because a pasted message named it (`NamedEnv`): no
    /// `$PATH` entry, variable, usual place or search led there.
    #[serde(skip)]
    pub named_only: bool,
}

/// The Python that `python3` runs on the machine (the first `$PATH` folder
/// holding it) and the site folders it imports from, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PythonOnPath {
    /// The executable, with the `$PATH` entry (and `pyvenv.cfg`) as evidence.
    pub exe: Found<String>,
    /// Site folders in `sys.path` order, as shown to the user.
    pub sites: Vec<String>,
    /// The same, inside the root (symlinks resolved).
    #[serde(skip)]
    pub(super) sites_real: Vec<String>,
    /// The torch it imports: the first of `sites` holding
    /// `torch/version.py` (its torch folder, as shown), with evidence.
    pub torch: Option<Found<String>>,
}

/// A Python environment named from outside the probe: a pasted message's
/// path into it (`File "/opt/app/.venv/lib/python3.12/site-packages/torch/…"`
/// in a traceback). The program that failed ran there, though `PATH` may
/// not lead to it (Python run by its absolute path) and it may sit where no
/// search looks (`/data/envs/build`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedEnv {
    /// The environment's prefix: `/opt/app/.venv`.
    pub prefix: String,
    /// The site folder named, as named: `/opt/app/.venv/lib/python3.12/site-packages`.
    pub site: String,
    /// The line of the message that names it, from 1.
    pub line: usize,
}

/// How an environment's `found_by` says a message named it.
const NAMED_BY_MESSAGE: &str = "named by the message";

/// The environments found, in the order found, each once.
pub(super) struct Envs {
    pub list: Vec<PythonEnv>,
    reals: Vec<String>,
    full: bool,
}

impl Envs {
    fn new() -> Envs {
        Envs {
            list: Vec::new(),
            reals: Vec::new(),
            full: false,
        }
    }

    /// Adds the environment at `prefix` (inside the root) if it has site
    /// folders; one found again only gains the new evidence.
    fn add(&mut self, root: &Root, prefix: &str, found_by: String, notes: &mut Vec<Note>) {
        self.insert(root, prefix, found_by, false, notes);
    }

    /// `add`, for an environment a pasted message names.
    fn add_named(&mut self, root: &Root, prefix: &str, found_by: String, notes: &mut Vec<Note>) {
        self.insert(root, prefix, found_by, true, notes);
    }

    fn insert(
        &mut self,
        root: &Root,
        prefix: &str,
        found_by: String,
        named: bool,
        notes: &mut Vec<Note>,
    ) {
        let prefix = prefix.trim_end_matches('/');
        let prefix = if prefix.is_empty() { "/" } else { prefix };
        let Ok(real) = root.real(prefix) else { return };
        if let Some(i) = self.reals.iter().position(|r| *r == real) {
            if !self.list[i].found_by.contains(&found_by) {
                self.list[i].found_by.push(found_by);
            }
            self.list[i].named_only &= named;
            return;
        }
        let sites = sites_of(root, prefix);
        if sites.is_empty() {
            return;
        }
        if self.list.len() == MAX_ENVIRONMENTS {
            if !self.full {
                self.full = true;
                notes.push(Note {
                    path: root.show(prefix),
                    line: None,
                    message: format!(
                        "more than {MAX_ENVIRONMENTS} Python environments; the rest were not searched"
                    ),
                });
            }
            return;
        }
        self.reals.push(real);
        self.list.push(PythonEnv {
            prefix: root.show(prefix),
            kind: kind_of(root, prefix, notes),
            found_by: vec![found_by],
            inside: prefix.to_string(),
            sites,
            named_only: named,
        });
    }
}

impl Envs {
    /// A `$PYTHONPATH` folder: searched as a site folder of its own.
    fn add_folder(&mut self, root: &Root, dir: &str, found_by: String) {
        let Ok(real) = root.real(dir) else { return };
        if self.reals.contains(&real) || self.list.len() == MAX_ENVIRONMENTS || !root.is_dir(dir) {
            return;
        }
        self.reals.push(real);
        self.list.push(PythonEnv {
            prefix: root.show(dir),
            kind: "PYTHONPATH folder".into(),
            found_by: vec![found_by],
            inside: dir.to_string(),
            sites: vec![dir.to_string()],
            named_only: false,
        });
    }
}

/// `site-packages` and `dist-packages` in each `lib/python3*` of a prefix.
fn sites_of(root: &Root, prefix: &str) -> Vec<String> {
    let lib = join(prefix, "lib");
    let Ok(listing) = root.list(&lib, MAX_ENTRIES) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for name in listing.names.iter().filter(|n| n.starts_with("python3")) {
        for leaf in ["site-packages", "dist-packages"] {
            let site = format!("{lib}/{name}/{leaf}");
            if root.is_dir(&site) {
                out.push(site);
            }
        }
    }
    out
}

fn kind_of(root: &Root, prefix: &str, notes: &mut Vec<Note>) -> String {
    let cfg = join(prefix, "pyvenv.cfg");
    if root.exists(&cfg) {
        let creator = read_text(root, &cfg, SMALL_FILE, notes).and_then(|text| {
            let keys: Vec<String> = text
                .lines()
                .filter_map(|l| l.split_once('=').map(|(k, _)| k.trim().to_string()))
                .collect();
            ["uv", "virtualenv"]
                .into_iter()
                .find(|k| keys.iter().any(|key| key == k))
                .map(str::to_string)
        });
        return match creator {
            Some(c) => format!("venv ({c})"),
            None => "venv".into(),
        };
    }
    if root.is_dir(&join(prefix, "conda-meta")) {
        return "conda".into();
    }
    if prefix == "/usr" || prefix == "/usr/local" {
        return "system".into();
    }
    if prefix.ends_with("/.local") {
        return "user site".into();
    }
    "prefix".into()
}

fn join(dir: &str, name: &str) -> String {
    format!("{}/{name}", dir.trim_end_matches('/'))
}

fn parent(path: &str) -> &str {
    match path.trim_end_matches('/').rsplit_once('/') {
        Some(("", _)) | None => "/",
        Some((dir, _)) => dir,
    }
}

/// Every Python environment of the root, and on the machine which one
/// `python3` runs.
pub(super) fn find(
    root: &Root,
    env: Option<&Environment>,
    named: &[NamedEnv],
    notes: &mut Vec<Note>,
) -> (Vec<PythonEnv>, Option<PythonOnPath>) {
    let mut envs = Envs::new();
    let on_path = env.and_then(|env| from_environment(root, env, &mut envs, notes));
    // One the system also finds only gains this evidence.
    for n in named {
        let by = format!("{} {NAMED_BY_MESSAGE}, line {}", n.site, n.line);
        envs.add_named(root, &n.prefix, by, notes);
    }
    let home = env.and_then(|env| env.get("HOME"));
    usual_places(root, home, &mut envs, notes);
    if env.is_none() {
        search(root, &mut envs, notes);
    }
    (envs.list, on_path)
}

/// `$PATH`, `$VIRTUAL_ENV`, `$CONDA_PREFIX`, `$PYTHONPATH`; returns the
/// Python `python3` runs.
fn from_environment(
    root: &Root,
    env: &Environment,
    envs: &mut Envs,
    notes: &mut Vec<Note>,
) -> Option<PythonOnPath> {
    let mut first: Option<(usize, String, String)> = None;
    for (i, dir) in env.path_entries().iter().enumerate() {
        let dir = dir.trim_end_matches('/');
        let label = format!("$PATH entry {}: {dir}", i + 1);
        let exe = join(dir, "python3");
        let venv = [parent(dir), dir]
            .into_iter()
            .find(|d| root.exists(&join(d, "pyvenv.cfg")));
        let has_python = root.exists(&exe);
        if let Some(v) = venv {
            envs.add(root, v, label.clone(), notes);
        } else if has_python && let Ok(real) = root.real(&exe) {
            envs.add(root, parent(parent(&real)), label.clone(), notes);
        }
        // A pyenv shim set to `system` hands over to the next python3 on PATH.
        let passes_on =
            pyenv_selection(root, env, dir, notes).is_some_and(|(_, v, _)| v == "system");
        if has_python && first.is_none() && !passes_on {
            first = Some((i, dir.to_string(), label));
        }
    }
    for var in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
        if let Some(prefix) = env.get(var).filter(|p| p.starts_with('/')) {
            envs.add(root, prefix, format!("${var}={prefix}"), notes);
        }
    }
    for dir in env.get("PYTHONPATH").unwrap_or("").split(':') {
        if dir.starts_with('/') {
            let dir = dir.trim_end_matches('/');
            envs.add_folder(root, dir, format!("$PYTHONPATH: {dir}"));
        }
    }
    let (_, dir, label) = first?;
    Some(python_on_path(root, env, &dir, label, notes))
}

fn python_on_path(
    root: &Root,
    env: &Environment,
    dir: &str,
    label: String,
    notes: &mut Vec<Note>,
) -> PythonOnPath {
    let exe = join(dir, "python3");
    let mut evidence = vec![format!("{label} is the first holding python3")];
    let mut sites: Vec<String> = Vec::new();
    for entry in env.get("PYTHONPATH").unwrap_or("").split(':') {
        if entry.starts_with('/') && root.is_dir(entry) {
            sites.push(entry.trim_end_matches('/').to_string());
            evidence.push(format!("$PYTHONPATH: {entry} comes first"));
        }
    }
    let venv = [parent(dir), dir]
        .into_iter()
        .find(|d| root.exists(&join(d, "pyvenv.cfg")))
        .map(str::to_string);
    let user_site = env.get("PYTHONNOUSERSITE").is_none_or(str::is_empty);
    let home = env.get("HOME").filter(|h| h.starts_with('/'));
    if let Some((pyenv, version, chosen)) = pyenv_selection(root, env, dir, notes) {
        evidence.push(format!(
            "{chosen} (pyenv's choice, unless a .python-version file in the folder python3 runs from chooses another)"
        ));
        let prefix = format!("{pyenv}/versions/{version}");
        let real = root
            .real(&format!("{prefix}/bin/python3"))
            .unwrap_or_default();
        let version = python_version(&real);
        sites.extend(user_and_prefix_sites(
            root,
            user_site,
            home,
            &prefix,
            version.as_deref(),
        ));
        return on_path(root, &exe, evidence, sites);
    }
    match venv {
        Some(prefix) => {
            let cfg = join(&prefix, "pyvenv.cfg");
            let text = read_text(root, &cfg, SMALL_FILE, notes).unwrap_or_default();
            let (version, home, system_site) = read_pyvenv_cfg(&text);
            let (line, value) = system_site.unwrap_or((0, false));
            evidence.push(if line > 0 {
                format!(
                    "{}:{line} (a venv; include-system-site-packages = {value})",
                    root.show(&cfg)
                )
            } else {
                format!("{} (a venv)", root.show(&cfg))
            });
            sites.extend(prefix_sites(root, &prefix, version.as_deref()));
            if value && let Some(home) = home {
                let base_exe = join(&home, "python3");
                if let Ok(real) = root.real(&base_exe) {
                    let base = parent(parent(&real)).to_string();
                    let version = version.or_else(|| python_version(&real));
                    sites.extend(prefix_sites(root, &base, version.as_deref()));
                }
            }
        }
        None => {
            let real = root.real(&exe).unwrap_or_else(|_| exe.clone());
            let prefix = parent(parent(&real)).to_string();
            if real != exe {
                evidence.push(format!("{} leads to {}", root.show(&exe), root.show(&real)));
            }
            let version = python_version(&real);
            sites.extend(user_and_prefix_sites(
                root,
                user_site,
                home,
                &prefix,
                version.as_deref(),
            ));
        }
    }
    on_path(root, &exe, evidence, sites)
}

/// The `PythonOnPath` of `exe`, its site folders each once.
fn on_path(root: &Root, exe: &str, evidence: Vec<String>, sites: Vec<String>) -> PythonOnPath {
    let mut sites_real = Vec::new();
    let mut shown = Vec::new();
    for site in sites {
        let Ok(real) = root.real(&site) else { continue };
        if !sites_real.contains(&real) {
            shown.push(root.show(&site));
            sites_real.push(real);
        }
    }
    PythonOnPath {
        exe: Found {
            value: root.show(exe),
            evidence,
        },
        sites: shown,
        sites_real,
        torch: None,
    }
}

/// The Python a pyenv shim folder (`~/.pyenv/shims`) runs: `$PYENV_VERSION`,
/// else the first version in pyenv's global `version` file, else `system`
/// (the next python3 on PATH). Returns pyenv's folder, the version and where
/// the choice was read. `None` when `dir` is no pyenv shim folder.
fn pyenv_selection(
    root: &Root,
    env: &Environment,
    dir: &str,
    notes: &mut Vec<Note>,
) -> Option<(String, String, String)> {
    let pyenv = dir.strip_suffix("/shims")?;
    if !root.is_dir(&join(pyenv, "versions")) {
        return None;
    }
    if let Some(v) = env.get("PYENV_VERSION").filter(|v| !v.trim().is_empty()) {
        let first = v.split(':').next().unwrap_or(v).trim().to_string();
        return Some((pyenv.to_string(), first, format!("$PYENV_VERSION={v}")));
    }
    let file = join(pyenv, "version");
    if root.exists(&file)
        && let Some(text) = read_text(root, &file, SMALL_FILE, notes)
    {
        for (i, line) in text.lines().enumerate() {
            let Some(version) = line
                .split_whitespace()
                .next()
                .filter(|v| !v.starts_with('#'))
            else {
                continue;
            };
            return Some((
                pyenv.to_string(),
                version.to_string(),
                format!("{}:{}", root.show(&file), i + 1),
            ));
        }
    }
    Some((
        pyenv.to_string(),
        "system".to_string(),
        format!(
            "{}: absent, so pyenv runs the system Python",
            root.show(&file)
        ),
    ))
}

/// `3.12` from `…/python3.12`.
fn python_version(exe: &str) -> Option<String> {
    python_x_y(exe.rsplit('/').next()?)
}

/// `3.12` from an interpreter's or its library folder's name, `python3.12`;
/// a free-threaded build's `t` is dropped (`python3.13t` → `3.13`).
pub(super) fn python_x_y(name: &str) -> Option<String> {
    let version = name.strip_prefix("python")?.trim_end_matches('t');
    let (major, minor) = version.split_once('.')?;
    let number = |n: &str| !n.is_empty() && n.len() <= 3 && n.bytes().all(|b| b.is_ascii_digit());
    (number(major) && number(minor)).then(|| format!("{major}.{minor}"))
}

/// The Python version (`3.12`), the base Python's folder (`home`) and
/// `include-system-site-packages` (its line and value) of a `pyvenv.cfg`.
#[allow(clippy::type_complexity)]
fn read_pyvenv_cfg(text: &str) -> (Option<String>, Option<String>, Option<(usize, bool)>) {
    let mut version = None;
    let mut home = None;
    let mut system = None;
    for (i, line) in text.lines().enumerate() {
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "version" | "version_info" => {
                let mut parts = value.split('.');
                if let (Some(a), Some(b)) = (parts.next(), parts.next()) {
                    version = Some(format!("{a}.{b}"));
                }
            }
            "home" if value.starts_with('/') => home = Some(value.to_string()),
            "include-system-site-packages" => {
                system = Some((i + 1, value.eq_ignore_ascii_case("true")));
            }
            _ => {}
        }
    }
    (version, home, system)
}

/// The site folders of an interpreter that is not in a venv: the user's
/// `~/.local` ones first (when Python would add them), then its prefix's.
fn user_and_prefix_sites(
    root: &Root,
    user_site: bool,
    home: Option<&str>,
    prefix: &str,
    version: Option<&str>,
) -> Vec<String> {
    let mut sites = Vec::new();
    if user_site && let Some(home) = home {
        sites.extend(prefix_sites(root, &join(home, ".local"), version));
    }
    sites.extend(prefix_sites(root, prefix, version));
    sites
}

/// The site folders Python puts on `sys.path` for `prefix`, in order: for
/// Debian's `/usr`, `/usr/local/lib/python3.X/dist-packages`,
/// `/usr/lib/python3/dist-packages`, then `/usr/lib/python3.X/dist-packages`;
/// then `lib64/python3.X/site-packages` (Fedora puts it first) and
/// `lib/python3.X/site-packages`. With no known version, every `python3.*`
/// folder.
fn prefix_sites(root: &Root, prefix: &str, version: Option<&str>) -> Vec<String> {
    let prefix = prefix.trim_end_matches('/');
    let versions: Vec<String> = match version {
        Some(v) => vec![format!("python{v}")],
        None => root
            .list(&format!("{prefix}/lib"), MAX_ENTRIES)
            .map(|l| {
                l.names
                    .into_iter()
                    .filter(|n| n.starts_with("python3.") && python_version(n).is_some())
                    .collect()
            })
            .unwrap_or_default(),
    };
    let mut candidates = Vec::new();
    if prefix == "/usr" {
        // Debian's order; the version-less folder is there whatever the version.
        candidates.extend(
            versions
                .iter()
                .map(|v| format!("/usr/local/lib/{v}/dist-packages")),
        );
        candidates.push("/usr/lib/python3/dist-packages".to_string());
        candidates.extend(
            versions
                .iter()
                .map(|v| format!("/usr/lib/{v}/dist-packages")),
        );
    }
    for v in &versions {
        candidates.push(format!("{prefix}/lib64/{v}/site-packages"));
        candidates.push(format!("{prefix}/lib/{v}/site-packages"));
    }
    candidates.retain(|c| root.is_dir(c));
    candidates
}

/// The usual places, each home's among them.
fn usual_places(root: &Root, home: Option<&str>, envs: &mut Envs, notes: &mut Vec<Note>) {
    for prefix in ["/usr", "/usr/local"] {
        envs.add(root, prefix, "system prefix".into(), notes);
    }
    let mut bases: Vec<String> = CONDA_BASES.iter().map(|b| format!("/opt/{b}")).collect();
    let mut homes = vec!["/root".to_string()];
    if let Ok(listing) = root.list("/home", MAX_ENTRIES) {
        homes.extend(listing.names.iter().map(|n| format!("/home/{n}")));
    }
    if let Some(home) = home.filter(|h| h.starts_with('/'))
        && !homes.iter().any(|h| h == home.trim_end_matches('/'))
    {
        homes.push(home.trim_end_matches('/').to_string());
    }
    for home in &homes {
        if !root.is_dir(home) {
            continue;
        }
        bases.extend(CONDA_BASES.iter().map(|b| format!("{home}/{b}")));
        environments_txt(root, home, envs, &mut bases, notes);
        envs.add(root, &join(home, ".local"), "the user site".into(), notes);
        for (folder, tool) in [
            (".conda/envs", "conda"),
            (".pyenv/versions", "pyenv"),
            (".virtualenvs", "virtualenvwrapper"),
            (".local/share/virtualenvs", "pipenv"),
            (".cache/pypoetry/virtualenvs", "poetry"),
            (".local/share/uv/tools", "uv tool"),
        ] {
            children(root, &format!("{home}/{folder}"), tool, envs, notes);
        }
    }
    for base in &bases {
        if !root.is_dir(base) {
            continue;
        }
        envs.add(root, base, "conda installation".into(), notes);
        children(root, &join(base, "envs"), "conda", envs, notes);
    }
    for prefix in [
        "/opt/venv",
        "/venv",
        "/.venv",
        "/app/.venv",
        "/workspace/.venv",
    ] {
        envs.add(root, prefix, "usual venv folder".into(), notes);
    }
}

/// Each folder in `dir` as an environment made by `tool`.
fn children(root: &Root, dir: &str, tool: &str, envs: &mut Envs, notes: &mut Vec<Note>) {
    let Ok(listing) = root.list(dir, MAX_ENTRIES) else {
        return;
    };
    for name in &listing.names {
        envs.add(
            root,
            &format!("{dir}/{name}"),
            format!("{} ({tool})", root.show(dir)),
            notes,
        );
    }
}

/// The prefixes conda lists in `~/.conda/environments.txt`, one a line.
fn environments_txt(
    root: &Root,
    home: &str,
    envs: &mut Envs,
    bases: &mut Vec<String>,
    notes: &mut Vec<Note>,
) {
    let path = format!("{home}/.conda/environments.txt");
    if !root.exists(&path) {
        return;
    }
    let Some(text) = read_text(root, &path, SMALL_FILE, notes) else {
        return;
    };
    for (i, line) in text.lines().enumerate() {
        let prefix = line.trim();
        if !prefix.starts_with('/') {
            continue;
        }
        envs.add(
            root,
            prefix,
            format!("{}:{}", root.show(&path), i + 1),
            notes,
        );
        // A listed base installation has environments of its own.
        if !prefix.contains("/envs/") {
            bases.push(prefix.trim_end_matches('/').to_string());
        }
    }
}

/// The bounded search of an image for `lib/python3*/site-packages/torch`.
fn search(root: &Root, envs: &mut Envs, notes: &mut Vec<Note>) {
    search_within(root, envs, notes, SEARCH_ENTRIES);
}

/// `search` reading at most `budget` folder entries.
fn search_within(root: &Root, envs: &mut Envs, notes: &mut Vec<Note>, mut budget: usize) {
    let total = budget;
    let mut starts: Vec<String> = ["/opt", "/usr/src", "/srv", "/app", "/workspace", "/root"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    if let Ok(listing) = root.entries("/home", MAX_ENTRIES) {
        starts.extend(
            listing
                .entries
                .iter()
                .filter(|(_, k)| *k == EntryKind::Dir)
                .map(|(n, _)| format!("/home/{n}")),
        );
    }
    let mut seen: Vec<String> = Vec::new();
    for start in &starts {
        let Ok(real) = root.real(start) else { continue };
        if seen
            .iter()
            .any(|s| real == *s || real.starts_with(&format!("{s}/")))
        {
            continue;
        }
        seen.push(real);
        let label = format!("search under {}", root.show(start));
        let mut queue = VecDeque::from([(start.clone(), 0usize)]);
        let stop = |dir: &str, notes: &mut Vec<Note>| {
            notes.push(Note {
                path: root.show(dir),
                line: None,
                message: format!(
                    "the search for Python environments stopped after {total} folder entries; this folder and the rest were not searched"
                ),
            });
        };
        while let Some((dir, depth)) = queue.pop_front() {
            if budget == 0 {
                stop(&dir, notes);
                return;
            }
            let listing = match root.entries(&dir, budget.min(MAX_ENTRIES)) {
                Ok(listing) => listing,
                Err(err) => {
                    note_error(root, &dir, &err, notes);
                    continue;
                }
            };
            budget -= listing.entries.len();
            if listing.truncated {
                stop(&dir, notes);
                return;
            }
            let has = |name: &str| listing.entries.iter().any(|(n, _)| n == name);
            let is_prefix = has("lib") && has_torch(root, &dir, &mut budget);
            if is_prefix {
                envs.add(root, &dir, label.clone(), notes);
            }
            if depth == SEARCH_DEPTH {
                continue;
            }
            let prefix_like = has("lib") && (has("bin") || has("pyvenv.cfg") || has("conda-meta"));
            for (name, kind) in &listing.entries {
                if *kind != EntryKind::Dir
                    || SEARCH_SKIP.contains(&name.as_str())
                    || (prefix_like && PREFIX_SKIP.contains(&name.as_str()))
                {
                    continue;
                }
                queue.push_back((join(&dir, name), depth + 1));
            }
        }
    }
}

/// Whether `dir/lib/python3*/site-packages/torch/version.py` exists.
fn has_torch(root: &Root, dir: &str, budget: &mut usize) -> bool {
    let lib = join(dir, "lib");
    let Ok(listing) = root.list(&lib, (*budget).min(MAX_ENTRIES)) else {
        return false;
    };
    *budget = budget.saturating_sub(listing.names.len());
    listing
        .names
        .iter()
        .filter(|n| n.starts_with("python3"))
        .any(|n| root.exists(&format!("{lib}/{n}/site-packages/torch/version.py")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pyvenv_cfg_as_uv_and_venv_write_it() {
        let uv = "home = /usr/bin\nimplementation = CPython\nversion_info = 3.12.3\ninclude-system-site-packages = false\n";
        assert_eq!(
            read_pyvenv_cfg(uv),
            (
                Some("3.12".into()),
                Some("/usr/bin".into()),
                Some((4, false))
            )
        );
        let venv = "home = /usr/local/bin\ninclude-system-site-packages = true\nversion = 3.11.9\n";
        assert_eq!(
            read_pyvenv_cfg(venv),
            (
                Some("3.11".into()),
                Some("/usr/local/bin".into()),
                Some((2, true))
            )
        );
    }

    fn venv_with_torch(root: &std::path::Path, prefix: &str) {
        let site = root.join(prefix).join("lib/python3.11/site-packages/torch");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::write(site.join("version.py"), "__version__ = '2.5.1'\n").unwrap();
        std::fs::write(root.join(prefix).join("pyvenv.cfg"), "version = 3.11.9\n").unwrap();
    }

    /// An image with a huge tree under /opt: the search stops at its entry
    /// budget and says where; a venv past the depth bound is not found, one
    /// within it is, and conda's package cache is never entered.
    #[test]
    fn the_search_is_bounded_by_entries_and_depth_and_skips_pkgs() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        venv_with_torch(r, "srv/team/app/.venv");
        venv_with_torch(r, "srv/a/b/c/d/.venv");
        venv_with_torch(r, "srv/conda/pkgs/pytorch-2.5.1-py3.11_0");
        let root = Root::new(r).unwrap();
        let mut envs = Envs::new();
        let mut notes = Vec::new();
        search_within(&root, &mut envs, &mut notes, 1000);
        let found: Vec<&str> = envs.list.iter().map(|e| e.inside.as_str()).collect();
        assert_eq!(found, ["/srv/team/app/.venv"]);
        assert!(notes.is_empty(), "{notes:?}");

        for i in 0..50 {
            std::fs::create_dir_all(r.join(format!("opt/big/{i:02}"))).unwrap();
        }
        let mut envs = Envs::new();
        let mut notes = Vec::new();
        search_within(&root, &mut envs, &mut notes, 30);
        assert!(envs.list.is_empty());
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(
            notes[0]
                .message
                .starts_with("the search for Python environments stopped after 30 folder entries"),
            "{notes:?}"
        );
    }

    #[test]
    fn versions_from_executable_names() {
        assert_eq!(python_version("/usr/bin/python3.12"), Some("3.12".into()));
        assert_eq!(python_version("/usr/bin/python3"), None);
        assert_eq!(python_version("/usr/bin/python3.12-config"), None);
        assert_eq!(python_version("/usr/bin/python3.13t"), Some("3.13".into()));
        assert_eq!(parent("/opt/torch/.venv/bin"), "/opt/torch/.venv");
        assert_eq!(parent("/bin"), "/");
    }
}
