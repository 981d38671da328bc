//! Facts a message states about the place it was printed. Some messages
//! carry what the probes would have to find: torch's warning names the
//! GPU's compute capability and the ones the wheel was built for, nvcc's
//! refusal names the architecture it does not know. A log pasted from a
//! build container or another machine is then judged on what it says,
//! with the message as the evidence, beside what the probes find here.
//!
//! The texts read, as the programs print them (`cuda/03` quotes them):
//! - torch's `_check_cubins`: `… with CUDA capability sm_120 is not
//!   compatible with the current PyTorch installation.` and `The current
//!   PyTorch install supports CUDA capabilities sm_50 … sm_90.`
//! - torch's `_check_capability`: `Found GPU0 … which is of cuda capability
//!   3.0.` (up to 2.10), `… which is of compute capability (CC) 6.1.`
//!   (2.11), `The minimum cuda capability supported by this library is
//!   3.7.` (up to 2.7), `Minimum and Maximum cuda capability supported by
//!   this version of PyTorch is (7.0) - (12.0)` (2.8 to 2.10).
//! - nvcc: `Unsupported gpu architecture 'compute_120'`, and older nvcc's
//!   `Value 'sm_30' is not defined for option 'gpu-architecture'`.
//!
//! A message also names places: a traceback's `File "…/site-packages/…"`
//! lines lead into the Python environment the program ran in, which the
//! probes are then asked to read too ([`python_envs`]).

use crate::probe::{Fact, NamedEnv};

/// Python environments taken from one message, at most.
const MAX_NAMED_ENVS: usize = 8;
/// Linux's `PATH_MAX`: a longer run of characters is not a path.
const PATH_MAX: usize = 4096;

/// The Python environments `message` names by an absolute path into one of
/// their site folders (a traceback's `File "/opt/app/.venv/lib/python3.12/
/// site-packages/torch/…"`, a compiler's `-isystem …/site-packages/torch/
/// include`), each once, in the order named; at most `MAX_NAMED_ENVS`.
/// Only `PREFIX/lib/pythonX.Y/site-packages` (and `lib64`, Debian's
/// `dist-packages`) shapes count: the prefix is the environment.
pub fn python_envs(message: &str) -> Vec<NamedEnv> {
    let mut out: Vec<NamedEnv> = Vec::new();
    for (i, line) in message.lines().enumerate() {
        for folder in ["/site-packages", "/dist-packages"] {
            for (at, _) in line.match_indices(folder) {
                let end = at + folder.len();
                let closed = line[end..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == '/' || ends_path(c));
                // A path is at most PATH_MAX long: the look back is bounded,
                // so a hostile line of such folders stays linear.
                let mut window = at.saturating_sub(PATH_MAX);
                while !line.is_char_boundary(window) {
                    window -= 1;
                }
                let start = match line[window..at].rfind(ends_path) {
                    Some(p) => window + p + 1,
                    None if window == 0 => 0,
                    None => continue,
                };
                let site = &line[start..end];
                let Some(prefix) = closed.then(|| env_prefix(site)).flatten() else {
                    continue;
                };
                if out.len() < MAX_NAMED_ENVS && !out.iter().any(|n| n.prefix == prefix) {
                    out.push(NamedEnv {
                        prefix,
                        site: site.to_string(),
                        line: i + 1,
                    });
                }
            }
        }
    }
    out
}

/// Characters that end a path in a log line: space, quotes, and the
/// separators of `-isystem=…`, `PATH`-like lists and Python's reprs.
fn ends_path(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '"' | '\'' | '`' | '=' | ':' | ',' | '(' | ')' | '[' | ']'
        )
}

/// `/opt/app/.venv/lib/python3.12/site-packages` → `/opt/app/.venv`; `None`
/// for any other shape (a relative path, `..`, no `lib/python*`).
fn env_prefix(site: &str) -> Option<String> {
    if !site.starts_with('/') || site.split('/').any(|c| c == ".." || c == ".") {
        return None;
    }
    let (lib_python, _) = site.rsplit_once('/')?;
    let (lib, python) = lib_python.rsplit_once('/')?;
    if !python.starts_with("python") {
        return None;
    }
    let prefix = lib
        .strip_suffix("/lib")
        .or_else(|| lib.strip_suffix("/lib64"))?;
    Some(if prefix.is_empty() { "/" } else { prefix }.to_string())
}

