//! The TUI's whole state and its one entry point for change, `App::update`.
//! Views read `&App` and never change it; side effects that must touch the
//! outside world (the clipboard, the search worker, mouse capture) are queued
//! as `Effect`s for the event loop to carry out, so `update` stays testable
//! without a terminal.

use std::path::PathBuf;
use std::sync::Arc;

use ratatui::layout::Size;

use crate::corpus::Corpus;
use crate::decide::{DecisionTree, Session};
use crate::diagnostic::Diagnostic;
use crate::markdown::RenderCache;
use crate::text::{inline, sanitize};
use crate::theme::Theme;

use super::action::Action;
use super::history::History;
use super::keymap::{Key, KeyMap, Mode};
use super::layout;
use super::library::Library;
use super::reader::{At, Reader, Via};
use super::search::{IndexState, Search};
use super::style::Chrome;
use super::trees::Trees;

/// Which screen fills the body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Library,
    Search,
    Reader,
    /// The list of decision trees.
    Trees,
    /// A decision tree's question or outcome.
    Walk,
    Log,
}

/// Something the event loop must do for `update`.
#[derive(Debug, Clone)]
pub enum Effect {
    /// Put text on the clipboard (OSC 52).
    Copy(String),
    /// Turn mouse capture on or off.
    Mouse(bool),
    /// Save a decision-tree walk in progress to the data folder.
    SaveSession(Session),
    /// Forget the saved walk of a tree (finished, or started over).
    ForgetSession(String),
    /// Write a walk's transcript to the data folder and report the path.
    SaveTranscript(Session),
    /// Ask the search worker for the hits of `text`.
    Query { generation: u64, text: String },
    /// Run the probes on a worker thread; they answer with `Action::Probed`.
    Probe,
    /// Run the probes for the search screen's causes, with the Python
    /// environments the query's paths name; they answer with
    /// `Action::CausesProbed`.
    ProbeCauses {
        /// The query the causes are for: the Python environments its paths
        /// name are probed too, and a build log is probed elsewhere.
        query: String,
    },
    /// Ask the highlighter worker to colour the code blocks a render left
    /// plain; it answers with `Action::Highlighted`.
    Highlight(Arc<crate::corpus::Document>),
    /// Write the history of documents read and searches made (on quitting).
    SaveHistory(History),
}

