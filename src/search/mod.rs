//! Full-text search over the knowledge: which section explains this error
//! line or these three words. A tantivy index holds one document per section
//! (see `schema`), with lore's own tokenizer so identifiers match whole and in
//! parts (`tokenizer`). The index is cached on disk per set of knowledge
//! sources and rebuilt when any file changes (`cache`); queries are parsed
//! forgivingly (`query`) and each hit carries a one-line snippet (`snippet`).
//!
//! The TUI calls [`SearchIndex::query`] on every keystroke from a worker
//! thread, so an open index is `Send + Sync` and a query never reopens or
//! rereads anything. This layer reads the corpus and never prints.

mod cache;
pub mod confidence;
mod passage;
pub mod query;
mod rare;
pub mod schema;
pub mod snippet;
mod stored;
pub mod subject;
pub mod synthetic;
pub mod tokenizer;
pub mod triage;
mod variable;
pub mod vocabulary;

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tantivy::collector::TopDocs;
use tantivy::postings::Postings;
use tantivy::query::{
    BooleanQuery, BoostQuery, ConstScoreQuery, DisjunctionMaxQuery, FuzzyTermQuery, Occur,
    PhraseQuery, Query, TermQuery, TermSetQuery,
};
use tantivy::schema::{IndexRecordOption, Value};
use tantivy::{
    DocAddress, DocSet, Index, IndexReader, ReloadPolicy, Searcher, SegmentReader, TantivyDocument,
    Term,
};

use crate::corpus::{Corpus, Kind};
use crate::diagnostic::Diagnostic;
use crate::sources::SourceSet;
use query::{ParsedQuery, QueryTerm};
use schema::{Fields, SEARCHED};
use stored::StoredSections;
use tokenizer::{LoreTokenizer, TOKENIZER_NAME};

/// One section that matches a query.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The document id, relative to its knowledge root.
    pub path: String,
    /// The section's heading anchor (empty for text before the first heading).
    pub anchor: String,
    /// 1-based line of the section's heading in the file.
    pub line: usize,
    /// The document's title.
    pub title: String,
    /// `Title › Section › Sub`.
    pub heading: String,
    pub kind: Kind,
    pub score: f32,
    /// One line of the section, sanitized: no control characters.
    pub snippet: String,
    /// Byte ranges of matched terms within `snippet`.
    pub highlights: Vec<Range<usize>>,
    /// The estimated probability, from 0 to 1, that this section answers
    /// the query (see `confidence`). It is fitted and measured for the
    /// first hit; a later hit gets the same model's estimate from its own
    /// score and matches, lower than the first's unless it matched more in
    /// its heading.
    pub confidence: f32,
    /// What the confidence was estimated from.
    pub signals: confidence::Signals,
    /// The section's question (see `corpus::questions`) that holds more of
    /// the query than any line of its text or its heading: the hit was found
    /// through what a user would ask, and says so (`matched the section's
    /// question: …`). Sanitized like the snippet.
    pub question: Option<String>,
}

impl Hit {
    /// True when the section is likely enough to answer to be called an
    /// answer rather than the closest thing there is.
    pub fn is_confident(&self) -> bool {
        self.confidence >= confidence::THRESHOLD
    }
}

/// What lore says above the hits when the best one is weak.
pub const WEAK_NOTICE: &str = "no section answers this confidently; closest:";

/// What a hit found through one of its section's questions says under its
/// snippet, before the question (see [`Hit::question`]); the CLI and the TUI
/// say the same.
pub const QUESTION_LABEL: &str = "matched the section's question: ";

/// What opening (and maybe building) an index did.
#[derive(Debug, Clone, Default)]
pub struct IndexReport {
    /// Knowledge files indexed.
    pub documents: usize,
    /// Sections indexed (search documents).
    pub sections: usize,
    /// Bytes of knowledge text indexed.
    pub bytes: u64,
    /// Time spent building, when the index was (re)built.
    pub build_time: Option<Duration>,
    /// True when the index was built now rather than read from the cache.
    pub rebuilt: bool,
    /// Where the index lives on disk; `None` for an in-memory index.
    pub location: Option<PathBuf>,
    /// Problems worth telling the user (an unusable cache folder).
    pub warnings: Vec<Diagnostic>,
}

impl IndexReport {
    /// The report of an index built now from `stats`, started at `started`.
    fn built(stats: BuildStats, started: Instant, location: Option<PathBuf>) -> IndexReport {
        IndexReport {
            documents: stats.documents,
            sections: stats.sections,
            bytes: stats.bytes,
            build_time: Some(started.elapsed()),
            rebuilt: true,
            location,
            warnings: Vec::new(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("search index: {0}")]
    Index(#[from] tantivy::TantivyError),
}

/// Building progress: knowledge files done out of the total.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
}

/// How to open an index.
#[derive(Default)]
pub struct OpenOptions<'a> {
    /// Build even if the cache is fresh.
    pub rebuild: bool,
    /// Verify every index file's checksum, however big the index (small
    /// indexes are always verified).
    pub verify: bool,
    /// Called while building, once per knowledge file.
    pub progress: Option<&'a mut dyn FnMut(Progress)>,
}

impl OpenOptions<'_> {
    /// The same options, borrowed for one call.
    fn reborrow(&mut self) -> OpenOptions<'_> {
        OpenOptions {
            rebuild: self.rebuild,
            verify: self.verify,
            progress: match &mut self.progress {
                Some(progress) => Some(&mut **progress as &mut dyn FnMut(Progress)),
                None => None,
            },
        }
    }
}

/// An open, queryable index.
pub struct SearchIndex {
    reader: IndexReader,
    fields: Fields,
    /// Set when a query panicked inside the index (damage no check caught):
    /// the panic's message. The index must be rebuilt.
    damage: std::sync::OnceLock<String>,
}

/// Field boosts, in the order of `Fields::searched` (heading, title, trail,
/// code, body): a word in a heading says more than one in the prose, and a
/// word in the document's title says the whole document is about it.
const FIELD_BOOSTS: [f32; SEARCHED] = [3.0, 2.5, 1.5, 1.2, 1.0, QUESTION_BOOST];
/// The boost of a section's questions (the sixth field): a user's words
/// matching what the section's author expects users to ask. Chosen on the
/// tuning half of `tests/real_queries.toml` (README, Search).
const QUESTION_BOOST: f32 = 2.0;
/// A word scores by its best field, plus this share of its other fields: a
/// common word in a heading that the trail and the prose repeat (`cache` in
/// `BuildKit cache mounts › pip cache mount`) must not outweigh a section
/// quoting the whole error line.
const FIELD_TIE_BREAKER: f32 = 0.5;
/// How much the fields other than the best add to a phrase's score.
const TIE_BREAKER: f32 = 0.2;
/// A quoted phrase that matches is worth this much more than its words.
const PHRASE_BOOST: f32 = 2.0;
/// Two query words side by side in a section add this much.
const PAIR_BOOST: f32 = 1.0;
/// For a typed question, a candidate's score is multiplied by 1 + this
/// times the share of one of its section's questions that the query holds
/// (`question_shares`): up to five times for a question held whole. Chosen
/// on the tuning half: 2, 3, 4 and 6 gave section MRR@10 0.705, 0.708,
/// 0.708 and 0.707 against 0.699 without.
const QUESTION_MATCH_BOOST: f32 = 4.0;
/// How many of the best candidates `question_shares` reads the questions of
/// (20 and 100 ranked as 40 did, within a query).
const QUESTION_POOL: usize = 40;
/// A pair of words that at most this many sections hold side by side is a
/// message's own (a message is quoted in a few places) and counts fully;
/// one that more hold is a family's and counts less (`pair_bonus`). Chosen
/// on the tuning half: 3, 5 and 10 gave 17, 13 and 8 queries up and 6, 2
/// and 1 down.
const OWN_PAIR_HOLDERS: f32 = 5.0;
/// How many of the best candidates are re-ranked by how many query terms
/// they contain and which of them stand side by side. A long section quoting
/// the error line among much else can be far down by its words alone.
const RERANK_POOL: usize = 100;
/// Candidates the rarer words of a query pick for each one kept, before
/// its common words are scored on them (`SearchIndex::run`).
const COMMON_POOL: usize = 8;
/// Sections from which common words are scored on candidates: below, the
/// whole query is as fast (on the shipped knowledge's 850 sections the
/// candidates are nearly every section, and scoring them afterwards cost
/// 0.7 ms more).
const COMMON_LATER_FROM: u64 = 5_000;
/// A candidate with none of the telling terms in its own text keeps this
/// share of its score; one with all of them keeps all of it.
const COVERAGE_FLOOR: f32 = 0.2;
/// Prefix expansions of the word being typed count less than exact words.
const PREFIX_WEIGHT: f32 = 0.7;
/// At most this many expansions of a prefix, the most common first.
const MAX_PREFIX_TERMS: usize = 16;
/// Other forms of a word (`privileges` for `privilege`) count less than the
/// word as typed.
const FORM_WEIGHT: f32 = 0.8;
/// Other forms are tried for at most this many words of a query (a pasted
/// log has many; each form costs a dictionary lookup per field).
const MAX_FORM_WORDS: usize = 16;
/// Fuzzy matches count less than exact ones.
const FUZZY_WEIGHT: f32 = 0.8;
/// A query uses at most this many terms (the most telling ones): a pasted
/// log of thousands of words must not become a query of thousands of terms.
pub const MAX_TERMS: usize = 32;
/// Snippets are at most this many characters wide.
pub const SNIPPET_CHARS: usize = 160;

