//! The TUI's rough edges of issue #29 (item 4), each seen on a real terminal:
//! the `lore` binary in a pseudo-terminal, keys in and the screen read back
//! through a vt100 parser (the harness of `tui_pty.rs`, in `common/pty.rs`).
//! `tui_screens.rs` checks the same behaviour on ratatui's TestBackend; these
//! check what reaches the terminal.

mod common;
#[path = "common/pty.rs"]
mod pty;

use pty::Pty;

fn last_line(screen: &str) -> String {
    screen.lines().last().unwrap_or("").trim_end().to_string()
}

/// What the parser holds in one cell (`" "` for an empty one).
fn cell(pty: &Pty, row: u16, col: u16) -> String {
    let parser = pty.parser.lock().unwrap();
    let contents = parser
        .screen()
        .cell(row, col)
        .map(|c| c.contents().to_string())
        .unwrap_or_default();
    if contents.is_empty() {
        " ".to_string()
    } else {
        contents
    }
}

/// At 80 columns the library's path column is 26 wide. Cut from the left,
/// `cuda/10-docker-multistage-ml-optimization.md` and
/// `cuda/10-performance-debugging-profiling-expert.md` lost the folder and
/// number that tell them apart (`…istage-ml-optimization.md`); the folder,
/// number and first word stay now.
#[test]
fn library_rows_at_80_columns_keep_the_number_prefix_of_each_path() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 80, 24);
    pty.wait_for("lore · Library");
    let screen = settle(&pty);
    for prefix in ["cuda/10-docker…", "cuda/10-performance…"] {
        assert!(screen.contains(prefix), "{prefix} missing:\n{screen}");
    }
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// Tab on a link with a long anchor: the status (`→ PATH#ANCHOR  (Enter
/// opens)`) is wider than 80 columns. It kept its start and lost its end,
/// the part that says what Enter does; its middle gives way now.
#[test]
fn a_long_status_message_keeps_its_end_at_80_columns() {
    let home = common::home();
    let knowledge = tempfile::tempdir().unwrap();
    let cuda = knowledge.path().join("cuda");
    std::fs::create_dir(&cuda).unwrap();
    let anchor = "what-torchcompile-triton-and-cpp_extension-need-at-run-time";
    std::fs::write(
        cuda.join("notes.md"),
        format!(
            "# Notes\n\nSee [what the JIT needs](21-docker-build-strategy-patterns.md#{anchor}).\n"
        ),
    )
    .unwrap();
    std::fs::write(
        cuda.join("21-docker-build-strategy-patterns.md"),
        "# Build strategies\n\n## What torch.compile, Triton and cpp_extension need at run time\n\nA C compiler.\n",
    )
    .unwrap();
    let dir = knowledge.path().to_str().unwrap();
    let args = ["--no-builtin", "--knowledge", dir, "open", "cuda/notes.md"];
    let mut pty = Pty::spawn(&home, &args, 80, 24);
    pty.wait_for("what the JIT needs");
    pty.send("\t");
    pty.wait_until("the link's status", |s| last_line(s).contains(" → cuda/"));
    let screen = settle(&pty);
    let status = last_line(&screen);
    assert!(status.starts_with(" → cuda/21-docker"), "{screen}");
    assert!(status.ends_with("(Enter opens)"), "{screen}");
    assert!(status.contains('…'), "{screen}");
    pty.send("\r");
    pty.wait_for("A C compiler.");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// The search screen's key hints at 80 columns stopped before `Up previous
/// hit or search`, which did not fit: the bar names Up's main use now, and
/// help (F1) has the whole description.
#[test]
fn the_search_hints_fit_at_80_columns() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 80, 24);
    pty.wait_for("lore · Library");
    pty.send("/");
    pty.wait_until("Up's hint in the key bar", |s| {
        last_line(s).contains("Up previous hit")
    });
    let screen = settle(&pty);
    assert!(!last_line(&screen).contains("or search"), "{screen}");
    pty.send("\x1bOP");
    pty.wait_for("previous hit or search");
    pty.send("\x1b");
    pty.wait_until("help to close", |s| !s.contains("Keys — Esc closes"));
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// A question with more options than a short terminal shows: the list
/// scrolls and `▼` (`▲`) in the question area's last column says rows are
/// hidden. Option text reached that column and the mark covered a letter.
/// Along a walk of cuda-install-method, at two short sizes, each option
/// selected in turn: that column holds only a mark or nothing.
#[test]
fn the_scroll_mark_of_an_option_list_never_covers_option_text() {
    // Each question (as its first line starts), its options, the answer.
    let walk = [
        ("Where are you installing CUDA?", 2, "2"),
        ("already work on this host?", 2, "1"),
        ("What does this host need CUDA for?", 2, "2"),
        ("Should the toolkit live", 2, "2"),
        ("Can you install with the", 2, "1"),
        ("Can this host reach", 2, "1"),
        ("How should the toolkit", 3, "1"),
    ];
    for (cols, rows) in [(60, 12), (70, 12)] {
        let home = common::home();
        let mut pty = Pty::spawn(&home, &[], cols, rows);
        pty.wait_for("lore · Library");
        pty.send("d");
        pty.wait_for("lore · Decision trees");
        pty.send("2");
        let mut marks = 0;
        for (question, options, answer) in walk {
            pty.wait_for(question);
            for option in 0..options {
                if option > 0 {
                    let before = pty.screen();
                    pty.send("j");
                    pty.wait_until("the selection to move", |s| s != before);
                }
                settle(&pty);
                marks += mark_column_is_clear(&pty, cols, rows, question);
            }
            pty.send(answer);
        }
        assert!(marks > 0, "at {cols}x{rows} no list scrolled");
        pty.send("q");
        assert!(pty.wait_exit().success());
    }
}

