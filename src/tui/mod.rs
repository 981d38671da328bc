//! The terminal UI that `lore` with no verb opens: browse the library, search
//! as you type, read with links and copyable code, walk decision trees.
//!
//! Shape (state, update, view): `App` holds all state and `App::update(Action)`
//! is the only thing that changes it; `views` draw `&App`; the `keymap` table
//! turns keys into `Action`s and also feeds the help overlay and hints. Slow
//! work (the search index, syntax highlighting) runs on worker threads that
//! report back through the same event channel as the keyboard, so the first
//! frame and every keystroke are drawn without waiting for them.
//!
//! This module must not print to stdout or stderr while the UI is up: the
//! screen belongs to the views, and logs go to a file (`logfile`).

pub mod action;
pub mod app;
pub mod clipboard;
pub mod history;
pub mod input;
pub mod keymap;
pub mod layout;
pub mod library;
pub mod logfile;
pub mod page;
pub mod probe_worker;
pub mod reader;
pub mod search;
pub mod search_worker;
pub mod style;
pub mod terminal;
pub mod trees;
pub mod views;
pub mod widgets;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;

use ratatui::crossterm::event::{Event as TermEvent, KeyEventKind, MouseEventKind};
use ratatui::layout::Size;

use crate::config::Settings;
use crate::corpus::{Corpus, Document};
use crate::decide::{self, SessionStore};
use crate::diagnostic::Diagnostic;
use crate::markdown::Highlighter;
use crate::probe::ProbeOptions;
use crate::theme::{Theme, terminal_has_truecolor};

use action::Action;
use app::{App, AppInit, Effect, Level};
use history::History;
use keymap::{Key, KeyMap};

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error(
        "the terminal UI needs a terminal, and stdout is not one; run `lore` in a terminal, or use a verb such as `lore check` (see `lore --help`)"
    )]
    NotATerminal,
    #[error(
        "the terminal UI moves the cursor and draws colours, and TERM=dumb says this terminal cannot; use a verb such as `lore search` or `lore show`, or set TERM to your terminal's type"
    )]
    DumbTerminal,
    #[error("terminal: {0}")]
    Io(#[from] io::Error),
}

/// Everything that reaches the event loop, from any thread.
#[derive(Debug)]
pub enum Event {
    Terminal(TermEvent),
    /// Something a worker finished, already in the form `update` takes.
    Action(Action),
    /// The keyboard can no longer be read.
    InputClosed(String),
}

/// Loads everything that can fail, then runs the UI until the user quits.
pub fn run(settings: &Settings) -> Result<(), TuiError> {
    run_probing(settings, ProbeOptions::default())
}

/// `run`, with the probe key reading `probing` (an image root or a
/// Dockerfile) instead of this machine.
pub fn run_probing(settings: &Settings, probing: ProbeOptions) -> Result<(), TuiError> {
    run_at(settings, probing, None)
}

/// Where `lore open` starts: the corpus it resolved the target in (so it is
/// not loaded twice), the document and the place in it.
pub struct Start {
    pub corpus: Arc<Corpus>,
    pub path: String,
    pub at: reader::At,
}

/// `run_probing`, opening the reader at `start` (the library stays behind
/// it: Backspace returns there).
pub fn run_at(
    settings: &Settings,
    probing: ProbeOptions,
    start: Option<Start>,
) -> Result<(), TuiError> {
    if !io::stdout().is_terminal() {
        return Err(TuiError::NotATerminal);
    }
    if crate::config::dumb_terminal() {
        return Err(TuiError::DumbTerminal);
    }
    // The log first, then the panic hook, then everything else: whatever
    // start-up reads (saved walks, trees, config) cannot panic past the hook.
    let mut warnings = settings.warnings.clone();
    let log_path = install_log(settings, &mut warnings);
    terminal::install_panic_hook(log_path.clone());
    terminal::restore_on_signals()?;
    // Raw mode before start-up asks the terminal for its background: an
    // answer that comes too late is then read by the keyboard reader and
    // dropped, never echoed on the screen (see `terminal_answer`). Start-up
    // prints nothing (problems go to the log and the status bar).
    let mut tui = terminal::enter()?;
    let corpus = start.as_ref().map(|s| Arc::clone(&s.corpus));
    let (mut app, mut services) = match prepare(settings, corpus, warnings, log_path) {
        Ok(prepared) => prepared,
        Err(err) => {
            terminal::restore();
            return Err(err);
        }
    };
    services.probing = probing;
    if let Some(start) = start {
        app.open_document(
            &start.path,
            start.at,
            Vec::new(),
            reader::Via::Screen(app::Screen::Library),
        );
    }
    let result = event_loop(&mut tui, app, &services);
    // An answer still on its way would reach the shell as keys.
    crate::terminal_answer::wait();
    terminal::restore();
    let _ = std::panic::take_hook();
    log::info!("lore stopped");
    log::logger().flush();
    result
}

