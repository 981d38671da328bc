//! Made-up knowledge for benchmarks: any number of Markdown files that look
//! like the shipped corpus (headings, prose, code blocks, tables, the same
//! vocabulary with a similar word-frequency curve), generated the same way
//! every time from a seed. `benches/search.rs` and `benches/tools/gen_corpus.rs`
//! use it to measure search at 1,000 and 10,000 documents.
//!
//! Nothing here is used by lore at run time.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::Path;

use super::tokenizer::pieces;
use crate::corpus::{Corpus, Document};
use crate::sources::{Origin, SourceFile};

/// A deterministic generator of knowledge files.
pub struct Generator {
    state: u64,
    /// Words by falling frequency.
    words: Vec<String>,
    /// Identifiers (words with `_`, `.`, `-`) by falling frequency.
    identifiers: Vec<String>,
}

impl Generator {
    /// A generator drawing its vocabulary from `corpus` (the shipped
    /// knowledge, for realistic term statistics).
    pub fn new(corpus: &Corpus, seed: u64) -> Generator {
        let mut words: HashMap<String, usize> = HashMap::new();
        let mut identifiers: HashMap<String, usize> = HashMap::new();
        for doc in &corpus.documents {
            for chunk in doc.text.split_whitespace() {
                for piece in pieces(chunk).into_iter().filter(|p| p.whole) {
                    let map = if piece.is_word() {
                        &mut words
                    } else {
                        &mut identifiers
                    };
                    *map.entry(piece.text).or_default() += 1;
                }
            }
        }
        let ranked = |map: HashMap<String, usize>| {
            let mut v: Vec<(usize, String)> = map.into_iter().map(|(w, c)| (c, w)).collect();
            v.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
            v.into_iter().map(|(_, w)| w).collect::<Vec<_>>()
        };
        let mut words = ranked(words);
        let mut identifiers = ranked(identifiers);
        if words.is_empty() {
            words.push("lore".into());
        }
        if identifiers.is_empty() {
            identifiers.push("lore_search".into());
        }
        Generator {
            state: seed ^ 0x2545_f491_4f6c_dd1d,
            words,
            identifiers,
        }
    }

    /// xorshift64*: small, fast and the same everywhere.
    fn next(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn between(&mut self, low: usize, high: usize) -> usize {
        low + self.below(high - low + 1)
    }

    /// A rank drawn log-uniformly, which gives a Zipf-like curve: the
    /// common words very often, the rare ones rarely.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) as usize).saturating_sub(1).min(n - 1)
    }

    fn word(&mut self) -> String {
        let i = self.zipf(self.words.len());
        self.words[i].clone()
    }

    fn identifier(&mut self) -> String {
        let i = self.zipf(self.identifiers.len());
        self.identifiers[i].clone()
    }

    fn sentence(&mut self, words: usize) -> String {
        let mut out = String::new();
        for i in 0..words {
            if i > 0 {
                out.push(' ');
            }
            if self.below(12) == 0 {
                out.push('`');
                out.push_str(&self.identifier());
                out.push('`');
            } else {
                out.push_str(&self.word());
            }
        }
        let mut chars = out.chars();
        let mut sentence: String = chars
            .next()
            .map(|c| c.to_uppercase().collect::<String>())
            .unwrap_or_default();
        sentence.push_str(chars.as_str());
        sentence.push('.');
        sentence
    }

    fn paragraph(&mut self) -> String {
        let sentences = self.between(2, 5);
        let mut lines = Vec::new();
        let mut line = String::new();
        for _ in 0..sentences {
            let words = self.between(8, 18);
            let sentence = self.sentence(words);
            for word in sentence.split(' ') {
                if line.len() + word.len() > 100 {
                    lines.push(std::mem::take(&mut line));
                }
                if !line.is_empty() {
                    line.push(' ');
                }
                line.push_str(word);
            }
        }
        lines.push(line);
        lines.join("\n")
    }

    fn heading(&mut self) -> String {
        let words = self.between(2, 6);
        let mut out = self.sentence(words);
        out.pop();
        out
    }

    fn code_block(&mut self) -> String {
        let mut out = String::from("```bash\n");
        for _ in 0..self.between(2, 6) {
            let command = [
                "export",
                "pip install",
                "apt-get install -y",
                "cmake",
                "nvcc",
                "docker run",
            ][self.below(6)];
            out.push_str(&format!(
                "{command} {} {}\n",
                self.identifier(),
                self.identifier()
            ));
        }
        out.push_str("```");
        out
    }

    fn table(&mut self) -> String {
        let mut out = String::from("| Name | Meaning |\n|---|---|\n");
        for _ in 0..self.between(2, 5) {
            let words = self.between(4, 10);
            out.push_str(&format!(
                "| `{}` | {} |\n",
                self.identifier(),
                self.sentence(words)
            ));
        }
        out.pop();
        out
    }

    /// One document of roughly `target` bytes.
    pub fn document(&mut self, target: usize) -> String {
        let mut out = format!("# {}\n\n{}\n", self.heading(), self.paragraph());
        while out.len() < target {
            out.push_str(&format!(
                "\n## {}\n\n{}\n",
                self.heading(),
                self.paragraph()
            ));
            match self.below(4) {
                0 => out.push_str(&format!("\n{}\n", self.code_block())),
                1 => out.push_str(&format!("\n{}\n", self.table())),
                2 => out.push_str(&format!(
                    "\n### {}\n\n{}\n\n- {}\n- {}\n",
                    self.heading(),
                    self.paragraph(),
                    self.sentence(7),
                    self.sentence(9)
                )),
                _ => out.push_str(&format!("\n{}\n", self.paragraph())),
            }
        }
        out
    }
}

/// `count` documents of about 4 KB, in memory, under the same paths
/// [`write_corpus`] uses: what the benchmarks search and type against.
pub fn corpus(like: &Corpus, count: usize, seed: u64) -> Corpus {
    let mut generator = Generator::new(like, seed);
    let documents = (0..count)
        .map(|i| {
            Document::parse(SourceFile {
                rel: format!("part-{:03}/doc-{i:05}.md", i / 100),
                origin: Origin::Builtin,
                text: generator.document(4000),
                stamp: None,
            })
        })
        .collect();
    Corpus::from_documents(documents, Vec::new())
}

/// Writes `count` documents of about 4 KB under `dir` (100 per folder) and
/// returns the bytes written.
pub fn write_corpus(dir: &Path, corpus: &Corpus, count: usize, seed: u64) -> io::Result<u64> {
    let mut generator = Generator::new(corpus, seed);
    let mut bytes = 0;
    for i in 0..count {
        let folder = dir.join(format!("part-{:03}", i / 100));
        if i % 100 == 0 {
            fs::create_dir_all(&folder)?;
        }
        let text = generator.document(4000);
        bytes += text.len() as u64;
        fs::write(folder.join(format!("doc-{i:05}.md")), text)?;
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::SourceSet;

    #[test]
    fn the_same_seed_gives_the_same_documents() {
        let corpus = Corpus::load(&SourceSet::builtin_knowledge());
        let a = Generator::new(&corpus, 7).document(4000);
        let b = Generator::new(&corpus, 7).document(4000);
        let c = Generator::new(&corpus, 8).document(4000);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!((4000..6000).contains(&a.len()), "{}", a.len());
        assert!(a.starts_with("# ") && a.contains("\n## "));
    }
}