impl PartialEq for Effect {
    fn eq(&self, other: &Effect) -> bool {
        let same = |a: &Session, b: &Session| a.tree().id == b.tree().id && a.path() == b.path();
        match (self, other) {
            (Effect::Copy(a), Effect::Copy(b)) => a == b,
            (Effect::Mouse(a), Effect::Mouse(b)) => a == b,
            (Effect::SaveSession(a), Effect::SaveSession(b)) => same(a, b),
            (Effect::ForgetSession(a), Effect::ForgetSession(b)) => a == b,
            (Effect::SaveTranscript(a), Effect::SaveTranscript(b)) => same(a, b),
            (
                Effect::Query {
                    generation: a,
                    text: x,
                },
                Effect::Query {
                    generation: b,
                    text: y,
                },
            ) => a == b && x == y,
            (Effect::Probe, Effect::Probe) => true,
            (Effect::ProbeCauses { query: x }, Effect::ProbeCauses { query: y }) => x == y,
            (Effect::Highlight(a), Effect::Highlight(b)) => a.path == b.path,
            (Effect::SaveHistory(a), Effect::SaveHistory(b)) => a == b,
            _ => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Info,
    Ok,
    Warning,
    Error,
}

/// A one-line message in the status bar until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub text: String,
    pub level: Level,
}

/// What the app is given: everything loaded before the terminal is touched.
pub struct AppInit {
    pub corpus: Arc<Corpus>,
    pub keys: KeyMap,
    /// The document theme (`Theme::plain()` under NO_COLOR).
    pub theme: Theme,
    pub mouse: bool,
    /// Problems met while loading (config, keys, knowledge, trees).
    pub warnings: Vec<Diagnostic>,
    pub log_path: Option<PathBuf>,
    pub size: Size,
    /// The valid decision trees.
    pub trees: Vec<DecisionTree>,
    /// Unfinished walks saved by an earlier run, by tree id.
    pub sessions: Vec<Session>,
    /// Walks and transcripts can be saved (there is a data folder).
    pub can_save: bool,
    /// Documents read and searches made in earlier runs.
    pub history: History,
}

#[derive(Debug)]
pub struct App {
    pub corpus: Arc<Corpus>,
    pub keys: KeyMap,
    pub chrome: Chrome,
    pub theme: Theme,
    pub size: Size,
    pub screen: Screen,
    /// The help overlay is open, scrolled this far.
    pub help: Option<usize>,
    pub library: Library,
    pub search: Search,
    pub reader: Reader,
    pub trees: Trees,
    pub log: LogView,
    /// Syntax highlighting has loaded: code is rendered in colour.
    pub highlighter_ready: bool,
    /// Documents sent to the highlighter worker and not back yet, by path.
    pub highlighting: std::collections::HashSet<String>,
    /// Building the search index: files done out of the total.
    pub index_progress: Option<(usize, usize)>,
    pub renders: RenderCache,
    pub warnings: Vec<Diagnostic>,
    pub status: Option<Status>,
    pub mouse: bool,
    pub quit: bool,
    pub log_path: Option<PathBuf>,
    /// Documents read (with where they were left) and searches made, this
    /// run and earlier ones.
    pub history: History,
    /// There is a data folder to keep the history in.
    pub can_save_history: bool,
    effects: Vec<Effect>,
}

/// The log screen: load warnings and what happened this session.
#[derive(Debug, Default)]
pub struct LogView {
    pub scroll: usize,
    pub return_to: Option<Screen>,
    /// Notable events of this session, oldest first (already sanitised).
    pub events: Vec<String>,
}

impl App {
    pub fn new(init: AppInit) -> App {
        let mut library = Library::new(&init.corpus);
        library.set_recent(&init.corpus, &init.history);
        let mut app = App {
            chrome: Chrome::new(&init.theme),
            theme: init.theme,
            size: init.size,
            screen: Screen::Library,
            help: None,
            library,
            search: Search::default(),
            reader: Reader::default(),
            trees: Trees {
                sessions: init
                    .sessions
                    .into_iter()
                    .map(|s| (s.tree().id.clone(), s))
                    .collect(),
                list: init.trees,
                can_save: init.can_save,
                ..Trees::default()
            },
            log: LogView::default(),
            highlighter_ready: false,
            highlighting: std::collections::HashSet::new(),
            index_progress: None,
            renders: RenderCache::default(),
            warnings: init.warnings,
            status: None,
            mouse: init.mouse,
            quit: false,
            log_path: init.log_path,
            history: init.history,
            can_save_history: init.can_save,
            effects: Vec::new(),
            keys: init.keys,
            corpus: init.corpus,
        };
        if app.mouse {
            app.effects.push(Effect::Mouse(true));
        }
        app
    }

    /// The key table mode the next key is read in.
    pub fn mode(&self) -> Mode {
        if self.help.is_some() {
            return Mode::Help;
        }
        self.mode_under_help()
    }

    /// The mode of the screen itself, ignoring the help overlay.
    pub fn mode_under_help(&self) -> Mode {
        match self.screen {
            Screen::Library if self.library.filtering => Mode::Filter,
            Screen::Library => Mode::Library,
            Screen::Search => Mode::Search,
            Screen::Reader if self.reader.find.typing => Mode::Find,
            Screen::Reader if self.reader.picker.is_some() => Mode::Picker,
            Screen::Reader if self.reader.toc.is_some() => Mode::Toc,
            Screen::Reader => Mode::Reader,
            Screen::Trees => Mode::Trees,
            Screen::Walk
                if self
                    .trees
                    .walk
                    .as_ref()
                    .is_some_and(|w| w.outcome.is_some()) =>
            {
                Mode::Outcome
            }
            Screen::Walk => Mode::Walk,
            Screen::Log => Mode::Log,
        }
    }

    /// The action a key stands for right now, if any.
    pub fn action_for_key(&self, key: Key) -> Option<Action> {
        self.keys.action(self.mode(), key)
    }

    /// Side effects queued by `update`, oldest first.
    pub fn take_effects(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.effects)
    }

    pub(super) fn effects_push(&mut self, effect: Effect) {
        self.effects.push(effect);
    }

    /// Queues a copy of `text` as a user sees and would type it
    /// (`text::for_clipboard`) and returns what the status line adds: empty,
    /// or how many characters were left out.
    pub(super) fn copy(&mut self, text: &str) -> String {
        let (clean, removed) = crate::text::for_clipboard(text);
        self.effects_push(Effect::Copy(clean));
        match removed {
            0 => String::new(),
            1 => "; left out 1 control or invisible character".to_string(),
            n => format!("; left out {n} control or invisible characters"),
        }
    }

