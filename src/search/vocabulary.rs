//! The domain vocabulary: groups of words a query may use for the same thing
//! (`perm`, `permission`, `privileges`; `oom`, `outofmemoryerror`). A query
//! word that belongs to a group is also searched as the group's other words,
//! at a lower weight, and a section counts the best of them once.
//!
//! The vocabulary is data shipped with the knowledge: `vocabulary.toml` at
//! the root of the built-in knowledge, and of any overlay folder, so a
//! user's own folders teach lore their words the same way. Groups from every
//! root are used together. `lore check` validates the files.
//!
//! ```toml
//! # each group: words that mean the same thing in a query
//! groups = [
//!   ["perm", "permission", "permissions", "privilege", "privileges"],
//! ]
//! ```
//!
//! Each word must be one search term as lore's tokenizer makes it (lower
//! case, no spaces: `cuda-keyring` is one term, `cuda keyring` is two).
//! Plural and `-ed`/`-ing` forms need no entry: the search tries those on
//! its own (see `SearchIndex::word_forms`). This module only reads files and
//! rewrites queries; it never touches the index.

use std::collections::HashMap;
use std::path::Path;
use std::sync::OnceLock;

use serde::Deserialize;

use super::query::{ParsedQuery, QueryTerm};
use super::tokenizer::pieces;
use crate::diagnostic::Diagnostic;
use crate::sources::{MAX_FILE_BYTES, SourceSet};

/// The vocabulary's file name at the root of a knowledge folder.
pub const FILE_NAME: &str = "vocabulary.toml";

/// A word found through the vocabulary counts this share of the word typed.
pub const SYNONYM_WEIGHT: f32 = 0.7;

/// Words and the other words of their groups.
#[derive(Debug, Clone, Default)]
pub struct Vocabulary {
    alternatives: HashMap<String, Vec<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    groups: Vec<Vec<toml::Spanned<String>>>,
}

