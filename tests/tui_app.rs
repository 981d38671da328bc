//! What the app does in answer to keys, checked on its state and the effects
//! it asks for (no terminal): reading, links, history, copying.

mod common;

use lore::corpus::LinkTarget;
use lore::theme::Theme;
use lore::tui::action::Action;
use lore::tui::app::{App, Effect, Level, Screen};
use lore::tui::keymap::{Key, Mode};
use lore::tui::reader::{At, Via};

const CUPTI: &str = "cuda/20-cupti-deep-dive-arr-coc.md";

fn app() -> App {
    common::shipped_app(Theme::plain(), 100, 30)
}

fn press(app: &mut App, keys: &[&str]) {
    for name in keys {
        let key = Key::parse(name).expect("a key name");
        if let Some(action) = app.action_for_key(key) {
            app.update(action);
        }
    }
}

fn open(app: &mut App, path: &str, at: At) {
    assert!(app.open_document(path, at, Vec::new(), Via::Screen(Screen::Library)));
}

fn page(app: &App) -> &lore::tui::page::Page {
    app.reader.page.as_ref().expect("a page is open")
}

fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

fn copies(app: &mut App) -> Vec<String> {
    app.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Copy(text) => Some(text),
            _ => None,
        })
        .collect()
}

#[test]
fn enter_in_the_library_opens_the_selected_document_and_esc_returns() {
    let mut a = app();
    press(&mut a, &["j"]);
    let selected = a.library.selected_doc().unwrap();
    press(&mut a, &["enter"]);
    assert_eq!(a.screen, Screen::Reader);
    assert_eq!(page(&a).doc.path, a.corpus.documents[selected].path);
    press(&mut a, &["esc"]);
    assert_eq!(a.screen, Screen::Library);
}

#[test]
fn following_a_link_and_going_back_returns_to_the_same_place() {
    let mut a = app();
    open(&mut a, CUPTI, At::Line(5));
    let top = page(&a).top;
    press(&mut a, &["tab"]);
    let link = page(&a).focused().cloned().expect("a link on screen");
    let LinkTarget::Internal { path, .. } = &link.target else {
        panic!("expected an internal link first, got {link:?}");
    };
    press(&mut a, &["enter"]);
    assert_eq!(&page(&a).doc.path, path);
    press(&mut a, &["backspace"]);
    assert_eq!(page(&a).doc.path, CUPTI);
    assert_eq!(page(&a).top, top);
    press(&mut a, &["L"]);
    assert_eq!(&page(&a).doc.path, path, "forward goes to the link again");
    press(&mut a, &["H", "backspace"]);
    assert_eq!(
        a.screen,
        Screen::Library,
        "back past the first page leaves the reader"
    );
}

/// Reading a line of links one by one: Tab, Enter, Backspace, Tab must
/// reach the next link. Back on the page, the followed link is focused
/// again, so Tab goes on from it; it used to start again from the first
/// link on screen, and the later links were out of reach this way.
#[test]
fn coming_back_from_a_link_keeps_it_focused_and_tab_goes_on_from_it() {
    let mut a = app();
    open(&mut a, CUPTI, At::Line(5));
    let mut followed = Vec::new();
    for _ in 0..3 {
        press(&mut a, &["tab"]);
        let link = page(&a).focused().cloned().expect("a link on screen");
        followed.push(link.index);
        if matches!(link.target, LinkTarget::Internal { .. }) {
            press(&mut a, &["enter"]);
            assert_ne!(page(&a).focused().map(|l| l.index), Some(link.index));
            press(&mut a, &["backspace"]);
            assert_eq!(page(&a).doc.path, CUPTI);
            assert_eq!(
                page(&a).focused().map(|l| l.index),
                Some(link.index),
                "the followed link is focused again"
            );
        }
    }
    followed.dedup();
    assert_eq!(followed.len(), 3, "three different links: {followed:?}");
}

#[test]
fn a_web_link_is_shown_and_copied_never_opened() {
    let mut a = app();
    // The paragraph that links to NVIDIA's CUPTI modules page.
    open(&mut a, CUPTI, At::Line(58));
    let mut found = false;
    for _ in 0..20 {
        press(&mut a, &["tab"]);
        if matches!(
            page(&a).focused().map(|l| &l.target),
            Some(LinkTarget::External(_))
        ) {
            found = true;
            break;
        }
    }
    assert!(found, "a web link on screen");
    press(&mut a, &["enter"]);
    assert_eq!(page(&a).doc.path, CUPTI, "still on the same page");
    assert!(
        status(&a).contains("not opened: https://docs.nvidia.com/cupti/"),
        "{}",
        status(&a)
    );
    press(&mut a, &["c"]);
    assert_eq!(
        copies(&mut a),
        vec!["https://docs.nvidia.com/cupti/api/modules.html"]
    );
}

