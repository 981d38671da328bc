//! The library screen's state: every document grouped by folder, and the fuzzy
//! title filter that narrows it as the user types. Changed only from
//! `App::update`; drawn by `views::library`.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::corpus::{Corpus, Kind};
use crate::text::inline;

use super::history::History;
use super::widgets::{Cursor, TextInput};

/// How many of the documents read last are listed above the folders.
pub const RECENT_SHOWN: usize = 5;

/// One line of the library list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// The heading of the documents read last (from the history).
    Recent,
    /// A folder heading: `cuda/`, with how many documents of each kind follow.
    Folder {
        name: String,
        knowledge: usize,
        drops: usize,
        other: usize,
    },
    /// A document (index into `Corpus::documents`) and, under a filter, the
    /// character positions of its title the filter matched.
    Doc { doc: usize, matched: Vec<u32> },
}

pub struct Library {
    pub filter: TextInput,
    /// The filter box has the keyboard.
    pub filtering: bool,
    pub rows: Vec<Row>,
    pub cursor: Cursor,
    /// What an empty filter shows: the recent documents, then `folders`.
    grouped: Vec<Row>,
    folders: Vec<Row>,
    /// Each document's title, sanitised as drawn, for the filter.
    haystacks: Vec<String>,
    matcher: Matcher,
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("filter", &self.filter)
            .field("filtering", &self.filtering)
            .field("rows", &self.rows.len())
            .field("cursor", &self.cursor)
            .finish()
    }
}

impl Library {
    pub fn new(corpus: &Corpus) -> Library {
        let folders = group(corpus);
        let mut library = Library {
            filter: TextInput::default(),
            filtering: false,
            rows: folders.clone(),
            cursor: Cursor::default(),
            grouped: folders.clone(),
            folders,
            haystacks: corpus.documents.iter().map(|d| inline(&d.title)).collect(),
            matcher: Matcher::new(Config::DEFAULT),
        };
        library.cursor.selected = library.first_doc_row().unwrap_or(0);
        library
    }

    /// The document under the cursor.
    pub fn selected_doc(&self) -> Option<usize> {
        match self.rows.get(self.cursor.selected) {
            Some(Row::Doc { doc, .. }) => Some(*doc),
            _ => None,
        }
    }

    pub fn doc_count(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| matches!(r, Row::Doc { .. }))
            .count()
    }

    /// Lists the documents of `history` read last above the folders (those
    /// still in the knowledge), the latest selected.
    pub fn set_recent(&mut self, corpus: &Corpus, history: &History) {
        let recent: Vec<usize> = history
            .documents
            .iter()
            .filter_map(|place| corpus.index_of(&place.path))
            .take(RECENT_SHOWN)
            .collect();
        self.grouped.clear();
        if !recent.is_empty() {
            self.grouped.push(Row::Recent);
            self.grouped.extend(recent.into_iter().map(|doc| Row::Doc {
                doc,
                matched: Vec::new(),
            }));
        }
        self.grouped.extend(self.folders.iter().cloned());
        if self.filter.text.trim().is_empty() {
            self.rows = self.grouped.clone();
            self.cursor = Cursor::default();
            self.cursor.selected = self.first_doc_row().unwrap_or(0);
        }
    }

    fn first_doc_row(&self) -> Option<usize> {
        self.rows.iter().position(|r| matches!(r, Row::Doc { .. }))
    }

    /// Moves the selection by `delta` documents, skipping folder headings.
    pub fn move_by(&mut self, delta: isize, height: usize) {
        let docs: Vec<usize> = (0..self.rows.len())
            .filter(|&i| matches!(self.rows[i], Row::Doc { .. }))
            .collect();
        if docs.is_empty() {
            self.cursor = Cursor::default();
            return;
        }
        let at = docs
            .iter()
            .position(|&i| i >= self.cursor.selected)
            .unwrap_or(docs.len() - 1) as isize;
        let to = (at + delta).clamp(0, docs.len() as isize - 1) as usize;
        self.cursor.select(docs[to], self.rows.len(), height);
        // Show the folder heading above the first document of a group.
        if to == 0 {
            self.cursor.offset = 0;
        }
    }

    /// Recomputes the rows for the current filter text: the grouped tree when
    /// empty, else every match ranked best first.
    pub fn refilter(&mut self, height: usize) {
        if self.filter.text.trim().is_empty() {
            self.rows = self.grouped.clone();
        } else {
            let pattern =
                Pattern::parse(&self.filter.text, CaseMatching::Smart, Normalization::Smart);
            let mut buf = Vec::new();
            let mut scored: Vec<(u32, usize, Vec<u32>)> = Vec::new();
            for (i, hay) in self.haystacks.iter().enumerate() {
                let mut indices = Vec::new();
                if let Some(score) = pattern.indices(
                    Utf32Str::new(hay, &mut buf),
                    &mut self.matcher,
                    &mut indices,
                ) {
                    indices.sort_unstable();
                    indices.dedup();
                    scored.push((score, i, indices));
                }
            }
            scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
            self.rows = scored
                .into_iter()
                .map(|(_, doc, matched)| Row::Doc { doc, matched })
                .collect();
        }
        self.cursor = Cursor::default();
        self.cursor.selected = self.first_doc_row().unwrap_or(0);
        self.cursor.reveal(self.rows.len(), height);
        if self.filter.is_empty() {
            self.cursor.offset = 0;
        }
    }
}