/// What one search pass scores: the query's words, the expansions of the
/// word being typed (alternatives: a section earns only the best one), and the
/// quoted phrases (which raise the score of a section that has them, and
/// never filter: a phrase quoted in a question must not leave one unrelated
/// hit).
#[derive(Clone, Copy)]
struct Words<'a> {
    terms: &'a [Known],
    expansions: &'a [Known],
    phrases: &'a [Vec<String>],
    /// Common words are scored on the rarer words' best candidates only
    /// (`SearchIndex::run`); false puts them in the query.
    common_later: bool,
}

impl SearchIndex {
    /// Builds an index of `corpus` in memory, with no cache.
    pub fn build_in_memory(corpus: &Corpus) -> Result<(SearchIndex, IndexReport), SearchError> {
        Self::build_in_memory_with(corpus, None)
    }

    fn build_in_memory_with<'p>(
        corpus: &Corpus,
        progress: Option<&mut (dyn FnMut(Progress) + 'p)>,
    ) -> Result<(SearchIndex, IndexReport), SearchError> {
        let started = Instant::now();
        let (schema, fields) = schema::build_schema();
        let index = Index::builder()
            .schema(schema)
            .settings(schema::index_settings())
            .create_in_ram()?;
        register_tokenizer(&index);
        let stats = build(&index, &fields, corpus, progress)?;
        let search = SearchIndex::from_index(index, fields)?;
        Ok((search, IndexReport::built(stats, started, None)))
    }

    /// Opens the cached index of exactly this corpus under `cache_dir`,
    /// building it if it is missing, stale or damaged. A cache folder that
    /// cannot be written gives an in-memory index and one warning. Without a
    /// `cache_dir` the index is built in memory.
    pub fn open(
        corpus: &Corpus,
        cache_dir: Option<&Path>,
    ) -> Result<(SearchIndex, IndexReport), SearchError> {
        Self::open_with(corpus, cache_dir, OpenOptions::default())
    }

    /// [`open`](Self::open) with options (force a rebuild, report progress).
    pub fn open_with(
        corpus: &Corpus,
        cache_dir: Option<&Path>,
        options: OpenOptions<'_>,
    ) -> Result<(SearchIndex, IndexReport), SearchError> {
        cache::open(cache::Source::Corpus(corpus), cache_dir, options)
    }

    /// Like [`open_with`](Self::open_with), but starting from the sources:
    /// when the cache is fresh, nothing is read or parsed beyond a stat of
    /// each overlay file, which is what makes `lore search` fast. The corpus
    /// is loaded only when the index must be built.
    pub fn open_sources(
        sources: &SourceSet,
        cache_dir: Option<&Path>,
        options: OpenOptions<'_>,
    ) -> Result<(SearchIndex, IndexReport), SearchError> {
        cache::open(cache::Source::Sources(sources), cache_dir, options)
    }

    /// [`open_sources`](Self::open_sources), then `then` on the index: what
    /// `lore search` does. When the cache is fresh, `then` runs while the
    /// overlay files are being stat'ed, and its answer is used only if none
    /// changed (else the index is rebuilt and `then` runs again).
    pub fn open_sources_then<T>(
        sources: &SourceSet,
        cache_dir: Option<&Path>,
        options: OpenOptions<'_>,
        then: impl Fn(&SearchIndex) -> T,
    ) -> Result<(SearchIndex, IndexReport, T), SearchError> {
        cache::open_then(sources, cache_dir, options, then)
    }