#[test]
fn y_copies_the_code_block_nearest_the_top_and_says_so() {
    let mut a = app();
    open(
        &mut a,
        CUPTI,
        At::Anchor("adding-cupti-to-a-runtime-image".into()),
    );
    let expected = page(&a).code_on_screen(a.reader_height())[0]
        .raw
        .to_string();
    press(&mut a, &["y"]);
    assert_eq!(copies(&mut a), vec![expected]);
    assert_eq!(a.status.as_ref().unwrap().level, Level::Ok);
    assert!(status(&a).starts_with("copied the"), "{}", status(&a));
}

#[test]
fn the_picker_copies_the_block_whose_number_is_pressed() {
    let mut a = app();
    open(
        &mut a,
        CUPTI,
        At::Anchor("adding-cupti-to-a-runtime-image".into()),
    );
    press(&mut a, &["Y"]);
    assert_eq!(a.mode(), Mode::Picker);
    let blocks = a.reader.picker.as_ref().unwrap().0.clone();
    let n = blocks.len();
    let last = page(&a).rendered.code_blocks[blocks[n - 1]].raw.to_string();
    a.update(Action::Choose(n));
    assert_eq!(a.mode(), Mode::Reader);
    assert_eq!(copies(&mut a), vec![last]);
}

#[test]
fn find_counts_matches_and_n_moves_through_them() {
    let mut a = app();
    open(&mut a, CUPTI, At::Top);
    press(&mut a, &["f"]);
    assert_eq!(a.mode(), Mode::Find);
    for c in "libcupti".chars() {
        a.update(Action::Input(c));
    }
    let count = a.reader.find.marks.len();
    assert!(count > 5, "{count} matches");
    press(&mut a, &["enter"]);
    assert_eq!(a.mode(), Mode::Reader);
    let first = a.reader.find.current.unwrap();
    press(&mut a, &["n", "n", "N"]);
    assert_eq!(a.reader.find.current, Some(first + 1));
    let line = a.reader.find.marks[first + 1].line;
    assert!(page(&a).visible(a.reader_height()).contains(&line));
    press(&mut a, &["esc"]);
    assert!(
        a.reader.find.marks.is_empty(),
        "Esc clears the matches first"
    );
    assert_eq!(a.screen, Screen::Reader);
}

/// less and vim habits in the reader: `/` finds in the document, and
/// searching everything is one key away (`s`); elsewhere `/` still searches.
/// Opening another document drops the old find.
#[test]
fn slash_finds_in_the_reader_and_s_searches_everything() {
    let mut a = app();
    press(&mut a, &["/"]);
    assert_eq!(a.screen, Screen::Search, "the library's / searches");
    press(&mut a, &["esc"]);
    open(&mut a, CUPTI, At::Top);
    press(&mut a, &["/"]);
    assert_eq!(a.mode(), Mode::Find);
    for c in "libcupti".chars() {
        a.update(Action::Input(c));
    }
    press(&mut a, &["enter"]);
    assert!(!a.reader.find.marks.is_empty());
    open(
        &mut a,
        "cuda/13-nvidia-container-cuda-packaging.md",
        At::Top,
    );
    assert!(
        a.reader.find.marks.is_empty(),
        "a new document starts without the old find"
    );
    assert!(a.reader.find.input.text.is_empty());
    // `n` with nothing to find names the key that finds, from the key table.
    press(&mut a, &["n"]);
    assert_eq!(status(&a), "nothing to find: / finds in this document");
    press(&mut a, &["s"]);
    assert_eq!(a.screen, Screen::Search);
}

#[test]
fn the_contents_panel_jumps_to_a_section() {
    let mut a = app();
    open(&mut a, CUPTI, At::Top);
    press(&mut a, &["t"]);
    assert_eq!(a.mode(), Mode::Toc);
    let headings = page(&a).rendered.headings.clone();
    let target = headings
        .iter()
        .position(|h| h.anchor == "overhead")
        .unwrap();
    for _ in 0..target {
        press(&mut a, &["j"]);
    }
    press(&mut a, &["enter"]);
    assert_eq!(
        page(&a).top,
        page(&a).rendered.line_for_anchor("overhead").unwrap()
    );
    press(&mut a, &["t"]);
    assert_eq!(a.mode(), Mode::Reader);
    assert_eq!(
        page(&a).top,
        page(&a).rendered.line_for_anchor("overhead").unwrap(),
        "closing the panel (a wider re-render) keeps the section at the top"
    );
}

#[test]
fn a_document_and_its_drop_are_one_key_apart() {
    let mut a = app();
    open(&mut a, CUPTI, At::Top);
    press(&mut a, &["D"]);
    assert_eq!(
        page(&a).doc.path,
        "drops/KNOWLEDGE-DROP-cupti-deep-dive-2026-11-22.md"
    );
    press(&mut a, &["D"]);
    assert_eq!(page(&a).doc.path, CUPTI);
}

