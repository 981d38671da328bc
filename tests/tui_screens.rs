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
    // Trailing blanks trimmed, so snapshots do not depend on them.
    common::screen_text(app)
        .lines()
        .map(|line| format!("{}\n", line.trim_end()))
        .collect()
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
        // need-cupti is the fourth tree; answer "pip" and "CUDA 12", then look at the
        // next question.
        press(&mut a, &["4", "1", "1"]);
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
    press(&mut a, &["d", "4", "1", "1", "1"]);
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
    press(&mut a, &["d", "3"]);
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
    press(&mut a, &["d", "3"]);
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

/// The rows of `screen(app)`, for assertions on one row.
fn rows(app: &App) -> Vec<String> {
    screen(app).lines().map(str::to_string).collect()
}

/// At 80 columns the library's path column is 26 wide: cut from the left,
/// `cuda/10-docker-multistage-ml-optimization.md` and
/// `cuda/10-performance-debugging-profiling-expert.md` both lost the number
/// and folder that tell them apart (`…istage-ml-optimization.md`).
#[test]
fn library_rows_at_80_columns_keep_the_folder_and_number_of_each_path() {
    let a = app(80, 24);
    let s = screen(&a);
    assert!(s.contains("cuda/10-docker…"), "{s}");
    assert!(s.contains("cuda/10-performance…"), "{s}");
    assert!(s.contains("cuda/01-memory…"), "{s}");
}

/// A long status (Tab on a link with a long anchor) kept its start and lost
/// its end, where it says what Enter does; now the middle gives way.
#[test]
fn a_long_status_message_keeps_its_end_at_80_columns() {
    let mut a = app(80, 24);
    let text = lore::tui::reader::describe_target(
        &lore::corpus::LinkTarget::Internal {
            path: "cuda/21-docker-build-strategy-patterns.md".into(),
            anchor: Some("what-torchcompile-triton-and-cpp_extension-need-at-run-time".into()),
        },
        "",
    );
    a.set_status(lore::tui::app::Level::Info, text);
    let footer = rows(&a).last().unwrap().clone();
    assert!(footer.starts_with(" → cuda/21-docker"), "{footer}");
    assert!(footer.ends_with("(Enter opens)"), "{footer}");
    assert!(footer.contains('…'), "{footer}");
}

/// At 80 columns the search screen's hints stopped before `Up previous hit
/// or search`, which did not fit; the bar now names Up's main use, and help
/// still has the whole description.
#[test]
fn the_search_hints_fit_at_80_columns() {
    let mut a = app(80, 24);
    common::ready_index(&mut a);
    press(&mut a, &["/"]);
    let footer = rows(&a).last().unwrap().clone();
    assert!(footer.contains("Up previous hit"), "{footer}");
    assert!(!footer.contains("or search"), "{footer}");
    press(&mut a, &["f1"]);
    assert!(
        screen(&a).contains("previous hit or search"),
        "{}",
        screen(&a)
    );
}

/// The `▲`/`▼` marks of a scrolled option list sit in the question area's
/// last column; option text reached that column and the mark covered a
/// letter. Every question of every shipped tree, at a small and a common
/// size: no text is ever drawn there.
#[test]
fn scroll_marks_of_an_option_list_never_cover_text() {
    for (w, h) in [(60, 15), (80, 24), (70, 12)] {
        let trees = app(w, h).trees.list.len();
        for tree in 1..=trees {
            let mut a = app(w, h);
            press(&mut a, &["d", &tree.to_string()]);
            // Walk every question on the first-option path, each option
            // selected in turn so the list scrolls.
            for _ in 0..12 {
                let Some(walk) = a.trees.walk.as_ref() else {
                    break;
                };
                let Some(view) = walk.question.as_ref() else {
                    break;
                };
                let options = view.options.len();
                let area = a.walk_layout().question;
                let column = area.x + area.width - 1;
                for _ in 0..options {
                    let buffer = {
                        let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
                        t.draw(|frame| lore::tui::views::draw(frame, &a)).unwrap();
                        t.backend().buffer().clone()
                    };
                    for y in area.y..area.y + area.height {
                        let cell = buffer[(column, y)].symbol();
                        assert!(
                            [" ", "▲", "▼"].contains(&cell),
                            "tree {tree} at {w}x{h}: `{cell}` in the mark column, row {y}:\n{}",
                            screen(&a)
                        );
                    }
                    press(&mut a, &["down"]);
                }
                press(&mut a, &["1"]);
            }
        }
    }
}