impl Vocabulary {
    /// The vocabulary shipped in the binary, parsed once.
    pub fn builtin() -> &'static Vocabulary {
        static BUILTIN: OnceLock<Vocabulary> = OnceLock::new();
        BUILTIN.get_or_init(|| {
            let mut vocabulary = Vocabulary::default();
            if let Some(text) = crate::sources::BUILTIN_KNOWLEDGE
                .file(FILE_NAME)
                .and_then(|file| file.text())
            {
                let _ = vocabulary.add(FILE_NAME, &text);
            }
            vocabulary
        })
    }

    /// The vocabulary of every root of `sources`, with the problems found
    /// in its files (a broken file is reported and left out).
    pub fn load(sources: &SourceSet) -> (Vocabulary, Vec<Diagnostic>) {
        let mut vocabulary = Vocabulary::default();
        let mut problems = Vec::new();
        // The one built-in file a search decompresses (1.2 kB: 6 to 10 µs).
        if let Some(bytes) = sources
            .builtin
            .and_then(|d| d.file(FILE_NAME))
            .and_then(|file| file.bytes().ok())
        {
            let text = String::from_utf8_lossy(&bytes);
            problems.extend(vocabulary.add(FILE_NAME, &text));
        }
        for root in &sources.overlays {
            let path = root.join(FILE_NAME);
            problems.extend(vocabulary.add_file(&path));
        }
        (vocabulary, problems)
    }

    fn add_file(&mut self, path: &Path) -> Vec<Diagnostic> {
        let name = path.display().to_string();
        let meta = match std::fs::metadata(path) {
            Ok(meta) => meta,
            Err(_) => return Vec::new(),
        };
        if meta.len() > MAX_FILE_BYTES {
            return vec![Diagnostic::warning(name, None, "too big to read, skipped")];
        }
        match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => self.add(&name, &text),
                Err(_) => vec![Diagnostic::error(name, None, "not UTF-8, skipped")],
            },
            Err(err) => vec![Diagnostic::warning(
                name,
                None,
                format!("cannot read, skipped: {err}"),
            )],
        }
    }

    /// Adds the groups of one file's `text`; returns its problems. A file
    /// that does not parse adds nothing; a bad word is left out of its group.
    fn add(&mut self, name: &str, text: &str) -> Vec<Diagnostic> {
        let file: File = match toml::from_str(text) {
            Ok(file) => file,
            Err(err) => {
                let line = err.span().map(|s| line_of(text, s.start));
                let message = err.message().trim().to_string();
                return vec![Diagnostic::error(name, line, message)];
            }
        };
        let mut problems = Vec::new();
        for group in file.groups {
            let mut words: Vec<String> = Vec::new();
            for word in &group {
                let line = Some(line_of(text, word.span().start));
                let value = word.get_ref();
                match as_term(value) {
                    Some(term) if words.contains(&term) => problems.push(Diagnostic::warning(
                        name,
                        line,
                        format!("`{value}` is twice in its group"),
                    )),
                    Some(term) => words.push(term),
                    None => problems.push(Diagnostic::error(
                        name,
                        line,
                        format!(
                            "`{}` is not one search term (use lower case and no spaces; \
                             `cuda keyring` is two words)",
                            crate::text::sanitize(value)
                        ),
                    )),
                }
            }
            if words.len() < 2 {
                let line = group.first().map(|w| line_of(text, w.span().start));
                problems.push(Diagnostic::warning(
                    name,
                    line,
                    "a group needs at least two words; left out",
                ));
                continue;
            }
            for word in &words {
                let others = self.alternatives.entry(word.clone()).or_default();
                for other in &words {
                    if other != word && !others.contains(other) {
                        others.push(other.clone());
                    }
                }
            }
        }
        problems
    }

    /// Number of words with alternatives.
    pub fn len(&self) -> usize {
        self.alternatives.len()
    }

    pub fn is_empty(&self) -> bool {
        self.alternatives.is_empty()
    }

    /// The other words of `word`'s groups.
    pub fn alternatives(&self, word: &str) -> &[String] {
        self.alternatives.get(word).map_or(&[], Vec::as_slice)
    }

    /// Adds to `query` the alternatives of its words, each at
    /// `SYNONYM_WEIGHT` of the word's weight and marked as standing for it.
    pub fn expand(&self, query: &mut ParsedQuery) {
        if self.alternatives.is_empty() {
            return;
        }
        let mut added: Vec<QueryTerm> = Vec::new();
        for term in query.terms.iter().filter(|t| t.alias_of.is_none()) {
            for alt in self.alternatives(&term.text) {
                if query.terms.iter().any(|t| &t.text == alt)
                    || added.iter().any(|t| &t.text == alt)
                {
                    continue;
                }
                added.push(QueryTerm {
                    text: alt.clone(),
                    weight: term.weight * SYNONYM_WEIGHT,
                    alias_of: Some(term.text.clone()),
                });
            }
        }
        query.terms.extend(added);
    }
}

/// Other forms of an English word a query may hold in another form than
/// the knowledge: the plural or singular (`privilege`, `privileges`;
/// `library`, `libraries`) and the stem of an `-ed` or `-ing` form
/// (`configured` → `configure`, `configur`… only the forms the index has
/// are used). Words shorter than four letters and anything with a digit or
/// joiner (identifiers: `sm_90`, `libcupti.so`) have no other forms.
pub fn word_forms(word: &str) -> Vec<String> {
    if word.len() < 4 || !word.chars().all(|c| c.is_ascii_lowercase()) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(stem) = word.strip_suffix("ies") {
        out.push(format!("{stem}y"));
    } else if let Some(stem) = word.strip_suffix("es")
        && (stem.ends_with('s')
            || stem.ends_with('x')
            || stem.ends_with("ch")
            || stem.ends_with("sh"))
    {
        out.push(stem.to_string());
    } else if let Some(stem) = word.strip_suffix('s')
        && !stem.ends_with('s')
        && !stem.ends_with('u')
        && !stem.ends_with('i')
    {
        out.push(stem.to_string());
    } else if let Some(stem) = word.strip_suffix("ing")
        && stem.len() >= 3
    {
        out.push(stem.to_string());
        out.push(format!("{stem}e"));
    } else if let Some(stem) = word.strip_suffix("ed")
        && stem.len() >= 3
    {
        out.push(stem.to_string());
        out.push(format!("{stem}e"));
    } else if let Some(stem) = word.strip_suffix('y')
        && !stem.ends_with(['a', 'e', 'o', 'u'])
    {
        out.push(format!("{stem}ies"));
    } else if word.ends_with(['s', 'x']) || word.ends_with("ch") || word.ends_with("sh") {
        out.push(format!("{word}es"));
    } else {
        out.push(format!("{word}s"));
    }
    out.retain(|f| f.len() >= 3 && f != word);
    out
}

