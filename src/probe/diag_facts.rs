//! The facts `lore diagnose` checks causes against, beyond what the other
//! probes read: the highest CUDA the driver runs, the GPU's model and
//! compute capability, the user-space driver's version, whether
//! `nvidia_uvm` is loaded, the size of `/dev/shm`, the loader's configured
//! folders, gcc, libstdc++ and glibc versions, installed Python packages,
//! the arch range of PyTorch's release wheels, the image flavour and
//! `TORCH_CUDA_ARCH_LIST` of a Dockerfile, and the environment variables
//! conditions may name.
//!
//! Same rules as every probe: files only, inside the root, bounded. Files
//! under `/proc` describe a kernel: they are read from whatever root is
//! probed (an unpacked image has none, so those facts are simply absent
//! there), and `diagnose` treats their absence as "not known" except on the
//! running machine. Tables that turn one fact into another (driver →
//! CUDA, GPU model → compute capability, wheel → arch range) copy the
//! knowledge's sourced tables and name them in the evidence.

use super::dockerfile::{Base, Dockerfile, Stage};
use super::fs::Root;
use super::images;
use super::names::ENV_NAMES;
use super::stage_at;
use super::system::{note_error, read_text};
use super::{Fact, MAX_ENTRIES, Note, RootFacts, SMALL_FILE};

/// dpkg's status file: a few MB on a full system.
const DPKG_STATUS_CAP: u64 = 32 * 1024 * 1024;
/// Folders the loader searches without configuration (ld.so(8)), and the
/// multiarch ones Debian configures in /etc/ld.so.conf.d.
pub const LOADER_DIRS: [&str; 8] = [
    "/lib",
    "/usr/lib",
    "/lib64",
    "/usr/lib64",
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
];
/// Where the knowledge's tables live, named in evidence.
const DRIVER_TABLE: &str =
    "minor-version compatibility table (knowledge cuda/09-runtime-errors-debugging-expert.md)";
const GPU_TABLE: &str =
    "compute capability table (knowledge cuda/03-compute-capabilities-gpu-architectures.md)";
const WHEEL_TABLE: &str =
    "release wheel arch table (knowledge cuda/03-compute-capabilities-gpu-architectures.md)";