/// Waits until two looks at the screen agree (a frame that came in pieces
/// is whole) and returns it.
fn settle(pty: &Pty) -> String {
    let start = std::time::Instant::now();
    let mut last = pty.screen();
    while start.elapsed() < pty::TIMEOUT {
        std::thread::sleep(std::time::Duration::from_millis(20));
        let now = pty.screen();
        if now == last {
            return now;
        }
        last = now;
    }
    last
}

/// Below 100 columns the question area spans the width less a margin on
/// each side, from the row under the breadcrumb to the panel's top border
/// (`┌`): its last column (the last but one of the terminal) holds only
/// `▲`, `▼` or nothing. Returns how many marks it holds.
fn mark_column_is_clear(pty: &Pty, cols: u16, rows: u16, question: &str) -> usize {
    let column = cols - 2;
    let border = (2..rows)
        .find(|&r| cell(pty, r, 0) == "┌")
        .unwrap_or_else(|| panic!("no panel border:\n{}", pty.screen()));
    let mut marks = 0;
    for row in 2..border {
        let c = cell(pty, row, column);
        assert!(
            [" ", "▲", "▼"].contains(&c.as_str()),
            "{question} at {cols}x{rows}: `{c}` in the mark column, row {row}:\n{}",
            pty.screen()
        );
        marks += usize::from(c != " ");
    }
    marks
}

/// The breadcrumb showed an option's label as written, `` No, `import
/// torch` works `` with its backticks; it shows it as the option reads.
#[test]
fn the_breadcrumb_shows_option_labels_rendered() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("Do I need CUPTI in this image?");
    pty.send("4");
    pty.wait_for("How did PyTorch get into the image");
    pty.send("1");
    pty.wait_for("Which build of torch is it");
    pty.send("1");
    pty.wait_for("Does import torch already fail");
    pty.send("2");
    pty.wait_for("Which profiling will you run in this image?");
    let screen = settle(&pty);
    let crumbs = screen.lines().nth(1).unwrap_or_default();
    assert!(crumbs.contains("No, import torch works"), "{screen}");
    assert!(!crumbs.contains('`'), "{screen}");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// A related decision on an outcome (`related = ["need-cupti"]`) was a "web
