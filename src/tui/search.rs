//! The search screen's state: the query box, the hits for the latest query
//! answered, and the index's state. Queries go to a worker thread as
//! `Effect::Query` and come back as `Action::SearchResults`, tagged with a
//! generation number so a slow answer to an old query never replaces a newer
//! one; typing never waits for the index.

use std::sync::Arc;

use crate::diagnose::{self, Context, Verdict};
use crate::search::Hit;

use super::action::{Action, CausesChecked};
use super::app::{App, Effect, Level, Screen};
use super::layout;
use super::reader::{At, Via};
use super::widgets::{Cursor, TextInput};

/// Hits asked of the index per query: more than a screen, few enough to stay
/// fast at 10,000 documents.
pub const HIT_LIMIT: usize = 50;
/// The search box holds at most this many bytes; a longer paste keeps its
/// end (where a log says what failed) and the screen says it was cut.
pub const MAX_QUERY_BYTES: usize = 1 << 20;
/// At most this many searched log lines are listed above the hits.
pub const SHOWN_SEARCHED: usize = 3;
/// Rows of the causes panel under the hits, at most (its title included).
pub const CAUSES_ROWS: usize = 8;

/// The causes the selected hit's section lists, each with its verdict here
/// once the probes ran (`None` before).
#[derive(Debug, Clone, PartialEq)]
pub struct HitCauses {
    pub path: String,
    pub anchor: String,
    pub causes: Vec<(Option<Verdict>, String)>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// Opening, or building when the cache is cold.
    Opening,
    Ready {
        sections: usize,
        rebuilt: bool,
    },
    Failed(String),
}

#[derive(Debug)]
pub struct Search {
    pub input: TextInput,
    pub hits: Arc<Vec<Hit>>,
    /// The lines of a pasted log the hits were searched by.
    pub searched: Arc<Vec<String>>,
    /// For a pasted log, the words to mark in a document opened from a hit.
    pub marked: Arc<Vec<String>>,
    /// The query `hits` answer.
    pub answered: String,
    pub cursor: Cursor,
    /// Generation of the latest query sent, and of the latest answer shown.
    pub sent: u64,
    pub received: u64,
    pub index: IndexState,
    pub return_to: Option<Screen>,
    /// The earlier search in the box (its place in the history and the text
    /// shown), while it is unchanged.
    pub recalled: Option<(usize, String)>,
    /// The selected hit's causes, judged against `checked` if it is there.
    pub causes: Option<HitCauses>,
    /// The facts of the last probe run for causes, and the queries they
    /// may judge.
    pub checked: Option<CausesChecked>,
    /// Whether `checked` may judge `answered`: worked out when either
    /// changes, not on every frame (a pasted log can be a megabyte).
    pub checked_applies: bool,
    /// `checked` with the facts the query answered states (`answered`,
    /// then the context), made once per probe run and query, not on every
    /// move of the selection.
    judging: Option<(String, Arc<Context>)>,
    /// The probes are running for causes.
    pub probing: bool,
}

impl Default for Search {
    fn default() -> Search {
        Search {
            input: TextInput::multiline(MAX_QUERY_BYTES),
            hits: Arc::new(Vec::new()),
            searched: Arc::new(Vec::new()),
            marked: Arc::new(Vec::new()),
            answered: String::new(),
            cursor: Cursor::default(),
            sent: 0,
            received: 0,
            index: IndexState::Opening,
            return_to: None,
            recalled: None,
            causes: None,
            checked: None,
            checked_applies: false,
            judging: None,
            probing: false,
        }
    }
}

impl Search {
    /// The answer on screen is for an older query than the one typed.
    pub fn is_waiting(&self) -> bool {
        self.received < self.sent
    }
}

impl App {
    /// How many hits fit on screen (each takes three rows, below the
    /// header rows and above the causes panel).
    pub fn hits_per_page(&self) -> usize {
        let height = layout::search(layout::body(self.size)).hits.height as usize;
        (height
            .saturating_sub(self.search_header_rows())
            .saturating_sub(self.causes_rows())
            / 3)
        .max(1)
    }

