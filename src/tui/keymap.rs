//! The one key table: (mode, key, action, description) rows. Dispatch, the `?`
//! help overlay, the status-bar hints and the README's key table are all read
//! from it, so they cannot disagree. Defaults live here in code; `[keys]` in
//! `config.toml` patches them, and a bad entry is reported while the defaults
//! stay. This module knows nothing of screens or drawing.

use std::collections::HashMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::action::Action;

/// Where the user is, for the purpose of reading a key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mode {
    /// Keys that work on every screen unless the screen binds them itself.
    Global,
    Library,
    /// Typing in the library's title filter.
    Filter,
    /// Typing in the search box.
    Search,
    Reader,
    /// The table of contents panel has the focus.
    Toc,
    /// Typing in the find-in-document box.
    Find,
    /// Choosing which code block on screen to copy.
    Picker,
    /// The list of decision trees.
    Trees,
    /// Answering a decision tree's question.
    Walk,
    /// A decision tree's outcome.
    Outcome,
    Help,
    Log,
}

impl Mode {
    pub const ALL: [Mode; 13] = [
        Mode::Global,
        Mode::Library,
        Mode::Filter,
        Mode::Search,
        Mode::Reader,
        Mode::Toc,
        Mode::Find,
        Mode::Picker,
        Mode::Trees,
        Mode::Walk,
        Mode::Outcome,
        Mode::Help,
        Mode::Log,
    ];

    /// The name of the mode's table under `[keys]` in `config.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Global => "global",
            Mode::Library => "library",
            Mode::Filter => "filter",
            Mode::Search => "search",
            Mode::Reader => "reader",
            Mode::Toc => "toc",
            Mode::Find => "find",
            Mode::Picker => "picker",
            Mode::Trees => "trees",
            Mode::Walk => "walk",
            Mode::Outcome => "outcome",
            Mode::Help => "help",
            Mode::Log => "log",
        }
    }

    /// A heading for the help overlay and the README.
    pub fn title(self) -> &'static str {
        match self {
            Mode::Global => "Everywhere",
            Mode::Library => "Library",
            Mode::Filter => "Library filter (typing)",
            Mode::Search => "Search (typing)",
            Mode::Reader => "Reader",
            Mode::Toc => "Table of contents",
            Mode::Find => "Find in document (typing)",
            Mode::Picker => "Code block picker",
            Mode::Trees => "Decision trees",
            Mode::Walk => "Decision tree question",
            Mode::Outcome => "Decision tree outcome",
            Mode::Help => "Help",
            Mode::Log => "Log",
        }
    }

    pub fn from_name(name: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == name)
    }

    /// In these modes printable characters are text, never commands.
    pub fn types_text(self) -> bool {
        matches!(self, Mode::Filter | Mode::Search | Mode::Find)
    }
}

/// A key named independently of the terminal library, as written in config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// A printable character, case-sensitive (`G` is shift-g). Space is `' '`.
    Char(char),
    /// Control plus a letter, stored lower-case.
    Ctrl(char),
    Alt(char),
    Named(Named),
    /// Any of 1-9: "pick the numbered entry".
    Digit,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Named {
    Enter,
    Esc,
    Tab,
    BackTab,
    Backspace,
    Delete,
    Up,
    Down,
    Left,
    Right,
    PageUp,
    PageDown,
    Home,
    End,
    F(u8),
}

const NAMES: &[(&str, Named)] = &[
    ("enter", Named::Enter),
    ("return", Named::Enter),
    ("esc", Named::Esc),
    ("escape", Named::Esc),
    ("tab", Named::Tab),
    ("shift-tab", Named::BackTab),
    ("backtab", Named::BackTab),
    ("backspace", Named::Backspace),
    ("delete", Named::Delete),
    ("del", Named::Delete),
    ("up", Named::Up),
    ("down", Named::Down),
    ("left", Named::Left),
    ("right", Named::Right),
    ("pageup", Named::PageUp),
    ("pgup", Named::PageUp),
    ("pagedown", Named::PageDown),
    ("pgdn", Named::PageDown),
    ("home", Named::Home),
    ("end", Named::End),
];