/// A variable of the machine's environment, by name.
pub(super) type EnvLookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The facts of this module, for a root (if probed) and a Dockerfile (if
/// given). `env` is the process environment on the machine, `None` elsewhere.
pub(super) fn probe(
    root: Option<(&Root, &RootFacts)>,
    dockerfile: Option<(&Dockerfile, Option<usize>)>,
    env: Option<EnvLookup<'_>>,
    notes: &mut Vec<Note>,
) -> Vec<Fact> {
    let mut out = Vec::new();
    if let Some((root, facts)) = root {
        machine(root, facts, &mut out, notes);
        files(root, facts, &mut out, notes);
    }
    if let Some(env) = env {
        // The host probe already gave these from the same environment.
        let given = |name: &str| {
            root.is_some_and(|(_, f)| {
                f.env
                    .iter()
                    .any(|e| e.value.split_once('=').is_some_and(|(n, _)| n == name))
            })
        };
        for name in ENV_NAMES.iter().filter(|n| !given(n)) {
            if let Some(value) = env(name) {
                out.push(fact("env", format!("{name}={value}"), "environment"));
            }
        }
        if let Some(list) = env("TORCH_CUDA_ARCH_LIST") {
            arch_range(&list, "environment: TORCH_CUDA_ARCH_LIST", &mut out);
        }
        if let Some((root, _)) = root {
            visible_gpus(root, env("CUDA_VISIBLE_DEVICES").as_deref(), &mut out);
        }
    }
    if let Some((file, line)) = dockerfile {
        from_dockerfile(file, line, root.is_some(), &mut out);
    }
    out
}

fn fact(name: &'static str, value: String, evidence: impl Into<String>) -> Fact {
    Fact {
        fact: name,
        value,
        evidence: vec![evidence.into()],
    }
}

// ---- the machine: /proc and the driver --------------------------------------------

fn machine(root: &Root, facts: &RootFacts, out: &mut Vec<Fact>, notes: &mut Vec<Note>) {
    let driver = match &facts.driver {
        Some(d) => Some((d.value.clone(), d.evidence.clone())),
        None => {
            let found = driver_version(root, notes);
            if let Some((v, e)) = &found {
                out.push(Fact {
                    fact: "driver",
                    value: v.clone(),
                    evidence: e.clone(),
                });
            }
            found
        }
    };
    if let Some((version, evidence)) = driver
        && let Some(cuda) = driver_cuda(&version)
    {
        let mut evidence = evidence;
        evidence.push(DRIVER_TABLE.to_string());
        out.push(Fact {
            fact: "driver.cuda",
            value: cuda.to_string(),
            evidence,
        });
    }
    if let Some(text) = read_if(root, "/proc/driver/nvidia/params", notes) {
        for (i, line) in text.lines().enumerate() {
            if let Some(v) = line.strip_prefix("RmProfilingAdminOnly:") {
                out.push(fact(
                    "driver.profiling-admin",
                    v.trim().to_string(),
                    format!("{}:{}", root.show("/proc/driver/nvidia/params"), i + 1),
                ));
            }
        }
    }
    capabilities(facts, out);
    let mounts = ["/proc/self/mounts", "/proc/mounts"]
        .into_iter()
        .find(|p| root.exists(p));
    if let Some(path) = mounts
        && let Some(text) = read_if(root, path, notes)
    {
        // A later mount of /dev/shm hides an earlier one: the last counts.
        let last = text
            .lines()
            .enumerate()
            .filter(|(_, line)| line.split_whitespace().nth(1) == Some("/dev/shm"))
            .last();
        if let Some((i, line)) = last {
            let size = line
                .split_whitespace()
                .nth(3)
                .and_then(|o| o.split(',').find_map(|kv| kv.strip_prefix("size=")))
                .and_then(mebibytes);
            if let Some(mib) = size {
                out.push(fact(
                    "shm.size",
                    mib.to_string(),
                    format!("{}:{}", root.show(path), i + 1),
                ));
            }
        }
    }
    driver_userspace(root, out, notes);
}

/// `gpu.visible`: how many GPUs CUDA can see, where that can be told: the
/// GPUs are the `/dev/nvidiaN` device nodes (a container holds only those
/// it was given), less those `CUDA_VISIBLE_DEVICES` hides. Not told where
/// MIG instances exist: CUDA then enumerates MIG devices, not the nodes.
fn visible_gpus(root: &Root, mask: Option<&str>, out: &mut Vec<Fact>) {
    // A listing cut at the cap could leave GPU nodes out: then not told.
    let nodes = root
        .list("/dev", MAX_ENTRIES)
        .ok()
        .filter(|listing| !listing.truncated)
        .map(|listing| {
            listing
                .names
                .iter()
                .filter(|n| {
                    n.strip_prefix("nvidia")
                        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
                })
                .count()
        });
    if mig_instances(root) {
        return;
    }
    let count = match mask {
        Some(mask) => visible_count(mask, nodes),
        None => nodes.filter(|&n| n > 0),
    };
    if let Some(count) = count {
        let mut evidence = vec![match mask {
            Some(mask) => format!("environment: CUDA_VISIBLE_DEVICES={mask}"),
            None => "environment: CUDA_VISIBLE_DEVICES not set".to_string(),
        }];
        if let Some(n) = nodes {
            evidence.push(format!(
                "{}: {n} GPU device nodes (nvidiaN)",
                root.show("/dev")
            ));
        }
        out.push(Fact {
            fact: "gpu.visible",
            value: count.to_string(),
            evidence,
        });
    }
}

/// Whether a GPU here has MIG GPU instances: the driver lists each as
/// `/proc/driver/nvidia/capabilities/gpuN/mig/giM` (the folder `mig`
/// alone is there on every GPU that supports MIG, on or off).
fn mig_instances(root: &Root) -> bool {
    let base = "/proc/driver/nvidia/capabilities";
    let Ok(gpus) = root.list(base, MAX_ENTRIES) else {
        return false;
    };
    gpus.names
        .iter()
        .filter(|g| g.starts_with("gpu"))
        .any(|gpu| {
            root.list(&format!("{base}/{gpu}/mig"), MAX_ENTRIES)
                .is_ok_and(|mig| mig.names.iter().any(|n| n.starts_with("gi")))
        })
}

/// The GPUs CUDA enumerates under the mask `CUDA_VISIBLE_DEVICES=mask` with
/// `nodes` GPUs present, as the CUDA Programming Guide describes the
/// variable: a comma-separated list of indices or `GPU-`/`MIG-` UUIDs, read
/// up to its first invalid entry (`0,2,-1,1` shows devices 0 and 2). `None`
/// where that cannot be told from files: a UUID (matched against the
/// driver's GPUs), or no device nodes to count (no GPU here, or `/dev`
/// unreadable: then the mask is not what leaves CUDA no GPU).
fn visible_count(mask: &str, nodes: Option<usize>) -> Option<usize> {
    // With no GPU to hide, the mask is not what leaves CUDA none.
    let nodes = nodes.filter(|&n| n > 0)?;
    let mut count = 0;
    for entry in mask.split(',') {
        let entry = entry.trim();
        if entry.starts_with("GPU-") || entry.starts_with("MIG-") {
            return None;
        }
        if entry.is_empty() || !entry.bytes().all(|b| b.is_ascii_digit()) {
            // Empty, `-1`, `all`, `none`: not an index; the list ends here.
            break;
        }
        match entry.parse::<usize>() {
            Ok(index) if index < nodes => count += 1,
            _ => break,
        }
    }
    Some(count)
}

/// A file's text if it is there; missing is silent.
fn read_if(root: &Root, path: &str, notes: &mut Vec<Note>) -> Option<String> {
    if !root.exists(path) {
        return None;
    }
    read_text(root, path, SMALL_FILE, notes)
}

/// `NVRM version: NVIDIA UNIX … Kernel Module  580.159.04  …`
fn driver_version(root: &Root, notes: &mut Vec<Note>) -> Option<(String, Vec<String>)> {
    let path = "/proc/driver/nvidia/version";
    let text = read_if(root, path, notes)?;
    let line = text.lines().next()?;
    let version = line
        .split_whitespace()
        .find(|w| w.contains('.') && w.chars().all(|c| c.is_ascii_digit() || c == '.'))?;
    Some((version.to_string(), vec![format!("{}:1", root.show(path))]))
}

/// The CUDA major a driver runs by minor-version compatibility: 11.x needs
/// ≥ 450, 12.x ≥ 525, 13.x ≥ 580 (NVIDIA's compatibility guide, as the
/// knowledge quotes it). Older drivers: not in the table.
pub fn driver_cuda(driver: &str) -> Option<u32> {
    let major: u32 = driver.split('.').next()?.parse().ok()?;
    match major {
        580.. => Some(13),
        525.. => Some(12),
        450.. => Some(11),
        _ => None,
    }
}

/// `size=65536k` → 64 (MiB); tmpfs takes k, m, g suffixes or bytes.
fn mebibytes(size: &str) -> Option<u64> {
    let (digits, unit) = size.split_at(
        size.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(size.len()),
    );
    let n: u64 = digits.parse().ok()?;
    Some(match unit.to_ascii_lowercase().as_str() {
        "" => n / (1024 * 1024),
        "k" => n / 1024,
        "m" => n,
        "g" => n * 1024,
        _ => return None,
    })
}

/// Each GPU's compute capability, from the model the host probe read.
fn capabilities(facts: &RootFacts, out: &mut Vec<Fact>) {
    for gpu in &facts.gpus {
        if let Some(cc) = capability(&gpu.value) {
            let mut evidence = gpu.evidence.clone();
            evidence.push(GPU_TABLE.to_string());
            out.push(Fact {
                fact: "gpu.capability",
                value: cc.to_string(),
                evidence,
            });
        }
    }
}

/// A GPU model's compute capability, from NVIDIA's CUDA GPUs tables as the
/// knowledge copies them. Only models those tables name; others are unknown.
pub fn capability(model: &str) -> Option<&'static str> {
    // Words, and each word's part before a `-` (`A100-SXM4-80GB` → `A100`).
    let words: Vec<String> = model
        .split_whitespace()
        .map(|w| w.split('-').next().unwrap_or(w).to_ascii_uppercase())
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    let after = |first: &str| {
        words
            .iter()
            .position(|x| x == first)
            .and_then(|i| words.get(i + 1))
            .map(String::as_str)
    };
    // Exact model words.
    const EXACT: &[(&str, &str)] = &[
        ("K20", "3.5"),
        ("K40", "3.5"),
        ("K80", "3.7"),
        ("M40", "5.2"),
        ("M60", "5.2"),
        ("P100", "6.0"),
        ("GP100", "6.0"),
        ("P40", "6.1"),
        ("P4", "6.1"),
        ("V100", "7.0"),
        ("GV100", "7.0"),
        ("T4", "7.5"),
        ("A100", "8.0"),
        ("A30", "8.0"),
        ("A40", "8.6"),
        ("A10", "8.6"),
        ("A16", "8.6"),
        ("A2", "8.6"),
        ("L4", "8.9"),
        ("L40", "8.9"),
        ("L40S", "8.9"),
        ("H100", "9.0"),
        ("H200", "9.0"),
        ("GH200", "9.0"),
        ("B200", "10.0"),
        ("GB200", "10.0"),
        ("B300", "10.3"),
        ("GB300", "10.3"),
        ("GB10", "12.1"),
    ];
    if has("JETSON") || has("ORIN") || has("XAVIER") || has("THOR") {
        return None;
    }
    for &(word, cc) in EXACT {
        if has(word) {
            return Some(cc);
        }
    }
    // `RTX A6000`, `RTX 6000 Ada`, `RTX PRO 6000 Blackwell`.
    if has("RTX") {
        if has("BLACKWELL") {
            return Some("12.0");
        }
        if has("ADA") {
            return Some("8.9");
        }
        if ["A6000", "A5000", "A4000"].iter().any(|w| has(w)) {
            return Some("8.6");
        }
        if let Some(number) = after("RTX")
            && number.len() == 4
            && number.chars().all(|c| c.is_ascii_digit())
            && has("GEFORCE")
        {
            return match &number[..2] {
                "30" => Some("8.6"),
                "40" => Some("8.9"),
                "50" => Some("12.0"),
                _ => None,
            };
        }
    }
    if has("GTX") && has("GEFORCE") {
        let number = after("GTX")?;
        if number.len() == 4 && number.starts_with("10") {
            return Some("6.1");
        }
        if number.len() == 3 && number.starts_with('9') {
            return Some("5.2");
        }
    }
    None
}

