//! GitHub-style heading anchors, so `#anchor` links written for GitHub work here.

use std::collections::HashMap;

/// The anchor GitHub gives a heading with this text: lower case, punctuation
/// dropped (except `-` and `_`), each space a `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.trim().chars() {
        if ch.is_alphanumeric() || ch == '-' || ch == '_' {
            out.extend(ch.to_lowercase());
        } else if ch == ' ' {
            out.push('-');
        }
    }
    out
}

/// Hands out unique anchors within one document: the second `## Usage` becomes
/// `usage-1`, the third `usage-2`, as on GitHub.
#[derive(Debug, Default)]
pub struct Slugger {
    seen: HashMap<String, usize>,
}

impl Slugger {
    pub fn unique(&mut self, text: &str) -> String {
        // The same walk as github-slugger: bump the base's counter until free.
        let base = slug(text);
        let mut result = base.clone();
        while self.seen.contains_key(&result) {
            let count = self.seen.entry(base.clone()).or_insert(0);
            *count += 1;
            result = format!("{base}-{count}");
        }
        self.seen.insert(result.clone(), 0);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_and_versions() {
        assert_eq!(slug("What is CUPTI?"), "what-is-cupti");
        assert_eq!(slug("CUDA 12.4 vs 12.6"), "cuda-124-vs-126");
        assert_eq!(
            slug("1. Debugging a builder stage"),
            "1-debugging-a-builder-stage"
        );
        assert_eq!(
            slug("`--mount=type=cache` and ARG"),
            "--mounttypecache-and-arg"
        );
        assert_eq!(slug("TORCH_CUDA_ARCH_LIST"), "torch_cuda_arch_list");
        assert_eq!(slug("Größe & Ünïcode"), "größe--ünïcode");
    }

    #[test]
    fn duplicates_get_counters() {
        let mut s = Slugger::default();
        assert_eq!(s.unique("Usage"), "usage");
        assert_eq!(s.unique("Usage"), "usage-1");
        assert_eq!(s.unique("Usage"), "usage-2");
        assert_eq!(s.unique("Usage 1"), "usage-1-1");
    }
}