/// `word` as the one term the tokenizer makes of it, if it makes one.
fn as_term(word: &str) -> Option<String> {
    let found = pieces(word);
    let whole: Vec<_> = found.iter().filter(|p| p.whole).collect();
    (whole.len() == 1 && whole[0].from == 0 && whole[0].to == word.len())
        .then(|| whole[0].text.clone())
        .filter(|t| *t == word)
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::query::parse;

    #[test]
    fn the_shipped_vocabulary_is_valid() {
        let text = crate::sources::BUILTIN_KNOWLEDGE
            .file(FILE_NAME)
            .and_then(|f| f.text())
            .expect("knowledge/vocabulary.toml is shipped");
        let problems = Vocabulary::default().add(FILE_NAME, &text);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(!Vocabulary::builtin().alternatives("privilege").is_empty());
    }

    #[test]
    fn query_words_gain_their_alternatives_at_a_lower_weight() {
        let mut vocabulary = Vocabulary::default();
        assert!(
            vocabulary
                .add("v.toml", "groups = [[\"perm\", \"permission\"]]")
                .is_empty()
        );
        let mut q = parse("perm denied");
        vocabulary.expand(&mut q);
        let alias = q.terms.iter().find(|t| t.text == "permission").unwrap();
        assert_eq!(alias.alias_of.as_deref(), Some("perm"));
        assert!(alias.weight < 1.0);
    }

    #[test]
    fn word_forms_cover_plurals_and_verb_endings_but_not_identifiers() {
        assert_eq!(word_forms("privilege"), ["privileges"]);
        assert_eq!(word_forms("privileges"), ["privilege"]);
        assert_eq!(word_forms("libraries"), ["library"]);
        assert_eq!(word_forms("library"), ["libraries"]);
        assert_eq!(word_forms("patches"), ["patch"]);
        assert_eq!(word_forms("configured"), ["configur", "configure"]);
        assert_eq!(word_forms("building"), ["build", "builde"]);
        assert_eq!(word_forms("status"), ["statuses"]);
        assert!(word_forms("sm_90").is_empty());
        assert!(word_forms("libcupti.so").is_empty());
        assert!(word_forms("gpu").is_empty());
    }

    #[test]
    fn bad_entries_are_reported_with_their_line() {
        let mut vocabulary = Vocabulary::default();
        let problems = vocabulary.add(
            "v.toml",
            "groups = [\n  [\"ok\", \"fine\"],\n  [\"Two Words\", \"x\"],\n]\n",
        );
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert_eq!(problems[0].line, Some(3));
        assert!(problems[0].message.contains("not one search term"));
        assert_eq!(vocabulary.alternatives("ok"), ["fine".to_string()]);
        assert!(vocabulary.alternatives("x").is_empty());
        let problems = vocabulary.add("v.toml", "groups = [\n  [\"a\", 3],\n]\n");
        assert_eq!(problems.len(), 1);
        assert!(problems[0].is_error() && problems[0].line == Some(2));
    }
}