/// The version of the `libnvidia-ml.so.1` the loader finds in the library
/// folders (the user-space side `nvidia-smi` loads; the container runtime
/// mounts the host's): the file the link leads to, `libnvidia-ml.so.VERSION`.
fn driver_userspace(root: &Root, out: &mut Vec<Fact>, notes: &mut Vec<Note>) {
    let mut seen: Vec<String> = Vec::new();
    for dir in LOADER_DIRS
        .iter()
        .copied()
        .chain(["/usr/local/nvidia/lib64", "/usr/lib/wsl/lib"])
    {
        let Ok(real) = root.real(dir) else { continue };
        if seen.contains(&real) {
            continue;
        }
        seen.push(real.clone());
        let link = format!("{real}/libnvidia-ml.so.1");
        if !root.exists(&link) {
            continue;
        }
        let target = match root.real(&link) {
            Ok(t) => t,
            Err(err) => {
                note_error(root, &link, &err, notes);
                continue;
            }
        };
        let name = target.rsplit('/').next().unwrap_or("");
        if let Some(version) = name.strip_prefix("libnvidia-ml.so.")
            && version.contains('.')
            && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            out.push(fact(
                "driver.userspace",
                version.to_string(),
                format!("{} -> {}", root.show(&link), root.show(&target)),
            ));
        }
    }
}

// ---- files: packages, loader, compilers, runtimes -----------------------------------

fn files(root: &Root, facts: &RootFacts, out: &mut Vec<Fact>, notes: &mut Vec<Note>) {
    packages(root, facts, out, notes);
    python_libstdcxx(root, facts, out);
    dpkg(root, out, notes);
    libstdcxx(root, out);
    wheel_arch(facts, out);
    python_versions(facts, out);
    leftovers(root, facts, out);
    architecture(root, out);
}