#[test]
fn resizing_keeps_the_section_on_screen() {
    let mut a = app();
    open(&mut a, CUPTI, At::Anchor("overhead".into()));
    a.update(Action::Resize(50, 20));
    let line = page(&a).rendered.line_for_anchor("overhead").unwrap();
    assert_eq!(page(&a).top, line);
    a.update(Action::Resize(160, 50));
    let line = page(&a).rendered.line_for_anchor("overhead").unwrap();
    assert_eq!(page(&a).top, line);
}

#[test]
fn mouse_capture_toggles_and_asks_the_terminal() {
    let mut a = app();
    press(&mut a, &["m"]);
    assert!(a.mouse);
    assert_eq!(a.take_effects(), vec![Effect::Mouse(true)]);
    press(&mut a, &["m"]);
    assert_eq!(a.take_effects(), vec![Effect::Mouse(false)]);
}

#[test]
fn q_quits_from_the_reader_but_types_in_find() {
    let mut a = app();
    open(&mut a, CUPTI, At::Top);
    press(&mut a, &["f", "q"]);
    assert!(!a.quit);
    assert_eq!(a.reader.find.input.text, "q");
    press(&mut a, &["esc", "q"]);
    assert!(a.quit);
}

#[test]
fn a_walk_reaches_an_outcome_whose_evidence_opens_and_back_returns_to_it() {
    let mut a = app();
    press(&mut a, &["d"]);
    assert_eq!(a.mode(), Mode::Trees);
    press(&mut a, &["4"]);
    assert_eq!(a.mode(), Mode::Walk);
    // Arrows and Enter answer as digits do: pip, CUDA 12, then "the import fails".
    press(&mut a, &["enter", "enter", "down", "up", "enter"]);
    assert_eq!(a.mode(), Mode::Outcome);
    let walk = a.trees.walk.as_ref().unwrap();
    assert_eq!(walk.session.current_id(), "pip-reinstall-wheel");

    // Evidence is at the end of the page: scroll there and Tab to the first link.
    press(&mut a, &["G", "tab"]);
    let outcome_page = a.trees.walk.as_ref().unwrap().outcome.as_ref().unwrap();
    let link = outcome_page.focused().cloned().expect("an evidence link");
    assert_eq!(
        link.target,
        LinkTarget::Internal {
            path: "cuda/20-cupti-deep-dive-arr-coc.md".into(),
            anchor: Some("what-happens-without-it".into()),
        }
    );
    press(&mut a, &["enter"]);
    assert_eq!(a.screen, Screen::Reader);
    assert_eq!(page(&a).doc.path, CUPTI);
    assert_eq!(
        page(&a).top,
        page(&a)
            .rendered
            .line_for_anchor("what-happens-without-it")
            .unwrap()
    );
    press(&mut a, &["backspace"]);
    assert_eq!(a.mode(), Mode::Outcome, "back returns to the outcome");

    // Backspace on the outcome takes back the last answer.
    press(&mut a, &["backspace"]);
    assert_eq!(a.mode(), Mode::Walk);
    assert_eq!(
        a.trees.walk.as_ref().unwrap().session.current_id(),
        "pip-import"
    );
    assert_eq!(
        a.trees.walk.as_ref().unwrap().option,
        0,
        "the cursor is on the answer given"
    );
}

#[test]
fn leaving_a_walk_keeps_it_and_n_starts_over() {
    let mut a = app();
    press(&mut a, &["d", "4", "1", "esc"]);
    assert_eq!(a.mode(), Mode::Trees);
    assert!(a.trees.sessions.contains_key("need-cupti"));
    press(&mut a, &["enter"]);
    assert_eq!(
        a.trees.walk.as_ref().unwrap().session.path().len(),
        1,
        "resumed"
    );
    assert!(status(&a).contains("resumed"), "{}", status(&a));
    press(&mut a, &["esc", "n"]);
    assert!(
        a.trees.walk.as_ref().unwrap().session.path().is_empty(),
        "fresh"
    );
}

#[test]
fn the_transcript_is_copied_from_the_outcome() {
    let mut a = app();
    press(&mut a, &["d", "4", "1", "1", "1"]);
    let _ = a.take_effects();
    press(&mut a, &["x"]);
    let copied = copies(&mut a);
    assert_eq!(copied.len(), 1);
    assert!(
        copied[0].starts_with("# Do I need CUPTI in this image?"),
        "{}",
        copied[0]
    );
    assert!(copied[0].contains("## Outcome: Put the wheel's CUPTI back"));
    assert!(status(&a).contains("copied"), "{}", status(&a));
}

#[test]
fn digits_out_of_range_explain_the_choices() {
    let mut a = app();
    press(&mut a, &["d", "4", "9"]);
    assert_eq!(a.mode(), Mode::Walk);
    assert_eq!(status(&a), "choose 1 to 3");
}

