//! Screens of the TUI drawn to a `TestBackend` at 80×24 and 120×40 and
//! compared with snapshots: what a user sees after a given sequence of keys.

mod common;

use lore::theme::Theme;
use lore::tui::action::Action;
use lore::tui::app::App;
use lore::tui::keymap::Key;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

fn app(width: u16, height: u16) -> App {
    common::shipped_app(Theme::plain(), width, height)
}

/// Presses keys given as config-style names, through the key table.
fn press(app: &mut App, keys: &[&str]) {
    for name in keys {
        let key = Key::parse(name).expect("a key name");
        if let Some(action) = app.action_for_key(key) {
            app.update(action);
        }
    }
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(Action::Input(c));
    }
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(app.size.width, app.size.height)).unwrap();
    terminal
        .draw(|frame| lore::tui::views::draw(frame, app))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[test]
fn library() {
    for (w, h) in [(80, 24), (120, 40)] {
        let a = app(w, h);
        insta::assert_snapshot!(format!("library_{w}x{h}"), screen(&a));
    }
}

#[test]
fn library_filtered() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        press(&mut a, &["f"]);
        type_text(&mut a, "docker");
        insta::assert_snapshot!(format!("library_filter_{w}x{h}"), screen(&a));
    }
}

#[test]
fn help() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        press(&mut a, &["?"]);
        insta::assert_snapshot!(format!("help_{w}x{h}"), screen(&a));
    }
}

fn open(app: &mut App, path: &str) {
    use lore::tui::app::Screen;
    use lore::tui::reader::{At, Via};
    assert!(app.open_document(path, At::Top, Vec::new(), Via::Screen(Screen::Library)));
}

#[test]
fn reader() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        open(&mut a, "cuda/20-cupti-deep-dive-arr-coc.md");
        insta::assert_snapshot!(format!("reader_{w}x{h}"), screen(&a));
    }
}

#[test]
fn reader_with_contents_find_and_a_focused_link() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        open(&mut a, "cuda/20-cupti-deep-dive-arr-coc.md");
        press(&mut a, &["t", "j", "j", "enter"]);
        insta::assert_snapshot!(format!("reader_toc_{w}x{h}"), screen(&a));
        press(&mut a, &["esc", "f"]);
        type_text(&mut a, "libcupti");
        press(&mut a, &["enter", "n", "tab"]);
        insta::assert_snapshot!(format!("reader_find_{w}x{h}"), screen(&a));
    }
}

#[test]
fn decision_trees() {
    for (w, h) in [(80, 24), (120, 40), (60, 15)] {
        let mut a = app(w, h);
        press(&mut a, &["d"]);
        insta::assert_snapshot!(format!("trees_{w}x{h}"), screen(&a));
        // need-cupti is the third tree; answer "pip" and "CUDA 12", then look at the
        // next question.
        press(&mut a, &["3", "1", "1"]);
        insta::assert_snapshot!(format!("walk_{w}x{h}"), screen(&a));
        // "import torch fails" leads to an outcome.
        press(&mut a, &["1"]);
        insta::assert_snapshot!(format!("outcome_{w}x{h}"), screen(&a));
    }
}

#[test]
fn too_small() {
    for (w, h) in [(12, 4), (1, 1), (29, 24)] {
        let a = app(w, h);
        insta::assert_snapshot!(format!("too_small_{w}x{h}"), screen(&a));
    }
}

#[test]
fn log() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        press(&mut a, &["w"]);
        insta::assert_snapshot!(format!("log_{w}x{h}"), screen(&a));
    }
}

/// NO_COLOR (the plain theme) draws with emphasis only: not one cell of any
/// screen has a colour.
#[test]
fn no_color_means_no_colour_anywhere() {
    let mut a = app(100, 30);
    let mut screens = Vec::new();
    let draw = |a: &App| {
        let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
        terminal
            .draw(|frame| lore::tui::views::draw(frame, a))
            .unwrap();
        terminal.backend().buffer().clone()
    };
    screens.push(draw(&a));
    press(&mut a, &["enter", "t"]);
    screens.push(draw(&a));
    press(&mut a, &["d", "3", "1", "1", "1"]);
    screens.push(draw(&a));
    press(&mut a, &["?"]);
    screens.push(draw(&a));
    use ratatui::style::Color;
    for buffer in screens {
        for cell in buffer.content() {
            assert_eq!(cell.fg, Color::Reset, "{cell:?}");
            assert_eq!(cell.bg, Color::Reset, "{cell:?}");
        }
    }
}

#[test]
fn search() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        press(&mut a, &["/"]);
        insta::assert_snapshot!(format!("search_empty_{w}x{h}"), screen(&a));
        let index = common::ready_index(&mut a);
        type_text(&mut a, "libcupti");
        common::pump(&mut a, &index);
        insta::assert_snapshot!(format!("search_{w}x{h}"), screen(&a));
        press(&mut a, &["enter"]);
        insta::assert_snapshot!(format!("search_opened_{w}x{h}"), screen(&a));
    }
}