/// `python.leftover`: a `~`-named folder or file in a Python environment's
/// site folder (`~orch`, `~orch-2.1.0.dist-info`): what pip's uninstall
/// or upgrade renamed the old files to, left when it was killed before it
/// finished; pip then warns `Ignoring invalid distribution -orch`.
fn leftovers(root: &Root, facts: &RootFacts, out: &mut Vec<Fact>) {
    let mut sites: Vec<&String> = facts.python_envs.iter().flat_map(|e| &e.sites).collect();
    sites.sort();
    sites.dedup();
    for site in sites {
        let Ok(listing) = root.list(site, MAX_ENTRIES) else {
            continue;
        };
        for name in listing.names.iter().filter(|n| n.starts_with('~')) {
            let path = format!("{site}/{name}");
            out.push(fact("python.leftover", root.show(&path), root.show(&path)));
        }
    }
}

/// `python`: the `X.Y` of each Python environment found, and
/// `python.path`: that of the `python3` on the machine's `PATH` (the one a
/// bare `pip` or `python -m pip` most likely runs), each from its
/// `lib/pythonX.Y/site-packages` folder (what a `cpXY` wheel tag names).
fn python_versions(facts: &RootFacts, out: &mut Vec<Fact>) {
    for env in &facts.python_envs {
        for site in &env.sites {
            let Some(version) = site_python(site) else {
                continue;
            };
            if out.iter().any(|f| f.fact == "python" && f.value == version) {
                continue;
            }
            let mut evidence = vec![format!("{} ({})", env.prefix, env.kind)];
            evidence.extend(env.found_by.iter().take(1).cloned());
            out.push(Fact {
                fact: "python",
                value: version,
                evidence,
            });
        }
    }
    if let Some(on_path) = &facts.python3
        && let Some(version) = on_path.sites_real.iter().find_map(|s| site_python(s))
    {
        let mut evidence = vec![on_path.exe.value.clone()];
        evidence.extend(on_path.exe.evidence.iter().cloned());
        out.push(Fact {
            fact: "python.path",
            value: version,
            evidence,
        });
    }
}

/// `/opt/python/venv/lib/python3.13t/site-packages` → `3.13`: the folder
/// above `site-packages` (Debian: `dist-packages`), which names the
/// interpreter; a free-threaded build's `t` is dropped (its wheels are
/// tagged `cp313t`, read as 3.13 too). Debian's `/usr/lib/python3/…`
/// names no minor version.
fn site_python(site: &str) -> Option<String> {
    let mut parts = site.trim_end_matches('/').rsplit('/');
    let last = parts.next()?;
    if last != "site-packages" && last != "dist-packages" {
        return None;
    }
    super::envs::python_x_y(parts.next()?)
}

/// `arch`: the CPU architecture the root's programs are built for, from
/// the ELF header of its shell (`e_machine`), in the names Linux and wheel
/// tags use.
fn architecture(root: &Root, out: &mut Vec<Fact>) {
    for path in ["/bin/sh", "/usr/bin/env"] {
        let Ok(bytes) = root.read(path, 20) else {
            continue;
        };
        let Some(arch) = elf_machine(&bytes.data) else {
            continue;
        };
        out.push(fact(
            "arch",
            arch.to_string(),
            format!("{}: ELF header", root.show(path)),
        ));
        return;
    }
}

/// The architecture an ELF header's `e_machine` names.
fn elf_machine(header: &[u8]) -> Option<&'static str> {
    if header.len() < 20 || &header[..4] != b"\x7fELF" {
        return None;
    }
    let little = header[5] == 1;
    let machine = if little {
        u16::from_le_bytes([header[18], header[19]])
    } else {
        u16::from_be_bytes([header[18], header[19]])
    };
    Some(match (machine, little) {
        (0x3e, _) => "x86_64",
        (0xb7, _) => "aarch64",
        (0x03, _) => "i686",
        (0x28, _) => "armv7l",
        (0x15, true) => "ppc64le",
        (0x15, false) => "ppc64",
        (0x16, _) => "s390x",
        (0xf3, _) => "riscv64",
        _ => return None,
    })
}

/// Python distributions in the site-packages folders where torch or an
/// NVIDIA wheel was found: `name version`, name normalised (lower case, `-`).
fn packages(root: &Root, facts: &RootFacts, out: &mut Vec<Fact>, notes: &mut Vec<Note>) {
    let shown_root = root.show("");
    let inside = |shown: &str| -> String {
        shown
            .strip_prefix(shown_root.as_str())
            .map(|s| {
                if s.starts_with('/') {
                    s.to_string()
                } else {
                    format!("/{s}")
                }
            })
            .unwrap_or_else(|| shown.to_string())
    };
    let mut sites: Vec<String> = facts.torch.iter().map(|t| inside(&t.site)).collect();
    for w in &facts.wheels {
        let dist_info = inside(&w.evidence);
        if let Some((site, _)) = dist_info.rsplit_once('/') {
            sites.push(site.to_string());
        }
    }
    sites.sort();
    sites.dedup();
    for site in sites {
        let listing = match root.list(&site, MAX_ENTRIES) {
            Ok(l) => l,
            Err(err) => {
                note_error(root, &site, &err, notes);
                continue;
            }
        };
        for name in listing.names {
            let Some(stem) = name.strip_suffix(".dist-info") else {
                continue;
            };
            let Some((dist, version)) = stem.split_once('-') else {
                continue;
            };
            out.push(fact(
                "package",
                format!("{} {version}", normalise(dist)),
                root.show(&format!("{site}/{name}")),
            ));
        }
    }
}