/// The breadcrumb showed option labels as written: `` No, `import torch`
/// works `` with its backticks. It shows them as the options read.
#[test]
fn the_breadcrumb_shows_labels_rendered() {
    let mut a = app(100, 30);
    // need-cupti: pip, a CUDA 12 build, then "No, `import torch` works".
    press(&mut a, &["d", "4", "1", "1", "2"]);
    let crumbs = rows(&a)[1].clone();
    assert!(crumbs.contains("No, import torch works"), "{crumbs}");
    assert!(!crumbs.contains('`'), "{crumbs}");
}

/// A related tree on an outcome is a lore link: marked `→` like the
/// evidence, Tab says Enter starts it (it said "web link … lore never opens
/// it"), and Enter starts that tree.
#[test]
fn a_related_tree_on_an_outcome_is_a_lore_link_enter_opens() {
    let mut a = app(100, 40);
    // devel-as-runtime: development image → outcome with `related = ["need-cupti"]`.
    press(&mut a, &["d", "3", "1"]);
    let title = "Do I need CUPTI in this image?";
    // The related trees end the page.
    press(&mut a, &["G"]);
    let mut found = false;
    for _ in 0..30 {
        press(&mut a, &["tab"]);
        let s = screen(&a);
        if s.contains("decision tree need-cupti") {
            found = true;
            break;
        }
        assert!(!s.contains("lore never opens it"), "{s}");
    }
    let s = screen(&a);
    assert!(found, "no related link reached by Tab:\n{s}");
    assert!(s.contains("(Enter starts it)"), "{s}");
    assert!(
        s.contains(&format!("→{title}")),
        "marked as a lore link:\n{s}"
    );
    press(&mut a, &["enter"]);
    let walk = a.trees.walk.as_ref().expect("a walk");
    assert_eq!(walk.session.tree().id, "need-cupti");
    assert!(screen(&a).contains(title), "{}", screen(&a));
}

/// A pasted log with more failure lines than fit above the hits: they were
/// listed in log order and the line that decided the search (the last
/// failure) was one of the "and N more lines". It comes first now.
#[test]
fn a_pasted_log_shows_its_deciding_line_above_the_hits() {
    let mut a = app(80, 24);
    let index = common::ready_index(&mut a);
    let log = "\
#8 2.1 W: GPG error: https://example.invalid/repo InRelease: The following signatures couldn't be verified
#8 2.2 E: Failed to fetch https://example.invalid/repo/Packages 404 Not Found
#9 0.5 CMake Warning at CMakeLists.txt:10 (message): something old
#9 0.7 CMake Warning at CMakeLists.txt:20 (message): something else
#9 4.2 ImportError: libcupti.so.12: cannot open shared object file: No such file or directory
";
    press(&mut a, &["/"]);
    a.update(Action::Paste(log.into()));
    common::pump(&mut a, &index);
    assert!(a.search.searched.len() > 3, "{:?}", a.search.searched);
    let s = screen(&a);
    let first = s
        .lines()
        .find(|l| l.contains("searched:"))
        .unwrap_or_default()
        .to_string();
    assert!(first.contains("ImportError: libcupti.so.12"), "{s}");
}

/// Opening a hit found by a pasted traceback marked every word of the log in
/// the document (`file`, `line`, `error`, `no`, `such` …): only the rare
/// ones are marked now.
#[test]
fn a_document_opened_from_a_pasted_log_marks_only_its_rare_words() {
    let mut a = app(100, 30);
    let index = common::ready_index(&mut a);
    let log = "Traceback (most recent call last):\n  File \"/app/train.py\", line 3, in <module>\n    import torch\nImportError: libcupti.so.12: cannot open shared object file: No such file or directory\n";
    press(&mut a, &["/"]);
    a.update(Action::Paste(log.into()));
    common::pump(&mut a, &index);
    assert!(!a.search.hits.is_empty());
    press(&mut a, &["enter"]);
    let terms = &a.reader.page.as_ref().expect("a document").terms;
    assert!(terms.iter().any(|t| t.contains("libcupti")), "{terms:?}");
    for common in [
        "file",
        "line",
        "error",
        "no",
        "traceback",
        "most",
        "recent",
        "call",
        "cupti",
        "12",
    ] {
        assert!(
            !terms.iter().any(|t| t == common),
            "`{common}` marked: {terms:?}"
        );
    }
}