/// The facts `message` states, each with the words it was read from.
pub fn facts(message: &str) -> Vec<Fact> {
    // Pastes wrap and indent torch's multi-line warnings as they like.
    let text = message.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut add = |fact: &'static str, value: String, words: String| {
        let evidence = vec![format!("the message: \"{words}\"")];
        if !out
            .iter()
            .any(|f: &Fact| f.fact == fact && f.value == value)
        {
            out.push(Fact {
                fact,
                value,
                evidence,
            });
        }
    };
    for (before, after) in [
        ("Unsupported gpu architecture '", "'"),
        ("Value '", "' is not defined for option 'gpu-architecture'"),
        // ptxas, handed an architecture it does not know.
        ("Value '", "' is not defined for option 'gpu-name'"),
    ] {
        for name in between(&text, before, after) {
            if let Some(cc) = arch_capability(name) {
                add("message.arch", cc, format!("{before}{name}{after}"));
            }
        }
    }
    let with_capability = " with CUDA capability ";
    for rest in after_each(&text, with_capability) {
        let word = first_word(rest);
        if rest[word.len()..].starts_with(" is not compatible")
            && let Some(cc) = arch_capability(word)
        {
            add("gpu.capability", cc, format!("with CUDA capability {word}"));
        }
    }
    let supports = "The current PyTorch install supports CUDA capabilities ";
    for rest in after_each(&text, supports) {
        let list: Vec<&str> = rest
            .split(' ')
            .map(|w| w.trim_end_matches('.'))
            .take_while(|w| w.starts_with("sm_") || w.starts_with("compute_"))
            .collect();
        // Code for the GPU itself: `compute_XY` is PTX, which the warning
        // does not count either.
        let mut built: Vec<(u32, u32, String)> = list
            .iter()
            .filter(|w| w.starts_with("sm_"))
            .filter_map(|w| {
                let cc = arch_capability(w)?;
                let (major, minor) = cc.split_once('.')?;
                Some((major.parse().ok()?, minor.parse().ok()?, cc))
            })
            .collect();
        built.sort();
        if let (Some(low), Some(high)) = (built.first(), built.last()) {
            let words = format!("{supports}{}", list.join(" "));
            add("torch.arch.min", low.2.clone(), words.clone());
            add("torch.arch.max", high.2.clone(), words);
        }
    }
    for phrase in [
        " which is of cuda capability ",
        " which is of compute capability (CC) ",
    ] {
        for rest in after_each(&text, phrase) {
            if let Some(cc) = capability(first_word(rest)) {
                add(
                    "gpu.capability",
                    cc.clone(),
                    format!("{}{cc}", phrase.trim_start()),
                );
            }
        }
    }
    let minimum = "The minimum cuda capability supported by this library is ";
    for rest in after_each(&text, minimum) {
        if let Some(cc) = capability(first_word(rest)) {
            add("torch.arch.min", cc.clone(), format!("{minimum}{cc}"));
        }
    }
    oom_facts(&text, &mut add);
    if let Some((index, words)) = device_index(&text) {
        add("message.device", index.to_string(), words);
    }
    for rest in before_each(&text, UNSUPPORTED_WHEEL)
        .into_iter()
        .take(MAX_WHEELS)
    {
        let file = rest.rsplit([' ', '/']).next().unwrap_or(rest);
        let Some(tags) = wheel_tags(file) else {
            continue;
        };
        let words = format!("{file}{UNSUPPORTED_WHEEL}");
        if let Some(python) = tags.python {
            add("message.wheel.python", python, words.clone());
        }
        add("message.wheel.os", tags.os.to_string(), words.clone());
        if let Some(arch) = tags.arch {
            add("message.wheel.arch", arch, words.clone());
        }
        if let Some(libc) = tags.libc {
            add("message.wheel.libc", libc.to_string(), words.clone());
        }
        if let Some(glibc) = tags.glibc {
            add("message.wheel.glibc", glibc, words);
        }
    }
    let range = "cuda capability supported by this version of PyTorch is (";
    for rest in after_each(&text, range) {
        let Some((low, high)) = window(rest).split_once(") - (") else {
            continue;
        };
        let high = high.split(')').next().unwrap_or_default();
        if let (Some(low), Some(high)) = (capability(low), capability(high)) {
            let words = format!("{range}{low}) - ({high})");
            add("torch.arch.min", low, words.clone());
            add("torch.arch.max", high, words);
        }
    }
    out
}

/// PyTorch's out-of-memory message, in both its forms (`cuda/13` quotes
/// them), read into sizes in MiB:
/// - 2.1 and later: `Tried to allocate 2.00 GiB. GPU 0 has a total capacity
///   of 23.55 GiB of which 1.65 GiB is free. Process 5906 has 293.38 MiB
///   memory in use. Including non-PyTorch memory, this process has 21.22 GiB
///   memory in use. Of the allocated memory 20.04 GiB is allocated by
///   PyTorch, and 903.34 MiB is reserved by PyTorch but unallocated.`
/// - 1.x and 2.0: `Tried to allocate 28.00 MiB (GPU 0; 3.78 GiB total
///   capacity; 319.96 MiB already allocated; 91.00 MiB free; 334.00 MiB
///   reserved in total by PyTorch)`.
///
/// `message.oom.others` is what the GPU holds beyond this process: total −
/// free − this process's use (`this process has …`, which PyTorch prints
/// only where NVML's process ids are its own; elsewhere, as in a container
/// with its own process ids, its own use is among the `Process N has …`
/// lines, so they are not summed). Sizes a cause compares to the request
/// are rounded down and the request (and this process's use) up, so a
/// request under 1 MiB does not tie with an empty cache. Torch 2.1 printed
/// `total capacty`.
///
/// At most `MAX_OOM_MESSAGES` messages are read: a log of a thousand ranks'
/// messages would otherwise give a thousand values of each fact to compare.
fn oom_facts(text: &str, add: &mut impl FnMut(&'static str, String, String)) {
    for rest in after_each(text, OOM_REQUEST)
        .into_iter()
        .take(MAX_OOM_MESSAGES)
    {
        // One message's fields, up to the next one's.
        let mut message = first_chars(rest, OOM_WINDOW_CHARS);
        if let Some(next) = message.find(OOM_REQUEST) {
            message = &message[..next];
        }
        let Some((request, words)) = leading_size(message, Round::Up) else {
            continue;
        };
        let mut put = |fact: &'static str, mib: u64, words: String| {
            add(fact, mib.to_string(), words);
        };
        put(
            "message.oom.request",
            request,
            format!("{OOM_REQUEST}{words}"),
        );
        let total = size_after(message, "total capacity of ")
            .or_else(|| size_after(message, "total capacty of "))
            .or_else(|| size_before(message, " total capacity"));
        let free = size_after(message, " of which ").or_else(|| size_before(message, " free;"));
        let own = leading_after(message, "this process has ", Round::Up);
        let allocated = size_after(message, "Of the allocated memory ")
            .or_else(|| size_before(message, " already allocated"));
        let cached =
            size_before(message, " is reserved by PyTorch but unallocated").or_else(|| {
                // 1.x prints what is reserved in all; the cached part is the rest.
                let (reserved, words) = size_before(message, " reserved in total by PyTorch")?;
                let (used, _) = allocated.as_ref()?;
                Some((reserved.saturating_sub(*used), words))
            });
        for (fact, found) in [
            ("message.oom.total", &total),
            ("message.oom.free", &free),
            ("message.oom.allocated", &allocated),
            ("message.oom.reserved-free", &cached),
        ] {
            if let Some((mib, words)) = found {
                put(fact, *mib, words.clone());
            }
        }
        if let (Some((t, tw)), Some((f, fw)), Some((o, ow))) = (&total, &free, &own) {
            let others = t.saturating_sub(*f).saturating_sub(*o);
            put("message.oom.others", others, format!("{tw}, {fw}, {ow}"));
        }
    }
}