/// Documents grouped by their top folder: files at the root first, then each
/// folder in name order; documents keep the corpus's path order.
fn group(corpus: &Corpus) -> Vec<Row> {
    let folder_of = |path: &str| -> String {
        match path.split_once('/') {
            Some((folder, _)) => format!("{folder}/"),
            None => String::new(),
        }
    };
    let mut folders: Vec<String> = corpus
        .documents
        .iter()
        .map(|d| folder_of(&d.path))
        .collect();
    folders.sort();
    folders.dedup();
    let mut rows = Vec::new();
    for folder in folders {
        let docs: Vec<usize> = (0..corpus.documents.len())
            .filter(|&i| folder_of(&corpus.documents[i].path) == folder)
            .collect();
        let count = |kind: Kind| {
            docs.iter()
                .filter(|&&i| corpus.documents[i].kind == kind)
                .count()
        };
        rows.push(Row::Folder {
            name: if folder.is_empty() {
                "./".to_string()
            } else {
                folder
            },
            knowledge: count(Kind::Knowledge),
            drops: count(Kind::Drop),
            other: count(Kind::Index),
        });
        rows.extend(docs.into_iter().map(|doc| Row::Doc {
            doc,
            matched: Vec::new(),
        }));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::SourceSet;

    fn shipped() -> Corpus {
        Corpus::load(&SourceSet::builtin_knowledge())
    }

    #[test]
    fn documents_are_grouped_under_their_folders() {
        let corpus = shipped();
        let library = Library::new(&corpus);
        let folders: Vec<&str> = library
            .rows
            .iter()
            .filter_map(|r| match r {
                Row::Folder { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(folders, vec!["./", "cuda/", "drops/", "investigations/"]);
        assert_eq!(library.doc_count(), corpus.len());
        assert_eq!(library.cursor.selected, 1, "the first document is selected");
    }

    #[test]
    fn the_filter_ranks_fuzzy_title_matches() {
        let corpus = shipped();
        let mut library = Library::new(&corpus);
        library.filter.text = "cupti deep".into();
        library.refilter(10);
        let first = library.selected_doc().unwrap();
        assert_eq!(
            corpus.documents[first].path,
            "cuda/20-cupti-deep-dive-arr-coc.md"
        );
        library.filter.text = "zzzzqqq".into();
        library.refilter(10);
        assert!(library.rows.is_empty());
        assert_eq!(library.selected_doc(), None);
    }

    #[test]
    fn moving_skips_folder_headings() {
        let corpus = shipped();
        let mut library = Library::new(&corpus);
        library.move_by(1, 10);
        // INDEX.md is alone under ./, so the next document is under cuda/.
        let doc = library.selected_doc().unwrap();
        assert!(corpus.documents[doc].path.starts_with("cuda/"));
        library.move_by(-5, 10);
        assert_eq!(library.cursor.selected, 1);
        assert_eq!(library.cursor.offset, 0);
    }
}
