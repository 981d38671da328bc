//! Shared helpers for the integration tests: the real `lore` binary with a
//! private LORE_HOME, so no test reads or writes the user's config or cache.
#![allow(dead_code)]

use std::path::PathBuf;

use assert_cmd::Command;

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn fixture(rel: &str) -> PathBuf {
    fixtures().join(rel)
}

/// `lore` with a fresh, empty LORE_HOME and no influence from the environment.
pub fn lore(home: &tempfile::TempDir) -> Command {
    let mut cmd = Command::cargo_bin("lore").expect("the lore binary");
    cmd.env("LORE_HOME", home.path())
        .env_remove("LORE_KNOWLEDGE")
        .env_remove("LORE_THEME")
        .env_remove("NO_COLOR")
        .env("COLUMNS", "100");
    cmd
}

pub fn home() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temp dir")
}

/// Runs `lore check --no-builtin --knowledge .` in DIR, as someone checking
/// their notes folder would, and returns (exit code, stdout). Files are
/// named as from there (`a.md:3: …`); a folder given by another path
/// prefixes them (see `overlay_files_are_named_as_the_user_can_open_them`).
pub fn check_dir(dir: &std::path::Path) -> (i32, String) {
    let home = home();
    let out = lore(&home)
        .current_dir(dir)
        .args(["check", "--no-builtin", "--knowledge", "."])
        .output()
        .expect("lore runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The TUI's app on the shipped knowledge and trees, as `lore` would start it
/// (no config, no saved walks, nowhere to save), for state and screen tests.
pub fn shipped_app(theme: lore::theme::Theme, width: u16, height: u16) -> lore::tui::app::App {
    use lore::sources::SourceSet;
    let corpus = lore::corpus::Corpus::load(&SourceSet::builtin_knowledge());
    app_on(corpus, theme, width, height)
}

/// The TUI's app on `corpus` and the shipped trees, as `shipped_app`.
pub fn app_on(
    corpus: lore::corpus::Corpus,
    theme: lore::theme::Theme,
    width: u16,
    height: u16,
) -> lore::tui::app::App {
    use std::sync::Arc;

    use lore::sources::{BUILTIN_TREES, SourceSet};
    let trees = lore::decide::load(
        &SourceSet {
            builtin: Some(&BUILTIN_TREES),
            overlays: Vec::new(),
        },
        &corpus,
    );
    assert!(
        trees.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        trees.diagnostics
    );
    lore::tui::app::App::new(lore::tui::app::AppInit {
        corpus: Arc::new(corpus),
        keys: lore::tui::keymap::KeyMap::default(),
        theme,
        mouse: false,
        warnings: Vec::new(),
        log_path: None,
        size: ratatui::layout::Size::new(width, height),
        trees: trees.trees,
        sessions: Vec::new(),
        can_save: false,
        history: Default::default(),
    })
}

/// An in-memory search index of the app's corpus, reported ready to the app.
pub fn ready_index(app: &mut lore::tui::app::App) -> lore::search::SearchIndex {
    let (index, report) =
        lore::search::SearchIndex::build_in_memory(&app.corpus).expect("an index");
    app.update(lore::tui::action::Action::IndexReady {
        sections: report.sections,
        rebuilt: report.rebuilt,
        warnings: Vec::new(),
    });
    index
}

/// Answers the app's queued queries at once, as the worker would, and
/// returns the other effects.
pub fn pump(
    app: &mut lore::tui::app::App,
    index: &lore::search::SearchIndex,
) -> Vec<lore::tui::app::Effect> {
    use lore::tui::app::Effect;
    let mut others = Vec::new();
    loop {
        let effects = app.take_effects();
        if effects.is_empty() {
            return others;
        }
        for effect in effects {
            match effect {
                Effect::Query { generation, text } => {
                    let hits = index.query(&text, lore::tui::search::HIT_LIMIT);
                    let parsed = lore::search::query::parse(&text);
                    let marked = if parsed.pasted {
                        index.rare_words(&parsed)
                    } else {
                        Vec::new()
                    };
                    app.update(lore::tui::action::Action::SearchResults {
                        generation,
                        hits: std::sync::Arc::new(hits),
                        searched: std::sync::Arc::new(parsed.searched),
                        marked: std::sync::Arc::new(marked),
                    });
                }
                other => others.push(other),
            }
        }
    }
}

/// The facts named `fact` in `lore probe --json`'s output, as (value,
/// evidence).
pub fn facts(json: &serde_json::Value, fact: &str) -> Vec<(String, Vec<String>)> {
    json["facts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["fact"] == fact)
        .map(|f| {
            (
                f["value"].as_str().unwrap().to_string(),
                f["evidence"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|e| e.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// The values of the facts named `fact`.
pub fn values(json: &serde_json::Value, fact: &str) -> Vec<String> {
    facts(json, fact).into_iter().map(|(v, _)| v).collect()
}

/// Polls `done` until it gives a value or `limit` passes (then `None`).
/// For waits on a child process: a test that waits without a limit turns a
/// hang into a CI run that never finishes instead of a failure.
pub fn within<T>(limit: std::time::Duration, mut done: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(value) = done() {
            return Some(value);
        }
        if std::time::Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Waits up to 30 s for `child` to exit; past that, kills it and fails the
/// test naming `what`, so a stuck lore cannot hang the run.
pub fn exit_status(child: &mut std::process::Child, what: &str) -> std::process::ExitStatus {
    within(std::time::Duration::from_secs(30), || {
        child.try_wait().unwrap()
    })
    .unwrap_or_else(|| {
        let _ = child.kill();
        panic!("{what}: lore still running 30 s after its reader left")
    })
}

/// The app's screen as text, at its size: one line per row, every cell.
pub fn screen_text(app: &lore::tui::app::App) -> String {
    use ratatui::{Terminal, backend::TestBackend};
    let mut terminal = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    terminal
        .draw(|frame| lore::tui::views::draw(frame, app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}
