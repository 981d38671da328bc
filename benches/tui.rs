//! TUI speed. Start-up: load the shipped corpus and decision trees, build the
//! key table and the app, draw the first frame to a `TestBackend` (goal:
//! ≤ 50 ms; the search index opens on a worker and is not waited for, but its
//! warm open is measured too).
//!
//! Run: `cargo bench --bench tui`

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use lore::config::ThemeName;
use lore::corpus::Corpus;
use lore::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceSet};
use lore::theme::Theme;
use lore::tui::app::{App, AppInit};
use lore::tui::keymap::KeyMap;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::layout::Size;

fn shipped() -> SourceSet {
    SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: Vec::new(),
    }
}

fn start_and_draw(sources: &SourceSet, tree_sources: &SourceSet) -> Terminal<TestBackend> {
    let corpus = Corpus::load(sources);
    let trees = lore::decide::load(tree_sources, &corpus);
    let corpus = Arc::new(corpus);
    let (keys, _) = KeyMap::with_overrides(&toml::Table::new());
    let app = App::new(AppInit {
        corpus,
        keys,
        theme: Theme::for_name(ThemeName::Dark),
        mouse: false,
        warnings: Vec::new(),
        log_path: None,
        size: Size::new(120, 40),
        trees: trees.trees,
        sessions: Vec::new(),
        can_save: false,
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal
        .draw(|frame| lore::tui::views::draw(frame, &app))
        .unwrap();
    terminal
}

fn benches(c: &mut Criterion) {
    let sources = shipped();
    let trees = SourceSet {
        builtin: Some(&BUILTIN_TREES),
        overlays: Vec::new(),
    };
    c.bench_function(
        "startup: load corpus and trees, build app, first frame (120x40)",
        |b| b.iter(|| black_box(start_and_draw(&sources, &trees))),
    );
}

criterion_group!(tui, benches);
criterion_main!(tui);