impl Key {
    /// The key a terminal event stands for; `None` for keys lore never binds
    /// (Insert, media keys, releases).
    pub fn from_event(event: &KeyEvent) -> Option<Key> {
        let ctrl = event.modifiers.contains(KeyModifiers::CONTROL);
        let alt = event.modifiers.contains(KeyModifiers::ALT);
        let named = |n| Some(Key::Named(n));
        match event.code {
            KeyCode::Char(c) if ctrl => Some(Key::Ctrl(c.to_ascii_lowercase())),
            KeyCode::Char(c) if alt => Some(Key::Alt(c)),
            KeyCode::Char(c) => Some(Key::Char(c)),
            KeyCode::Enter => named(Named::Enter),
            KeyCode::Esc => named(Named::Esc),
            KeyCode::Tab if event.modifiers.contains(KeyModifiers::SHIFT) => named(Named::BackTab),
            KeyCode::Tab => named(Named::Tab),
            KeyCode::BackTab => named(Named::BackTab),
            KeyCode::Backspace => named(Named::Backspace),
            KeyCode::Delete => named(Named::Delete),
            KeyCode::Up => named(Named::Up),
            KeyCode::Down => named(Named::Down),
            KeyCode::Left => named(Named::Left),
            KeyCode::Right => named(Named::Right),
            KeyCode::PageUp => named(Named::PageUp),
            KeyCode::PageDown => named(Named::PageDown),
            KeyCode::Home => named(Named::Home),
            KeyCode::End => named(Named::End),
            KeyCode::F(n) => named(Named::F(n)),
            _ => None,
        }
    }

    /// Parses `q`, `G`, `space`, `ctrl-f`, `alt-x`, `pgdn`, `shift-tab`, `f5`,
    /// `digit`. Names are case-insensitive; single characters are not.
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut chars = text.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            if c.is_control() {
                return Err(format!("`{}` is a control character", c.escape_default()));
            }
            return Ok(Key::Char(c));
        }
        let lower = text.to_ascii_lowercase();
        if lower == "space" {
            return Ok(Key::Char(' '));
        }
        if lower == "digit" {
            return Ok(Key::Digit);
        }
        if let Some((_, named)) = NAMES.iter().find(|(n, _)| *n == lower) {
            return Ok(Key::Named(*named));
        }
        if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok())
            && (1..=12).contains(&n)
        {
            return Ok(Key::Named(Named::F(n)));
        }
        for (prefix, ctrl) in [
            ("ctrl-", true),
            ("c-", true),
            ("alt-", false),
            ("m-", false),
        ] {
            if lower.starts_with(prefix) {
                let rest = &text[prefix.len()..];
                let mut chars = rest.chars();
                if let (Some(c), None) = (chars.next(), chars.next())
                    && c.is_ascii_graphic()
                {
                    return Ok(if ctrl {
                        Key::Ctrl(c.to_ascii_lowercase())
                    } else {
                        Key::Alt(c)
                    });
                }
                return Err(format!(
                    "`{text}`: expected one letter or symbol after `{prefix}`"
                ));
            }
        }
        Err(format!(
            "`{text}` is not a key (examples: `q`, `G`, `space`, `ctrl-f`, `alt-x`, `enter`, `pgdn`, `shift-tab`, `f5`)"
        ))
    }

    /// A printable key without modifiers: text in a typing mode.
    pub fn is_text(self) -> bool {
        matches!(self, Key::Char(_) | Key::Digit)
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Key::Char(' ') => f.write_str("Space"),
            Key::Char(c) => write!(f, "{c}"),
            Key::Ctrl(c) => write!(f, "Ctrl-{}", c.to_ascii_uppercase()),
            Key::Alt(c) => write!(f, "Alt-{c}"),
            Key::Digit => f.write_str("1-9"),
            Key::Named(n) => match n {
                Named::Enter => f.write_str("Enter"),
                Named::Esc => f.write_str("Esc"),
                Named::Tab => f.write_str("Tab"),
                Named::BackTab => f.write_str("Shift-Tab"),
                Named::Backspace => f.write_str("Backspace"),
                Named::Delete => f.write_str("Delete"),
                Named::Up => f.write_str("Up"),
                Named::Down => f.write_str("Down"),
                Named::Left => f.write_str("Left"),
                Named::Right => f.write_str("Right"),
                Named::PageUp => f.write_str("PgUp"),
                Named::PageDown => f.write_str("PgDn"),
                Named::Home => f.write_str("Home"),
                Named::End => f.write_str("End"),
                Named::F(n) => write!(f, "F{n}"),
            },
        }
    }
}

/// One row of the key table.
#[derive(Debug, Clone, PartialEq)]
pub struct Binding {
    pub mode: Mode,
    pub key: Key,
    pub action: Action,
    pub description: &'static str,
}