const OOM_REQUEST: &str = "Tried to allocate ";
/// Out-of-memory messages read from one paste, at most.
const MAX_OOM_MESSAGES: usize = 4;
/// A size above this (1 EiB, in MiB) is not a GPU's.
const MAX_MIB: u64 = 1 << 40;

/// Characters after `Tried to allocate ` that hold one OOM message's
/// fields and a few `Process N has …` lines.
const OOM_WINDOW_CHARS: usize = 1200;

/// The size right after the first `phrase`, in MiB (rounded down), with
/// its words.
fn size_after(text: &str, phrase: &str) -> Option<(u64, String)> {
    leading_after(text, phrase, Round::Down)
}

fn leading_after(text: &str, phrase: &str, round: Round) -> Option<(u64, String)> {
    let at = text.find(phrase)?;
    let (mib, size) = leading_size(&text[at + phrase.len()..], round)?;
    Some((mib, format!("{}{size}", phrase.trim_start())))
}

/// The size right before the first `phrase`, in MiB, with its words.
fn size_before(text: &str, phrase: &str) -> Option<(u64, String)> {
    let at = text.find(phrase)?;
    let mut words = text[..at].rsplit(' ');
    let unit = words.next()?;
    let number = words.next()?.trim_start_matches(['(', ';']);
    let mib = mebibytes(number, unit, Round::Down)?;
    Some((
        mib,
        format!("{number} {unit}{}", phrase.trim_end_matches(';')),
    ))
}

/// `2.00 GiB. GPU 0 …` → 2048 and `2.00 GiB`.
fn leading_size(text: &str, round: Round) -> Option<(u64, String)> {
    let mut words = text.split(' ');
    let number = words.next()?;
    let unit = words.next()?.trim_end_matches(['.', ',', ';', ')', '(']);
    Some((mebibytes(number, unit, round)?, format!("{number} {unit}")))
}

/// Which way a size is rounded to whole MiB.
#[derive(Clone, Copy)]
enum Round {
    Up,
    Down,
}

/// A size as PyTorch's `format_size` prints it (`bytes`, `KiB`, `MiB`,
/// `GiB`), in whole MiB; `None` past `MAX_MIB`.
fn mebibytes(number: &str, unit: &str, round: Round) -> Option<u64> {
    let n: f64 = number.parse().ok()?;
    let per_mib = match unit {
        "bytes" => 1024.0 * 1024.0,
        "KiB" => 1024.0,
        "MiB" => 1.0,
        "GiB" => 1.0 / 1024.0,
        "TiB" => 1.0 / (1024.0 * 1024.0),
        _ => return None,
    };
    let mib = n / per_mib;
    if !mib.is_finite() || !(0.0..=MAX_MIB as f64).contains(&mib) {
        return None;
    }
    Some(match round {
        Round::Up => mib.ceil() as u64,
        Round::Down => mib.floor() as u64,
    })
}