/// What the event loop needs besides the app.
struct Services {
    store: Option<SessionStore>,
    /// Where the history of documents and searches is kept.
    history_path: Option<PathBuf>,
    /// Where the search index is cached.
    cache_dir: Option<PathBuf>,
    /// What the probe key reads.
    probing: ProbeOptions,
    /// The knowledge roots' vocabulary, for the search worker.
    vocabulary: crate::search::vocabulary::Vocabulary,
}

/// Starts logging to `lore.log` in the state folder; its path, if it could.
fn install_log(settings: &Settings, warnings: &mut Vec<Diagnostic>) -> Option<PathBuf> {
    let dir = settings.paths.state_dir.as_deref()?;
    match logfile::install(dir) {
        Ok(path) => Some(path),
        Err(message) => {
            warnings.push(Diagnostic::warning("log", None, message));
            None
        }
    }
}

/// The part of start-up that may fail, done before the first frame. It
/// prints nothing: problems become warnings in the log and the status bar.
fn prepare(
    settings: &Settings,
    corpus: Option<Arc<Corpus>>,
    mut warnings: Vec<Diagnostic>,
    log_path: Option<PathBuf>,
) -> Result<(App, Services), TuiError> {
    log::info!("lore {} starting", env!("CARGO_PKG_VERSION"));
    let corpus = corpus.unwrap_or_else(|| Arc::new(Corpus::load(&settings.knowledge)));
    warnings.extend(corpus.warnings.iter().cloned());
    let (keys, key_warnings) = KeyMap::with_overrides(&settings.config.keys);
    let config_name = settings
        .paths
        .config_file
        .as_ref()
        .map_or("config.toml".to_string(), |p| p.display().to_string());
    warnings.extend(
        key_warnings
            .into_iter()
            .map(|w| Diagnostic::warning(&config_name, None, w.to_string())),
    );
    // Each tree's `[[tests]]` run when it is first opened, not here.
    let loaded = decide::load_with(&settings.trees, &corpus, decide::RunTests::Later);
    warnings.extend(loaded.diagnostics);
    let store = SessionStore::from_paths(&settings.paths);
    let mut sessions = Vec::new();
    if let Some(store) = &store {
        for tree in &loaded.trees {
            match store.resume(tree) {
                Ok(Some(resumed)) => {
                    if let Some(note) = resumed.dropped_note() {
                        warnings.push(Diagnostic::warning(
                            store.sessions_dir().display().to_string(),
                            None,
                            format!("saved `{}` walk: {note}", tree.id),
                        ));
                    }
                    if !resumed.session.path().is_empty() {
                        sessions.push(resumed.session);
                    }
                }
                Ok(None) => {}
                Err(err) => warnings.push(Diagnostic::warning(
                    store.sessions_dir().display().to_string(),
                    None,
                    format!("saved walk ignored: {err}"),
                )),
            }
        }
    }
    let history_path = settings.paths.data_dir.as_deref().map(History::path);
    let history = match &history_path {
        Some(path) => {
            let (history, problem) = History::load(path);
            if let Some(problem) = problem {
                warnings.push(Diagnostic::warning(
                    path.display().to_string(),
                    None,
                    format!("history of documents and searches {problem}"),
                ));
            }
            history
        }
        None => History::default(),
    };
    for w in &warnings {
        log::warn!("{w}");
    }
    let theme = if settings.color {
        Theme::for_name(settings.theme_for_terminal()).with_truecolor(terminal_has_truecolor())
    } else {
        Theme::plain()
    };
    let (width, height) = ratatui::crossterm::terminal::size()?;
    let app = App::new(AppInit {
        corpus,
        keys,
        theme,
        mouse: settings.config.mouse.unwrap_or(false),
        warnings,
        log_path,
        size: Size::new(width, height),
        trees: loaded.trees,
        sessions,
        can_save: store.is_some(),
        history,
    });
    Ok((
        app,
        Services {
            store,
            history_path,
            cache_dir: settings.paths.cache_dir.clone(),
            probing: ProbeOptions::default(),
            vocabulary: crate::search::vocabulary::Vocabulary::load(&settings.knowledge).0,
        },
    ))
}