/// The default key table. Order matters: it is the order of the help overlay
/// and of the status-bar hints, so the most useful keys of a mode come first.
pub fn defaults() -> Vec<Binding> {
    use Action as A;
    use Key::{Char as C, Ctrl, Digit, Named as N};
    use Mode as M;
    use Named::*;
    let rows: &[(Mode, Key, Action, &'static str)] = &[
        (M::Global, C('/'), A::Search, "search"),
        (M::Global, C('d'), A::Trees, "decision trees"),
        (M::Global, C('l'), A::Library, "library"),
        (M::Global, C('?'), A::Help, "help"),
        (M::Global, N(F(1)), A::Help, "help"),
        (M::Global, C('q'), A::Quit, "quit"),
        (M::Global, Ctrl('c'), A::Quit, "quit"),
        (M::Global, C('w'), A::Log, "warnings and log"),
        (M::Global, C('m'), A::ToggleMouse, "mouse capture on/off"),
        //
        (M::Library, N(Enter), A::Open, "open"),
        (M::Library, C('f'), A::Filter, "filter titles"),
        (M::Library, Ctrl('f'), A::Filter, "filter titles"),
        (M::Library, C('j'), A::Down, "next"),
        (M::Library, N(Down), A::Down, "next"),
        (M::Library, C('k'), A::Up, "previous"),
        (M::Library, N(Up), A::Up, "previous"),
        (M::Library, N(PageDown), A::PageDown, "page down"),
        (M::Library, N(PageUp), A::PageUp, "page up"),
        (M::Library, C('g'), A::Top, "first"),
        (M::Library, N(Home), A::Top, "first"),
        (M::Library, C('G'), A::Bottom, "last"),
        (M::Library, N(End), A::Bottom, "last"),
        (M::Library, N(Esc), A::Back, "clear the filter"),
        //
        (M::Filter, N(Enter), A::Open, "open"),
        (M::Filter, N(Esc), A::Back, "clear and stop filtering"),
        (M::Filter, N(Down), A::Down, "next"),
        (M::Filter, Ctrl('n'), A::Down, "next"),
        (M::Filter, N(Up), A::Up, "previous"),
        (M::Filter, Ctrl('p'), A::Up, "previous"),
        (M::Filter, N(Backspace), A::DeleteChar, "delete a character"),
        (M::Filter, Ctrl('w'), A::DeleteWord, "delete a word"),
        (M::Filter, Ctrl('u'), A::ClearInput, "clear"),
        //
        (M::Search, N(Enter), A::Open, "open at the hit"),
        (M::Search, N(Esc), A::Back, "back (query kept)"),
        (M::Search, N(Down), A::Down, "next hit"),
        (M::Search, Ctrl('n'), A::Down, "next hit"),
        (M::Search, N(Up), A::Up, "previous hit or search"),
        (M::Search, Ctrl('p'), A::Up, "previous hit"),
        (M::Search, N(PageDown), A::PageDown, "page down"),
        (M::Search, N(PageUp), A::PageUp, "page up"),
        (M::Search, N(Backspace), A::DeleteChar, "delete a character"),
        (M::Search, Ctrl('w'), A::DeleteWord, "delete a word"),
        (M::Search, Ctrl('u'), A::ClearInput, "clear"),
        (M::Search, N(Left), A::CursorLeft, "cursor left"),
        (M::Search, N(Right), A::CursorRight, "cursor right"),
        (M::Search, N(Home), A::CursorHome, "cursor to the start"),
        (M::Search, Ctrl('a'), A::CursorHome, "cursor to the start"),
        (M::Search, N(End), A::CursorEnd, "cursor to the end"),
        (M::Search, Ctrl('e'), A::CursorEnd, "cursor to the end"),
        (
            M::Search,
            Ctrl('d'),
            A::Probe,
            "check the hit's causes against the probes",
        ),
        //
        (M::Reader, N(Tab), A::NextLink, "next link"),
        (M::Reader, N(BackTab), A::PrevLink, "previous link"),
        (M::Reader, N(Enter), A::Open, "follow link"),
        (M::Reader, N(Backspace), A::HistoryBack, "back"),
        (M::Reader, C('H'), A::HistoryBack, "back"),
        (M::Reader, C('L'), A::HistoryForward, "forward"),
        (M::Reader, C('y'), A::CopyCode, "copy code block"),
        (M::Reader, C('Y'), A::PickCode, "pick a code block to copy"),
        (M::Reader, C('t'), A::Toc, "contents"),
        (M::Reader, C('/'), A::Find, "find in this document"),
        (M::Reader, C('s'), A::Search, "search all documents"),
        (M::Reader, C('f'), A::Find, "find"),
        (M::Reader, Ctrl('f'), A::Find, "find"),
        (M::Reader, C('n'), A::NextMatch, "next match"),
        (M::Reader, C('N'), A::PrevMatch, "previous match"),
        (M::Reader, C('c'), A::CopyLink, "copy link address"),
        (M::Reader, C('D'), A::Companion, "drop / described file"),
        (M::Reader, C('j'), A::Down, "scroll down"),
        (M::Reader, N(Down), A::Down, "scroll down"),
        (M::Reader, C('k'), A::Up, "scroll up"),
        (M::Reader, N(Up), A::Up, "scroll up"),
        (M::Reader, N(PageDown), A::PageDown, "page down"),
        (M::Reader, C(' '), A::PageDown, "page down"),
        (M::Reader, N(PageUp), A::PageUp, "page up"),
        (M::Reader, C('b'), A::PageUp, "page up"),
        (M::Reader, C('g'), A::Top, "top"),
        (M::Reader, N(Home), A::Top, "top"),
        (M::Reader, C('G'), A::Bottom, "bottom"),
        (M::Reader, N(End), A::Bottom, "bottom"),
        (M::Reader, N(Esc), A::Back, "clear highlights, then close"),
        //
        (M::Toc, N(Enter), A::Open, "jump to section"),
        (M::Toc, C('j'), A::Down, "next section"),
        (M::Toc, N(Down), A::Down, "next section"),
        (M::Toc, C('k'), A::Up, "previous section"),
        (M::Toc, N(Up), A::Up, "previous section"),
        (M::Toc, C('t'), A::Back, "close"),
        (M::Toc, N(Esc), A::Back, "close"),
        //
        (M::Find, N(Enter), A::Open, "keep matches (then n / N)"),
        (M::Find, N(Esc), A::Back, "cancel"),
        (M::Find, N(Down), A::NextMatch, "next match"),
        (M::Find, N(Up), A::PrevMatch, "previous match"),
        (M::Find, N(Backspace), A::DeleteChar, "delete a character"),
        (M::Find, Ctrl('w'), A::DeleteWord, "delete a word"),
        (M::Find, Ctrl('u'), A::ClearInput, "clear"),
        //
        (M::Picker, Digit, A::Choose(0), "copy that block"),
        (M::Picker, N(Enter), A::Open, "copy"),
        (M::Picker, C('j'), A::Down, "next"),
        (M::Picker, N(Down), A::Down, "next"),
        (M::Picker, C('k'), A::Up, "previous"),
        (M::Picker, N(Up), A::Up, "previous"),
        (M::Picker, N(Esc), A::Back, "cancel"),
        //
        (M::Trees, N(Enter), A::Open, "start or resume"),
        (M::Trees, C('n'), A::Restart, "start over"),
        (M::Trees, Digit, A::Choose(0), "start that tree"),
        (M::Trees, C('j'), A::Down, "next"),
        (M::Trees, N(Down), A::Down, "next"),
        (M::Trees, C('k'), A::Up, "previous"),
        (M::Trees, N(Up), A::Up, "previous"),
        (M::Trees, N(Esc), A::Back, "back"),
        //
        (M::Walk, Digit, A::Choose(0), "answer"),
        (M::Walk, N(Enter), A::Open, "answer / open link"),
        (M::Walk, C('j'), A::Down, "next option"),
        (M::Walk, N(Down), A::Down, "next option"),
        (M::Walk, C('k'), A::Up, "previous option"),
        (M::Walk, N(Up), A::Up, "previous option"),
        (M::Walk, N(Tab), A::NextLink, "next link in the panel"),
        (
            M::Walk,
            N(BackTab),
            A::PrevLink,
            "previous link in the panel",
        ),
        (M::Walk, C('y'), A::CopyCode, "copy the panel's command"),
        (
            M::Walk,
            C('Y'),
            A::PickCode,
            "copy all the panel's commands",
        ),
        (M::Walk, N(PageDown), A::PageDown, "scroll the panel down"),
        (M::Walk, C(' '), A::PageDown, "scroll the panel down"),
        (M::Walk, N(PageUp), A::PageUp, "scroll the panel up"),
        (M::Walk, C('b'), A::PageUp, "scroll the panel up"),
        (M::Walk, C('p'), A::Probe, "answer from probes"),
        (M::Walk, N(Backspace), A::HistoryBack, "previous question"),
        (
            M::Walk,
            N(Esc),
            A::Back,
            "unfocus the link, then the tree list",
        ),
        //
        (M::Outcome, N(Tab), A::NextLink, "next link"),
        (M::Outcome, N(BackTab), A::PrevLink, "previous link"),
        (
            M::Outcome,
            N(Enter),
            A::Open,
            "open evidence or related tree",
        ),
        (
            M::Outcome,
            C('y'),
            A::CopyCode,
            "copy the command nearest the top",
        ),
        (
            M::Outcome,
            C('x'),
            A::Export,
            "save and copy the transcript",
        ),
        (
            M::Outcome,
            N(Backspace),
            A::HistoryBack,
            "previous question",
        ),
        (M::Outcome, C('n'), A::Restart, "start over"),
        (M::Outcome, C('j'), A::Down, "scroll down"),
        (M::Outcome, N(Down), A::Down, "scroll down"),
        (M::Outcome, C('k'), A::Up, "scroll up"),
        (M::Outcome, N(Up), A::Up, "scroll up"),
        (M::Outcome, N(PageDown), A::PageDown, "page down"),
        (M::Outcome, C(' '), A::PageDown, "page down"),
        (M::Outcome, N(PageUp), A::PageUp, "page up"),
        (M::Outcome, C('g'), A::Top, "top"),
        (M::Outcome, C('G'), A::Bottom, "bottom"),
        (M::Outcome, N(Esc), A::Back, "tree list"),
        //
        (M::Help, N(Esc), A::Back, "close"),
        (M::Help, C('?'), A::Back, "close"),
        (M::Help, C('q'), A::Back, "close"),
        (M::Help, C('j'), A::Down, "scroll down"),
        (M::Help, N(Down), A::Down, "scroll down"),
        (M::Help, C('k'), A::Up, "scroll up"),
        (M::Help, N(Up), A::Up, "scroll up"),
        (M::Help, N(PageDown), A::PageDown, "page down"),
        (M::Help, N(PageUp), A::PageUp, "page up"),
        //
        (M::Log, N(Esc), A::Back, "back"),
        (M::Log, C('j'), A::Down, "scroll down"),
        (M::Log, N(Down), A::Down, "scroll down"),
        (M::Log, C('k'), A::Up, "scroll up"),
        (M::Log, N(Up), A::Up, "scroll up"),
        (M::Log, N(PageDown), A::PageDown, "page down"),
        (M::Log, N(PageUp), A::PageUp, "page up"),
        (M::Log, C('g'), A::Top, "top"),
        (M::Log, C('G'), A::Bottom, "bottom"),
    ];
    rows.iter()
        .map(|(mode, key, action, description)| Binding {
            mode: *mode,
            key: *key,
            action: action.clone(),
            description,
        })
        .collect()
}

/// A problem with one `[keys]` entry: named by its dotted path in the config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyWarning {
    pub entry: String,
    pub message: String,
}