    /// Rows of the causes panel: its title and a row per cause, at most
    /// `CAUSES_ROWS`, and none when the selected hit lists no causes or the
    /// screen is too short to spare them.
    pub fn causes_rows(&self) -> usize {
        let Some(causes) = &self.search.causes else {
            return 0;
        };
        let height = layout::search(layout::body(self.size)).hits.height as usize;
        let rows = (causes.causes.len() + 1).min(CAUSES_ROWS);
        if height < rows + 3 + self.search_header_rows() {
            0
        } else {
            rows
        }
    }

    /// Recomputes the selected hit's causes, and their verdicts when the
    /// probes have run: the same `diagnose` functions `lore diagnose` calls.
    pub(super) fn refresh_causes(&mut self) {
        let Some(hit) = self.search.hits.get(self.search.cursor.selected) else {
            self.search.causes = None;
            return;
        };
        let corpus = Arc::clone(&self.corpus);
        // The hit the user chose: its causes whatever the query names.
        let sections = diagnose::section_causes(std::slice::from_ref(hit), "", |p| corpus.get(p));
        let Some(first) = sections.first() else {
            self.search.causes = None;
            return;
        };
        let (path, anchor) = (first.path.clone(), first.anchor.clone());
        let causes = match self.judging_context() {
            Some(ctx) => diagnose::diagnose(sections, &ctx)
                .causes
                .into_iter()
                .map(|c| (Some(c.evaluation.verdict), c.text))
                .collect(),
            None => sections
                .into_iter()
                .flat_map(|s| s.causes.into_iter().map(|c| (None, c.text)))
                .collect(),
        };
        self.search.causes = Some(HitCauses {
            path,
            anchor,
            causes,
        });
    }

    /// The query the hits on screen answer, and whether the last probe
    /// run's facts may judge it (the host's never judge a build log).
    fn set_answered(&mut self, query: String) {
        self.search.checked_applies = self
            .search
            .checked
            .as_ref()
            .is_some_and(|c| c.scope.applies(&query));
        self.search.answered = query;
    }

    /// The probed facts with those the answered query states, as `lore
    /// diagnose` judges them; `None` before the probes have run.
    fn judging_context(&mut self) -> Option<Arc<Context>> {
        let checked = self.search.checked.as_ref()?;
        if !self.search.checked_applies {
            return None;
        }
        let probed = Arc::clone(&checked.ctx);
        let search = &mut self.search;
        match &search.judging {
            Some((query, _)) if *query == search.answered => {}
            _ => {
                let stated = diagnose::message::facts(&search.answered);
                let ctx = Arc::new(probed.as_ref().clone().with_stated(&stated));
                search.judging = Some((search.answered.clone(), ctx));
            }
        }
        search.judging.as_ref().map(|(_, ctx)| Arc::clone(ctx))
    }

    /// The probes answered for causes: keep the facts, judge the causes on
    /// screen.
    pub(super) fn causes_probed(&mut self, result: Result<CausesChecked, String>) {
        self.search.probing = false;
        match result {
            Ok(checked) => {
                let brief = checked.brief.clone();
                self.search.checked_applies = checked.scope.applies(&self.search.answered);
                self.search.checked = Some(checked);
                self.search.judging = None;
                self.refresh_causes();
                let text = match &self.search.causes {
                    Some(c) => {
                        let holds = c
                            .causes
                            .iter()
                            .filter(|(v, _)| *v == Some(Verdict::Holds))
                            .count();
                        let mut text =
                            format!("checked {} causes: {holds} hold here", c.causes.len());
                        if let Some(checked) = &self.search.checked
                            && !checked.ctx.named_envs().is_empty()
                        {
                            let ctx = &checked.ctx;
                            // Paths in the paste led the probes there too.
                            let named = ctx.named_envs().join(", ");
                            text.push_str(&format!(" (also probed {named}, named by the paste)"));
                        }
                        text
                    }
                    None => "probed; this hit lists no causes to check".to_string(),
                };
                let text = match brief {
                    Some(brief) => format!("{text} ({brief})"),
                    None => text,
                };
                self.set_status(Level::Ok, text);
            }
            Err(message) => self.set_status(Level::Error, format!("cannot probe: {message}")),
        }
    }