/// Code blocks highlighted ahead of time after start-up, at most: enough for
/// the shipped corpus and then some, well under the highlighter's memo size.
const PREPARE_BLOCKS: usize = 1000;

/// Loads the syntax definitions off the input path; until they are in, code
/// is drawn plain, and the reader re-renders in colour when they arrive.
/// Then colours what the reader asks for (the blocks a render left plain,
/// `Effect::Highlight`), and in between highlights documents' code blocks
/// ahead of time, so opening one later only lays it out. The returned
/// channel takes the reader's requests.
fn spawn_highlighter(
    events: Sender<Event>,
    corpus: Arc<Corpus>,
    theme: Theme,
) -> Option<Sender<Arc<Document>>> {
    let (requests, asked) = mpsc::channel::<Arc<Document>>();
    let spawned = thread::Builder::new()
        .name("highlighter".into())
        .spawn(move || {
            let started = std::time::Instant::now();
            Highlighter::warm();
            log::info!("syntax highlighting loaded in {:?}", started.elapsed());
            if events
                .send(Event::Action(Action::HighlighterReady))
                .is_err()
            {
                return;
            }
            let highlighter = Highlighter::global();
            let colour = |doc: Arc<Document>| {
                let started = std::time::Instant::now();
                highlighter.prepare(&doc, &theme);
                log::debug!("highlighted {} in {:?}", doc.path, started.elapsed());
                events
                    .send(Event::Action(Action::Highlighted(doc.path.clone())))
                    .is_ok()
            };
            let mut blocks = 0;
            for doc in &corpus.documents {
                while let Ok(doc) = asked.try_recv() {
                    if !colour(doc) {
                        return;
                    }
                }
                if blocks + doc.code_blocks.len() > PREPARE_BLOCKS {
                    break;
                }
                blocks += doc.code_blocks.len();
                highlighter.prepare(doc, &theme);
            }
            log::info!(
                "{blocks} code blocks highlighted ahead in {:?}",
                started.elapsed()
            );
            while let Ok(doc) = asked.recv() {
                if !colour(doc) {
                    return;
                }
            }
        });
    match spawned {
        Ok(_) => Some(requests),
        Err(err) => {
            log::error!("cannot start the highlighter thread: {err}");
            None
        }
    }
}

fn event_loop(tui: &mut terminal::Tui, mut app: App, services: &Services) -> Result<(), TuiError> {
    let (tx, rx): (Sender<Event>, Receiver<Event>) = mpsc::channel();
    let probe_events = tx.clone();
    input::spawn(tx.clone())?;
    let highlighter = if app.theme.has_color() {
        spawn_highlighter(tx.clone(), Arc::clone(&app.corpus), app.theme.clone())
    } else {
        None
    };
    let queries = match search_worker::spawn(
        Arc::clone(&app.corpus),
        services.vocabulary.clone(),
        services.cache_dir.clone(),
        tx.clone(),
    ) {
        Ok(queries) => Some(queries),
        Err(err) => {
            app.update(Action::IndexFailed(format!(
                "cannot start the search thread: {err}"
            )));
            None
        }
    };
    let inside_tmux = std::env::var_os("TMUX").is_some_and(|v| !v.is_empty());
    loop {
        // Effects first: their reports change what the frame shows.
        let workers = Workers {
            queries: queries.as_ref(),
            highlighter: highlighter.as_ref(),
            events: &probe_events,
        };
        carry_out(tui, &mut app, services, &workers, inside_tmux)?;
        tui.draw(|frame| views::draw(frame, &app))?;
        // Fault injection for the test that the panic hook restores the
        // terminal; debug builds only, so a release binary has no such switch.
        #[cfg(debug_assertions)]
        if std::env::var_os("LORE_TEST_PANIC").is_some() {
            panic!("LORE_TEST_PANIC is set");
        }
        if app.quit {
            return Ok(());
        }
        let Ok(first) = rx.recv() else {
            return Ok(());
        };
        // Handle everything already waiting before drawing again, so a burst
        // of keys (or a paste without bracketed paste) costs one frame.
        let mut next = Some(first);
        while let Some(event) = next {
            match event {
                Event::Terminal(event) => {
                    if let Some(action) = translate(&app, event) {
                        app.update(action);
                    }
                }
                Event::Action(action) => app.update(action),
                Event::InputClosed(message) => {
                    log::error!("keyboard input closed: {message}");
                    return Err(TuiError::Io(io::Error::other(message)));
                }
            }
            if app.quit {
                break;
            }
            next = rx.try_recv().ok();
        }
    }
}