    fn from_index(index: Index, fields: Fields) -> Result<SearchIndex, SearchError> {
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            reader,
            fields,
            damage: std::sync::OnceLock::new(),
        })
    }

    /// Why this index must not be used any more, if a query found out: it
    /// panicked inside the index (see `query`). Rebuild it
    /// ([`rebuild_damaged`](Self::rebuild_damaged)).
    pub fn damage(&self) -> Option<&str> {
        self.damage.get().map(String::as_str)
    }

    /// After [`damage`](Self::damage) said this index (opened with
    /// [`open_with`](Self::open_with) from `location`) is damaged: builds a
    /// new one of `corpus`, with a warning saying why.
    pub fn rebuild_damaged(
        &self,
        corpus: &Corpus,
        cache_dir: Option<&Path>,
        location: Option<&Path>,
    ) -> Result<(SearchIndex, IndexReport), SearchError> {
        let options = OpenOptions {
            rebuild: true,
            ..OpenOptions::default()
        };
        let (index, mut report) = Self::open_with(corpus, cache_dir, options)?;
        let why = self.damage().unwrap_or("unknown");
        report
            .warnings
            .insert(0, cache::damage_warning(location, why));
        Ok((index, report))
    }

    /// Number of sections in the index.
    pub fn sections(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The best `limit` sections for `q`, best first. Never fails: a query
    /// that cannot be understood is searched as plain words, and an index
    /// that cannot be read gives no hits (and a log line).
    /// The words of the shipped vocabulary count (see `vocabulary`). A panic inside
    /// the index (damaged files) is caught: no hits, and [`damage`] says
    /// the index must be rebuilt.
    ///
    /// [`damage`]: Self::damage
    pub fn query(&self, q: &str, limit: usize) -> Vec<Hit> {
        let mut parsed = query::parse(q);
        vocabulary::Vocabulary::builtin().expand(&mut parsed);
        self.query_parsed(&parsed, limit)
    }

    /// [`query`](Self::query) for a query already parsed (and perhaps given
    /// extra filters, as `lore search --kind` does).
    pub fn query_parsed(&self, parsed: &ParsedQuery, limit: usize) -> Vec<Hit> {
        if limit == 0 || parsed.is_empty() || self.damage.get().is_some() {
            return Vec::new();
        }
        match crate::panics::catch(|| self.search(parsed, limit)) {
            Ok(Ok(hits)) => hits,
            Ok(Err(err)) => {
                log::warn!("search failed: {err}");
                Vec::new()
            }
            Err(panic) => {
                log::error!("search failed inside the index, which must be damaged: {panic}");
                let _ = self.damage.set(panic);
                Vec::new()
            }
        }
    }

    fn search(&self, parsed: &ParsedQuery, limit: usize) -> tantivy::Result<Vec<Hit>> {
        let searcher = self.reader.searcher();
        // More hits than sections cannot be found; the collectors reserve
        // room for `limit` up front, so `--limit 99999999999` must not reach
        // them as is.
        let sections = usize::try_from(searcher.num_docs()).unwrap_or(usize::MAX);
        if sections == 0 {
            return Ok(Vec::new());
        }
        let limit = limit.min(sections);
        let filter = match self.filter(&searcher, parsed)? {
            Filter::Nothing => return Ok(Vec::new()),
            Filter::Clauses(clauses) => clauses,
        };
        let (telling, unknown) = self.telling_terms(&searcher, parsed)?;
        let mut terms = telling.clone();
        // The word being typed stands for one word of the index, so its
        // expansions are alternatives: a section scores by its best one, not
        // by how many of them it holds (`key` must not make a section full of
        // `keyring` and `keys` outrank the one quoting the error line).
        //
        // After other words, a last word that is already a word of the index
        // is taken as finished: a pasted error line ends in one (`... shared
        // object file`), and expanding it (`files`, `filename`, ...) would
        // add nothing to the other words but the cost of walking many more
        // postings lists. A word typed alone is still expanded (`dock` may
        // be on its way to `docker`).
        let mut expansions = Vec::new();
        if let Some(prefix) = &parsed.prefix
            && !(parsed.chunks > 1 && self.is_known(&searcher, prefix)?)
        {
            for expansion in self.prefix_terms(&searcher, prefix)? {
                if !terms.iter().any(|t| t.term.text == expansion.term.text) {
                    expansions.push(expansion);
                }
            }
        }
        let pool = limit.max(RERANK_POOL);
        // A document's list of sources is found only by a query that names
        // a URL or asks for sources, or when nothing else matches.
        let sources = Term::from_field_text(self.fields.role, schema::SOURCES_ROLE);
        let no_sources: Box<dyn Query> =
            Box::new(TermQuery::new(sources, IndexRecordOption::Basic));
        let mut exclude = (!parsed.wants_sources).then_some(no_sources);
        let run = |terms: &[Known],
                   expansions: &[Known],
                   phrases: &[Vec<String>],
                   exclude: Option<&dyn Query>| {
            let words = Words {
                terms,
                expansions,
                phrases,
                common_later: searcher.num_docs() >= COMMON_LATER_FROM,
            };
            self.run(&searcher, words, &filter, exclude, pool)
        };
        let mut found = run(&terms, &expansions, &parsed.phrases, exclude.as_deref())?;
        if found.is_empty() && exclude.is_some() {
            exclude = None;
            found = run(&terms, &expansions, &parsed.phrases, None)?;
        }
        if found.is_empty() && !parsed.terms.is_empty() {
            terms = self.fuzzy_terms(&searcher, &parsed.terms)?;
            expansions.clear();
            if !terms.is_empty() {
                found = run(&terms, &[], &[], exclude.as_deref())?;
                if found.is_empty() && exclude.is_some() {
                    found = run(&terms, &[], &[], None)?;
                }
            }
        }
        let mut stored = StoredSections::new(&searcher);
        let ranked = self.rerank(&mut stored, found, parsed, &telling, unknown, limit)?;

        // Snippet lines are chosen by the rarity-weighted terms they hold.
        let mut weights: HashMap<String, f32> = terms
            .iter()
            .chain(&expansions)
            .map(|t| (t.term.text.clone(), t.weight()))
            .collect();
        for phrase in &parsed.phrases {
            for word in phrase {
                weights.entry(word.clone()).or_insert(1.0);
            }
        }
        let matcher = snippet::Matcher::new(weights, parsed.prefix.clone());
        ranked
            .into_iter()
            .map(|(score, address, mut signals)| {
                let mut hit = self.hit(stored.get(address)?, score, &matcher);
                signals.via_question = hit.question.is_some();
                hit.confidence = confidence::probability(&signals);
                hit.signals = signals;
                Ok(hit)
            })
            .collect()
    }

    /// Orders the best candidates by more than their words' BM25 scores:
    ///
    /// - word pairs of the query found side by side (an error message
    ///   quoted verbatim) add to the score, like a phrase match would;
    /// - the kind of file weighs in (a drop or the index describes files
    ///   rather than explaining things);
    /// - coordination: a section holding more of the query's telling terms,
    ///   weighted by rarity, moves up. BM25 alone lets one frequent word in a
    ///   short section beat every rare identifier of the error in a longer
    ///   one.
    ///
    /// Done on a few dozen candidates from the postings lists, this costs
    /// far less than scoring pairs over the whole index.
    fn rerank(
        &self,
        stored: &mut StoredSections,
        mut found: Vec<(f32, DocAddress)>,
        parsed: &ParsedQuery,
        telling: &[Known],
        unknown: f32,
        limit: usize,
    ) -> tantivy::Result<Vec<(f32, DocAddress, confidence::Signals)>> {
        let searcher = stored.searcher();
        let mut pairs = Vec::new();
        for pair in &parsed.pairs {
            let mut idf = 0.0;
            for word in pair {
                match telling.iter().find(|t| &t.term.text == word) {
                    Some(k) => idf += k.idf,
                    None if query::is_stop_word(word) => {
                        let term = QueryTerm {
                            text: word.clone(),
                            weight: 1.0,
                            alias_of: None,
                        };
                        idf += self.known(searcher, term)?.map_or(0.0, |k| k.idf);
                    }
                    None => idf = f32::NAN,
                }
            }
            if idf > 0.0 {
                pairs.push((pair, idf));
            }
        }
        let (bonus, pairs_found) = self.pair_bonus(searcher, &found, &pairs)?;
        let pairs_total: f32 = pairs.iter().map(|(_, idf)| idf).sum();
        // A word and its other forms are one group: the best form counts.
        let rare = rare_idf(searcher.num_docs());
        let groups = groups(telling, rare);
        let total: f32 = groups.iter().map(|g| g.weight).sum();
        let rare_total: f32 = groups.iter().filter(|g| g.rare).map(|g| g.weight).sum();
        let coverage = if total > 0.0 {
            self.coverage(searcher, &found, telling, &groups)?
        } else {
            Coverage::full(found.len(), total)
        };
        let Coverage {
            covered,
            heading,
            rare: rare_covered,
            named,
        } = coverage;
        // A query that names something (`libcupti.so.12`, `CUBLAS_STATUS_…`)
        // is about that thing: a section with the message's common words but
        // none of its identifiers is about something else.
        let names_something = telling.iter().any(|k| is_identifier(&k.term.text));
        let readers = searcher.segment_readers();
        let mut weights: Vec<Option<std::sync::Arc<dyn tantivy::columnar::ColumnValues<f64>>>> =
            vec![None; readers.len()];
        let mut orders: Vec<Option<std::sync::Arc<dyn tantivy::columnar::ColumnValues<u64>>>> =
            vec![None; readers.len()];
        // Each candidate's place in path and line order (`schema::ORDER_FIELD`).
        let mut order = vec![0u64; found.len()];
        for (i, ((score, address), bonus)) in found.iter_mut().zip(bonus).enumerate() {
            let segment = address.segment_ord as usize;
            let column = weights[segment].get_or_insert_with(|| {
                readers[segment]
                    .fast_fields()
                    .f64("weight")
                    .map(|c| c.first_or_default_col(1.0))
                    .unwrap_or_else(|_| {
                        tantivy::columnar::Column::build_empty_column(0).first_or_default_col(1.0)
                    })
            });
            let kind = column.get_val(address.doc_id) as f32;
            let places = orders[segment].get_or_insert_with(|| {
                readers[segment]
                    .fast_fields()
                    .u64(schema::ORDER_FIELD)
                    .map(|c| c.first_or_default_col(0))
                    .unwrap_or_else(|_| {
                        tantivy::columnar::Column::build_empty_column(0).first_or_default_col(0)
                    })
            });
            order[i] = places.get_val(address.doc_id);
            let coordination = if total > 0.0 {
                COVERAGE_FLOOR + (1.0 - COVERAGE_FLOOR) * covered[i] / total
            } else {
                1.0
            };
            let unnamed = if names_something && !named[i] {
                UNNAMED_FACTOR
            } else {
                1.0
            };
            *score = (*score + bonus) * kind * coordination * unnamed;
        }
        let asked = self.question_shares(stored, &found, parsed)?;
        // Words the index lacks count as missing, and as rare.
        let reachable = total + unknown;
        let rare_reachable = rare_total + unknown;
        // Only filters or quoted stop words: the section has all there was
        // to find.
        let share_of = |part: f32, whole: f32| {
            if whole > 0.0 {
                (part / whole).clamp(0.0, 1.0)
            } else {
                1.0
            }
        };
        let mut ranked: Vec<(f32, DocAddress, confidence::Signals, u64)> = found
            .iter()
            .enumerate()
            .map(|(i, &(score, address))| {
                let score = score * (1.0 + QUESTION_MATCH_BOOST * asked[i]);
                let signals = confidence::Signals {
                    score,
                    other: None,
                    share: share_of(covered[i], reachable),
                    rare_share: share_of(rare_covered[i], rare_reachable),
                    // A query of one word has no message to quote.
                    pairs_share: if pairs_total > 0.0 {
                        (pairs_found[i] / pairs_total).clamp(0.0, 1.0)
                    } else {
                        0.0
                    },
                    heading_share: if covered[i] > 0.0 {
                        (heading[i] / covered[i]).clamp(0.0, 1.0)
                    } else {
                        0.0
                    },
                    names_something,
                    named: named[i],
                    log: parsed.pasted,
                    question: parsed.question,
                    chunks: parsed.chunks,
                    via_question: false,
                };
                (score, address, signals, order[i])
            })
            .collect();
        // Equal scores in path and line order, however many segments the
        // index has (see `build`).
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.3.cmp(&b.3)));
        if !parsed.libraries.is_empty() {
            self.lower_other_libraries(searcher, &mut ranked, &parsed.libraries)?;
            ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.3.cmp(&b.3)));
        }
        if total > 0.0 {
            let words: Vec<passage::WordGroup> = groups
                .iter()
                .map(|g| passage::WordGroup {
                    texts: g
                        .members
                        .iter()
                        .map(|&m| telling[m].term.text.as_str())
                        .collect(),
                    weight: g.weight,
                })
                .collect();
            if let Some(closeness) = passage::Closeness::new(&words) {
                self.weigh_closeness(stored, &mut ranked, &closeness)?;
                ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.3.cmp(&b.3)));
            }
        }
        // Each hit's lead is over the best other candidate, whatever the
        // limit: the first's over the second, the others' (negative) over
        // the first.
        let first = ranked.first().map(|r| r.0);
        let second = ranked.get(1).map(|r| r.0);
        for (i, r) in ranked.iter_mut().enumerate() {
            r.2.other = if i == 0 { second } else { first };
        }
        ranked.truncate(limit);
        Ok(ranked
            .into_iter()
            .map(|(score, address, signals, _)| (score, address, signals))
            .collect())
    }

    /// Scales the best `PASSAGE_POOL` candidates' scores by how close
    /// together they hold the query's words (`passage::Closeness`): from
    /// `1 - PASSAGE_WEIGHT` (the best two neighbouring passages hold none of
    /// what the section holds) to 1 (they hold all of it). The others take
    /// the lowest factor, so none of them passes a candidate that was read.
    fn weigh_closeness(
        &self,
        stored: &mut StoredSections,
        ranked: &mut [(f32, DocAddress, confidence::Signals, u64)],
        closeness: &passage::Closeness,
    ) -> tantivy::Result<()> {
        for (i, r) in ranked.iter_mut().enumerate() {
            let closeness = if i < PASSAGE_POOL {
                let doc = stored.get(r.1)?;
                let path = doc.get_first(self.fields.heading_path);
                let path = path.and_then(|v| v.as_str()).unwrap_or_default();
                let heading = path.rsplit(schema::HEADING_SEPARATOR).next().unwrap_or("");
                let text = doc.get_first(self.fields.text);
                let text = text.and_then(|v| v.as_str()).unwrap_or_default();
                closeness.of(heading, snippet::scanned_part(text))
            } else {
                0.0
            };
            r.0 *= 1.0 - PASSAGE_WEIGHT + PASSAGE_WEIGHT * closeness;
            r.2.score = r.0;
        }
        Ok(())
    }

    /// Lowers the best `LIBRARY_POOL` candidates whose own heading names
    /// shared libraries, none of them a library the query names (another
    /// version of one is the same failure): a section on
    /// `libnvinfer.so.N: cannot open …` shares every other word with
    /// `libcublas.so.12: cannot open …` and explains another message. Read
    /// from the `heading_libs` postings, not the stored sections.
    fn lower_other_libraries(
        &self,
        searcher: &Searcher,
        ranked: &mut [(f32, DocAddress, confidence::Signals, u64)],
        wanted: &[subject::Subject],
    ) -> tantivy::Result<()> {
        let field = self.fields.heading_libs;
        let pool = ranked.len().min(LIBRARY_POOL);
        let candidates: Vec<(f32, DocAddress)> =
            ranked[..pool].iter().map(|r| (r.0, r.1)).collect();
        let mut lower = vec![false; pool];
        for (segment, mine) in by_segment(searcher, &candidates) {
            let inverted = segment.inverted_index(field)?;
            let holders = |text: &str| -> tantivy::Result<Vec<u32>> {
                let term = Term::from_field_text(field, text);
                let mut docs = Vec::new();
                if let Some(mut postings) =
                    inverted.read_postings(&term, IndexRecordOption::Basic)?
                {
                    while postings.doc() != tantivy::TERMINATED {
                        docs.push(postings.doc());
                        postings.advance();
                    }
                }
                Ok(docs)
            };
            let naming = holders(schema::NAMES_LIBRARIES)?;
            let mut about_wanted = Vec::new();
            for library in wanted {
                about_wanted.extend(holders(&library.name)?);
            }
            for i in mine {
                let doc = candidates[i].1.doc_id;
                lower[i] = naming.contains(&doc) && !about_wanted.contains(&doc);
            }
        }
        for (r, lower) in ranked.iter_mut().zip(lower) {
            if lower {
                r.0 *= OTHER_LIBRARY_FACTOR;
                r.2.score = r.0;
            }
        }
        Ok(())
    }

    /// For a typed question, for each of the best `QUESTION_POOL`
    /// candidates (0 for the others), the largest share of one of its
    /// section's questions that the query holds, each word weighted by its
    /// rarity among the questions; it raises the candidate's score by
    /// `QUESTION_MATCH_BOOST`. A user who asks what a section's author
    /// expected to be asked, in other words around it, is asking that
    /// question; BM25 over all the questions of a section, as one field,
    /// cannot tell one question's words held together from words spread
    /// over several. Not for a pasted log, even one with a person's line
    /// in it: torch's hints say "we" too.
    fn question_shares(
        &self,
        stored: &mut StoredSections,
        found: &[(f32, DocAddress)],
        parsed: &ParsedQuery,
    ) -> tantivy::Result<Vec<f32>> {
        let searcher = stored.searcher();
        let mut shares = vec![0.0; found.len()];
        if !parsed.question || parsed.pasted {
            return Ok(shares);
        }
        let words: HashSet<&str> = parsed
            .terms
            .iter()
            .filter(|t| !query::is_stop_word(&t.text))
            .map(|t| t.text.as_str())
            .collect();
        if words.is_empty() {
            return Ok(shares);
        }
        let mut best_first: Vec<usize> = (0..found.len()).collect();
        best_first.sort_by(|&a, &b| found[b].0.total_cmp(&found[a].0));
        best_first.truncate(QUESTION_POOL);
        let sections = searcher.num_docs();
        // Each word's rarity among the questions, looked up once.
        let mut rarities: HashMap<String, f32> = HashMap::new();
        for i in best_first {
            let doc = stored.get(found[i].1)?;
            let mut best = 0.0f32;
            for question in doc
                .get_all(self.fields.questions)
                .filter_map(|v| v.as_str())
            {
                let (mut held, mut all) = (0.0, 0.0);
                let mut seen = HashSet::new();
                for piece in tokenizer::pieces(question) {
                    if piece.context
                        || query::is_stop_word(&piece.text)
                        || !seen.insert(piece.text.clone())
                    {
                        continue;
                    }
                    let rarity = match rarities.get(&piece.text) {
                        Some(&rarity) => rarity,
                        None => {
                            let term = Term::from_field_text(self.fields.questions, &piece.text);
                            let rarity = idf(sections, searcher.doc_freq(&term)?);
                            rarities.insert(piece.text.clone(), rarity);
                            rarity
                        }
                    };
                    all += rarity;
                    if words.contains(piece.text.as_str()) {
                        held += rarity;
                    }
                }
                if all > 0.0 {
                    best = best.max(held / all);
                }
            }
            shares[i] = best;
        }
        Ok(shares)
    }

    /// For each candidate, `PAIR_BOOST` times the pair's rarity (its words'
    /// idf, scaled down when many candidates hold the pair side by side)
    /// for every field where a pair of query words stands side by side; and
    /// the summed idf of the pairs it has side by side in some field.
    fn pair_bonus(
        &self,
        searcher: &Searcher,
        candidates: &[(f32, DocAddress)],
        pairs: &[(&[String; 2], f32)],
    ) -> tantivy::Result<(Vec<f32>, Vec<f32>)> {
        let mut bonus = vec![0.0; candidates.len()];
        // Per candidate and pair, in how many fields it stands side by side.
        let mut fields = vec![vec![0.0f32; pairs.len()]; candidates.len()];
        let (mut first, mut second) = (Vec::new(), Vec::new());
        for (segment, mine) in by_segment(searcher, candidates) {
            for (p, (pair, _)) in pairs.iter().enumerate() {
                for field in self.fields.phrased() {
                    let inverted = segment.inverted_index(field)?;
                    let read = |word: &str| {
                        inverted.read_postings(
                            &Term::from_field_text(field, word),
                            IndexRecordOption::WithFreqsAndPositions,
                        )
                    };
                    let (Some(mut a), Some(mut b)) = (read(&pair[0])?, read(&pair[1])?) else {
                        continue;
                    };
                    for &i in &mine {
                        let doc = candidates[i].1.doc_id;
                        if a.doc() < doc {
                            a.seek(doc);
                        }
                        if b.doc() < doc {
                            b.seek(doc);
                        }
                        if a.doc() != doc || b.doc() != doc {
                            continue;
                        }
                        a.positions(&mut first);
                        b.positions(&mut second);
                        if first.iter().any(|p| second.binary_search(&(p + 1)).is_ok()) {
                            fields[i][p] += 1.0;
                        }
                    }
                }
            }
        }
        // A pair that many sections hold side by side is the common part of
        // a family of messages (`cannot open shared object file`, `No such
        // file or directory`), not what sets one message apart: past
        // `OWN_PAIR_HOLDERS`, it counts by how few hold it, as a word counts
        // by its rarity. The candidates holding it stand in for the index's
        // count (they are the sections with the query's words).
        let sections = searcher.num_docs() as f32;
        for (p, (_, idf)) in pairs.iter().enumerate() {
            let holders = fields.iter().filter(|found| found[p] > 0.0).count() as f32;
            if holders == 0.0 {
                continue;
            }
            let rarity = ((1.0 + sections / holders).ln()
                / (1.0 + sections / OWN_PAIR_HOLDERS).ln())
            .min(1.0);
            for (bonus, fields) in bonus.iter_mut().zip(&fields) {
                *bonus += PAIR_BOOST * idf * fields[p] * rarity;
            }
        }
        let found = fields
            .iter()
            .map(|found| {
                found
                    .iter()
                    .zip(pairs)
                    .filter(|(f, _)| **f > 0.0)
                    .map(|(_, (_, idf))| idf)
                    .sum()
            })
            .collect();
        Ok((bonus, found))
    }

    /// For each candidate, the summed weight of the term `groups` it
    /// contains in any searched field (a group counts its best term found),
    /// read from the postings lists; see [`Coverage`].
    fn coverage(
        &self,
        searcher: &Searcher,
        candidates: &[(f32, DocAddress)],
        terms: &[Known],
        groups: &[Group],
    ) -> tantivy::Result<Coverage> {
        // The best weight found so far per candidate and group, in any
        // field and in the headings.
        let mut best = vec![vec![0.0f32; groups.len()]; candidates.len()];
        let mut best_heading = vec![vec![0.0f32; groups.len()]; candidates.len()];
        let headings = [self.fields.heading, self.fields.title, self.fields.trail];
        // Whether the candidate holds one of the query's identifiers.
        let mut named = vec![false; candidates.len()];
        for (segment, mine) in by_segment(searcher, candidates) {
            for (t, known) in terms.iter().enumerate() {
                let g = groups.iter().position(|g| g.members.contains(&t));
                let mut present = vec![false; mine.len()];
                let mut in_heading = vec![false; mine.len()];
                for (f, field) in self.fields.searched().into_iter().enumerate() {
                    if !known.fields[f] {
                        continue;
                    }
                    let term = Term::from_field_text(field, &known.term.text);
                    let Some(mut postings) = segment
                        .inverted_index(field)?
                        .read_postings(&term, IndexRecordOption::Basic)?
                    else {
                        continue;
                    };
                    for (k, &i) in mine.iter().enumerate() {
                        let doc = candidates[i].1.doc_id;
                        if postings.doc() < doc {
                            postings.seek(doc);
                        }
                        if postings.doc() == doc {
                            present[k] = true;
                            in_heading[k] |= headings.contains(&field);
                        }
                    }
                }
                let identifier = is_identifier(&known.term.text);
                for (k, &i) in mine.iter().enumerate() {
                    if present[k] {
                        named[i] |= identifier;
                        if let Some(g) = g {
                            best[i][g] = best[i][g].max(known.weight());
                            if in_heading[k] {
                                best_heading[i][g] = best_heading[i][g].max(known.weight());
                            }
                        }
                    }
                }
            }
        }
        let sum = |rows: &[Vec<f32>]| rows.iter().map(|b| b.iter().sum()).collect();
        let rare = best
            .iter()
            .map(|b| {
                b.iter()
                    .zip(groups)
                    .filter(|(_, g)| g.rare)
                    .map(|(w, _)| w)
                    .sum()
            })
            .collect();
        Ok(Coverage {
            covered: sum(&best),
            heading: sum(&best_heading),
            rare,
            named,
        })
    }

    /// The query's terms that occur in the index, at most `MAX_TERMS` of
    /// them (the rarest, by weight).
    ///
    /// Words also look for their other forms the index has (`privilege`
    /// finds `privileges`), as alternatives of lower weight. The second
    /// value is the weight of the query's words the index has in no form,
    /// as if each were in no section at all (for [`Hit::confidence`]).
    fn telling_terms(
        &self,
        searcher: &Searcher,
        parsed: &ParsedQuery,
    ) -> tantivy::Result<(Vec<Known>, f32)> {
        let mut known: Vec<Known> = Vec::new();
        let mut forms_tried = 0;
        let rare = rare_idf(searcher.num_docs());
        // Another form or a synonym never counts more than the word typed,
        // however rare it is (`cuptis` must not outweigh `cupti`).
        let capped = |mut k: Known, known: &[Known]| {
            let word = k.term.alias_of.as_ref()?;
            if let Some(original) = known.iter().find(|o| &o.term.text == word)
                && k.idf > original.idf
            {
                k.term.weight *= original.idf / k.idf;
            }
            Some(k)
        };
        for term in &parsed.terms {
            if let Some(k) = self.known(searcher, term.clone())? {
                let k = if k.term.alias_of.is_some() {
                    capped(k, &known)
                } else {
                    Some(k)
                };
                known.extend(k);
            }
            // A common word needs no other forms (the knowledge has it
            // plenty as typed, and `files`, `objects` would only add weight
            // to common message text); a rare or missing one may be worded
            // otherwise in the one section that explains it.
            // A finished word the knowledge has is taken as typed: `key`
            // must not also score every heading about `keys`.
            let common = known.last().is_some_and(|k| {
                k.term.text == term.text && (k.idf < rare || k.fields.iter().any(|&f| f))
            });
            if term.alias_of.is_some() || common || forms_tried >= MAX_FORM_WORDS {
                continue;
            }
            let forms = vocabulary::word_forms(&term.text);
            forms_tried += usize::from(!forms.is_empty());
            for form in forms {
                if parsed.terms.iter().any(|t| t.text == form) {
                    continue;
                }
                let alias = QueryTerm {
                    text: form,
                    weight: term.weight * FORM_WEIGHT,
                    alias_of: Some(term.text.clone()),
                };
                if let Some(k) = self.known(searcher, alias)? {
                    known.extend(capped(k, &known));
                }
            }
        }
        let most = idf(searcher.num_docs(), 0);
        let mut unknown = 0.0;
        for term in parsed.terms.iter().filter(|t| t.alias_of.is_none()) {
            let found = known
                .iter()
                .any(|k| k.term.text == term.text || k.term.alias_of.as_ref() == Some(&term.text));
            // The word being typed is not missing, only unfinished.
            let typing = parsed.prefix.as_ref() == Some(&term.text);
            if !found && !typing {
                unknown += term.weight * most;
            }
        }
        if known.len() > MAX_TERMS {
            known.sort_by(|a, b| b.weight().total_cmp(&a.weight()));
            known.truncate(MAX_TERMS);
        }
        Ok((known, unknown))
    }

    /// A term's rarity (BM25's inverse document frequency, from the field
    /// where it is most common) and the fields that have it; `None` when
    /// the index does not have it at all.
    fn known(&self, searcher: &Searcher, term: QueryTerm) -> tantivy::Result<Option<Known>> {
        let mut df = 0;
        let mut fields = [false; SEARCHED];
        for (f, field) in self.fields.searched().into_iter().enumerate() {
            let n = searcher.doc_freq(&Term::from_field_text(field, &term.text))?;
            fields[f] = n > 0;
            df = df.max(n);
        }
        if df == 0 {
            return Ok(None);
        }
        let idf = idf(searcher.num_docs(), df);
        Ok(Some(Known { term, idf, fields }))
    }

    /// True if some searched field has the term `text`.
    fn is_known(&self, searcher: &Searcher, text: &str) -> tantivy::Result<bool> {
        for field in self.fields.searched() {
            if searcher.doc_freq(&Term::from_field_text(field, text))? > 0 {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Terms of the index starting with `prefix`, the most common first.
    fn prefix_terms(&self, searcher: &Searcher, prefix: &str) -> tantivy::Result<Vec<Known>> {
        let mut counts: HashMap<String, u64> = HashMap::new();
        let upper = prefix_upper_bound(prefix);
        for segment in searcher.segment_readers() {
            for field in self.fields.searched() {
                let inverted = segment.inverted_index(field)?;
                let mut range = inverted.terms().range().ge(prefix.as_bytes());
                if let Some(upper) = &upper {
                    range = range.lt(upper);
                }
                let mut stream = range.into_stream()?;
                let mut scanned = 0;
                while stream.advance() && scanned < 5_000 {
                    scanned += 1;
                    if let Ok(text) = std::str::from_utf8(stream.key())
                        && text != prefix
                    {
                        *counts.entry(text.to_string()).or_default() +=
                            u64::from(stream.value().doc_freq);
                    }
                }
            }
        }
        let mut expansions: Vec<(u64, String)> = counts.into_iter().map(|(t, c)| (c, t)).collect();
        expansions.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let mut out = Vec::new();
        for (_, text) in expansions.into_iter().take(MAX_PREFIX_TERMS) {
            let term = QueryTerm {
                text,
                weight: PREFIX_WEIGHT,
                alias_of: None,
            };
            out.extend(self.known(searcher, term)?);
        }
        Ok(out)
    }

    /// Index terms one edit away from the query's words, for when nothing
    /// matches as typed.
    fn fuzzy_terms(&self, searcher: &Searcher, terms: &[QueryTerm]) -> tantivy::Result<Vec<Known>> {
        let mut found: Vec<QueryTerm> = Vec::new();
        for term in terms.iter().filter(|t| t.text.chars().count() >= 4).take(8) {
            let fuzzy =
                FuzzyTermQuery::new(Term::from_field_text(self.fields.body, &term.text), 1, true);
            let automaton = fuzzy.automaton()?;
            for segment in searcher.segment_readers() {
                for field in [self.fields.heading, self.fields.body, self.fields.code] {
                    let inverted = segment.inverted_index(field)?;
                    let mut stream = inverted.terms().search(&automaton).into_stream()?;
                    let mut taken = 0;
                    while stream.advance() && taken < 8 {
                        if let Ok(text) = std::str::from_utf8(stream.key())
                            && !found.iter().any(|t| t.text == text)
                        {
                            taken += 1;
                            found.push(QueryTerm {
                                text: text.to_string(),
                                weight: term.weight * FUZZY_WEIGHT,
                                alias_of: None,
                            });
                        }
                    }
                }
            }
        }
        let mut out = Vec::new();
        for term in found {
            out.extend(self.known(searcher, term)?);
        }
        Ok(out)
    }

    fn filter(&self, searcher: &Searcher, parsed: &ParsedQuery) -> tantivy::Result<Filter> {
        let mut clauses: Vec<Box<dyn Query>> = Vec::new();
        if !parsed.kinds.is_empty() {
            let terms = parsed
                .kinds
                .iter()
                .map(|k| Term::from_field_text(self.fields.kind, k.as_str()));
            clauses.push(Box::new(TermSetQuery::new(terms)));
        }
        if !parsed.paths.is_empty() {
            let mut paths = Vec::new();
            for segment in searcher.segment_readers() {
                let inverted = segment.inverted_index(self.fields.path_key)?;
                let mut stream = inverted.terms().stream()?;
                while stream.advance() {
                    if let Ok(path) = std::str::from_utf8(stream.key())
                        && parsed.paths.iter().any(|p| path.contains(p.as_str()))
                    {
                        paths.push(Term::from_field_text(self.fields.path_key, path));
                    }
                }
            }
            if paths.is_empty() {
                return Ok(Filter::Nothing);
            }
            clauses.push(Box::new(TermSetQuery::new(paths)));
        }
        Ok(Filter::Clauses(clauses))
    }

    fn run(
        &self,
        searcher: &Searcher,
        words: Words<'_>,
        filter: &[Box<dyn Query>],
        exclude: Option<&dyn Query>,
        limit: usize,
    ) -> tantivy::Result<Vec<(f32, DocAddress)>> {
        let Words {
            terms,
            expansions,
            phrases,
            common_later,
        } = words;
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        // Per term, the best of its boosted fields plus a share of the
        // others (`FIELD_TIE_BREAKER`), so one word cannot score once per
        // field that repeats it. This costs: tantivy can skip blocks of a
        // flat union of terms but not of these per-term unions, and queries
        // at 10,000 documents take about twice as long (README, Search).
        // Taking the best of the heading fields only, or only for short
        // queries, ranked worse on the tuning half.
        let term_clauses = |known: &Known| {
            let mut out: Vec<(Occur, Box<dyn Query>)> = Vec::new();
            for (f, field) in self.fields.searched().into_iter().enumerate() {
                if known.fields[f] {
                    let q = TermQuery::new(
                        Term::from_field_text(field, &known.term.text),
                        IndexRecordOption::WithFreqs,
                    );
                    let boost = FIELD_BOOSTS[f] * known.term.weight;
                    out.push((Occur::Should, Box::new(BoostQuery::new(Box::new(q), boost))));
                }
            }
            if out.len() > 1 {
                let fields: Vec<Box<dyn Query>> = out.into_iter().map(|(_, q)| q).collect();
                let best = DisjunctionMaxQuery::with_tie_breaker(fields, FIELD_TIE_BREAKER);
                return vec![(Occur::Should, Box::new(best) as Box<dyn Query>)];
            }
            out
        };
        // Common words only score sections that have a rarer word of the
        // query: walking the long postings lists of `file` or `cuda` for
        // every section of a big corpus would cost more than the rest of the
        // query, and a section with nothing but common words ranks low anyway.
        //
        // Nor are they part of the query: their scores are added afterwards
        // to the best `COMMON_POOL` times `limit` candidates that the rarer
        // words (and phrases, and the word being typed) pick. In the query,
        // each common word's union of fields had to be moved to every
        // candidate in turn, which took most of its time; the sum is the
        // same for every candidate scored.
        let rare_idf = rare_idf(searcher.num_docs());
        let (rare, common): (Vec<&Known>, Vec<&Known>) =
            terms.iter().partition(|k| k.idf >= rare_idf);
        let pooled = common_later && !rare.is_empty() && !common.is_empty();
        if !rare.is_empty() && !common.is_empty() {
            let any_rare: Vec<(Occur, Box<dyn Query>)> =
                rare.iter().flat_map(|k| term_clauses(k)).collect();
            clauses.push((Occur::Must, Box::new(BooleanQuery::new(any_rare))));
            if !pooled {
                for known in &common {
                    clauses.extend(term_clauses(known));
                }
            }
        } else {
            for known in terms {
                clauses.extend(term_clauses(known));
            }
        }
        if !expansions.is_empty() {
            let alternatives: Vec<Box<dyn Query>> = expansions
                .iter()
                .map(|k| Box::new(BooleanQuery::new(term_clauses(k))) as Box<dyn Query>)
                .collect();
            clauses.push((
                Occur::Should,
                Box::new(DisjunctionMaxQuery::new(alternatives)),
            ));
        }
        for phrase in phrases {
            clauses.push((Occur::Should, self.phrase_query(phrase, PHRASE_BOOST)));
        }
        let scoring = clauses.len();
        for f in filter {
            clauses.push((
                Occur::Must,
                Box::new(ConstScoreQuery::new(f.box_clone(), 0.0)),
            ));
        }
        if let Some(exclude) = exclude {
            clauses.push((Occur::MustNot, exclude.box_clone()));
        }
        if clauses.is_empty() || (scoring == 0 && filter.is_empty()) {
            return Ok(Vec::new());
        }
        let query = BooleanQuery::new(clauses);
        // By score alone, so tantivy can skip blocks that cannot make the
        // cut; the kind of file weighs in when re-ranking.
        if !pooled {
            let collector = TopDocs::with_limit(limit).order_by_score();
            return searcher.search(&query, &collector);
        }
        let collector = TopDocs::with_limit(limit.saturating_mul(COMMON_POOL)).order_by_score();
        let mut found = searcher.search(&query, &collector)?;
        self.add_common_scores(searcher, &mut found, &common)?;
        found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        found.truncate(limit);
        Ok(found)
    }

    /// Adds to each candidate's score what the query would have given it
    /// for the `common` words: per word, the best of its boosted fields plus
    /// `FIELD_TIE_BREAKER` of the others, as `run`'s per-word clauses score.
    fn add_common_scores(
        &self,
        searcher: &Searcher,
        found: &mut [(f32, DocAddress)],
        common: &[&Known],
    ) -> tantivy::Result<()> {
        let scoring = tantivy::query::EnableScoring::enabled_from_searcher(searcher);
        // One weight per word and field it is in, with the field's boost.
        let mut weights = Vec::new();
        for (w, known) in common.iter().enumerate() {
            for (f, field) in self.fields.searched().into_iter().enumerate() {
                if known.fields[f] {
                    let term = Term::from_field_text(field, &known.term.text);
                    let query = TermQuery::new(term, IndexRecordOption::WithFreqs);
                    let boost = FIELD_BOOSTS[f] * known.term.weight;
                    weights.push((w, query.weight(scoring)?, boost));
                }
            }
        }
        for (segment, candidates) in by_segment(searcher, found) {
            let mut scorers = Vec::with_capacity(weights.len());
            for (w, weight, boost) in &weights {
                scorers.push((*w, weight.scorer(segment, *boost)?));
            }
            // Per word: the best field score and the sum of them all.
            let mut best = vec![0f32; common.len()];
            let mut sum = vec![0f32; common.len()];
            for i in candidates {
                let doc = found[i].1.doc_id;
                best.fill(0.0);
                sum.fill(0.0);
                for (w, scorer) in &mut scorers {
                    if scorer.doc() < doc {
                        scorer.seek(doc);
                    }
                    if scorer.doc() == doc {
                        let score = scorer.score();
                        best[*w] = best[*w].max(score);
                        sum[*w] += score;
                    }
                }
                found[i].0 += best
                    .iter()
                    .zip(&sum)
                    .map(|(&b, &s)| b + FIELD_TIE_BREAKER * (s - b))
                    .sum::<f32>();
            }
        }
        Ok(())
    }

    fn phrase_query(&self, words: &[String], boost: f32) -> Box<dyn Query> {
        let per_field: Vec<Box<dyn Query>> = self
            .fields
            .phrased()
            .into_iter()
            .map(|field| {
                if words.len() == 1 {
                    Box::new(TermQuery::new(
                        Term::from_field_text(field, &words[0]),
                        IndexRecordOption::WithFreqs,
                    )) as Box<dyn Query>
                } else {
                    let terms = words
                        .iter()
                        .enumerate()
                        .map(|(i, w)| (i, Term::from_field_text(field, w)))
                        .collect();
                    Box::new(PhraseQuery::new_with_offset(terms)) as Box<dyn Query>
                }
            })
            .collect();
        Box::new(BoostQuery::new(
            Box::new(DisjunctionMaxQuery::with_tie_breaker(
                per_field,
                TIE_BREAKER,
            )),
            boost,
        ))
    }

    fn hit(&self, doc: &TantivyDocument, score: f32, matcher: &snippet::Matcher) -> Hit {
        let text = |field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or_default()
                .to_string()
        };
        let section_text = text(self.fields.text);
        let snippet = snippet::snippet(&section_text, matcher, SNIPPET_CHARS);
        let questions: Vec<&str> = doc
            .get_all(self.fields.questions)
            .filter_map(|v| v.as_str())
            .collect();
        let question = snippet::best_question(
            &questions,
            &[&section_text, &text(self.fields.heading_path)],
            matcher,
        );
        Hit {
            path: text(self.fields.path),
            anchor: text(self.fields.anchor),
            line: doc
                .get_first(self.fields.line)
                .and_then(|v| v.as_u64())
                .unwrap_or(1) as usize,
            title: text(self.fields.title),
            heading: text(self.fields.heading_path),
            kind: Kind::parse(&text(self.fields.kind)).unwrap_or(Kind::Knowledge),
            score,
            snippet: snippet.text,
            highlights: snippet.highlights,
            confidence: 1.0,
            signals: confidence::Signals::default(),
            question,
        }
    }
}

/// A query term the index has.
#[derive(Debug, Clone)]
struct Known {
    term: QueryTerm,
    idf: f32,
    /// Which of `Fields::searched` have it.
    fields: [bool; SEARCHED],
}

impl Known {
    /// What finding this term is worth: its weight times its rarity.
    fn weight(&self) -> f32 {
        self.term.weight * self.idf
    }
}

/// BM25's inverse document frequency of a term in `df` of `sections`.
fn idf(sections: u64, df: u64) -> f32 {
    let n = sections.max(1) as f32;
    let df = df as f32;
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// A word and the other forms or synonyms searched for it.
struct Group {
    /// Indices into the terms.
    members: Vec<usize>,
    /// The weight of its best term.
    weight: f32,
    /// Some term of it is rare (an inverse document frequency of at least
    /// `rare_idf`).
    rare: bool,
}

/// Per candidate, what it holds of the query's term groups (summed weights).
struct Coverage {
    /// Found in any searched field.
    covered: Vec<f32>,
    /// Found in the heading, the title or the headings above.
    heading: Vec<f32>,
    /// Of the rare groups, found anywhere.
    rare: Vec<f32>,
    /// Whether the candidate holds one of the query's identifiers.
    named: Vec<bool>,
}

impl Coverage {
    /// `n` candidates that each hold all of `total` (a query with no words
    /// the index has: there is nothing to miss).
    fn full(n: usize, total: f32) -> Coverage {
        Coverage {
            covered: vec![total; n],
            heading: vec![0.0; n],
            rare: vec![0.0; n],
            named: vec![false; n],
        }
    }
}

/// `terms` grouped by the query word they stand for; a group is rare when
/// one of its terms has an inverse document frequency of at least `rare`.
fn groups(terms: &[Known], rare: f32) -> Vec<Group> {
    let mut keys: Vec<&str> = Vec::new();
    let mut out: Vec<Group> = Vec::new();
    for (i, known) in terms.iter().enumerate() {
        let key = known.term.alias_of.as_deref().unwrap_or(&known.term.text);
        match keys.iter().position(|k| *k == key) {
            Some(g) => {
                out[g].members.push(i);
                out[g].weight = out[g].weight.max(known.weight());
                out[g].rare |= known.idf >= rare;
            }
            None => {
                keys.push(key);
                out.push(Group {
                    members: vec![i],
                    weight: known.weight(),
                    rare: known.idf >= rare,
                });
            }
        }
    }
    out
}

/// Score kept by a candidate that holds none of the identifiers a query
/// names, when it names some.
const UNNAMED_FACTOR: f32 = 0.6;
/// The score of a section whose heading names only other shared libraries
/// than the query (see `lower_other_libraries`), chosen on the tuning half:
/// 0.5 to 0.7 lift one query of 494 into the top 3, 0.3 drops another.
const OTHER_LIBRARY_FACTOR: f32 = 0.6;
/// How much of a candidate's score depends on how close together it holds
/// the query's words (`weigh_closeness`). Chosen on the tuning half,
/// simulated over each query's 20 best (windows of one, two and three passages,
/// weights 0.1 to 1.0): see README, Search.
const PASSAGE_WEIGHT: f32 = 0.5;
/// How many of the best candidates are read for their passages: 10, 20
/// and 40 ranked alike on the tuning half, and each one read costs about
/// 25 µs.
const PASSAGE_POOL: usize = 10;
/// How many of the best candidates are read for their heading's libraries.
const LIBRARY_POOL: usize = 30;

/// An identifier rather than a word: letters with a `.`, `_`, `/` or `-`
/// inside, or letters and digits (`libcupti.so.12`, `cuda_cupti`,
/// `sm_90a`, `nvcc`'s `compute_89`); bare numbers and plain words are not.
fn is_identifier(term: &str) -> bool {
    term.len() >= 4
        && term.chars().any(|c| c.is_alphabetic())
        && term
            .chars()
            .any(|c| matches!(c, '.' | '_' | '/' | '-') || c.is_ascii_digit())
}

/// Terms in fewer than this share of sections are rare enough to pick
/// candidates; more common ones only add to the score of those.
const RARE_SHARE: f32 = 0.2;

/// The inverse document frequency of a term in `RARE_SHARE` of `sections`.
fn rare_idf(sections: u64) -> f32 {
    let n = sections.max(1) as f32;
    let df = (n * RARE_SHARE).max(1.0);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

enum Filter {
    /// No section can pass (a `path:` that names no file).
    Nothing,
    Clauses(Vec<Box<dyn Query>>),
}

/// The smallest string greater than every string starting with `prefix`.
fn prefix_upper_bound(prefix: &str) -> Option<Vec<u8>> {
    let mut bytes = prefix.as_bytes().to_vec();
    while let Some(last) = bytes.pop() {
        if last < 0xff {
            bytes.push(last + 1);
            return Some(bytes);
        }
    }
    None
}

fn register_tokenizer(index: &Index) {
    index
        .tokenizers()
        .register(TOKENIZER_NAME, LoreTokenizer::default());
}

/// Each segment with the indices of the candidates in it, in doc order, so
/// postings can be read with forward-only seeks. Segments with none are left out.
fn by_segment<'s>(
    searcher: &'s Searcher,
    candidates: &[(f32, DocAddress)],
) -> Vec<(&'s SegmentReader, Vec<usize>)> {
    let mut order: Vec<usize> = (0..candidates.len()).collect();
    order.sort_by_key(|&i| candidates[i].1);
    searcher
        .segment_readers()
        .iter()
        .enumerate()
        .filter_map(|(segment_ord, segment)| {
            let mine: Vec<usize> = order
                .iter()
                .copied()
                .filter(|&i| candidates[i].1.segment_ord as usize == segment_ord)
                .collect();
            (!mine.is_empty()).then_some((segment, mine))
        })
        .collect()
}

/// Up to this much text, the segments the writer flushed are merged into
/// one. Above it they are kept: at 100,000 generated documents (417 MB) the
/// merge took a third of the build and 550 MB more memory, and a query over
/// the segments stays within milliseconds. Sections keep their order (and
/// ties theirs, see `rerank`) either way.
const MERGE_LIMIT: u64 = 128 << 20;

/// Sizes of what was indexed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct BuildStats {
    documents: usize,
    sections: usize,
    bytes: u64,
}

/// Indexes every document of `corpus` into the empty `index`, leaving one
/// segment behind (fewer segments, faster queries). Sections are numbered
/// by path and line (`Fields::order`), and the index keeps them in that
/// order (`schema::index_settings`), so two builds of the same corpus are the
/// same index whichever thread indexed what.
fn build<'p>(
    index: &Index,
    fields: &Fields,
    corpus: &Corpus,
    mut progress: Option<&mut (dyn FnMut(Progress) + 'p)>,
) -> tantivy::Result<BuildStats> {
    let bytes: u64 = corpus.documents.iter().map(|d| d.text.len() as u64).sum();
    // One thread for small corpora (one segment, nothing to merge); two
    // for big ones, which is all this kind of machine has.
    let threads = if bytes > 8 * 1024 * 1024 { 2 } else { 1 };
    let mut writer =
        index.writer_with_num_threads::<TantivyDocument>(threads, threads * (40 << 20))?;
    writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
    let mut sections = 0;
    let total = corpus.documents.len();
    let mut by_path: Vec<&crate::corpus::Document> = corpus.documents.iter().collect();
    by_path.sort_by(|a, b| a.path.cmp(&b.path));
    for (i, doc) in by_path.into_iter().enumerate() {
        for mut section in schema::tantivy_documents(doc, fields) {
            section.add_u64(fields.order, sections);
            writer.add_document(section)?;
            sections += 1;
        }
        if let Some(report) = progress.as_mut() {
            report(Progress { done: i + 1, total });
        }
    }
    writer.commit()?;
    let segments = index.searchable_segment_ids()?;
    if segments.len() > 1 && bytes <= MERGE_LIMIT {
        writer.merge(&segments).wait()?;
    }
    writer.wait_merging_threads()?;
    Ok(BuildStats {
        documents: total,
        sections: sections as usize,
        bytes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scoring the common words afterwards gives the candidates the scores
    /// the whole query gives them, in the same order.
    #[test]
    fn common_words_scored_later_score_as_in_the_query() {
        let corpus = Corpus::load(&SourceSet::builtin_knowledge());
        let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
        let searcher = index.reader.searcher();
        let no_filter = Vec::new();
        let mut pooled_some = false;
        for line in [
            "ImportError: libcupti.so.12: cannot open shared object file: No such file or directory",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "E: Conflicting values set for option Signed-By regarding source https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/",
            "Could NOT find CUDA (missing: CUDA_CUDART_LIBRARY) (found version 12.4)",
        ] {
            let parsed = query::parse(line);
            let (terms, _) = index.telling_terms(&searcher, &parsed).unwrap();
            let rare = rare_idf(searcher.num_docs());
            pooled_some |=
                terms.iter().any(|k| k.idf >= rare) && terms.iter().any(|k| k.idf < rare);
            let run = |common_later, limit| {
                let words = Words {
                    terms: &terms,
                    expansions: &[],
                    phrases: &[],
                    common_later,
                };
                index
                    .run(&searcher, words, &no_filter, None, limit)
                    .unwrap()
            };
            // Every section the query finds, with its score.
            let all = run(false, searcher.num_docs() as usize);
            let score: HashMap<DocAddress, f32> = all.iter().map(|&(s, d)| (d, s)).collect();
            for (s, doc) in run(true, 20) {
                let whole = score[&doc];
                assert!(
                    (s - whole).abs() <= 1e-4 * whole.max(1.0),
                    "{line}: {doc:?} {s} {whole}"
                );
            }
            // With the pool a big corpus gets: here the same sections in the same order.
            let later = run(true, RERANK_POOL);
            assert_eq!(&all[..later.len()], later.as_slice(), "{line}");
        }
        assert!(pooled_some, "some line has both rare and common words");
    }
}