#[test]
fn each_answer_saves_the_walk_and_an_outcome_forgets_it() {
    let mut a = app();
    a.trees.can_save = true;
    press(&mut a, &["d", "4", "1"]);
    let effects = a.take_effects();
    assert!(
        matches!(effects.as_slice(), [Effect::SaveSession(s)] if s.path().len() == 1),
        "{effects:?}"
    );
    press(&mut a, &["1"]);
    let _ = a.take_effects();
    press(&mut a, &["1"]);
    assert_eq!(
        a.take_effects(),
        vec![Effect::ForgetSession("need-cupti".into())]
    );
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        app.update(Action::Input(c));
    }
}

#[test]
fn each_keystroke_asks_the_worker_and_old_answers_are_dropped() {
    let mut a = app();
    press(&mut a, &["/"]);
    assert_eq!(a.mode(), Mode::Search);
    type_text(&mut a, "cu");
    let queries: Vec<Effect> = a.take_effects();
    assert_eq!(
        queries,
        vec![
            Effect::Query {
                generation: 1,
                text: "c".into()
            },
            Effect::Query {
                generation: 2,
                text: "cu".into()
            },
        ]
    );
    let index = common::ready_index(&mut a);
    let newest = std::sync::Arc::new(index.query("cu", 5));
    a.update(Action::SearchResults {
        generation: 2,
        hits: newest.clone(),
        searched: std::sync::Arc::new(Vec::new()),
        marked: std::sync::Arc::new(Vec::new()),
    });
    a.update(Action::SearchResults {
        generation: 1,
        hits: std::sync::Arc::new(Vec::new()),
        searched: std::sync::Arc::new(Vec::new()),
        marked: std::sync::Arc::new(Vec::new()),
    });
    assert_eq!(
        a.search.hits, newest,
        "the answer to `c` came late and was dropped"
    );
    assert_eq!(a.search.answered, "cu");
}

#[test]
fn a_query_typed_while_indexing_is_answered_when_the_index_is_ready() {
    let mut a = app();
    press(&mut a, &["/"]);
    type_text(&mut a, "nsys");
    let _ = a.take_effects();
    let index = common::ready_index(&mut a);
    common::pump(&mut a, &index);
    assert!(!a.search.hits.is_empty());
    assert!(!a.search.is_waiting());
}

#[test]
fn enter_opens_the_hit_at_its_section_with_the_terms_marked_and_esc_keeps_the_query() {
    let mut a = app();
    let index = common::ready_index(&mut a);
    press(&mut a, &["/"]);
    type_text(&mut a, "libcupti");
    common::pump(&mut a, &index);
    let hit = a.search.hits[0].clone();
    press(&mut a, &["enter"]);
    assert_eq!(a.screen, Screen::Reader);
    assert_eq!(page(&a).doc.path, hit.path);
    assert_eq!(
        page(&a).top,
        page(&a).rendered.line_for_anchor(&hit.anchor).unwrap()
    );
    assert!(page(&a).terms.contains(&"libcupti".to_string()));
    assert!(!page(&a).term_marks.is_empty());
    press(&mut a, &["esc", "esc"]);
    assert_eq!(
        a.screen,
        Screen::Search,
        "Esc clears the marks, then returns"
    );
    assert_eq!(a.search.input.text, "libcupti");
    press(&mut a, &["esc"]);
    assert_eq!(a.screen, Screen::Library);
    press(&mut a, &["/"]);
    assert_eq!(a.search.input.text, "libcupti", "the query is kept");
}

#[test]
fn pasting_outside_a_text_box_searches_for_the_paste() {
    let mut a = app();
    a.update(Action::Paste(
        "ImportError: libcupti.so.12: cannot open shared object file\n".into(),
    ));
    assert_eq!(a.screen, Screen::Search);
    // The search box keeps a paste's line breaks: a log is triaged by line.
    assert_eq!(
        a.search.input.text,
        "ImportError: libcupti.so.12: cannot open shared object file\n"
    );
    assert!(matches!(
        a.take_effects().as_slice(),
        [Effect::Query { .. }]
    ));
}

use common::screen_text as screen;

#[test]
fn a_pasted_build_log_of_any_size_is_triaged_and_its_lines_shown() {
    let mut a = app();
    let index = common::ready_index(&mut a);
    // 2 MB of download noise, then the failing apt step at the end.
    let mut log = String::new();
    let mut i = 0;
    while log.len() < 2 << 20 {
        log.push_str(&format!(
            "#7 {i}.1 Get:{i} http://archive.ubuntu.com/ubuntu jammy/main amd64 package-{i} [1 kB]\n"
        ));
        i += 1;
    }
    log.push_str("#7 9.913 E: Conflicting values set for option Signed-By regarding source https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /: /usr/share/keyrings/cuda-archive-keyring.gpg != \n");
    log.push_str("#7 9.914 E: The list of sources could not be read.\n");
    log.push_str("#7 ERROR: process \"/bin/sh -c apt-get update\" did not complete successfully: exit code: 100\n");
    a.update(Action::Paste(log));
    assert!(a.search.input.cut, "a paste over 1 MB is cut");
    assert!(a.search.input.text.len() <= lore::tui::search::MAX_QUERY_BYTES);
    assert!(
        a.search.input.text.contains("Conflicting values"),
        "the end is kept"
    );
    common::pump(&mut a, &index);
    assert_eq!(a.search.searched.len(), 3, "{:?}", a.search.searched);
    assert!(a.search.searched[0].contains("Conflicting values set for option Signed-By"));
    assert!(!a.search.hits.is_empty());
    let shown = screen(&a);
    // Shown as apt printed it, without BuildKit's `#7 9.913 `.
    assert!(shown.contains("searched: E: Conflicting values"), "{shown}");
    assert!(!shown.contains("searched: #7"), "{shown}");
    assert!(shown.contains("cut to its last 1 MB"), "{shown}");
}

