//! The stored sections one search reads, each read once.
//!
//! A search reads a candidate's stored section up to three times: its
//! questions while the best candidates are reranked, its text to weigh how
//! close together it holds the query's words, and once more to build the
//! hit. Each read decompresses a block of tantivy's document store and
//! rebuilds the document; this keeps the first for the rest of the search.

use std::collections::HashMap;

use tantivy::{DocAddress, Searcher, TantivyDocument};

/// The sections read so far in one search, by address.
pub struct StoredSections<'a> {
    searcher: &'a Searcher,
    read: HashMap<DocAddress, TantivyDocument>,
}

impl<'a> StoredSections<'a> {
    pub fn new(searcher: &'a Searcher) -> Self {
        StoredSections {
            searcher,
            read: HashMap::new(),
        }
    }

    /// The searcher the sections are read from.
    pub fn searcher(&self) -> &'a Searcher {
        self.searcher
    }

    /// The stored section at `address`, read from the index the first time.
    pub fn get(&mut self, address: DocAddress) -> tantivy::Result<&TantivyDocument> {
        use std::collections::hash_map::Entry;
        match self.read.entry(address) {
            Entry::Occupied(read) => Ok(read.into_mut()),
            Entry::Vacant(slot) => Ok(slot.insert(self.searcher.doc(address)?)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Corpus;
    use crate::search::SearchIndex;
    use crate::sources::SourceSet;
    use tantivy::schema::Value;

    #[test]
    fn a_second_read_gives_the_same_section_as_the_index() {
        let corpus = Corpus::load(&SourceSet::builtin_knowledge());
        let (index, _) = SearchIndex::build_in_memory(&corpus).expect("index builds");
        let searcher = index.reader.searcher();
        let mut stored = StoredSections::new(&searcher);
        let address = DocAddress::new(0, 3);
        let text = |doc: &TantivyDocument| {
            doc.get_first(index.fields.text)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let first = text(stored.get(address).expect("reads"));
        let again = text(stored.get(address).expect("reads"));
        let direct: TantivyDocument = searcher.doc(address).expect("reads");
        assert!(!first.is_empty());
        assert_eq!(first, again);
        assert_eq!(first, text(&direct));
        let other = text(stored.get(DocAddress::new(0, 4)).expect("reads"));
        assert_ne!(first, other, "each address keeps its own section");
    }
}