    /// Rows above the hits: the searched log lines (and how many more there
    /// were), then a line saying the best hit is weak, or that the paste
    /// was cut.
    pub fn search_header_rows(&self) -> usize {
        let search = &self.search;
        if search.hits.is_empty() && search.searched.is_empty() {
            return 0;
        }
        let searched = search.searched.len().min(SHOWN_SEARCHED)
            + usize::from(search.searched.len() > SHOWN_SEARCHED);
        let notice = search.hits.first().is_some_and(|h| !h.is_confident()) || search.input.cut;
        let rows = searched + usize::from(notice);
        if rows == 0 { 0 } else { rows + 1 }
    }

    pub(super) fn open_search(&mut self) {
        if self.screen != Screen::Search {
            self.search.return_to = Some(self.screen);
            self.screen = Screen::Search;
        }
    }

    /// Pasted text anywhere outside a text box: search for it.
    pub(super) fn start_search_with(&mut self, text: &str) {
        self.open_search();
        self.search.input.clear();
        self.search.input.paste(text);
        self.send_query();
    }

    fn send_query(&mut self) {
        self.search.sent += 1;
        let text = self.search.input.text.trim().to_string();
        if text.is_empty() {
            // Nothing to ask: answer at once with no hits.
            self.search.received = self.search.sent;
            self.search.hits = Arc::new(Vec::new());
            self.search.searched = Arc::new(Vec::new());
            self.search.marked = Arc::new(Vec::new());
            self.set_answered(String::new());
            self.search.cursor = Cursor::default();
            return;
        }
        let generation = self.search.sent;
        self.effects_push(Effect::Query { generation, text });
    }

    pub(super) fn search_results(
        &mut self,
        generation: u64,
        hits: Arc<Vec<Hit>>,
        searched: Arc<Vec<String>>,
        marked: Arc<Vec<String>>,
    ) {
        if generation <= self.search.received || generation > self.search.sent {
            return;
        }
        self.search.received = generation;
        self.search.hits = hits;
        self.search.searched = searched;
        self.search.marked = marked;
        self.set_answered(self.search.input.text.trim().to_string());
        self.search.cursor = Cursor::default();
        self.refresh_causes();
    }

    pub(super) fn update_search(&mut self, action: Action) {
        let before = self.search.cursor.selected;
        self.update_search_inner(action);
        if self.search.cursor.selected != before {
            self.refresh_causes();
        }
    }

    fn update_search_inner(&mut self, action: Action) {
        let page = self.hits_per_page();
        let count = self.search.hits.len();
        match action {
            Action::Input(c) => {
                self.search.input.push(c);
                self.send_query();
            }
            Action::Paste(text) => {
                self.search.input.paste(&text);
                self.send_query();
            }
            Action::DeleteChar => {
                self.search.input.delete_char();
                self.send_query();
            }
            Action::DeleteWord => {
                self.search.input.delete_word();
                self.send_query();
            }
            Action::ClearInput => {
                self.search.input.clear();
                self.send_query();
            }
            Action::CursorLeft => self.search.input.left(),
            Action::CursorRight => self.search.input.right(),
            Action::CursorHome => self.search.input.home(),
            Action::CursorEnd => self.search.input.end(),
            Action::Down => self.search.cursor.move_by(1, count, page),
            Action::Up if self.search.cursor.selected == 0 && self.may_recall() => self.recall(),
            Action::Up => self.search.cursor.move_by(-1, count, page),
            Action::Scroll(n) => self.search.cursor.move_by(n.signum() as isize, count, page),
            Action::PageDown => self.search.cursor.move_by(page as isize, count, page),
            Action::PageUp => self.search.cursor.move_by(-(page as isize), count, page),
            Action::Open => self.open_hit(),
            Action::Probe => {
                if !self.search.probing {
                    self.search.probing = true;
                    let query = self.search.answered.clone();
                    self.effects_push(Effect::ProbeCauses { query });
                }
                self.set_status(Level::Info, "probing to check the causes…");
            }
            Action::Back => {
                if !self.search.answered.is_empty() {
                    self.history.searched(&self.search.answered);
                }
                self.screen = self.search.return_to.take().unwrap_or(Screen::Library);
            }
            _ => {}
        }
    }