/// GNOME Terminal and other VTE terminals, and tmux's paste, send a carriage
/// return for each line break. The search box keeps them as line breaks,
/// so a pasted build log is triaged line by line (its failing line searched
/// and shown) instead of read as one long line.
#[test]
fn a_log_pasted_with_carriage_returns_is_triaged_by_line() {
    let mut a = app();
    let index = common::ready_index(&mut a);
    let log = [
        "#8 [4/6] RUN python setup.py build_ext",
        "#8 1.402 running build_ext",
        "#8 5.713 nvcc fatal   : Unsupported gpu architecture 'compute_35'",
        "#8 ERROR: process \"/bin/sh -c python setup.py build_ext\" did not complete successfully: exit code: 1",
    ];
    a.update(Action::Paste(log.join("\r")));
    assert_eq!(a.search.input.text, log.join("\n"));
    common::pump(&mut a, &index);
    assert_eq!(a.search.searched.len(), 2, "{:?}", a.search.searched);
    assert!(a.search.searched[0].contains("Unsupported gpu architecture"));
    let shown = screen(&a);
    assert!(shown.contains("searched: nvcc fatal"), "{shown}");
}

#[test]
fn the_search_box_edits_at_the_cursor() {
    let mut a = app();
    let index = common::ready_index(&mut a);
    press(&mut a, &["/"]);
    for c in "libcupt.so".chars() {
        a.update(Action::Input(c));
    }
    press(&mut a, &["left", "left", "left"]);
    a.update(Action::Input('i'));
    assert_eq!(a.search.input.text, "libcupti.so");
    press(&mut a, &["home"]);
    a.update(Action::Input('x'));
    press(&mut a, &["end", "backspace"]);
    assert_eq!(a.search.input.text, "xlibcupti.s");
    press(&mut a, &["home", "right", "backspace"]);
    assert_eq!(a.search.input.text, "libcupti.s");
    common::pump(&mut a, &index);
    assert!(!a.search.hits.is_empty());
    assert!(screen(&a).contains("search: ▏libcupti.s"), "{}", screen(&a));
}

#[test]
fn a_weak_best_hit_is_called_weak_on_the_search_screen() {
    let mut a = app();
    let index = common::ready_index(&mut a);
    press(&mut a, &["/"]);
    a.update(Action::Paste(
        "ORA-12154: TNS:could not resolve the connect identifier specified".into(),
    ));
    common::pump(&mut a, &index);
    assert!(!a.search.hits.is_empty());
    assert!(
        screen(&a).contains("no section answers this confidently; closest:"),
        "{}",
        screen(&a)
    );
    // A message the knowledge quotes is answered without the notice (a bare
    // `libcupti.so.12`, which many sections name, is now called weak: the
    // confidence is the probability that the first of them answers).
    press(&mut a, &["ctrl-u"]);
    a.update(Action::Paste(
        "ImportError: libcupti.so.12: cannot open shared object file: No such file or directory"
            .into(),
    ));
    common::pump(&mut a, &index);
    assert!(!a.search.hits.is_empty());
    assert!(!screen(&a).contains("confidently"), "{}", screen(&a));
}

#[test]
fn an_outcome_left_for_the_reader_and_the_list_is_still_there_after() {
    let mut a = app();
    press(&mut a, &["d", "4", "1", "1", "1"]);
    assert_eq!(a.mode(), Mode::Outcome);
    press(&mut a, &["d"]);
    assert_eq!(a.mode(), Mode::Trees);
    press(&mut a, &["enter"]);
    assert_eq!(
        a.mode(),
        Mode::Outcome,
        "picking the tree again shows its outcome"
    );
    press(&mut a, &["n"]);
    assert_eq!(a.mode(), Mode::Walk, "n starts over");
    assert!(a.trees.walk.as_ref().unwrap().session.path().is_empty());
}