impl fmt::Display for KeyWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[keys] `{}`: {}", self.entry, self.message)
    }
}

/// The key table in effect: the defaults patched by the user's config.
#[derive(Debug, Clone)]
pub struct KeyMap {
    bindings: Vec<Binding>,
    lookup: HashMap<(Mode, Key), usize>,
}

impl Default for KeyMap {
    fn default() -> Self {
        KeyMap::from_bindings(defaults())
    }
}

impl KeyMap {
    fn from_bindings(bindings: Vec<Binding>) -> KeyMap {
        let mut lookup = HashMap::new();
        for (i, b) in bindings.iter().enumerate() {
            lookup.entry((b.mode, b.key)).or_insert(i);
        }
        KeyMap { bindings, lookup }
    }

    /// The defaults patched by `[keys]`: `[keys.MODE] ACTION = "KEY"` or
    /// `["KEY", …]` replaces that action's keys in that mode. Every entry that
    /// cannot be applied is reported and leaves that action's defaults alone.
    pub fn with_overrides(table: &toml::Table) -> (KeyMap, Vec<KeyWarning>) {
        let mut bindings = defaults();
        let mut warnings = Vec::new();
        let warn = |warnings: &mut Vec<KeyWarning>, entry: String, message: String| {
            warnings.push(KeyWarning { entry, message });
        };
        for (mode_name, value) in table {
            let Some(mode) = Mode::from_name(mode_name) else {
                let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
                warn(
                    &mut warnings,
                    mode_name.clone(),
                    format!("unknown mode; expected one of {}", names.join(", ")),
                );
                continue;
            };
            let Some(actions) = value.as_table() else {
                warn(
                    &mut warnings,
                    mode_name.clone(),
                    format!(
                        "expected a table such as [keys.{mode_name}] with `action = \"key\"` lines"
                    ),
                );
                continue;
            };
            for (action_name, keys) in actions {
                let entry = format!("{mode_name}.{action_name}");
                match patch(&bindings, mode, action_name, keys) {
                    Ok(patched) => bindings = patched,
                    Err(message) => warn(&mut warnings, entry, message),
                }
            }
        }
        (KeyMap::from_bindings(bindings), warnings)
    }

