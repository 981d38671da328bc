//! The words of a pasted log worth marking in a document opened from a hit.
//! A log brings dozens of words, many of them in a good share of the
//! sections (`error`, `file`, `no`, the `12` of `libcupti.so.12`); marking
//! all of them in the opened document marks nearly every line. The words of
//! the deciding line (the failure whose words count most) that few sections
//! have say why this section was found.

use tantivy::Term;

use super::SearchIndex;
use super::query::ParsedQuery;

/// A word in at most this share of the sections is rare enough to mark
/// (half the share below which the ranking calls a word rare).
const MARK_SHARE: f64 = 0.1;
/// At most this many words are marked, the rarest first.
const MAX_MARKED: usize = 6;

impl SearchIndex {
    /// The words of the query's weightiest line (a log's deciding line; not
    /// other forms, synonyms or the parts of an identifier, which weigh
    /// less) that some section has but at most `MARK_SHARE` of them, the
    /// rarest first. Empty when the index cannot answer.
    pub fn rare_words(&self, parsed: &ParsedQuery) -> Vec<String> {
        crate::panics::catch(|| self.rare_words_inner(parsed))
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default()
    }

    fn rare_words_inner(&self, parsed: &ParsedQuery) -> tantivy::Result<Vec<String>> {
        let searcher = self.reader.searcher();
        let sections = searcher.num_docs();
        let most = ((sections as f64 * MARK_SHARE) as u64).max(1);
        let own = || parsed.terms.iter().filter(|t| t.alias_of.is_none());
        let heaviest = own().map(|t| t.weight).fold(0.0, f32::max);
        let mut found: Vec<(u64, String)> = Vec::new();
        for term in own().filter(|t| t.weight >= heaviest) {
            if found.iter().any(|(_, w)| *w == term.text) {
                continue;
            }
            let mut df = 0;
            for field in self.fields.searched() {
                df = df.max(searcher.doc_freq(&Term::from_field_text(field, &term.text))?);
            }
            if df > 0 && df <= most {
                found.push((df, term.text.clone()));
            }
        }
        found.sort();
        found.truncate(MAX_MARKED);
        Ok(found.into_iter().map(|(_, word)| word).collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::corpus::Corpus;
    use crate::search::SearchIndex;
    use crate::search::query;
    use crate::sources::SourceSet;

    /// A pasted `ImportError` traceback: `libcupti` is rare in the knowledge,
    /// `error`, `file` and `line` are everywhere.
    #[test]
    fn only_the_rare_words_of_a_pasted_log_are_marked() {
        let corpus = Corpus::load(&SourceSet::builtin_knowledge());
        let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
        let log = "Traceback (most recent call last):\n  File \"/app/train.py\", line 3, in <module>\n    import torch\nImportError: libcupti.so.12: cannot open shared object file: No such file or directory\n";
        let parsed = query::parse(log);
        let rare = index.rare_words(&parsed);
        assert!(rare.iter().any(|w| w == "libcupti.so.12"), "{rare:?}");
        assert!(rare.iter().any(|w| w == "importerror"), "{rare:?}");
        // Words in many sections, the `Traceback (most recent call last)`
        // line, and the parts of the identifier. (`directory`, of `No such
        // file or directory`, was on this list until the knowledge of
        // 2026-11-27 made it a word of fewer than a tenth of the sections.)
        for common in [
            "error",
            "file",
            "line",
            "no",
            "traceback",
            "most",
            "recent",
            "call",
            "import",
            "libcupti",
            "cupti",
            "12",
        ] {
            assert!(!rare.iter().any(|w| w == common), "{common} in {rare:?}");
        }
        assert!(rare.len() <= super::MAX_MARKED);
    }
}