/// The distinct foreground colours of the rendered lines holding `needle`.
fn colours_of_lines_with(a: &App, needle: &str) -> std::collections::HashSet<String> {
    page(a)
        .rendered
        .lines
        .iter()
        .filter(|line| {
            let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
            text.contains(needle)
        })
        .flat_map(|line| {
            line.spans
                .iter()
                .map(|s| format!("{:?}", s.style.fg))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_big_code_block_opens_at_once_in_plain_text_and_is_coloured_by_the_worker() {
    use lore::markdown::{Highlighter, INTERACTIVE_LINES};
    use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};
    // A block of Rust far beyond what one render may colour: opening it
    // must not wait for syntect (a 6.9 MB block once froze the TUI 12 s).
    let dir = tempfile::tempdir().unwrap();
    let mut code = String::new();
    for i in 0..INTERACTIVE_LINES * 5 {
        code.push_str(&format!("let value{i} = \"text\"; // note {i}\n"));
    }
    std::fs::write(
        dir.path().join("big-block.md"),
        format!("# Big block\n\n```rust\n{code}```\n"),
    )
    .unwrap();
    let corpus = lore::corpus::Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![dir.path().to_path_buf()],
    });
    let theme = Theme::for_name(lore::config::ThemeName::Dark);
    let mut a = common::app_on(corpus, theme.clone(), 100, 30);
    a.update(Action::HighlighterReady);
    a.take_effects();

    open(&mut a, "big-block.md", At::Line(1));
    let plain = colours_of_lines_with(&a, "let value7 ");
    assert_eq!(
        plain.len(),
        1,
        "drawn plain at first, in one style: {plain:?}"
    );
    let handed_over: Vec<_> = a
        .take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Highlight(doc) => Some(doc),
            _ => None,
        })
        .collect();
    assert_eq!(
        handed_over.len(),
        1,
        "the block goes to the highlighter worker"
    );
    assert_eq!(handed_over[0].path, "big-block.md");

    // What the worker does, then its answer.
    Highlighter::global().prepare(&handed_over[0], &theme);
    a.update(Action::Highlighted("big-block.md".to_string()));
    let coloured = colours_of_lines_with(&a, "let value7 ");
    assert!(
        coloured.len() >= 3,
        "keyword, string and comment in colour once the worker is done: {coloured:?}"
    );
    // Reopening does not hand the document over again.
    press(&mut a, &["esc"]);
    open(&mut a, "big-block.md", At::Line(1));
    assert!(
        !a.take_effects()
            .iter()
            .any(|e| matches!(e, Effect::Highlight(_)))
    );
}

#[test]
fn up_in_an_empty_search_box_walks_back_through_earlier_searches() {
    let mut a = app();
    a.history.searched("nccl timeout");
    a.history.searched("libcupti");
    let index = common::ready_index(&mut a);
    press(&mut a, &["/", "up"]);
    common::pump(&mut a, &index);
    assert_eq!(a.search.input.text, "libcupti", "the latest first");
    assert!(!a.search.hits.is_empty());
    press(&mut a, &["up"]);
    assert_eq!(a.search.input.text, "nccl timeout");
    press(&mut a, &["up"]);
    assert_eq!(a.search.input.text, "nccl timeout");
    assert!(status(&a).contains("earliest"), "{}", status(&a));
    // Once the text is edited, Up moves through the hits again.
    press(&mut a, &["s"]);
    common::pump(&mut a, &index);
    press(&mut a, &["down", "down", "up"]);
    assert_eq!(a.search.input.text, "nccl timeouts");
    assert_eq!(a.search.cursor.selected, 1);
    // Opening a hit remembers the search, latest first.
    press(&mut a, &["enter"]);
    assert_eq!(a.history.searches[0], "nccl timeouts");
}

fn walk(app: &App) -> &lore::tui::trees::Walk {
    app.trees.walk.as_ref().expect("a walk")
}

fn panel(app: &App) -> &lore::tui::page::Page {
    &walk(app).question.as_ref().expect("a question").panel
}

#[test]
fn a_questions_read_more_opens_in_the_reader_and_backspace_returns_to_it() {
    let mut a = app();
    press(&mut a, &["d", "4"]);
    assert_eq!(walk(&a).session.current_id(), "torch-install");
    press(&mut a, &["tab"]);
    let link = panel(&a).focused().cloned().expect("a link in the panel");
    assert_eq!(
        link.target,
        LinkTarget::Internal {
            path: CUPTI.into(),
            anchor: Some("who-loads-cupti".into()),
        }
    );
    assert!(status(&a).contains("(Enter opens)"), "{}", status(&a));
    // The link is named by the heading it points at.
    assert_eq!(link.text, "Who loads CUPTI");
    press(&mut a, &["enter"]);
    assert_eq!(a.screen, Screen::Reader);
    assert_eq!(
        page(&a).top,
        page(&a)
            .rendered
            .line_for_anchor("who-loads-cupti")
            .unwrap()
    );
    press(&mut a, &["backspace"]);
    assert_eq!(a.mode(), Mode::Walk, "back to the question");
    assert_eq!(walk(&a).session.current_id(), "torch-install");
    assert!(walk(&a).session.path().is_empty(), "nothing was answered");

    // Moving to another option leaves the link: Enter answers again.
    press(&mut a, &["tab", "down"]);
    assert!(panel(&a).focus.is_none());
    press(&mut a, &["enter"]);
    assert_eq!(
        walk(&a).session.path(),
        [("torch-install".into(), "conda".into())]
    );
}