    /// The action a key stands for in `mode`. In typing modes printable
    /// characters are always text; otherwise the mode's own rows win over the
    /// global ones.
    pub fn action(&self, mode: Mode, key: Key) -> Option<Action> {
        if mode.types_text()
            && let Key::Char(c) = key
        {
            return Some(Action::Input(c));
        }
        let digit = match key {
            Key::Char(c @ '1'..='9') => c.to_digit(10).map(|d| d as usize),
            _ => None,
        };
        for m in [mode, Mode::Global] {
            if let Some(&i) = self.lookup.get(&(m, key)) {
                return Some(self.bindings[i].action.clone());
            }
            if let Some(d) = digit
                && self.lookup.contains_key(&(m, Key::Digit))
            {
                return Some(Action::Choose(d));
            }
        }
        None
    }

    pub fn bindings(&self) -> &[Binding] {
        &self.bindings
    }

    /// The rows of one mode, one per action with all its keys, in table order:
    /// `(keys, description)` such as `("j, Down", "scroll down")`.
    pub fn rows(&self, mode: Mode) -> Vec<(String, &'static str)> {
        let mut rows: Vec<(Action, Vec<Key>, &'static str)> = Vec::new();
        for b in self.bindings.iter().filter(|b| b.mode == mode) {
            match rows.iter_mut().find(|(a, _, _)| *a == b.action) {
                Some((_, keys, _)) => keys.push(b.key),
                None => rows.push((b.action.clone(), vec![b.key], b.description)),
            }
        }
        rows.into_iter()
            .map(|(_, keys, d)| {
                let keys: Vec<String> = keys.iter().map(Key::to_string).collect();
                (keys.join(", "), d)
            })
            .collect()
    }

    /// The first key bound to `action` in `mode` itself (not a global one).
    pub fn key_for(&self, mode: Mode, action: &Action) -> Option<Key> {
        self.bindings
            .iter()
            .find(|b| b.mode == mode && &b.action == action)
            .map(|b| b.key)
    }

    /// Short hints for the status bar: the first key of each action in `mode`,
    /// then the global help and quit keys. The library, the first screen,
    /// starts with the ways to go further: search, the decision trees and
    /// help, so they show even at 80 columns.
    pub fn hints(&self, mode: Mode) -> Vec<(String, &'static str)> {
        let mut hints: Vec<(String, &'static str)> = Vec::new();
        let mut seen: Vec<&Action> = Vec::new();
        let global = |wanted: &Action| {
            self.bindings.iter().find(|b| {
                b.mode == Mode::Global
                    && &b.action == wanted
                    && self.action(mode, b.key).as_ref() == Some(wanted)
            })
        };
        if mode == Mode::Library {
            for wanted in [Action::Search, Action::Trees, Action::Help] {
                if let Some(b) = global(&wanted) {
                    hints.push((b.key.to_string(), b.description));
                }
            }
        }
        for b in self.bindings.iter().filter(|b| b.mode == mode) {
            if !seen.contains(&&b.action) {
                seen.push(&b.action);
                hints.push((b.key.to_string(), b.description));
            }
        }
        for wanted in [Action::Help, Action::Quit] {
            if let Some(b) = global(&wanted)
                && !hints.iter().any(|(_, d)| *d == b.description)
            {
                hints.push((b.key.to_string(), b.description));
            }
        }
        hints
    }

    /// The key table as Markdown, one table per mode, for the README.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        for mode in Mode::ALL {
            let rows = self.rows(mode);
            if rows.is_empty() {
                continue;
            }
            out.push_str(&format!(
                "**{}** (`[keys.{}]`)\n\n",
                mode.title(),
                mode.name()
            ));
            out.push_str("| key | action | config name |\n| --- | --- | --- |\n");
            let mut seen: Vec<&Action> = Vec::new();
            for b in self.bindings.iter().filter(|b| b.mode == mode) {
                if seen.contains(&&b.action) {
                    continue;
                }
                seen.push(&b.action);
                let keys: Vec<String> = self
                    .bindings
                    .iter()
                    .filter(|o| o.mode == mode && o.action == b.action)
                    .map(|o| format!("`{}`", o.key.to_string().replace('|', "\\|")))
                    .collect();
                out.push_str(&format!(
                    "| {} | {} | `{}` |\n",
                    keys.join(", "),
                    b.description,
                    b.action.name().unwrap_or("-")
                ));
            }
            out.push('\n');
        }
        out
    }
}

