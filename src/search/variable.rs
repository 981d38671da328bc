//! The parts of a message that change from one run to the next: numbers,
//! sizes, versions, device indices, PIDs, timestamps, memory addresses,
//! digests, the folders a program was installed in, and prefixes such as
//! `[rank0]:`. The same `CUDA out of memory. Tried to allocate 2.00 GiB`
//! line quoted in the knowledge must match a user's line with other values
//! there, so the tokenizer (which reads the knowledge and the query alike)
//! treats these parts the same way on both sides:
//!
//! - noise that identifies nothing (timestamps, long hex addresses and
//!   digests, UUIDs, `line 235`, `file.cpp:629`'s line number, `cuda:0`'s
//!   index, `[rank0]`, glog's `[E1218`) takes no place at all;
//! - a long path's leading folders (`/opt/venv/lib/python3.12/site-packages/`)
//!   are indexed but share the position of the path's kept end
//!   (`torch/cuda/__init__.py`), and a query does not search for them;
//! - every number is also the placeholder term [`NUMBER`] at its position,
//!   so a query's word pairs around a number (`allocate 2`, `00 GiB`) match
//!   the same words around any other number.
//!
//! This module only recognises text; `tokenizer` decides what to emit.

/// The term standing for any number, at the number's position. No text
/// tokenizes to it (`#` is never part of a term), so it matches only
/// numbers.
pub const NUMBER: &str = "#";

/// True for a term that is a number (all ASCII digits).
pub fn is_number(term: &str) -> bool {
    !term.is_empty() && term.bytes().all(|b| b.is_ascii_digit())
}

/// `2024-11-22`, `2024-11-22T10:03:55.123Z`, `…T10:03:55+01:00`, `10:03:55`,
/// `10:03:55.123`.
pub fn is_timestamp(word: &str) -> bool {
    let w = word.trim_end_matches('Z');
    let is_date = |d: &str| {
        let parts: Vec<&str> = d.split(['-', '/']).collect();
        parts.len() == 3
            && parts[0].len() == 4
            && parts
                .iter()
                .all(|p| !p.is_empty() && p.len() <= 4 && p.chars().all(|c| c.is_ascii_digit()))
    };
    let is_time = |t: &str| {
        let t = t.split(['.', ',']).next().unwrap_or(t);
        // An offset after the time: `+01:00`, `-05:00`.
        let t = t.split(['+', '-']).next().unwrap_or(t);
        let parts: Vec<&str> = t.split(':').collect();
        (2..=3).contains(&parts.len())
            && parts
                .iter()
                .all(|p| (1..=2).contains(&p.len()) && p.chars().all(|c| c.is_ascii_digit()))
    };
    match w.split_once('T') {
        Some((d, t)) => is_date(d) && is_time(t),
        None => is_date(w) || is_time(w),
    }
}

/// Memory addresses (`0x7f3a2c1b9e40`) and digests (`sha256:…`, 32+ hex
/// digits). Short hex words stay: `0xffffffff` or a key id may be the point.
pub fn is_hex_noise(word: &str) -> bool {
    let word = word.strip_prefix("sha256:").unwrap_or(word);
    if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        return hex.len() > 8 && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    word.len() >= 32 && word.chars().all(|c| c.is_ascii_hexdigit())
}

/// `5f3c1b2a-9d8e-4f7a-b6c5-d4e3f2a1b0c9`, also with a `GPU-` or `MIG-` prefix.
pub fn is_uuid(word: &str) -> bool {
    let word = word
        .strip_prefix("GPU-")
        .or_else(|| word.strip_prefix("MIG-"))
        .unwrap_or(word);
    let parts: Vec<&str> = word.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}

