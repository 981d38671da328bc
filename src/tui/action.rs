//! Everything that can happen to the TUI, as data. Keys become `Action`s through
//! the key table; worker threads report back with `Action`s too. `App::update`
//! is the only consumer, so every change of state has one entry point.

use std::sync::Arc;

use crate::diagnostic::Diagnostic;
use crate::search::Hit;

/// One thing that changes the app's state.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    // Everywhere.
    Quit,
    Help,
    Search,
    Trees,
    Library,
    Log,
    ToggleMouse,

    // Moving in a list or a document.
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    /// Enter: open, jump, answer, copy, depending on the screen.
    Open,
    /// Esc: clear or close, depending on the screen.
    Back,
    /// A digit key: pick the numbered entry (1-based).
    Choose(usize),

    // Text boxes (library filter, search, find in document).
    Filter,
    Input(char),
    DeleteChar,
    DeleteWord,
    ClearInput,
    CursorLeft,
    CursorRight,
    CursorHome,
    CursorEnd,

    // Reader.
    Toc,
    Find,
    NextMatch,
    PrevMatch,
    NextLink,
    PrevLink,
    HistoryBack,
    HistoryForward,
    CopyCode,
    PickCode,
    CopyLink,
    Companion,

    // Decision trees.
    Export,
    /// Start the tree over, forgetting the saved walk.
    Restart,
    /// Fill in what the probes settle, from the question on screen.
    Probe,

    // Not from keys.
    /// The terminal's new size in columns and rows.
    Resize(u16, u16),
    /// Mouse wheel: positive is down, in lines.
    Scroll(i32),
    /// Text pasted into the terminal (bracketed paste).
    Paste(String),
    /// How a side effect went (a file saved, or not), for the status bar.
    Report(super::app::Level, String),
    /// The search worker's answer to query number `generation`.
    SearchResults {
        generation: u64,
        hits: Arc<Vec<Hit>>,
        /// The lines of a pasted log that were searched for (empty for a
        /// typed query).
        searched: Arc<Vec<String>>,
        /// For a pasted log, the rare words of the searched lines: the only
        /// ones marked in a document opened from a hit (empty for a typed
        /// query, whose own words are marked).
        marked: Arc<Vec<String>>,
    },
    /// Building the index: knowledge files done out of the total.
    IndexProgress {
        done: usize,
        total: usize,
    },
    /// The search index is open (`rebuilt` when it had to be built first).
    IndexReady {
        sections: usize,
        rebuilt: bool,
        warnings: Vec<Diagnostic>,
    },
    /// The search index could not be opened; search stays unavailable.
    IndexFailed(String),
    /// Syntax highlighting finished loading: render code in colour from now on.
    HighlighterReady,
    /// The probe worker's findings, or why it could not probe.
    Probed(Result<Arc<crate::probe::Findings>, String>),
    /// The probes ran for the search screen's causes (`Effect::ProbeCauses`).
    CausesProbed(Result<CausesChecked, String>),
    /// The highlighter worker has coloured every code block of the document
    /// with this path (see `Effect::Highlight`): render it again.
    Highlighted(String),
}

/// The actions a user can bind to keys, with their names in `config.toml`.
pub const BINDABLE: &[(&str, Action)] = &[
    ("quit", Action::Quit),
    ("help", Action::Help),
    ("search", Action::Search),
    ("trees", Action::Trees),
    ("library", Action::Library),
    ("log", Action::Log),
    ("mouse", Action::ToggleMouse),
    ("up", Action::Up),
    ("down", Action::Down),
    ("page_up", Action::PageUp),
    ("page_down", Action::PageDown),
    ("top", Action::Top),
    ("bottom", Action::Bottom),
    ("open", Action::Open),
    ("back", Action::Back),
    ("choose", Action::Choose(0)),
    ("filter", Action::Filter),
    ("delete_char", Action::DeleteChar),
    ("delete_word", Action::DeleteWord),
    ("clear_input", Action::ClearInput),
    ("cursor_left", Action::CursorLeft),
    ("cursor_right", Action::CursorRight),
    ("cursor_home", Action::CursorHome),
    ("cursor_end", Action::CursorEnd),
    ("toc", Action::Toc),
    ("find", Action::Find),
    ("next_match", Action::NextMatch),
    ("prev_match", Action::PrevMatch),
    ("next_link", Action::NextLink),
    ("prev_link", Action::PrevLink),
    ("history_back", Action::HistoryBack),
    ("history_forward", Action::HistoryForward),
    ("copy_code", Action::CopyCode),
    ("pick_code", Action::PickCode),
    ("copy_link", Action::CopyLink),
    ("companion", Action::Companion),
    ("export", Action::Export),
    ("restart", Action::Restart),
    ("probe", Action::Probe),
];

impl Action {
    /// Actions the user caused (keys, wheel, paste), as opposed to reports
    /// from workers and the terminal. A user action clears the status message.
    pub fn is_from_user(&self) -> bool {
        !matches!(
            self,
            Action::Resize(..)
                | Action::HighlighterReady
                | Action::Highlighted(_)
                | Action::Report(..)
                | Action::SearchResults { .. }
                | Action::IndexProgress { .. }
                | Action::IndexReady { .. }
                | Action::IndexFailed(_)
                | Action::Probed(_)
                | Action::CausesProbed(_)
        )
    }

    /// The name of a bindable action in `config.toml`.
    pub fn name(&self) -> Option<&'static str> {
        BINDABLE
            .iter()
            .find(|(_, a)| same_kind(a, self))
            .map(|(n, _)| *n)
    }

    pub fn from_name(name: &str) -> Option<Action> {
        BINDABLE
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, a)| a.clone())
    }
}

fn same_kind(a: &Action, b: &Action) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// The facts one probe run for the search screen's causes found, and which
/// queries they may judge (`lore diagnose`'s `build_log::Place`): a `docker
/// build` log is judged on its Dockerfile, or on nothing, never on the
/// machine's facts.
#[derive(Debug, Clone, PartialEq)]
pub struct CausesChecked {
    pub ctx: Arc<crate::diagnose::Context>,
    pub scope: crate::diagnose::build_log::Scope,
    /// Where the facts come from when that is not what lore was started
    /// with, for the status line (`a build log: checked against …`).
    pub brief: Option<String>,
}
