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
    rest.char_indices()
        .nth(WINDOW_CHARS)
        .map_or(rest, |(at, _)| &rest[..at])
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

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
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
    fn a_message_that_states_nothing_gives_nothing() {
        assert!(read("RuntimeError: CUDA error: no kernel image is available").is_empty());
        assert!(read("sm_120 with CUDA capability").is_empty());
        assert!(read("").is_empty());
    }
}