/// A bracketed prefix that only says which process or when: `[rank0]`
/// (`torchrun`'s), glog's severity and date `[E1218` (`I`, `W`, `E`, `F`
/// and four digits), given the chunk and the characters around it.
pub fn is_bracketed_prefix(chunk: &str, before: Option<char>, after: Option<char>) -> bool {
    if before != Some('[') {
        return false;
    }
    let rank = chunk
        .strip_prefix("rank")
        .or_else(|| chunk.strip_prefix("Rank"))
        .is_some_and(is_number)
        && after == Some(']');
    let glog = chunk.len() == 5
        && chunk.starts_with(['I', 'W', 'E', 'F'])
        && is_number(&chunk[1..])
        && after == Some(' ');
    rank || glog
}

/// The end of `chunk` without trailing `:NUMBER` groups after a name with
/// a letter: `setup.py:42` → `setup.py`, `foo.cu:12:5` → `foo.cu`,
/// `cuda:0` → `cuda`, `node1:1234:1300` → `node1`. `None` when there are
/// none (or nothing with a letter would be left: `10:30`).
pub fn without_line_numbers(chunk: &str) -> Option<&str> {
    let mut core = chunk;
    let mut stripped = false;
    while let Some((head, tail)) = core.rsplit_once(':') {
        if is_number(tail) && !head.is_empty() {
            core = head.trim_end_matches(':');
            stripped = true;
        } else {
            break;
        }
    }
    (stripped && core.chars().any(char::is_alphabetic)).then_some(core)
}

/// Where the kept end of a path starts, as a byte offset into `path` (its
/// parts separated by `/`, the leading `/` already taken off): after the
/// last `site-packages` or `dist-packages`, else the last three parts.
/// `None` for a path of three parts or fewer.
pub fn kept_path_start(path: &str) -> Option<usize> {
    let mut parts: Vec<(usize, &str)> = Vec::new();
    let mut at = 0;
    for part in path.split('/') {
        if !part.is_empty() {
            parts.push((at, part));
        }
        at += part.len() + 1;
    }
    if parts.len() <= 3 {
        return None;
    }
    let after_packages = parts
        .iter()
        .rposition(|(_, p)| *p == "site-packages" || *p == "dist-packages")
        .filter(|&i| i + 1 < parts.len());
    let kept = after_packages.map_or(parts.len() - 3, |i| i + 1);
    Some(parts[kept].0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_addresses_and_ids() {
        for t in [
            "2024-11-22",
            "2024-11-22T10:03:55.123Z",
            "10:03:55",
            "20:27:21.426415540",
            "2026-03-01T14:02:11-05:00",
        ] {
            assert!(is_timestamp(t), "{t}");
        }
        assert!(!is_timestamp("12.4") && !is_timestamp("sm_90"));
        assert!(is_hex_noise("0x7f3a2c1b9e40") && !is_hex_noise("0xffffffff"));
        assert!(is_uuid("GPU-5f3c1b2a-9d8e-4f7a-b6c5-d4e3f2a1b0c9"));
    }

    #[test]
    fn line_numbers_device_indices_and_pids() {
        assert_eq!(without_line_numbers("foo.cu:12:5"), Some("foo.cu"));
        assert_eq!(without_line_numbers("cuda:0"), Some("cuda"));
        assert_eq!(without_line_numbers("node1:1234:1300"), Some("node1"));
        assert_eq!(without_line_numbers("10:30"), None);
        assert_eq!(without_line_numbers("expandable_segments:True"), None);
    }

    #[test]
    fn bracketed_prefixes() {
        assert!(is_bracketed_prefix("rank0", Some('['), Some(']')));
        assert!(is_bracketed_prefix("E1218", Some('['), Some(' ')));
        assert!(!is_bracketed_prefix("rank0", None, None));
        assert!(!is_bracketed_prefix("E1218", Some('['), Some(']')));
    }

    #[test]
    fn paths_keep_their_end() {
        let p = "usr/local/lib/python3.10/dist-packages/torch/__init__.py";
        assert_eq!(&p[kept_path_start(p).unwrap()..], "torch/__init__.py");
        let p = "home/me/src/app/build/x.o";
        assert_eq!(&p[kept_path_start(p).unwrap()..], "app/build/x.o");
        assert_eq!(kept_path_start("usr/local/cuda"), None);
    }
}