#[test]
fn indexing_shows_in_the_status_bar() {
    let mut a = app(80, 24);
    press(&mut a, &["/"]);
    type_text(&mut a, "cupti");
    a.update(Action::IndexProgress {
        done: 12,
        total: 41,
    });
    let shown = screen(&a);
    assert!(shown.contains("indexing… 12/41"), "{shown}");
    assert!(
        shown.contains("results appear as soon as it is ready"),
        "{shown}"
    );
}

#[test]
fn code_block_picker() {
    for (w, h) in [(80, 24), (120, 40)] {
        let mut a = app(w, h);
        assert!(a.open_document(
            "cuda/13-nvidia-container-cuda-packaging.md",
            lore::tui::reader::At::Anchor("adding-cupti-to-a-runtime-image".into()),
            Vec::new(),
            lore::tui::reader::Via::Screen(lore::tui::app::Screen::Library),
        ));
        press(&mut a, &["Y"]);
        insta::assert_snapshot!(format!("picker_{w}x{h}"), screen(&a));
    }
}

/// Search terms, find matches (the current one apart) and the focused link
/// are each drawn in their own style, on exactly their characters.
#[test]
fn marks_are_styled_on_their_characters() {
    use lore::config::ThemeName;
    use lore::tui::reader::{At, Via};
    let mut a = common::shipped_app(Theme::for_name(ThemeName::Dark), 100, 30);
    assert!(a.open_document(
        "cuda/20-cupti-deep-dive-arr-coc.md",
        At::Top,
        vec!["profiling".into()],
        Via::Screen(lore::tui::app::Screen::Library),
    ));
    press(&mut a, &["f"]);
    type_text(&mut a, "CUPTI");
    press(&mut a, &["enter", "tab"]);
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    terminal
        .draw(|frame| lore::tui::views::draw(frame, &a))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let chrome = a.chrome.clone();
    let text_of = |style: ratatui::style::Style| -> Vec<String> {
        let mut runs = Vec::new();
        for y in 1..buffer.area.height - 1 {
            let mut run = String::new();
            for x in 0..buffer.area.width {
                let cell = &buffer[(x, y)];
                let matches = style.bg.is_none_or(|bg| cell.bg == bg)
                    && style.fg.is_none_or(|fg| cell.fg == fg)
                    && cell.modifier.contains(style.add_modifier);
                if matches {
                    run.push_str(cell.symbol());
                } else if !run.is_empty() {
                    runs.push(std::mem::take(&mut run));
                }
            }
            if !run.is_empty() {
                runs.push(run);
            }
        }
        runs
    };
    let current = text_of(chrome.found_current);
    assert_eq!(current, vec!["CUPTI"], "one current match");
    let found = text_of(chrome.found);
    assert!(
        found
            .iter()
            .filter(|t| t.eq_ignore_ascii_case("cupti"))
            .count()
            > 3,
        "{found:?}"
    );
    assert!(
        found.iter().any(|t| t.eq_ignore_ascii_case("profiling")),
        "{found:?}"
    );
    let link = a.reader.page.as_ref().unwrap().focused().unwrap().clone();
    let focused = text_of(chrome.link_focus);
    assert!(
        focused
            .iter()
            .any(|t| t.contains(link.text.split_whitespace().next().unwrap_or(""))),
        "{focused:?} vs {link:?}"
    );
}

/// The first question of "devel as runtime" has four long options: at 80x24
/// all of them and the start of the panel fit; at 60x15 they cannot, and the
/// list scrolls so the selected one is always on screen.
#[test]
fn a_question_shows_its_options_and_panel_at_80x24_and_keeps_the_selected_one_at_60x15() {
    let labels = [
        "Development, notebooks",
        "Debugging or profiling",
        "A one-off experiment",
        "Production training",
    ];
    let mut a = app(80, 24);
    press(&mut a, &["d", "2"]);
    let s = screen(&a);
    for label in labels {
        assert!(s.contains(label), "{label} missing:\n{s}");
    }
    assert!(s.contains("┌ Why it matters"), "{s}");
    assert!(
        s.contains("nvidia/cuda:*-devel adds the compiler (nvcc)"),
        "{s}"
    );
    assert!(!s.contains('`'), "no raw Markdown:\n{s}");

    let mut a = app(60, 15);
    press(&mut a, &["d", "2"]);
    assert!(screen(&a).contains("▸ 1 Development"), "{}", screen(&a));
    for (n, label) in labels.iter().enumerate().skip(1) {
        press(&mut a, &["down"]);
        let s = screen(&a);
        let selected = format!("▸ {} {label}", n + 1);
        assert!(s.contains(&selected), "{selected} not on screen:\n{s}");
        assert!(s.contains("┌ Why it matters"), "{s}");
    }
    // Back up: the first option comes back into view.
    press(&mut a, &["up", "up", "up"]);
    assert!(screen(&a).contains("▸ 1 Development"), "{}", screen(&a));
}