/// Applies one `ACTION = KEYS` entry of mode `mode`, or says why it cannot be.
fn patch(
    bindings: &[Binding],
    mode: Mode,
    action_name: &str,
    keys: &toml::Value,
) -> Result<Vec<Binding>, String> {
    let action = Action::from_name(action_name).ok_or_else(|| {
        let names: Vec<&str> = super::action::BINDABLE.iter().map(|(n, _)| *n).collect();
        format!("unknown action; expected one of {}", names.join(", "))
    })?;
    let Some(template) = bindings
        .iter()
        .find(|b| b.mode == mode && b.action == action)
    else {
        let here: Vec<&str> = {
            let mut names: Vec<&str> = Vec::new();
            for b in bindings.iter().filter(|b| b.mode == mode) {
                if let Some(n) = b.action.name()
                    && !names.contains(&n)
                {
                    names.push(n);
                }
            }
            names
        };
        return Err(format!(
            "`{action_name}` does nothing in {}; actions there: {}",
            mode.name(),
            here.join(", ")
        ));
    };
    let texts: Vec<&str> = match keys {
        toml::Value::String(s) => vec![s.as_str()],
        toml::Value::Array(items) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| "expected a key name or a list of key names".to_string())
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("expected a key name or a list of key names".to_string()),
    };
    if texts.is_empty() {
        return Err("an empty list would leave the action with no key".to_string());
    }
    let mut new_keys = Vec::new();
    for text in texts {
        let key = Key::parse(text)?;
        if mode.types_text() && key.is_text() {
            return Err(format!(
                "`{key}` types text in {}; use a named key or one with ctrl-/alt-",
                mode.name()
            ));
        }
        if (key == Key::Digit) != matches!(action, Action::Choose(_)) {
            return Err("`digit` goes with `choose` and nothing else".to_string());
        }
        if let Some(other) = bindings
            .iter()
            .find(|b| b.mode == mode && b.key == key && b.action != action)
        {
            return Err(format!(
                "`{key}` is already `{}` in {}",
                other.action.name().unwrap_or("?"),
                mode.name()
            ));
        }
        if !new_keys.contains(&key) {
            new_keys.push(key);
        }
    }
    let description = template.description;
    let at = bindings
        .iter()
        .position(|b| b.mode == mode && b.action == action)
        .unwrap_or(bindings.len());
    let mut out: Vec<Binding> = Vec::with_capacity(bindings.len() + new_keys.len());
    for (i, b) in bindings.iter().enumerate() {
        if i == at {
            out.extend(new_keys.iter().map(|&key| Binding {
                mode,
                key,
                action: action.clone(),
                description,
            }));
        }
        if !(b.mode == mode && b.action == action) {
            out.push(b.clone());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> toml::Table {
        text.parse().expect("valid toml")
    }

    #[test]
    fn the_defaults_have_no_duplicate_keys_in_a_mode() {
        let bindings = defaults();
        for (i, a) in bindings.iter().enumerate() {
            for b in &bindings[i + 1..] {
                assert!(
                    !(a.mode == b.mode && a.key == b.key),
                    "{:?} {} bound twice",
                    a.mode,
                    a.key
                );
            }
            assert!(
                !(a.mode.types_text() && a.key.is_text()),
                "{:?} {} would swallow typing",
                a.mode,
                a.key
            );
            assert!(
                a.action.name().is_some(),
                "{:?} has no config name",
                a.action
            );
        }
    }

    #[test]
    fn keys_parse_and_print_back() {
        for text in [
            "q",
            "G",
            "?",
            "Space",
            "Ctrl-F",
            "Alt-x",
            "Enter",
            "Esc",
            "PgDn",
            "PgUp",
            "Shift-Tab",
            "F5",
            "1-9",
            "Backspace",
        ] {
            let parsed = if text == "1-9" {
                Key::Digit
            } else {
                Key::parse(text).unwrap()
            };
            assert_eq!(parsed.to_string(), text);
        }
        assert_eq!(Key::parse("ctrl-F"), Ok(Key::Ctrl('f')));
        assert_eq!(Key::parse("PAGEDOWN"), Ok(Key::Named(Named::PageDown)));
        assert!(Key::parse("hyper-q").is_err());
        assert!(Key::parse("ctrl-").is_err());
    }

    #[test]
    fn mode_rows_win_over_global_and_typing_wins_over_both() {
        let keys = KeyMap::default();
        assert_eq!(
            keys.action(Mode::Library, Key::Char('q')),
            Some(Action::Quit)
        );
        assert_eq!(keys.action(Mode::Help, Key::Char('q')), Some(Action::Back));
        assert_eq!(
            keys.action(Mode::Search, Key::Char('q')),
            Some(Action::Input('q'))
        );
        assert_eq!(
            keys.action(Mode::Search, Key::Ctrl('c')),
            Some(Action::Quit)
        );
        assert_eq!(
            keys.action(Mode::Walk, Key::Char('3')),
            Some(Action::Choose(3))
        );
        assert_eq!(keys.action(Mode::Reader, Key::Char('3')), None);
    }

    #[test]
    fn an_override_replaces_the_keys_of_one_action() {
        let (keys, warnings) =
            KeyMap::with_overrides(&table("[reader]\ncopy_code = [\"ctrl-y\", \"F2\"]\n"));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(keys.action(Mode::Reader, Key::Char('y')), None);
        assert_eq!(
            keys.action(Mode::Reader, Key::Ctrl('y')),
            Some(Action::CopyCode)
        );
        assert_eq!(
            keys.action(Mode::Reader, Key::Named(Named::F(2))),
            Some(Action::CopyCode)
        );
        let row = keys
            .rows(Mode::Reader)
            .into_iter()
            .find(|(_, d)| *d == "copy code block")
            .unwrap();
        assert_eq!(row.0, "Ctrl-Y, F2");
    }

    #[test]
    fn bad_entries_are_reported_by_name_and_defaults_stay() {
        let (keys, warnings) = KeyMap::with_overrides(&table(
            "[reader]\ncopy_code = \"hyper-y\"\nscroll = \"j\"\ntoc = \"j\"\n\
             [search]\nopen = \"x\"\n[nowhere]\nquit = \"x\"\n[library]\ncopy_code = \"y\"\n",
        ));
        let entries: Vec<&str> = warnings.iter().map(|w| w.entry.as_str()).collect();
        assert_eq!(
            entries,
            vec![
                "library.copy_code",
                "nowhere",
                "reader.copy_code",
                "reader.scroll",
                "reader.toc",
                "search.open",
            ]
        );
        assert!(
            warnings[4].message.contains("already `down`"),
            "{}",
            warnings[4]
        );
        assert!(
            warnings[5].message.contains("types text"),
            "{}",
            warnings[5]
        );
        assert_eq!(
            keys.action(Mode::Reader, Key::Char('y')),
            Some(Action::CopyCode)
        );
        assert_eq!(keys.action(Mode::Reader, Key::Char('t')), Some(Action::Toc));
        assert_eq!(
            warnings[0].to_string(),
            "[keys] `library.copy_code`: `copy_code` does nothing in library; actions there: open, filter, down, up, page_down, page_up, top, bottom, back"
        );
    }

    #[test]
    fn hints_start_with_the_modes_first_rows_and_end_with_help_and_quit() {
        let keys = KeyMap::default();
        let hints = keys.hints(Mode::Library);
        assert_eq!(hints[0], ("/".to_string(), "search"));
        assert_eq!(hints[1], ("d".to_string(), "decision trees"));
        assert_eq!(hints[2], ("?".to_string(), "help"));
        assert_eq!(hints[3], ("Enter".to_string(), "open"));
        assert_eq!(hints[4], ("f".to_string(), "filter titles"));
        assert_eq!(hints.iter().filter(|(k, _)| k == "?").count(), 1);
        assert_eq!(hints.last().unwrap(), &("q".to_string(), "quit"));
        // In the search box `q` and `?` type, so other keys are offered.
        let hints = keys.hints(Mode::Search);
        assert!(!hints.iter().any(|(k, _)| k == "q"), "{hints:?}");
        assert_eq!(hints.last().unwrap(), &("Ctrl-C".to_string(), "quit"));
        assert!(hints.contains(&("F1".to_string(), "help")), "{hints:?}");
    }
}