    /// After rendering `doc` with `Highlighter::interactive`: if blocks were
    /// left plain (too much code to colour without a pause), has the worker
    /// colour them, once.
    pub(super) fn highlight_later(&mut self, doc: &Arc<crate::corpus::Document>) {
        if self.highlighter_ready
            && !self.highlighting.contains(&doc.path)
            && crate::markdown::Highlighter::interactive().leaves_plain(doc, &self.theme)
        {
            self.highlighting.insert(doc.path.clone());
            self.effects.push(Effect::Highlight(Arc::clone(doc)));
        }
    }

    pub fn set_status(&mut self, level: Level, text: impl Into<String>) {
        let text = sanitize(&text.into()).replace('\n', " ");
        if matches!(level, Level::Warning | Level::Error) {
            log::warn!("{text}");
            self.log.events.push(text.clone());
        }
        self.status = Some(Status { text, level });
    }

    /// The one place state changes.
    pub fn update(&mut self, action: Action) {
        if action.is_from_user() {
            self.status = None;
        }
        match action {
            Action::Quit => {
                self.quit = true;
                self.remember_page();
                if self.can_save_history {
                    self.effects.push(Effect::SaveHistory(self.history.clone()));
                }
                return;
            }
            Action::Resize(width, height) => {
                self.size = Size::new(width, height);
                self.relayout();
                return;
            }
            Action::ToggleMouse => {
                self.mouse = !self.mouse;
                self.effects.push(Effect::Mouse(self.mouse));
                let text = if self.mouse {
                    "mouse capture on: the wheel scrolls; hold Shift to select text"
                } else {
                    "mouse capture off: select text with the mouse as usual"
                };
                self.set_status(Level::Info, text);
                return;
            }
            Action::HighlighterReady => {
                if self.theme.has_color() && !self.highlighter_ready {
                    self.highlighter_ready = true;
                    self.rerender_reader();
                    self.refresh_walk();
                }
                return;
            }
            Action::Highlighted(path) => {
                self.highlighting.remove(&path);
                self.renders.forget(&path);
                if self.page_path() == Some(path.as_str()) {
                    self.rerender_reader();
                }
                if self.walk_path() == Some(path.as_str()) {
                    self.refresh_walk();
                }
                return;
            }
            Action::Report(level, text) => {
                self.set_status(level, text);
                return;
            }
            Action::SearchResults {
                generation,
                hits,
                searched,
                marked,
            } => {
                self.search_results(generation, hits, searched, marked);
                return;
            }
            Action::IndexProgress { done, total } => {
                self.index_progress = Some((done, total));
                return;
            }
            Action::IndexReady {
                sections,
                rebuilt,
                warnings,
            } => {
                self.index_progress = None;
                self.search.index = IndexState::Ready { sections, rebuilt };
                for w in &warnings {
                    self.log.events.push(inline(&w.to_string()));
                }
                self.warnings.extend(warnings);
                // Whatever was typed while the index opened is asked again.
                if !self.search.input.is_empty() && self.search.is_waiting() {
                    let generation = self.search.sent;
                    let text = self.search.input.text.trim().to_string();
                    self.effects.push(Effect::Query { generation, text });
                }
                return;
            }
            Action::Probed(result) => {
                self.probed(result);
                return;
            }
            Action::CausesProbed(result) => {
                self.causes_probed(result);
                return;
            }
            Action::IndexFailed(message) => {
                self.index_progress = None;
                self.search.index = IndexState::Failed(message.clone());
                self.set_status(Level::Error, format!("search unavailable: {message}"));
                return;
            }
            _ => {}
        }
        if self.help.is_some() {
            if self.update_help(&action) {
                return;
            }
            self.help = None;
        }
        match action {
            Action::Help => {
                self.help = Some(0);
                return;
            }
            Action::Log => {
                if self.screen != Screen::Log {
                    self.log.return_to = Some(self.screen);
                    self.log.scroll = 0;
                    self.screen = Screen::Log;
                }
                return;
            }
            Action::Library => {
                self.screen = Screen::Library;
                return;
            }
            Action::Trees => {
                self.open_trees();
                return;
            }
            Action::Search => {
                self.open_search();
                return;
            }
            Action::Paste(text) if !self.mode().types_text() => {
                self.start_search_with(&text);
                return;
            }
            _ => {}
        }
        match self.screen {
            Screen::Library => self.update_library(action),
            Screen::Search => self.update_search(action),
            Screen::Reader => self.update_reader(action),
            Screen::Trees => self.update_trees(action),
            Screen::Walk => self.update_walk(action),
            Screen::Log => self.update_log(action),
        }
    }

