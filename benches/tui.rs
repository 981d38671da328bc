//! TUI speed.
//!
//! - Start-up: load the shipped corpus and decision trees, build the key table
//!   and the app, draw the first frame to a `TestBackend` (goal: ≤ 50 ms). The
//!   search index opens on a worker and the first frame never waits for it;
//!   opening it from a warm cache is measured separately.
//! - Typing in search at 10,000 generated documents (`lore::search::synthetic`,
//!   deterministic), 120×40: one keystroke → the next frame with the new
//!   query's hits (goal: ≤ 16 ms), and one keystroke → the next frame without
//!   waiting for hits, which is what the event loop draws while the worker
//!   answers.
//! - The same typing in a folder of one's own (for example a checkout of the
//!   tldr-pages repository) when `LORE_BENCH_FOLDER` names it.
//!
//! Run: `cargo bench --bench tui`, or
//! `LORE_BENCH_FOLDER=DIR cargo bench --bench tui -- LORE_BENCH_FOLDER`

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use lore::config::ThemeName;
use lore::corpus::Corpus;
use lore::search::{SearchIndex, synthetic};
use lore::sources::{BUILTIN_TREES, SourceSet};
use lore::theme::Theme;
use lore::tui::action::Action;
use lore::tui::app::{App, AppInit, Effect};
use lore::tui::keymap::KeyMap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Size;

const WIDTH: u16 = 120;
const HEIGHT: u16 = 40;

fn shipped() -> SourceSet {
    SourceSet::builtin_knowledge()
}

fn app(corpus: Arc<Corpus>, trees: Vec<lore::decide::DecisionTree>) -> App {
    let (keys, _) = KeyMap::with_overrides(&toml::Table::new());
    App::new(AppInit {
        corpus,
        keys,
        theme: Theme::for_name(ThemeName::Dark),
        mouse: false,
        warnings: Vec::new(),
        log_path: None,
        size: Size::new(WIDTH, HEIGHT),
        trees,
        sessions: Vec::new(),
        can_save: false,
        history: Default::default(),
    })
}

fn start_and_draw(sources: &SourceSet, tree_sources: &SourceSet) -> Terminal<TestBackend> {
    let corpus = Corpus::load(sources);
    let trees = lore::decide::load(tree_sources, &corpus);
    let app = app(Arc::new(corpus), trees.trees);
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal
        .draw(|frame| lore::tui::views::draw(frame, &app))
        .unwrap();
    terminal
}

/// `count` generated documents of about 4 KB, in memory.
fn generated(count: usize) -> Corpus {
    synthetic::corpus(&Corpus::load(&shipped()), count, 1)
}

/// Answers queued queries at once, as the worker would.
fn answer(app: &mut App, index: &SearchIndex) {
    for effect in app.take_effects() {
        if let Effect::Query { generation, text } = effect {
            let hits = index.query(&text, lore::tui::search::HIT_LIMIT);
            app.update(Action::SearchResults {
                generation,
                hits: Arc::new(hits),
                searched: Arc::new(Vec::new()),
                marked: Arc::new(Vec::new()),
            });
        }
    }
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal
        .draw(|frame| lore::tui::views::draw(frame, app))
        .unwrap();
}

fn startup(c: &mut Criterion) {
    let sources = shipped();
    let trees = SourceSet {
        builtin: Some(&BUILTIN_TREES),
        overlays: Vec::new(),
    };
    c.bench_function(
        "startup: load corpus and trees, build app, first frame (120x40)",
        |b| b.iter(|| black_box(start_and_draw(&sources, &trees))),
    );
    let corpus = Corpus::load(&sources);
    let cache = tempfile::tempdir().unwrap();
    SearchIndex::open(&corpus, Some(cache.path())).expect("a cold build");
    c.bench_function(
        "search index: open from a warm cache (worker thread)",
        |b| b.iter(|| black_box(SearchIndex::open(&corpus, Some(cache.path())).unwrap())),
    );
}

fn typing(c: &mut Criterion) {
    let corpus = Arc::new(generated(10_000));
    keystrokes(
        c,
        "search keystroke at 10,000 documents (120x40)",
        corpus,
        &[
            ("libcupt + i", "libcupt", 'i'),
            (
                "pasted error line + one more character",
                "ImportError: libcupti.so.12: cannot open shared object fil",
                'e',
            ),
            // A question: its best hits' section questions are read too.
            (
                "typed question + one more character",
                "why does nvidia-smi show another CUDA version inside my container than on the hos",
                't',
            ),
        ],
    );
}

/// The same on a folder of the user's own, such as a checkout of the
/// tldr-pages repository. Skipped when `LORE_BENCH_FOLDER` is not set.
fn typing_in_folder(c: &mut Criterion) {
    let Some(folder) = std::env::var_os("LORE_BENCH_FOLDER") else {
        return;
    };
    let sources = SourceSet {
        builtin: None,
        overlays: vec![folder.into()],
    };
    let corpus = Arc::new(Corpus::load(&sources));
    keystrokes(
        c,
        "search keystroke in LORE_BENCH_FOLDER (120x40)",
        corpus,
        &[
            ("ta + r", "ta", 'r'),
            (
                "extract a compressed archiv + e",
                "extract a compressed archiv",
                'e',
            ),
        ],
    );
}

/// One keystroke in the search box → the next frame, for each case: the
/// text already typed and the key pressed.
fn keystrokes(c: &mut Criterion, group: &str, corpus: Arc<Corpus>, cases: &[(&str, &str, char)]) {
    let (index, report) = SearchIndex::build_in_memory(&corpus).unwrap();
    eprintln!(
        "{group}: {} documents, {} sections",
        report.documents, report.sections
    );
    let mut group = c.benchmark_group(group);
    for &(name, typed, next) in cases {
        let mut app = app(Arc::clone(&corpus), Vec::new());
        app.update(Action::IndexReady {
            sections: report.sections,
            rebuilt: true,
            warnings: Vec::new(),
        });
        app.update(Action::Search);
        app.update(Action::Paste(typed.to_string()));
        answer(&mut app, &index);
        let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
        draw(&mut terminal, &app);
        assert!(!app.search.hits.is_empty(), "{typed:?} finds something");

        group.bench_function(format!("{name}: frame with the new hits"), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let started = Instant::now();
                    app.update(Action::Input(next));
                    answer(&mut app, &index);
                    draw(&mut terminal, &app);
                    total += started.elapsed();
                    app.update(Action::DeleteChar);
                    answer(&mut app, &index);
                }
                total
            })
        });
        group.bench_function(format!("{name}: frame while the worker searches"), |b| {
            b.iter_custom(|iterations| {
                let mut total = Duration::ZERO;
                for _ in 0..iterations {
                    let started = Instant::now();
                    app.update(Action::Input(next));
                    draw(&mut terminal, &app);
                    total += started.elapsed();
                    let _ = app.take_effects();
                    app.update(Action::DeleteChar);
                    answer(&mut app, &index);
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(tui, startup, typing, typing_in_folder);
criterion_main!(tui);