/// `PREFIX/lib/libstdc++.so.6.0.N` of each environment torch is in
/// (`PREFIX/lib/pythonX.Y/site-packages`): conda ships its own, which the
/// environment's Python finds first.
fn python_libstdcxx(root: &Root, facts: &RootFacts, out: &mut Vec<Fact>) {
    let shown_root = root.show("");
    let mut prefixes: Vec<String> = Vec::new();
    for t in &facts.torch {
        let site = t.site.strip_prefix(shown_root.as_str()).unwrap_or(&t.site);
        let site = if site.starts_with('/') {
            site.to_string()
        } else {
            format!("/{site}")
        };
        // PREFIX/lib/pythonX.Y/site-packages → PREFIX
        let parts: Vec<&str> = site.rsplitn(4, '/').collect();
        if parts.len() == 4 && parts[1].starts_with("python") && parts[2] == "lib" {
            prefixes.push(parts[3].to_string());
        }
    }
    prefixes.sort();
    prefixes.dedup();
    for prefix in prefixes {
        let dir = format!("{prefix}/lib");
        let Ok(listing) = root.list(&dir, MAX_ENTRIES) else {
            continue;
        };
        let best = listing
            .names
            .iter()
            .filter_map(|n| {
                n.strip_prefix("libstdc++.so.6.0.")?
                    .parse::<u32>()
                    .ok()
                    .map(|v| (v, n))
            })
            .max();
        if let Some((n, name)) = best {
            out.push(fact(
                "python.libstdcxx",
                format!("3.4.{n}"),
                root.show(&format!("{dir}/{name}")),
            ));
        }
    }
}

/// A distribution name as pip compares them: lower case, `_` and `.` as `-`.
pub fn normalise(name: &str) -> String {
    name.to_ascii_lowercase().replace(['_', '.'], "-")
}

/// Whether `lore` lists a dpkg package of this name besides NVIDIA's.
pub fn is_listed_apt(name: &str) -> bool {
    let versioned = |prefix: &str| {
        name.strip_prefix(prefix)
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
    };
    matches!(
        name,
        "gcc"
            | "g++"
            | "libstdc++6"
            | "libc6"
            | "build-essential"
            | "ninja-build"
            | "cmake"
            | "python3-dev"
    ) || versioned("gcc-")
        || versioned("g++-")
        || name.starts_with("libpython3") && name.ends_with("-dev")
        || name.starts_with("python3.") && name.ends_with("-dev")
}

/// The compilers and C/C++ runtimes from dpkg's status, and the versions of
/// gcc and glibc they give.
fn dpkg(root: &Root, out: &mut Vec<Fact>, notes: &mut Vec<Note>) {
    let path = "/var/lib/dpkg/status";
    if !root.exists(path) {
        return;
    }
    let Some(text) = read_text(root, path, DPKG_STATUS_CAP, notes) else {
        return;
    };
    let shown = root.show(path);
    let record = |name: &str, version: &str, line: usize, out: &mut Vec<Fact>| {
        if !is_listed_apt(name) {
            return;
        }
        let evidence = format!("{shown}:{line}");
        out.push(fact(
            "apt-package",
            format!("{name} {version}"),
            evidence.clone(),
        ));
        if name == "libc6" {
            out.push(fact("glibc", debian_upstream(version), evidence));
        }
    };
    let mut name: Option<(String, usize)> = None;
    let mut version = String::new();
    let mut installed = false;
    for (i, line) in text.lines().chain(std::iter::once("")).enumerate() {
        if line.is_empty() || line.starts_with("Package:") {
            if let Some((n, at)) = name.take()
                && installed
            {
                record(&n, &version, at, out);
            }
            version.clear();
            installed = false;
        }
        if let Some(n) = line.strip_prefix("Package:") {
            name = Some((n.trim().to_string(), i + 1));
        } else if let Some(s) = line.strip_prefix("Status:") {
            installed = s.trim().ends_with(" installed");
        } else if let Some(v) = line.strip_prefix("Version:") {
            version = v.trim().to_string();
        }
    }
}

/// `4:13.2.0-7ubuntu1` → `13.2.0`; `2.35-0ubuntu3.8` → `2.35`.
fn debian_upstream(version: &str) -> String {
    let v = version.split_once(':').map_or(version, |(_, v)| v);
    let v = v.rsplit_once('-').map_or(v, |(v, _)| v);
    v.split(['~', '+']).next().unwrap_or(v).to_string()
}

/// `libstdc++.so.6.0.N` provides `GLIBCXX_3.4.N` (GCC's ABI policy): the
/// newest in the loader's default folders.
fn libstdcxx(root: &Root, out: &mut Vec<Fact>) {
    let mut best: Option<(u32, String)> = None;
    let mut seen: Vec<String> = Vec::new();
    for dir in LOADER_DIRS {
        let Ok(real) = root.real(dir) else { continue };
        if seen.contains(&real) {
            continue;
        }
        seen.push(real.clone());
        let Ok(listing) = root.list(&real, MAX_ENTRIES) else {
            continue;
        };
        for name in listing.names {
            if let Some(n) = name.strip_prefix("libstdc++.so.6.0.")
                && let Ok(n) = n.parse::<u32>()
                && best.as_ref().is_none_or(|(b, _)| n > *b)
            {
                best = Some((n, root.show(&format!("{real}/{name}"))));
            }
        }
    }
    if let Some((n, evidence)) = best {
        out.push(fact("libstdcxx", format!("3.4.{n}"), evidence));
    }
}