    /// Keeps list cursors valid after the terminal changed size.
    fn relayout(&mut self) {
        let height = self.library_height();
        self.library.cursor.reveal(self.library.rows.len(), height);
        let max = self.log_line_count().saturating_sub(1);
        self.log.scroll = self.log.scroll.min(max);
        self.rerender_reader();
        self.refresh_walk();
    }

    /// Handles an action while help is open; false if help should close and
    /// the action apply to the screen below.
    fn update_help(&mut self, action: &Action) -> bool {
        let page = layout::body(self.size).height.max(1) as usize;
        let scroll = self.help.get_or_insert(0);
        match action {
            Action::Back | Action::Help => {
                self.help = None;
                true
            }
            Action::Down | Action::Scroll(1..=i32::MAX) => {
                *scroll += 1;
                true
            }
            Action::Up | Action::Scroll(i32::MIN..=-1) => {
                *scroll = scroll.saturating_sub(1);
                true
            }
            Action::PageDown => {
                *scroll += page;
                true
            }
            Action::PageUp => {
                *scroll = scroll.saturating_sub(page);
                true
            }
            _ => false,
        }
    }

    pub fn library_height(&self) -> usize {
        layout::library(layout::body(self.size), self.library_filter_shown())
            .list
            .height as usize
    }

    pub fn library_filter_shown(&self) -> bool {
        self.library.filtering || !self.library.filter.is_empty()
    }

    fn update_library(&mut self, action: Action) {
        let height = self.library_height();
        let library = &mut self.library;
        match action {
            Action::Down => library.move_by(1, height),
            Action::Up => library.move_by(-1, height),
            Action::Scroll(n) => library.move_by(n as isize, height),
            Action::PageDown => library.move_by(height as isize, height),
            Action::PageUp => library.move_by(-(height as isize), height),
            Action::Top => library.move_by(isize::MIN / 2, height),
            Action::Bottom => library.move_by(isize::MAX / 2, height),
            Action::Filter => {
                library.filtering = true;
                let height = self.library_height();
                self.library.cursor.reveal(self.library.rows.len(), height);
            }
            Action::Input(c) => {
                library.filter.push(c);
                self.refilter();
            }
            Action::Paste(text) => {
                library.filter.paste(&text);
                self.refilter();
            }
            Action::DeleteChar => {
                library.filter.delete_char();
                self.refilter();
            }
            Action::DeleteWord => {
                library.filter.delete_word();
                self.refilter();
            }
            Action::ClearInput => {
                library.filter.clear();
                self.refilter();
            }
            Action::Back => {
                library.filtering = false;
                if !library.filter.is_empty() {
                    library.filter.clear();
                    self.refilter();
                }
            }
            Action::Open => {
                library.filtering = false;
                match library.selected_doc() {
                    Some(doc) => {
                        let path = self.corpus.documents[doc].path.clone();
                        self.open_document(
                            &path,
                            At::Top,
                            Vec::new(),
                            Via::Screen(Screen::Library),
                        );
                    }
                    None => self.set_status(Level::Info, "nothing to open"),
                }
            }
            _ => {}
        }
    }

    fn refilter(&mut self) {
        let height = self.library_height();
        self.library.refilter(height);
    }

    pub fn log_line_count(&self) -> usize {
        super::views::log::rows(self, layout::body(self.size).width)
    }

    fn update_log(&mut self, action: Action) {
        let page = layout::body(self.size).height.max(1) as usize;
        let max = self.log_line_count().saturating_sub(page);
        let scroll = &mut self.log.scroll;
        match action {
            Action::Down => *scroll = (*scroll + 1).min(max),
            Action::Up => *scroll = scroll.saturating_sub(1),
            Action::Scroll(n) => {
                *scroll = (*scroll as i64 + i64::from(n)).clamp(0, max as i64) as usize;
            }
            Action::PageDown => *scroll = (*scroll + page).min(max),
            Action::PageUp => *scroll = scroll.saturating_sub(page),
            Action::Top => *scroll = 0,
            Action::Bottom => *scroll = max,
            Action::Back => self.screen = self.log.return_to.take().unwrap_or(Screen::Library),
            _ => {}
        }
    }
}