/// A terminal event as an action, read through the key table.
fn translate(app: &App, event: TermEvent) -> Option<Action> {
    match event {
        TermEvent::Key(key) if key.kind != KeyEventKind::Release => {
            Key::from_event(&key).and_then(|key| app.action_for_key(key))
        }
        TermEvent::Mouse(mouse) => match mouse.kind {
            MouseEventKind::ScrollDown => Some(Action::Scroll(3)),
            MouseEventKind::ScrollUp => Some(Action::Scroll(-3)),
            _ => None,
        },
        TermEvent::Resize(width, height) => Some(Action::Resize(width, height)),
        TermEvent::Paste(text) => {
            Some(Action::Paste(crate::pasted::strip_ansi(&text).into_owned()))
        }
        _ => None,
    }
}

/// Where effects for the worker threads go (`None`: that worker is not there).
struct Workers<'a> {
    queries: Option<&'a Sender<search_worker::Query>>,
    highlighter: Option<&'a Sender<Arc<Document>>>,
    /// Where the probe worker reports.
    events: &'a Sender<Event>,
}

/// Does what `update` asked for, and reports back through `update`.
fn carry_out(
    tui: &mut terminal::Tui,
    app: &mut App,
    services: &Services,
    workers: &Workers<'_>,
    inside_tmux: bool,
) -> io::Result<()> {
    // Reports are applied after the loop: applying one may queue more effects.
    let mut reports = Vec::new();
    for effect in app.take_effects() {
        match effect {
            Effect::Copy(text) => match clipboard::osc52(&text, inside_tmux) {
                Ok(sequence) => {
                    let out = tui.backend_mut();
                    out.write_all(sequence.as_bytes())?;
                    out.flush()?;
                }
                Err(message) => reports.push((Level::Error, format!("not copied: {message}"))),
            },
            Effect::Mouse(on) => terminal::set_mouse(on)?,
            Effect::Probe => probe_worker::spawn(services.probing.clone(), workers.events.clone()),
            Effect::ProbeCauses { query } => {
                // Its Dockerfile is looked for in the folder lore runs in.
                probe_worker::spawn_causes(
                    services.probing.clone(),
                    query,
                    std::path::PathBuf::new(),
                    workers.events.clone(),
                )
            }
            Effect::Highlight(doc) => {
                if let Some(highlighter) = workers.highlighter {
                    let _ = highlighter.send(doc);
                }
            }
            Effect::Query { generation, text } => {
                if let Some(queries) = workers.queries {
                    // A closed channel means the worker stopped; it has
                    // already reported why.
                    let _ = queries.send(search_worker::Query { generation, text });
                }
            }
            Effect::SaveHistory(history) => {
                if let Some(path) = &services.history_path
                    && let Err(err) = history.save(path)
                {
                    // Sent on quitting: the log is the only place left.
                    log::warn!("history not saved to {}: {err}", path.display());
                }
            }
            Effect::SaveSession(session) => {
                if let Some(store) = &services.store
                    && let Err(err) = store.save(&session)
                {
                    reports.push((Level::Warning, format!("walk not saved: {err}")));
                }
            }
            Effect::ForgetSession(tree) => {
                if let Some(store) = &services.store
                    && let Err(err) = store.remove(&tree)
                {
                    reports.push((Level::Warning, format!("saved walk not removed: {err}")));
                }
            }
            Effect::SaveTranscript(session) => {
                if let Some(store) = &services.store {
                    reports.push(
                        match store.write_transcript(&session, &crate::date::today()) {
                            Ok(path) => (
                                Level::Ok,
                                format!("transcript copied and saved to {}", path.display()),
                            ),
                            Err(err) => (
                                Level::Error,
                                format!("transcript copied but not saved: {err}"),
                            ),
                        },
                    );
                }
            }
        }
    }
    for (level, text) in reports {
        app.update(Action::Report(level, text));
    }
    Ok(())
}