/// The arch range of PyTorch's release wheels, for a torch installed as a
/// wheel, from the table the knowledge quotes (`PYTORCH_RELEASES_CODE_CC`,
/// RELEASE.md, issue reports). Where sources disagree the value says
/// `unsure`. (Code for X.0 runs on X.y: compare majors against `max`.)
fn wheel_arch(facts: &RootFacts, out: &mut Vec<Fact>) {
    for t in &facts.torch {
        let is_wheel = t
            .install
            .as_ref()
            .is_some_and(|i| matches!(i.value, super::TorchInstall::Wheel { .. }));
        let (Some(cuda), true) = (t.cuda.as_ref(), is_wheel) else {
            continue;
        };
        let Some(cuda_version) = &cuda.value else {
            continue;
        };
        let torch_version = t.version.as_ref().map(|v| v.value.as_str()).unwrap_or("");
        let at_least_2_11 = version_at_least(torch_version, &[2, 11]);
        let (min, max) = match cuda_version.as_str() {
            "11.8" | "12.4" => (None, Some("9.0")),
            "12.6" => (Some("5.0".to_string()), Some("9.0")),
            "12.8" => (
                Some(if at_least_2_11 {
                    "7.5".to_string()
                } else {
                    "unsure: 7.0 or 7.5".to_string()
                }),
                Some("12.0"),
            ),
            "13.0" => (Some("7.5".to_string()), Some("12.0")),
            _ => (None, None),
        };
        let mut evidence = cuda.evidence.clone();
        evidence.push(WHEEL_TABLE.to_string());
        if let Some(min) = min {
            out.push(Fact {
                fact: "torch.arch.min",
                value: min,
                evidence: evidence.clone(),
            });
        }
        if let Some(max) = max {
            out.push(Fact {
                fact: "torch.arch.max",
                value: max.to_string(),
                evidence,
            });
        }
    }
}

fn version_at_least(version: &str, want: &[u32]) -> bool {
    let have: Vec<u32> = version
        .split(['+', 'a', 'b', 'r'])
        .next()
        .unwrap_or("")
        .split('.')
        .map_while(|p| p.parse().ok())
        .collect();
    have.as_slice() >= want
}

/// Files matching `pattern` (absolute; `*` matches within one component),
/// inside the root, at most `MAX_MATCHES`, in order.
pub fn find_files(root: &Root, pattern: &str) -> Vec<String> {
    const MAX_MATCHES: usize = 1_000;
    let mut current = vec![String::new()];
    for component in pattern.split('/').filter(|c| !c.is_empty()) {
        let mut next = Vec::new();
        for base in &current {
            if !component.contains('*') {
                next.push(format!("{base}/{component}"));
                continue;
            }
            let dir = if base.is_empty() { "/" } else { base.as_str() };
            let Ok(listing) = root.list(dir, MAX_ENTRIES) else {
                continue;
            };
            for name in listing.names {
                if glob_match(component, &name) {
                    next.push(format!("{base}/{name}"));
                }
                if next.len() >= MAX_MATCHES {
                    break;
                }
            }
        }
        current = next;
        if current.is_empty() {
            return current;
        }
    }
    current.retain(|p| root.exists(p));
    current
}

/// `*` matches any run of characters (none included); everything else itself.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

// ---- the Dockerfile -------------------------------------------------------------------

/// `ENV`s that list folders to search, whose value with an unknown part
/// says nothing about what they hold.
const SEARCH_LISTS: [&str; 3] = ["PATH", "LD_LIBRARY_PATH", "LIBRARY_PATH"];

/// The Dockerfile's facts: the flavour, CUDA and `ENV`s of the stage that
/// holds `line` as it was when that line started (a build log's failed
/// step), else of the final stage. Without files to read (`files` false),
/// also the nvcc, CUDA toolkit and torch that stage had: the files, when
/// probed, are the better witness.
fn from_dockerfile(file: &Dockerfile, line: Option<usize>, files: bool, out: &mut Vec<Fact>) {
    let at = |line: usize| format!("{}:{line}", file.path);
    let stage = match line {
        Some(l) => file.stage_at(l),
        None => file.final_stage(),
    };
    if let Some(stage) = stage {
        let (from, base) = file.root_base(stage);
        if let Base::NvidiaCuda {
            version, flavor, ..
        } = base
        {
            out.push(fact(
                "image.flavour",
                flavor.name().to_string(),
                at(from.line),
            ));
            out.push(fact("image.cuda", version.clone(), at(from.line)));
        }
        // ENV is inherited along FROM <stage>: the base image's own, then
        // the stage's chain, the latest setting of each name winning; in
        // the stage itself only those above the line.
        let mut env: Vec<(&str, String, String)> = Vec::new();
        if !matches!(base, Base::Stage { .. } | Base::Unresolved { .. })
            && let Some(implied) = images::lookup(&from.image)
        {
            for (name, value) in &implied.row.env {
                let evidence = format!("{} (image table {}: ENV)", at(from.line), implied.row.id);
                env.push((name, value.clone(), evidence));
            }
        }
        for s in file.lineage(stage).iter().rev() {
            for e in s
                .env
                .iter()
                .filter(|e| stage_at::ran(s, stage, line, e.line))
            {
                env.retain(|(n, _, _)| *n != e.name);
                // A search list with a part the file does not fix
                // (`/opt/venv/bin:$PATH` on an image lore does not know)
                // may hold anything: not known. Elsewhere the value as
                // written still says the name is set.
                let value = match &e.known {
                    Some(known) => known.clone(),
                    None if SEARCH_LISTS.contains(&e.name.as_str()) => continue,
                    None => e.value.clone(),
                };
                env.push((&e.name, value, at(e.line)));
            }
        }
        for (name, value, evidence) in env {
            out.push(fact("env", format!("{name}={value}"), evidence));
        }
        if !files {
            stage_tools(file, stage, line, out);
        }
    }
    // Any stage that sets TORCH_CUDA_ARCH_LIST builds with it.
    for stage in &file.stages {
        for e in stage
            .env
            .iter()
            .filter(|e| e.name == "TORCH_CUDA_ARCH_LIST")
        {
            arch_range(&e.value, &at(e.line), out);
        }
    }
}