/// The highest GPU index the message asks for, with the words it was read
/// from: literal indices in the calls of a traceback's code that pick a
/// device (`torch.cuda.set_device(1)`, `torch.device("cuda:1")`,
/// `torch.device("cuda", 1)`, `.to("cuda:1")`, `.cuda(1)`, CuPy's
/// `cuda.Device(1)`) and torch's `… object on CUDA device 3 but
/// torch.cuda.device_count() is 1`. A `cuda:0` in a log line or a tensor's
/// `device='cuda:0'` says which GPU something is on, not which one the
/// failing call asked for, so free text is not read; and where any such
/// call takes its index from a variable (`set_device(local_rank)`,
/// `f"cuda:{rank}"`), the message does not tell the index at all. An index
/// is at most four digits.
fn device_index(text: &str) -> Option<(u32, String)> {
    let mut best: Option<(u32, String)> = None;
    let mut keep = |index: u32, words: String| {
        if best.as_ref().is_none_or(|(b, _)| index > *b) {
            best = Some((index, words));
        }
    };
    for call in [
        "set_device(",
        "cuda.Device(",
        "cuda.device(",
        ".cuda(",
        "torch.device(",
        ".to(",
    ] {
        for (at, _) in text.match_indices(call) {
            let rest = &text[at + call.len()..];
            let Some(end) = window(rest).find(')') else {
                continue;
            };
            let arg = rest[..end].trim();
            // `.to(device)`, `.to(torch.float16)`, `.to(torch.device(…))`:
            // only a string names a device there (the inner call is read
            // on its own).
            if call == ".to(" && !arg.starts_with(['"', '\'', 'f', 'F']) {
                continue;
            }
            match device_arg(arg) {
                DeviceArg::Index(index) => keep(index, format!("{call}{arg})")),
                DeviceArg::Variable => return None,
                DeviceArg::Current => {}
            }
        }
    }
    let phrase = "object on CUDA device ";
    for rest in after_each(text, phrase) {
        let word = first_word(rest);
        if let DeviceArg::Index(index) = device_arg(word) {
            keep(index, format!("{phrase}{word}"));
        }
    }
    best
}

/// What the argument of a call that picks a device says.
#[derive(Debug, PartialEq, Eq)]
enum DeviceArg {
    /// A literal index: `1`, `"cuda:1"`, `'cuda', 1`.
    Index(u32),
    /// An index computed at run time: `local_rank`, `f"cuda:{rank}"`.
    Variable,
    /// The current device, or not a device: ``, `"cuda"`, `"cpu"`,
    /// `non_blocking=True`.
    Current,
}

fn device_arg(arg: &str) -> DeviceArg {
    let index = |digits: &str| {
        let digits = digits.trim();
        (!digits.is_empty() && digits.len() <= 4 && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| digits.parse().ok())
            .flatten()
    };
    if arg.is_empty() || arg.contains('=') {
        return DeviceArg::Current;
    }
    if let Some(n) = index(arg) {
        return DeviceArg::Index(n);
    }
    let Some(quote) = arg.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
        return if arg.starts_with(['f', 'F']) && !arg.contains("cuda") {
            DeviceArg::Current
        } else {
            DeviceArg::Variable
        };
    };
    let inner = arg[1..].split(quote).next().unwrap_or_default();
    let after = arg[1 + inner.len()..].trim_start_matches(quote).trim();
    match inner.strip_prefix("cuda:") {
        Some(n) => index(n).map_or(DeviceArg::Variable, DeviceArg::Index),
        None if inner == "cuda" => match after.strip_prefix(',') {
            Some(n) => index(n).map_or(DeviceArg::Variable, DeviceArg::Index),
            None => DeviceArg::Current,
        },
        None => DeviceArg::Current,
    }
}

/// pip's refusal of a wheel named by file or URL (`cuda/31`):
/// `ERROR: torch-2.1.2+cu121-cp311-cp311-win_amd64.whl is not a supported
/// wheel on this platform.` (before pip 19.1 without `ERROR: `).
const UNSUPPORTED_WHEEL: &str = ".whl is not a supported wheel on this platform";
/// Wheels read from one message, at most.
const MAX_WHEELS: usize = 4;

/// What a wheel's file name says it runs on (PEP 427's
/// `name-version(-build)-python-abi-platform.whl`, PEP 425's tags).
#[derive(Debug, PartialEq, Eq)]
struct WheelTags {
    /// `3.11` for `cp311`; none for `py3`, `abi3` (any later CPython too),
    /// PyPy or a list of tags.
    python: Option<String>,
    /// `linux`, `windows`, `macos`, or `any`.
    os: &'static str,
    /// In Linux's names (`x86_64`, `aarch64`, `i686` …), for the first
    /// platform the name lists.
    arch: Option<String>,
    /// The C library a Linux wheel is built against: `glibc` (manylinux)
    /// or `musl` (musllinux); none for `linux_*`, built where it was built.
    libc: Option<&'static str>,
    /// The oldest glibc any of its manylinux tags accepts (`2.17` for
    /// `manylinux_2_17_x86_64.manylinux2014_x86_64`).
    glibc: Option<String>,
}