#[test]
fn y_and_shift_y_copy_the_panels_commands_as_written() {
    // 60x15: the panel shows four rows, so its commands start out of view.
    let mut a = common::shipped_app(Theme::plain(), 60, 15);
    press(&mut a, &["d", "4"]);
    let _ = a.take_effects();
    press(&mut a, &["y"]);
    assert!(copies(&mut a).is_empty());
    assert!(status(&a).contains("PgDn"), "{}", status(&a));
    press(&mut a, &["Y"]);
    let both = "pip show torch | grep -E '^(Version|Location)'\n\
                python -c \"import importlib.metadata as m; print(m.version('torch'))\"\n";
    assert_eq!(copies(&mut a), vec![both.to_string()]);

    // PgDn scrolls the panel, not the options, until the block is in view.
    let height = a.walk_layout().panel.height as usize;
    for _ in 0..40 {
        if !panel(&a).code_on_screen(height).is_empty() {
            break;
        }
        press(&mut a, &["pagedown"]);
    }
    assert!(panel(&a).top > 0);
    assert_eq!(walk(&a).option, 0);
    press(&mut a, &["y"]);
    let copied = copies(&mut a);
    assert_eq!(copied.len(), 1, "{} at {}", status(&a), panel(&a).top);
    assert_eq!(copied[0], both, "no wrap marks, no indent");
    assert!(
        status(&a).contains("copied the bash block (2 lines)"),
        "{}",
        status(&a)
    );
}

#[test]
fn a_related_decision_on_an_outcome_starts_that_tree() {
    let mut a = app();
    press(&mut a, &["d", "4", "1", "1", "1"]);
    assert_eq!(walk(&a).session.current_id(), "pip-reinstall-wheel");
    press(&mut a, &["G"]);
    let related = LinkTarget::External("decide:devel-as-runtime".into());
    let mut found = false;
    for _ in 0..10 {
        press(&mut a, &["tab"]);
        let page = walk(&a).outcome.as_ref().unwrap();
        if page.focused().is_some_and(|l| l.target == related) {
            assert_eq!(
                page.focused().unwrap().text,
                "Should the devel image be my runtime image?"
            );
            found = true;
            break;
        }
    }
    assert!(found, "the related tree is a link");
    press(&mut a, &["enter"]);
    assert_eq!(a.mode(), Mode::Walk);
    assert_eq!(walk(&a).session.tree().id, "devel-as-runtime");
    assert_eq!(walk(&a).session.current_id(), "purpose");
    assert!(
        a.trees.sessions.contains_key("need-cupti"),
        "the finished walk is kept for this run"
    );
}

/// A footnote reference is reached by Tab like any link; Enter shows its
/// note (far below, off screen) and Backspace comes back to the claim.
#[test]
fn tab_reaches_a_footnote_reference_and_enter_jumps_to_its_note() {
    use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("# Claims\n\nThe runtime image lacks CUPTI[^cupti].\n\n");
    for i in 0..80 {
        text.push_str(&format!("Filler paragraph {i}.\n\n"));
    }
    text.push_str("[^cupti]: Only the devel image ships `libcupti.so`.\n\n## Appendix\n\n");
    for i in 0..40 {
        text.push_str(&format!("More filler {i}.\n\n"));
    }
    std::fs::write(dir.path().join("claims.md"), text).unwrap();
    let corpus = lore::corpus::Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![dir.path().to_path_buf()],
    });
    let mut a = common::app_on(corpus, Theme::plain(), 100, 30);
    open(&mut a, "claims.md", At::Top);
    assert_eq!(page(&a).top, 0);

    press(&mut a, &["tab"]);
    let link = page(&a)
        .focused()
        .cloned()
        .expect("the reference is a link");
    assert_eq!(
        link.target,
        LinkTarget::Internal {
            path: "claims.md".into(),
            anchor: Some("fn:cupti".into())
        }
    );
    assert!(status(&a).starts_with("footnote [cupti]"), "{}", status(&a));

    press(&mut a, &["enter"]);
    let p = page(&a);
    assert_eq!(p.doc.path, "claims.md");
    assert!(p.top > 0, "the view moved");
    let first = p.rendered.lines.text(p.top).to_string();
    assert!(
        first.starts_with("[cupti] Only the devel image ships"),
        "the note is at the top: {first:?}"
    );

    press(&mut a, &["backspace"]);
    assert_eq!(page(&a).doc.path, "claims.md");
    assert_eq!(page(&a).top, 0, "back at the claim");
}