/// `nvcc`, `cuda-toolkit`, the installed `package`s and `apt-package`s,
/// `torch`, `torch.cuda` and `torch.install` as a stage had them at `line`
/// (`stage_at`), where the Dockerfile settles them.
fn stage_tools(file: &Dockerfile, stage: &Stage, line: Option<usize>, out: &mut Vec<Fact>) {
    if let Some(c) = stage_at::compiler(file, stage, line) {
        if c.present {
            out.push(fact("nvcc", "in the image".to_string(), c.evidence.clone()));
            if let Some(version) = c.version {
                out.push(fact("cuda-toolkit", version, c.evidence));
            }
        } else {
            out.push(fact(
                "nvcc",
                "absent from the image".to_string(),
                c.evidence,
            ));
        }
    }
    for p in stage_at::packages(file, stage, line) {
        let value = match p.version {
            Some(v) => format!("{} {v}", p.name),
            None => p.name,
        };
        let name = if p.apt { "apt-package" } else { "package" };
        out.push(fact(name, value, p.evidence));
    }
    match stage_at::torch(file, stage, line) {
        Some(stage_at::Torch::Absent { evidence }) => {
            out.push(fact("torch", "absent from the image".to_string(), evidence));
        }
        Some(stage_at::Torch::Installed {
            version,
            cuda,
            install,
            evidence,
        }) => {
            let version = version.unwrap_or_else(|| "installed, version unknown".to_string());
            out.push(fact("torch", version, evidence.clone()));
            match cuda {
                Some(Some(cuda)) => out.push(fact("torch.cuda", cuda, evidence.clone())),
                Some(None) => out.push(fact(
                    "torch.cuda",
                    "none (CPU)".to_string(),
                    evidence.clone(),
                )),
                None => {}
            }
            if let Some(install) = install {
                out.push(fact("torch.install", install.to_string(), evidence));
            }
        }
        None => {}
    }
}

/// `build.arch.min` and `build.arch.max` of one arch list: its lowest and
/// highest entries.
fn arch_range(list: &str, evidence: &str, out: &mut Vec<Fact>) {
    let mut archs: Vec<(Vec<u64>, String)> = arch_list(list)
        .into_iter()
        .filter_map(|a| {
            let parts: Option<Vec<u64>> = a.split('.').map(|p| p.parse().ok()).collect();
            parts.map(|p| (p, a))
        })
        .collect();
    archs.sort();
    if let (Some((_, low)), Some((high, _))) = (archs.first(), archs.last()) {
        out.push(fact("build.arch.min", low.clone(), evidence));
        let high = high
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(".");
        out.push(fact("build.arch.max", high, evidence));
    }
}