/// `file` without `.whl`: the tags of a wheel file name, or `None` when it
/// is not one. A URL's `%2B` stands for the `+` of a local version, which
/// the tags do not hold.
fn wheel_tags(file: &str) -> Option<WheelTags> {
    let stem = file.strip_suffix(".whl").unwrap_or(file);
    let parts: Vec<&str> = stem.split('-').collect();
    if parts.len() < 5 {
        return None;
    }
    let (python, abi, platform) = (
        parts[parts.len() - 3],
        parts[parts.len() - 2],
        parts[parts.len() - 1],
    );
    let python = python
        .strip_prefix("cp")
        .filter(|v| v.len() >= 2 && v.len() <= 3 && v.bytes().all(|b| b.is_ascii_digit()))
        .filter(|_| abi != "abi3")
        .map(|v| format!("{}.{}", &v[..1], &v[1..]));
    let platforms: Vec<&str> = platform.split('.').collect();
    let first = platforms.first()?;
    let (os, arch) = if *first == "any" {
        ("any", None)
    } else if let Some(arch) = first.strip_prefix("win") {
        let arch = match arch {
            "32" => "i686",
            "_amd64" => "x86_64",
            "_arm64" => "aarch64",
            _ => return None,
        };
        ("windows", Some(arch.to_string()))
    } else if first.starts_with("macosx_") {
        // `macosx_11_0_arm64`, `macosx_10_9_x86_64`; `universal2` runs on both.
        let arch = match first.splitn(4, '_').nth(3) {
            Some("arm64") => Some("aarch64".to_string()),
            Some(arch) if !arch.starts_with("universal") && arch != "intel" => {
                Some(arch.to_string())
            }
            _ => None,
        };
        ("macos", arch)
    } else if first.starts_with("linux_")
        || first.starts_with("manylinux")
        || first.starts_with("musllinux_")
    {
        ("linux", linux_arch(first).map(str::to_string))
    } else {
        return None;
    };
    let glibc = platforms
        .iter()
        .filter_map(|p| manylinux_glibc(p))
        .min_by_key(|&(major, minor)| (major, minor))
        .map(|(major, minor)| format!("{major}.{minor}"));
    let libc = if platforms.iter().any(|p| p.starts_with("manylinux")) {
        Some("glibc")
    } else if platforms.iter().any(|p| p.starts_with("musllinux_")) {
        Some("musl")
    } else {
        None
    };
    Some(WheelTags {
        python,
        os,
        arch,
        libc,
        glibc,
    })
}

/// The architecture at the end of a Linux platform tag.
fn linux_arch(tag: &str) -> Option<&str> {
    [
        "x86_64", "aarch64", "i686", "armv7l", "ppc64le", "s390x", "riscv64",
    ]
    .into_iter()
    .find(|arch| tag.ends_with(&format!("_{arch}")))
}

/// The glibc a manylinux tag needs: PEP 600's `manylinux_2_28_x86_64`, and
/// the legacy aliases `manylinux2014` (2.17), `manylinux2010` (2.12) and
/// `manylinux1` (2.5).
fn manylinux_glibc(tag: &str) -> Option<(u32, u32)> {
    if let Some(rest) = tag.strip_prefix("manylinux_") {
        let mut numbers = rest.split('_');
        let major = numbers.next()?.parse().ok()?;
        let minor = numbers.next()?.parse().ok()?;
        return Some((major, minor));
    }
    [
        ("manylinux2014_", (2, 17)),
        ("manylinux2010_", (2, 12)),
        ("manylinux1_", (2, 5)),
    ]
    .into_iter()
    .find(|(prefix, _)| tag.starts_with(prefix))
    .map(|(_, glibc)| glibc)
}

/// The text before each occurrence of `phrase`, at most
/// `4 × WINDOW_CHARS` characters of it (a file name, a path, pip's prefix).
fn before_each<'t>(text: &'t str, phrase: &str) -> Vec<&'t str> {
    text.match_indices(phrase)
        .map(|(at, _)| last_chars(&text[..at], WINDOW_CHARS * 4))
        .collect()
}

/// At most the last `n` characters of `text`.
fn last_chars(text: &str, n: usize) -> &str {
    text.char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(text, |(at, _)| &text[at..])
}

/// Every text between `before` and the next `after`, close by.
fn between<'t>(text: &'t str, before: &str, after: &str) -> Vec<&'t str> {
    after_each(text, before)
        .into_iter()
        .filter_map(|rest| window(rest).find(after).map(|end| &rest[..end]))
        .collect()
}

/// The start of `rest` where the rest of one message lies: looking no
/// further keeps a paste of a million `Value '` quick.
fn window(rest: &str) -> &str {
    first_chars(rest, WINDOW_CHARS)
}

/// At most the first `n` characters of `text`.
fn first_chars(text: &str, n: usize) -> &str {
    text.char_indices()
        .nth(n)
        .map_or(text, |(at, _)| &text[..at])
}

/// Longer than any name and closing words these messages have.
const WINDOW_CHARS: usize = 120;

/// The text after each occurrence of `phrase`.
fn after_each<'t>(text: &'t str, phrase: &str) -> Vec<&'t str> {
    text.match_indices(phrase)
        .map(|(at, _)| &text[at + phrase.len()..])
        .collect()
}

fn first_word(text: &str) -> &str {
    text.split(' ').next().unwrap_or_default()
}

/// `sm_120`, `compute_86`, `sm_90a`, `lto_89` → `12.0`, `8.6`, `9.0`, `8.9`.
fn arch_capability(name: &str) -> Option<String> {
    let digits = ["sm_", "compute_", "lto_"]
        .iter()
        .find_map(|p| name.strip_prefix(p))?;
    let digits = digits.trim_end_matches(['a', 'f']);
    if digits.len() < 2 || digits.len() > 3 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (major, minor) = digits.split_at(digits.len() - 1);
    // `compute_05` names no architecture.
    let major = major.trim_start_matches('0');
    (!major.is_empty()).then(|| format!("{major}.{minor}"))
}