    /// Up at the top of the hits recalls an earlier search when the box is
    /// empty or still holds the one recalled last.
    fn may_recall(&self) -> bool {
        let search = &self.search;
        search.input.is_empty()
            || search
                .recalled
                .as_ref()
                .is_some_and(|(_, shown)| *shown == search.input.text)
    }

    /// Puts the search before the one in the box (or the latest) in the box.
    fn recall(&mut self) {
        let next = match (&self.search.recalled, self.search.input.is_empty()) {
            (Some((at, _)), false) => at + 1,
            _ => 0,
        };
        let Some(query) = self.history.searches.get(next).cloned() else {
            let text = if next == 0 {
                "no earlier searches yet"
            } else {
                "that was the earliest search remembered"
            };
            self.set_status(Level::Info, text);
            return;
        };
        self.search.input.clear();
        self.search.input.paste(&query);
        self.search.recalled = Some((next, self.search.input.text.clone()));
        self.send_query();
    }

    fn open_hit(&mut self) {
        let Some(hit) = self.search.hits.get(self.search.cursor.selected).cloned() else {
            let text = match &self.search.index {
                IndexState::Opening => "the index is still being built; results follow",
                IndexState::Failed(_) => "search is unavailable (see the log: w)",
                IndexState::Ready { .. } if self.search.input.is_empty() => "type a query first",
                IndexState::Ready { .. } => "no hit to open",
            };
            self.set_status(Level::Info, text);
            return;
        };
        self.history.searched(&self.search.answered);
        let terms = if self.search.searched.is_empty() {
            hit_terms(&hit, &self.search.answered)
        } else {
            pasted_hit_terms(&hit, &self.search.marked)
        };
        let at = if hit.anchor.is_empty() {
            At::Line(hit.line)
        } else {
            At::Anchor(hit.anchor.clone())
        };
        self.open_document(&hit.path, at, terms, Via::Screen(Screen::Search));
    }
}

/// The searched lines of a pasted log in the order the screen lists them:
/// the deciding line first (the last failure, whose words count most; else
/// the last line), then the others in log order. Only the first few fit
/// above the hits, and the line that decided the search must be one of them.
pub fn searched_order(lines: &[String]) -> Vec<usize> {
    use crate::search::triage::{LineKind, classify};
    let Some(deciding) = lines
        .iter()
        .rposition(|l| classify(l) == LineKind::Failure)
        .or(lines.len().checked_sub(1))
    else {
        return Vec::new();
    };
    std::iter::once(deciding)
        .chain((0..lines.len()).filter(|&i| i != deciding))
        .collect()
}

/// The words to mark in a document opened from a hit found by a pasted log:
/// its rare words (a log's common words, `error`, `file`, `line`, would mark
/// nearly every line), and what the index matched in the snippet that holds
/// one of them (`libcupti.so.12` for `libcupti`).
pub fn pasted_hit_terms(hit: &Hit, rare: &[String]) -> Vec<String> {
    let mut terms: Vec<String> = rare.to_vec();
    terms.extend(
        hit.highlights
            .iter()
            .filter_map(|r| hit.snippet.get(r.clone()))
            .map(str::to_lowercase)
            .filter(|t| rare.iter().any(|w| t.contains(w.as_str()))),
    );
    terms.sort();
    terms.dedup();
    terms
}

/// The words to highlight in a document opened from a hit: the query's own
/// words and what the index matched in the snippet (a query `libcupti`
/// matches the token `libcupti.so.12`, and both are worth marking).
pub fn hit_terms(hit: &Hit, query: &str) -> Vec<String> {
    let mut terms: Vec<String> = query
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect();
    terms.extend(
        hit.highlights
            .iter()
            .filter_map(|r| hit.snippet.get(r.clone()))
            .filter(|t| t.chars().count() >= 2)
            .map(str::to_lowercase),
    );
    terms.sort();
    terms.dedup();
    terms
}