/// The selected hit says when a section question matched, in the line under
/// its snippet, as `lore search` does; the other hits keep their blank line.
#[test]
fn the_selected_hit_says_which_section_question_matched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gpu.md"),
        "# GPU memory\n\n## Finding which process holds the GPU\n\n<!-- questions\n- What program is hogging my graphics card after a crash?\n- Why does `nvidia-smi` list no processes inside a container?\n-->\n\nInside a container `nvidia-smi` cannot map host PIDs to processes.\n\n## Freeing a card\n\nA program hogging a card is stopped with `kill`; the card is freed when its process ends.\n\n<!-- questions\n- How do I free a graphics card without rebooting?\n- Which signal stops a program that holds the GPU?\n-->\n",
    )
    .unwrap();
    let corpus = lore::corpus::Corpus::load(&lore::sources::SourceSet {
        builtin: Some(&lore::sources::BUILTIN_KNOWLEDGE),
        overlays: vec![dir.path().to_path_buf()],
    });
    let mut a = common::app_on(corpus, Theme::plain(), 100, 30);
    let index = common::ready_index(&mut a);
    press(&mut a, &["/"]);
    type_text(&mut a, "what program is hogging my graphics card ");
    common::pump(&mut a, &index);
    assert!(a.search.hits.len() >= 2, "{:?}", a.search.hits);
    let shown = screen(&a);
    assert!(
        shown.contains(
            "matched the section's question: What program is hogging my graphics card after a crash?"
        ),
        "{shown}"
    );
    assert_eq!(
        shown.matches("matched the section's question").count(),
        1,
        "{shown}"
    );
}

/// docker's CLI reference (cli-docs-tool): the Options table links
/// `[--add-host](#add-host)` to `### <a name="add-host"></a> Add entries to
/// the hosts file (--add-host)`. Enter goes to that heading, shown without
/// the tag (it said "no section `#add-host` in this document").
#[test]
fn an_option_link_to_a_docker_reference_html_anchor_is_followed() {
    use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from(
        "# docker run\n\n| Option | Description |\n|:--|:--|\n| [`--add-host`](#add-host) | Add a custom host |\n\n",
    );
    for i in 0..60 {
        text.push_str(&format!("Filler paragraph {i}.\n\n"));
    }
    text.push_str(
        "### <a name=\"add-host\"></a> Add entries to the hosts file (--add-host)\n\nBody.\n\n",
    );
    for i in 0..40 {
        text.push_str(&format!("More filler {i}.\n\n"));
    }
    std::fs::write(dir.path().join("run.md"), text).unwrap();
    let corpus = lore::corpus::Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![dir.path().to_path_buf()],
    });
    let mut a = common::app_on(corpus, Theme::plain(), 100, 30);
    open(&mut a, "run.md", At::Top);
    press(&mut a, &["tab", "enter"]);
    let p = page(&a);
    assert_eq!(status(&a), "", "no warning");
    assert!(p.top > 0, "the view moved");
    let first = p.rendered.lines.text(p.top).to_string();
    assert_eq!(first, "▸ Add entries to the hosts file (--add-host)");
}

/// Hugging Face doc-builder pages link `../supported_models` (no `.md`)
/// and READMEs link folders (`../tools/`, GitHub shows its README.md):
/// Enter opens the page the doc site would (it said "no document"). A
/// link into `.github/` says lore does not read hidden folders.
#[test]
fn extensionless_and_folder_links_open_the_page_a_doc_site_shows() {
    use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for folder in ["guides", "tools", ".github"] {
        std::fs::create_dir(root.join(folder)).unwrap();
    }
    std::fs::write(
        root.join("guides/start.md"),
        "# Start\n\n[models](../supported_models), [tools](../tools/), [contributing](../.github/CONTRIBUTING.md).\n",
    )
    .unwrap();
    std::fs::write(root.join("supported_models.md"), "# Supported models\n").unwrap();
    std::fs::write(root.join("tools/README.md"), "# Tools\n").unwrap();
    std::fs::write(root.join(".github/CONTRIBUTING.md"), "# Contributing\n").unwrap();
    let corpus = lore::corpus::Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![root.to_path_buf()],
    });
    let mut a = common::app_on(corpus, Theme::plain(), 100, 30);
    open(&mut a, "guides/start.md", At::Top);
    press(&mut a, &["tab", "enter"]);
    assert_eq!(page(&a).doc.path, "supported_models.md", "{}", status(&a));
    press(&mut a, &["backspace", "tab", "enter"]);
    assert_eq!(page(&a).doc.path, "tools/README.md", "{}", status(&a));
    press(&mut a, &["backspace", "tab", "enter"]);
    assert_eq!(page(&a).doc.path, "guides/start.md");
    assert_eq!(
        status(&a),
        "`.github/CONTRIBUTING.md` is in the hidden folder `.github/`, which lore does not read"
    );
}