/// `3.0.` or `12.0` → `3.0`, `12.0`.
fn capability(word: &str) -> Option<String> {
    let word = word.trim_end_matches('.');
    let (major, minor) = word.split_once('.')?;
    let number = |s: &str| !s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit());
    (number(major) && number(minor)).then(|| format!("{major}.{minor}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceback_names_the_environment_it_ran_in() {
        // Python run by its absolute path, from a venv PATH does not name.
        let log = "Traceback (most recent call last):\r\n  File \"/tmp/work/ext.py\", line 15, in <module>\r\n  File \"/opt/torch/.venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py\", line 2174, in load_inline\r\nRuntimeError: Ninja is required to load C++ extensions (pip install ninja to get it)\r\n";
        let named = python_envs(log);
        assert_eq!(named.len(), 1, "{named:?}");
        assert_eq!(named[0].prefix, "/opt/torch/.venv");
        assert_eq!(
            named[0].site,
            "/opt/torch/.venv/lib/python3.12/site-packages"
        );
        assert_eq!(named[0].line, 3);
    }

    #[test]
    fn compiler_flags_conda_debian_and_odd_shapes() {
        let named = python_envs(
            "g++ -isystem /home/u/miniconda3/envs/b/lib/python3.10/site-packages/torch/include -c x.cpp\n\
             File \"/usr/lib/python3/dist-packages/pkg_resources/__init__.py\", line 1\n\
             -isystem=/home/u/miniconda3/envs/b/lib/python3.10/site-packages/torch/include/api\n\
             C:\\venv\\lib\\site-packages\\torch\\x.py /srv/x/site-packages/y relative/lib/python3/site-packages/z\n\
             /a/lib/python3.11/site-packagesfoo /b/../lib/python3.11/site-packages/c",
        );
        let prefixes: Vec<&str> = named.iter().map(|n| n.prefix.as_str()).collect();
        assert_eq!(prefixes, ["/home/u/miniconda3/envs/b", "/usr"]);
        assert_eq!(named[1].line, 2);
    }

    #[test]
    fn at_most_eight_environments_from_a_hostile_paste() {
        let paste: String = (0..1000)
            .map(|i| format!("File \"/e{i}/lib/python3.12/site-packages/m.py\"\n"))
            .collect();
        assert_eq!(python_envs(&paste).len(), MAX_NAMED_ENVS);
        // One line of 1 MB of folders with nothing between them.
        let line = "/lib/python3.12/site-packages".repeat(36_000);
        assert!(python_envs(&line).len() <= MAX_NAMED_ENVS);
    }

    fn read(message: &str) -> Vec<(String, String)> {
        facts(message)
            .into_iter()
            .map(|f| (f.fact.to_string(), f.value))
            .collect()
    }

    /// Whether `message` states `fact` with `value`.
    fn states(message: &str, fact: &str, value: &str) -> bool {
        read(message).iter().any(|(f, v)| f == fact && v == value)
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn the_out_of_memory_message_of_torch_2_11() {
        // Printed on an H200 for a 400 GiB tensor.
        let oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 400.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 139.29 GiB is free. Including non-PyTorch memory, this process has 518.00 MiB memory in use. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)";
        assert_eq!(
            read(oom),
            pairs(&[
                ("message.oom.request", "409600"),
                ("message.oom.total", "143155"),
                ("message.oom.free", "142632"),
                ("message.oom.allocated", "0"),
                ("message.oom.reserved-free", "0"),
                // 143155 - 142632 - 518 (sizes rounded down, own use up).
                ("message.oom.others", "5"),
            ])
        );
        let f = facts(oom);
        assert_eq!(
            f[0].evidence,
            ["the message: \"Tried to allocate 400.00 GiB\""]
        );
    }

    #[test]
    fn other_processes_fragmentation_and_the_1_x_form() {
        let with_process = "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.55 GiB of which 1.65 GiB is free. Process 5906 has 293.38 MiB memory in use. Including non-PyTorch memory, this process has 21.22 GiB memory in use. Of the allocated memory 20.04 GiB is allocated by PyTorch, and 903.34 MiB is reserved by PyTorch but unallocated.";
        assert!(states(with_process, "message.oom.reserved-free", "903"));
        assert!(states(with_process, "message.oom.allocated", "20520"));
        // 24115 - 1689 - 21730
        assert!(states(with_process, "message.oom.others", "696"));
        // Without `this process has`, the `Process N has` lines may hold its
        // own use (container process ids): others is not told.
        let lines = "Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 10.00 GiB of which 0 bytes is free. Process 11 has 4.00 GiB memory in use. Process 12 has 1.50 GiB memory in use.";
        assert!(!read(lines).iter().any(|(f, _)| f == "message.oom.others"));
        let old = "RuntimeError: CUDA out of memory. Tried to allocate 28.00 MiB (GPU 0; 3.78 GiB total capacity; 319.96 MiB already allocated; 91.00 MiB free; 334.00 MiB reserved in total by PyTorch)";
        assert_eq!(
            read(old),
            pairs(&[
                ("message.oom.request", "28"),
                ("message.oom.total", "3870"),
                ("message.oom.free", "91"),
                ("message.oom.allocated", "319"),
                ("message.oom.reserved-free", "15"),
            ])
        );
        // Torch 2.1's own spelling.
        let typo = "Tried to allocate 55.57 GiB. GPU 0 has a total capacty of 12.00 GiB of which 9.02 GiB is free.";
        assert!(states(typo, "message.oom.total", "12288"));
        // Two ranks' messages with other sizes: each value read once.
        let other_rank = with_process.replace("2.00 GiB.", "4.00 GiB.");
        let two =
            format!("[rank0]: {with_process}\n[rank1]: {other_rank}\n[rank0]: {with_process}");
        let requests: Vec<String> = read(&two)
            .into_iter()
            .filter(|(f, _)| f == "message.oom.request")
            .map(|(_, v)| v)
            .collect();
        assert_eq!(requests, ["2048", "4096"]);
        assert!(read("Tried to allocate more than 1EB memory.").is_empty());
    }

    #[test]
    fn small_requests_huge_sizes_and_many_messages() {
        // 256 KiB asks for 1 MiB: an empty cache (0) is not enough for it.
        let small = "Tried to allocate 256.00 KiB (GPU 0; 3.78 GiB total capacity; 3.50 GiB already allocated; 100.00 KiB free; 3.50 GiB reserved in total by PyTorch)";
        assert!(states(small, "message.oom.request", "1"));
        assert!(states(small, "message.oom.reserved-free", "0"));
        // Sizes no GPU has are not read (and do not overflow).
        let huge = "Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 99999999999999 TiB of which 0 bytes is free. Including non-PyTorch memory, this process has 99999999999999 TiB memory in use.";
        let got = read(huge);
        assert!(
            !got.iter()
                .any(|(f, _)| f == "message.oom.total" || f == "message.oom.others"),
            "{got:?}"
        );
        // A thousand different messages: the first four are read.
        let many: String = (1..=1000)
            .map(|i| format!("Tried to allocate {i}.00 MiB (GPU 0; 3.78 GiB total capacity; {i}.00 MiB already allocated; 1.00 MiB free; 3.00 GiB reserved in total by PyTorch)\n"))
            .collect();
        let requests = read(&many)
            .into_iter()
            .filter(|(f, _)| f == "message.oom.request")
            .count();
        assert_eq!(requests, MAX_OOM_MESSAGES);
    }

    #[test]
    fn torchs_warning_for_a_gpu_newer_than_the_wheel() {
        let warning = "UserWarning:\r\n\
            NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.\r\n\
            The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.\r\n\
            If you want to use the NVIDIA GeForce RTX 5090 GPU with PyTorch, please check the instructions at https://pytorch.org/get-started/locally/";
        assert_eq!(
            read(warning),
            pairs(&[
                ("gpu.capability", "12.0"),
                ("torch.arch.min", "5.0"),
                ("torch.arch.max", "9.0"),
            ])
        );
        let evidence = &facts(warning)[0].evidence[0];
        assert_eq!(evidence, "the message: \"with CUDA capability sm_120\"");
    }

    #[test]
    fn torchs_range_warnings_by_release() {
        assert_eq!(
            read(
                "Found GPU0 NVIDIA GeForce GTX 760 which is of cuda capability 3.0.\n    \
                 PyTorch no longer supports this GPU because it is too old.\n    \
                 The minimum cuda capability supported by this library is 3.7."
            ),
            pairs(&[("gpu.capability", "3.0"), ("torch.arch.min", "3.7")])
        );
        assert_eq!(
            read(
                "Found GPU0 Tesla P100-PCIE-16GB which is of cuda capability 6.0. Minimum and \
                 Maximum cuda capability supported by this version of PyTorch is (7.0) - (12.0)"
            ),
            pairs(&[
                ("gpu.capability", "6.0"),
                ("torch.arch.min", "7.0"),
                ("torch.arch.max", "12.0"),
            ])
        );
        assert_eq!(
            read("Found GPU0 NVIDIA GeForce GTX 1080 which is of compute capability (CC) 6.1."),
            pairs(&[("gpu.capability", "6.1")])
        );
    }

    #[test]
    fn nvccs_refused_architecture() {
        assert_eq!(
            read("nvcc fatal   : Unsupported gpu architecture 'compute_120'"),
            pairs(&[("message.arch", "12.0")])
        );
        assert_eq!(
            read("nvcc fatal : Value 'sm_30' is not defined for option 'gpu-architecture'"),
            pairs(&[("message.arch", "3.0")])
        );
        assert_eq!(
            read("nvcc fatal   : Unsupported gpu architecture 'sm_90a'"),
            pairs(&[("message.arch", "9.0")])
        );
        assert_eq!(
            read("ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'"),
            pairs(&[("message.arch", "12.0")])
        );
        assert!(read("nvcc fatal   : Unsupported gpu architecture 'compute_05'").is_empty());
        // Not a number: nothing to compare.
        assert!(read("nvcc fatal   : Unsupported gpu architecture 'compute_native'").is_empty());
        assert!(read("nvcc fatal   : Unsupported gpu architecture 'compute_75+PTX'").is_empty());
    }

    #[test]
    fn the_gpu_index_a_message_asks_for() {
        let device = |message: &str| {
            read(message)
                .into_iter()
                .filter(|(f, _)| f == "message.device")
                .map(|(_, v)| v)
                .collect::<Vec<_>>()
        };
        for (message, index) in [
            (
                "File \"/home/u/train.py\", line 12, in <module>\n    model.to(\"cuda:1\")\ntorch.AcceleratorError: CUDA error: invalid device ordinal",
                "1",
            ),
            (
                "    torch.cuda.set_device(7)\nRuntimeError: CUDA error: invalid device ordinal",
                "7",
            ),
            (
                "    with cp.cuda.Device(2):\ncupy_backends.cuda.api.runtime.CUDARuntimeError: cudaErrorInvalidDevice: invalid device ordinal",
                "2",
            ),
            ("    device = torch.device('cuda', 3)", "3"),
            ("    x = x.to(torch.device(\"cuda:2\"))", "2"),
            ("    with torch.cuda.device(1):", "1"),
            ("    model = model.cuda(1)", "1"),
            (
                "RuntimeError: Attempting to deserialize object on CUDA device 3 but torch.cuda.device_count() is 1.",
                "3",
            ),
            // The highest literal index, once; other calls name no device.
            (
                "    a = a.to(\"cuda:0\")\n    b = b.to(\"cuda:1\").to(torch.float16)\n    c = c.cuda()",
                "1",
            ),
        ] {
            assert_eq!(device(message), vec![index.to_string()], "{message}");
        }
        for none in [
            // Which GPU a tensor or a log line is on, not what a call asked for.
            "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:1!",
            "[rank0]: Using device cuda:0",
            "tensor([nan, nan], device='cuda:0')",
            // An index computed at run time hides the literal ones: the
            // failing call may be the computed one (rank 3 of a 2-GPU node).
            "[rank0]: model.to(\"cuda:0\")\n[rank3]: torch.cuda.set_device(local_rank)\n[rank3]: torch.AcceleratorError: CUDA error: invalid device ordinal",
            "    x = x.to(f\"cuda:{rank}\")",
            "    device = torch.device(\"cuda\", args.gpu)",
            "    model.cuda(args.gpu)",
            // The current device, a dtype, a variable of any kind.
            "    device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")",
            "    x = x.to(device).cuda(non_blocking=True)",
            // Image tags and versions.
            "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04",
            "torch.device(\"cuda:123456789\")",
        ] {
            assert!(device(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn the_tags_of_a_wheel_pip_refused() {
        let tags = |file: &str| wheel_tags(file).unwrap();
        assert_eq!(
            tags("torch-2.1.2+cu121-cp311-cp311-win_amd64.whl"),
            WheelTags {
                python: Some("3.11".into()),
                os: "windows",
                arch: Some("x86_64".into()),
                libc: None,
                glibc: None,
            }
        );
        // Alternatives: one match is enough, so the oldest glibc counts.
        assert_eq!(
            tags("torch-2.5.1-cp39-cp39-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
            WheelTags {
                python: Some("3.9".into()),
                os: "linux",
                arch: Some("x86_64".into()),
                libc: Some("glibc"),
                glibc: Some("2.17".into()),
            }
        );
        let aarch64 = tags("torch-2.11.0-cp313-cp313-manylinux_2_28_aarch64.whl");
        assert_eq!(
            (aarch64.arch.as_deref(), aarch64.glibc.as_deref()),
            (Some("aarch64"), Some("2.28"))
        );
        assert_eq!(
            tags("x-1.0-cp36-cp36m-manylinux1_x86_64.whl")
                .glibc
                .as_deref(),
            Some("2.5")
        );
        let mac = tags("numpy-2.0.0-cp312-cp312-macosx_11_0_arm64.whl");
        assert_eq!((mac.os, mac.arch.as_deref()), ("macos", Some("aarch64")));
        let intel = tags("numpy-2.0.0-cp312-cp312-macosx_10_9_x86_64.whl");
        assert_eq!(intel.arch.as_deref(), Some("x86_64"));
        assert_eq!(
            tags("x-1.0-cp312-cp312-macosx_10_9_universal2.whl").arch,
            None
        );
        let musl = tags("numpy-2.0.0-cp312-cp312-musllinux_1_2_x86_64.whl");
        assert_eq!(
            (musl.os, musl.libc, musl.glibc),
            ("linux", Some("musl"), None)
        );
        assert_eq!(tags("x-1.0-cp312-cp312-linux_x86_64.whl").libc, None);
        // `abi3` runs on later CPythons too; `py3` on any: no Python told.
        assert_eq!(
            tags("cryptography-44.0.0-cp39-abi3-manylinux_2_28_x86_64.whl").python,
            None
        );
        assert_eq!(tags("ninja-1.11.1-py2.py3-none-any.whl").os, "any");
        // A build tag shifts nothing: the tags are the last three parts.
        assert_eq!(
            tags("x-1.0-1-cp310-cp310-linux_x86_64.whl")
                .python
                .as_deref(),
            Some("3.10")
        );
        for not_a_wheel in ["x.whl", "a-b-c.whl", "x-1.0-cp311-cp311-beos_x86.whl"] {
            assert!(wheel_tags(not_a_wheel).is_none(), "{not_a_wheel}");
        }
        let message = "ERROR: /tmp/dl/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl is not a supported wheel on this platform.";
        assert!(states(message, "message.wheel.python", "3.12"));
        assert!(states(message, "message.wheel.os", "linux"));
        assert!(
            !read(message)
                .iter()
                .any(|(f, _)| f == "message.wheel.glibc")
        );
    }

    #[test]
    fn a_message_that_states_nothing_gives_nothing() {
        assert!(read("RuntimeError: CUDA error: no kernel image is available").is_empty());
        assert!(read("sm_120 with CUDA capability").is_empty());
        assert!(read("").is_empty());
    }
}