/// link … lore never opens it". It is a lore link: marked `→`, its status
/// says Enter starts it, and Enter starts that tree.
#[test]
fn a_related_tree_link_on_an_outcome_is_a_lore_link_and_enter_opens_it() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 40);
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("Should the devel image be my runtime image?");
    pty.send("3");
    pty.wait_for("What is this image for?");
    pty.send("1");
    pty.wait_for("Yes: use devel for this image");
    // The related trees end the page: the last link on screen.
    pty.send("G");
    pty.wait_for("Do I need CUPTI in this image?");
    pty.send("\x1b[Z");
    pty.wait_until("the last link's status", |s| {
        let status = last_line(s);
        status.contains("need-cupti") || status.contains("web link")
    });
    let screen = settle(&pty);
    assert!(
        last_line(&screen).contains("→ decision tree need-cupti  (Enter starts it)"),
        "{screen}"
    );
    assert!(
        screen.contains("→Do I need CUPTI in this image?"),
        "not marked as a lore link:\n{screen}"
    );
    pty.send("\r");
    pty.wait_for("How did PyTorch get into the image");
    let screen = settle(&pty);
    assert!(
        screen
            .lines()
            .next()
            .unwrap_or_default()
            .contains("Decision tree"),
        "{screen}"
    );
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// A build log pasted into the terminal: bracketed paste, with the CR line
/// ends VTE terminals (GNOME Terminal, Tilix) send. Of its many failure
/// lines, the one that decided the search (the last failure) was hidden
/// among "and N more lines"; it is listed first above the hits. The
/// document opened from the first hit marked every word of the log (`file`,
/// `no`, `error` …); only the deciding line's rare words are marked now.
#[test]
fn a_pasted_log_shows_its_deciding_line_and_the_document_marks_only_rare_words() {
    let home = common::home();
    let mut pty = Pty::spawn_with(&home, &[], &[("LORE_THEME", "dark")], 80, 24);
    pty.wait_for("lore · Library");
    let log = [
        "#8 2.1 W: GPG error: https://example.invalid/repo InRelease: The following signatures couldn't be verified",
        "#8 2.2 E: Failed to fetch https://example.invalid/repo/Packages 404 Not Found",
        "#9 0.5 CMake Warning at CMakeLists.txt:10 (message): something old",
        "#9 0.7 CMake Warning at CMakeLists.txt:20 (message): something else",
        "Traceback (most recent call last):",
        "  File \"/app/train.py\", line 3, in <module>",
        "    import torch",
        "ImportError: libcupti.so.12: cannot open shared object file: No such file or directory",
    ]
    .join("\r");
    pty.send(&format!("\x1b[200~{log}\r\x1b[201~"));
    pty.wait_until("hits for the log", |s| {
        s.contains("searched:") && s.contains("▸ ")
    });
    let screen = settle(&pty);
    let first = screen
        .lines()
        .find(|l| l.contains("searched:"))
        .unwrap_or_default();
    assert!(first.contains("ImportError: libcupti.so.12"), "{screen}");

    pty.send("\r");
    pty.wait_for("lore · Reader");
    let marked = pty.wait_until("marked words in the document", |_| {
        !marked_words(&pty).is_empty()
    });
    let words = marked_words(&pty);
    assert!(
        words.iter().any(|w| w.contains("libcupti")),
        "{words:?}\n{marked}"
    );
    // (`directory` left this list on 2026-11-27: the knowledge grown that day
    // made it a word of fewer than a tenth of the sections, which is rare
    // enough to mark; see `search::rare`.)
    for common in [
        "file",
        "line",
        "error",
        "no",
        "traceback",
        "most",
        "recent",
        "call",
        "import",
        "12",
    ] {
        assert!(
            !words.iter().any(|w| w == common),
            "`{common}` marked: {words:?}\n{marked}"
        );
    }
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// The runs of text the dark theme marks as search terms (black on
/// yellow), lower-cased.
fn marked_words(pty: &Pty) -> Vec<String> {
    let parser = pty.parser.lock().unwrap();
    let screen = parser.screen();
    let (rows, cols) = screen.size();
    let (rows, cols) = (rows.get(), cols.get());
    let mut words = Vec::new();
    for row in 0..rows {
        let mut run = String::new();
        for col in 0..=cols {
            let cell = (col < cols).then(|| screen.cell(row, col)).flatten();
            match cell {
                Some(c) if c.bgcolor() == vt100::Color::Idx(3) => run.push_str(c.contents()),
                _ if !run.is_empty() => words.push(std::mem::take(&mut run).to_lowercase()),
                _ => {}
            }
        }
    }
    words
}