/// `"8.0;8.6 9.0+PTX"` → `8.0`, `8.6`, `9.0`. Names (`Ampere`) are skipped.
fn arch_list(value: &str) -> Vec<String> {
    value
        .trim_matches(|c| c == '"' || c == '\'')
        .split([';', ' ', ','])
        .map(|a| {
            a.trim()
                .trim_end_matches("+PTX")
                .trim_end_matches(['a', 'f'])
        })
        .filter(|a| !a.is_empty() && a.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gpus_cuda_visible_devices_leaves() {
        // Seen on an H200 (one GPU): "" and "1" both gave "No CUDA GPUs are available".
        assert_eq!(visible_count("", Some(1)), Some(0));
        assert_eq!(visible_count("1", Some(1)), Some(0));
        assert_eq!(visible_count("0", Some(1)), Some(1));
        assert_eq!(visible_count("-1", Some(2)), Some(0));
        assert_eq!(visible_count("all", Some(8)), Some(0));
        // The Programming Guide's example: the list ends at -1.
        assert_eq!(visible_count("0,2,-1,1", Some(4)), Some(2));
        assert_eq!(visible_count(" 0, 1", Some(2)), Some(2));
        // Not told: UUIDs, and indices with no device nodes to count.
        assert_eq!(visible_count("GPU-8e3d1f2a", Some(1)), None);
        assert_eq!(visible_count("0,MIG-1a2b", Some(1)), None);
        assert_eq!(visible_count("0", None), None);
        assert_eq!(visible_count("3", Some(0)), None);
        assert_eq!(visible_count("", Some(0)), None);
    }

    /// `gpu.visible` for a root holding `nodes` GPU device nodes, with
    /// `mig` GPU instances or not, under `mask`.
    fn visible_in(nodes: usize, mig: bool, mask: Option<&str>) -> Option<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("dev")).unwrap();
        for n in 0..nodes {
            std::fs::write(dir.path().join(format!("dev/nvidia{n}")), "").unwrap();
        }
        std::fs::write(dir.path().join("dev/nvidiactl"), "").unwrap();
        let caps = dir.path().join("proc/driver/nvidia/capabilities/gpu0/mig");
        std::fs::create_dir_all(&caps).unwrap();
        if mig {
            std::fs::create_dir_all(caps.join("gi1")).unwrap();
        }
        let root = Root::new(dir.path()).unwrap();
        let mut out = Vec::new();
        visible_gpus(&root, mask, &mut out);
        out.into_iter()
            .find(|f| f.fact == "gpu.visible")
            .map(|f| f.value)
    }

    #[test]
    fn gpus_visible_without_a_mask_are_the_device_nodes() {
        assert_eq!(visible_in(2, false, None).as_deref(), Some("2"));
        assert_eq!(visible_in(2, false, Some("1")).as_deref(), Some("1"));
        assert_eq!(visible_in(1, false, Some("1")).as_deref(), Some("0"));
        // No GPU here: nothing to count, nothing told.
        assert_eq!(visible_in(0, false, None), None);
        // `mig` alone is on every MIG-capable GPU; a GPU instance means CUDA
        // enumerates MIG devices, which the nodes do not count.
        assert_eq!(visible_in(8, true, None), None);
        assert_eq!(visible_in(8, true, Some("0")), None);
    }

    #[test]
    fn the_python_a_site_folder_names() {
        for (site, want) in [
            ("/usr/local/lib/python3.11/site-packages", Some("3.11")),
            (
                "/opt/python/venv/lib/python3.12/site-packages",
                Some("3.12"),
            ),
            (
                "/root/.local/share/uv/python/cpython-3.12.4-linux-x86_64-gnu/lib/python3.12/site-packages/",
                Some("3.12"),
            ),
            ("/usr/local/lib/python3.10/dist-packages", Some("3.10")),
            ("/opt/ft/lib/python3.13t/site-packages", Some("3.13")),
            ("/usr/lib/python3/dist-packages", None),
            ("/opt/python3.11/bin", None),
        ] {
            assert_eq!(site_python(site).as_deref(), want, "{site}");
        }
    }

    #[test]
    fn the_cpu_an_elf_header_names() {
        let header = |machine: [u8; 2], data: u8| {
            let mut h = vec![0x7f, b'E', b'L', b'F', 2, data];
            h.resize(18, 0);
            h.extend(machine);
            h
        };
        assert_eq!(elf_machine(&header([0x3e, 0], 1)), Some("x86_64"));
        assert_eq!(elf_machine(&header([0xb7, 0], 1)), Some("aarch64"));
        assert_eq!(elf_machine(&header([0, 0x15], 2)), Some("ppc64"));
        assert_eq!(elf_machine(&header([0x15, 0], 1)), Some("ppc64le"));
        assert_eq!(elf_machine(&header([0x99, 0], 1)), None);
        assert_eq!(elf_machine(b"#!/bin/sh\necho not an ELF file"), None);
        assert_eq!(elf_machine(&[0x7f, b'E', b'L', b'F']), None);
    }

    #[test]
    fn driver_to_cuda_major() {
        assert_eq!(driver_cuda("580.159.04"), Some(13));
        assert_eq!(driver_cuda("570.124.06"), Some(12));
        assert_eq!(driver_cuda("525.60.13"), Some(12));
        assert_eq!(driver_cuda("470.82.01"), Some(11));
        assert_eq!(driver_cuda("418.1"), None);
    }

    #[test]
    fn gpu_models_to_capability() {
        assert_eq!(capability("NVIDIA H100 80GB HBM3"), Some("9.0"));
        assert_eq!(capability("NVIDIA A100-SXM4-80GB"), Some("8.0"));
        assert_eq!(capability("NVIDIA A10"), Some("8.6"));
        assert_eq!(capability("NVIDIA GeForce RTX 5090"), Some("12.0"));
        assert_eq!(capability("NVIDIA GeForce RTX 3090"), Some("8.6"));
        assert_eq!(capability("NVIDIA GeForce GTX 1080 Ti"), Some("6.1"));
        assert_eq!(capability("Tesla V100-SXM2-16GB"), Some("7.0"));
        assert_eq!(capability("NVIDIA RTX 6000 Ada Generation"), Some("8.9"));
        assert_eq!(capability("Tesla T4"), Some("7.5"));
        // Not in the tables: unknown, never guessed.
        assert_eq!(capability("NVIDIA A10G"), None);
        assert_eq!(capability("NVIDIA GeForce RTX 2080"), None);
        assert_eq!(capability("NVIDIA Jetson AGX Orin"), None);
    }

    #[test]
    fn arch_lists_and_versions() {
        assert_eq!(arch_list("\"8.0;8.6 9.0+PTX\""), vec!["8.0", "8.6", "9.0"]);
        assert_eq!(arch_list("Ampere;9.0a"), vec!["9.0"]);
        assert_eq!(debian_upstream("4:13.2.0-7ubuntu1"), "13.2.0");
        assert_eq!(debian_upstream("2.35-0ubuntu3.8"), "2.35");
        assert_eq!(mebibytes("65536k"), Some(64));
        assert_eq!(mebibytes("2g"), Some(2048));
        assert!(version_at_least("2.11.0+cu130", &[2, 11]));
        assert!(!version_at_least("2.9.1", &[2, 11]));
        assert!(glob_match("libcupti.so*", "libcupti.so.12"));
        assert!(glob_match("python3*", "python3.12"));
        assert!(!glob_match("lib*.so", "libx.so.1"));
        assert!(is_listed_apt("gcc-12") && is_listed_apt("libpython3.12-dev"));
        assert!(!is_listed_apt("gcc-foo") && !is_listed_apt("vim"));
    }
}
