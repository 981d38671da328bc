//! The real `lore` binary in a pseudo-terminal, driven like a user would: keys
//! in, screen read back through a vt100 parser. Every step waits for the text
//! it expects (with a timeout) instead of sleeping, so the test is as fast as
//! the program and does not flake on a slow machine. The harness is in
//! `common/pty.rs`.

mod common;
#[path = "common/pty.rs"]
mod pty;

use std::thread;
use std::time::{Duration, Instant};

use pty::{Answer, Pty};

#[test]
fn opens_shows_help_survives_a_tiny_terminal_and_quits_cleanly() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    assert!(pty.parser.lock().unwrap().screen().alternate_screen());

    pty.send("?");
    pty.wait_for("Keys — Esc closes");
    pty.send("\x1b");
    pty.wait_until("help to close", |s| !s.contains("Keys — Esc closes"));

    pty.resize(12, 4);
    pty.wait_for("too small");
    pty.resize(100, 30);
    pty.wait_for("lore · Library");

    pty.send("q");
    let status = pty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    let parser = pty.parser.lock().unwrap();
    assert!(
        !parser.screen().alternate_screen(),
        "the alternate screen was left"
    );
}

#[test]
fn without_a_terminal_lore_says_so_and_exits_2() {
    let home = common::home();
    let out = common::lore(&home).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("stdout is not one"), "{stderr}");
    assert!(out.stdout.is_empty());
}

/// Debug builds panic on purpose after the first frame when LORE_TEST_PANIC is
/// set: the hook must leave the alternate screen and raw mode before it prints
/// the message and the log's path.
#[cfg(debug_assertions)]
#[test]
fn a_panic_restores_the_terminal_then_names_the_log() {
    let home = common::home();
    let mut pty = Pty::spawn_with(&home, &[], &[("LORE_TEST_PANIC", "1")], 100, 30);
    let status = pty.wait_exit();
    assert_eq!(status.exit_code(), 101);
    let screen = pty.wait_for("internal error");
    let log = home.path().join("state").join("lore.log");
    assert!(screen.contains("LORE_TEST_PANIC is set"), "{screen}");
    assert!(screen.contains("lore.log"), "{screen}");
    let parser = pty.parser.lock().unwrap();
    assert!(
        !parser.screen().alternate_screen(),
        "still on the alternate screen"
    );
    assert!(!parser.screen().hide_cursor(), "the cursor is still hidden");
    drop(parser);
    let logged = std::fs::read_to_string(&log).expect("the log file");
    assert!(logged.contains("panic in thread main"), "{logged}");
    // The log names the functions the panic came through, for the report.
    assert!(logged.contains("backtrace:"), "{logged}");
    assert!(logged.contains("lore::tui::"), "{logged}");
}

/// Reading without search: filter the library, open a document, follow its
/// first link, copy the Dockerfile block found there, come back.
#[test]
fn read_follow_a_link_copy_a_dockerfile_block_and_go_back() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("f");
    pty.send("CUPTI Deep Dive");
    pty.wait_for("filter: CUPTI Deep Dive");
    pty.send("\r");
    pty.wait_for("CUDA Profiling Tools Interface");
    // The first link on screen leads to the arr-coc investigation.
    pty.send("\t");
    pty.wait_for("investigations/arr-coc-cupti-investigation.md  (Enter opens)");
    pty.send("\r");
    pty.wait_until("the investigation to open", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("investigations/arr-coc-cupti-investigation.md"))
    });
    pty.send("f");
    pty.send("ARG BUILDER_IMAGE");
    pty.send("\r");
    pty.wait_for("FROM ${BUILDER_IMAGE} AS builder");
    pty.send("y");
    pty.wait_for("copied the dockerfile block");
    let expected = base64_of(
        "# The notes do not name the builder's base image; pass it in\nARG BUILDER_IMAGE\n",
    );
    pty.wait_for_raw(format!("\x1b]52;c;{expected}").as_bytes());
    pty.send("\x7f");
    pty.wait_until("the CUPTI deep dive again", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("cuda/20-cupti-deep-dive-arr-coc.md"))
    });
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// The start of the base64 of `text`, up to a whole 3-byte group, so it is a
/// prefix of the encoding of anything that starts with `text`.
fn base64_of(text: &str) -> String {
    use base64::Engine;
    let whole = text.len() / 3 * 3;
    base64::engine::general_purpose::STANDARD.encode(&text.as_bytes()[..whole])
}

/// A decision-tree walk left half-way is saved, offered again after a
/// restart, and reaches an outcome whose evidence opens in the reader.
#[test]
fn a_walk_is_saved_resumed_and_its_evidence_opens() {
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
    pty.send("q");
    assert!(pty.wait_exit().success());
    let saved = home.path().join("data/sessions/need-cupti.json");
    assert!(saved.exists(), "{} was not written", saved.display());

    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("in progress: 2 answers");
    pty.send("4");
    pty.wait_for("resumed where you left off");
    pty.send("1");
    pty.wait_for("Put the wheel's CUPTI back");
    pty.send("G\t\r");
    pty.wait_until("the evidence in the reader", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("cuda/20-cupti-deep-dive-arr-coc.md"))
    });
    pty.wait_for("What happens without it");
    pty.send("\x7f");
    pty.wait_for("outcome  End");
    pty.send("x");
    pty.wait_for("transcript copied and saved to");
    pty.send("q");
    assert!(pty.wait_exit().success());
    assert!(!saved.exists(), "an outcome forgets the saved walk");
    let transcripts: Vec<_> = std::fs::read_dir(home.path().join("data/transcripts"))
        .expect("a transcripts folder")
        .collect();
    assert_eq!(transcripts.len(), 1);
}

/// A tree's question in a real terminal: at 80x24 every option and the start
/// of the panel are on screen; Tab and Enter open the evidence and Backspace
/// comes back; at 60x15 the selected option stays on screen as the list
/// scrolls; `Y` copies the panel's commands to the terminal's clipboard.
#[test]
fn the_question_screen_fits_80x24_and_60x15() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 80, 24);
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("Should the devel image be my runtime image?");
    pty.send("3");
    let screen = pty.wait_for("What is this image for?");
    let labels = [
        "1 Development, notebooks",
        "2 Debugging or profiling",
        "3 A one-off experiment",
        "4 Production training",
    ];
    for label in labels {
        assert!(screen.contains(label), "{label} missing:\n{screen}");
    }
    assert!(screen.contains("Why it matters"), "{screen}");
    assert!(
        screen.contains("nvidia/cuda:*-devel adds the compiler (nvcc)"),
        "{screen}"
    );
    assert!(
        screen
            .lines()
            .nth(1)
            .is_some_and(|l| l.contains("Should the devel image be")),
        "the first breadcrumb names the tree's question:\n{screen}"
    );
    pty.send("\t");
    pty.wait_for("(Enter opens)");
    pty.send("\r");
    pty.wait_until("the evidence in the reader", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.contains("cuda/21-docker-build-strategy-patterns.md"))
    });
    pty.send("\x7f");
    pty.wait_for("What is this image for?");

    pty.resize(60, 15);
    pty.wait_for("lore · Decision tree · Should the devel image …");
    for label in &labels[1..] {
        pty.send("j");
        pty.wait_for(&format!("▸ {label}"));
    }
    pty.send("k");
    pty.wait_for("▸ 3 A one-off experiment");

    pty.send("\x1b");
    pty.wait_for("lore · Decision trees");
    pty.send("4");
    pty.wait_for("How did PyTorch get into");
    pty.send("Y");
    pty.wait_for("copied 1 command block");
    assert_eq!(
        pty.osc52_text(),
        "pip show torch | grep -E '^(Version|Location)'\n\
         python -c \"import importlib.metadata as m; print(m.version('torch'))\"\n"
    );
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// The walk-through a new user does: `/libcupti`, open the first hit, read
/// about CUPTI, follow a link, copy a Dockerfile block (OSC 52 reaches the
/// terminal), go back, open help, survive a 12×4 terminal, quit cleanly.
#[test]
fn search_read_follow_copy_back_help_resize_quit() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");

    pty.send("/libcupti");
    pty.wait_for("search: libcupti");
    pty.wait_until("hits for libcupti", |s| {
        s.contains(" hits") && s.contains("▸ ")
    });
    pty.send("\r");
    let opened = pty.wait_for("lore · Reader");
    assert!(opened.to_lowercase().contains("libcupti"), "{opened}");
    let first_hit = header(&opened);

    // The first link of the document opens in lore; follow it.
    pty.send("g");
    pty.wait_until("the top of the document", |s| header(s).ends_with("Top"));
    let top = header(&pty.screen());
    pty.send("\t");
    pty.wait_until("a link into the knowledge", |s| {
        last_line(s).contains("(Enter opens)")
    });
    pty.send("\r");
    pty.wait_until("the link to be followed", |s| header(s) != top);
    let followed = header(&pty.screen());

    // Find a Dockerfile block (its frame says `dockerfile`) and copy it.
    pty.send("f─ dockerfile\r");
    pty.wait_until("a Dockerfile block on screen", |s| {
        last_line(s).contains("(n/N)")
    });
    pty.send("Y");
    let picker = pty.wait_for("Copy which block?");
    let number = picker
        .lines()
        .flat_map(|l| l.split('│'))
        .find_map(|cell| {
            let (n, rest) = cell.trim().split_once(' ')?;
            (n.parse::<u8>().is_ok() && rest.trim_start().starts_with("dockerfile"))
                .then(|| n.to_string())
        })
        .unwrap_or_else(|| panic!("no dockerfile block in the picker:\n{picker}"));
    pty.send(&number);
    pty.wait_for("copied the dockerfile block");
    let copied = pty.osc52_text();
    assert!(
        copied.contains("FROM ") || copied.contains("RUN ") || copied.contains("COPY "),
        "{copied}"
    );

    // Back to where the link was followed from.
    pty.send("\x7f");
    pty.wait_until("the top of the first hit again", |s| header(s) == top);
    assert_ne!(followed, top);
    assert!(top.contains(first_hit.split("  ").next().unwrap_or("")));

    pty.send("?");
    pty.wait_for("Keys — Esc closes");
    pty.wait_for("Reader (here)");
    pty.send("\x1b");
    pty.wait_until("help to close", |s| !s.contains("Keys — Esc closes"));

    pty.resize(12, 4);
    pty.wait_for("too small");
    pty.resize(100, 30);
    pty.wait_until("the reader again", |s| header(s) == top);

    pty.send("q");
    let status = pty.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert!(!pty.parser.lock().unwrap().screen().alternate_screen());
}

fn header(screen: &str) -> String {
    screen.lines().next().unwrap_or("").trim_end().to_string()
}

fn last_line(screen: &str) -> String {
    screen.lines().last().unwrap_or("").to_string()
}

/// A bad `[keys]` entry is a warning (status bar and log view) and the
/// default stays; `mouse = true` turns capture on from the start, `m` off.
#[test]
fn config_keys_warnings_and_mouse_capture() {
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        "mouse = true\n[keys.reader]\ncopy_code = \"hyper-y\"\n[keys.global]\nquit = [\"q\", \"ctrl-q\"]\n",
    )
    .unwrap();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("1 warning (w)");
    // xterm's "report button presses" mode: capture is on.
    pty.wait_for_raw(b"\x1b[?1000h");
    pty.send("w");
    pty.wait_for("`reader.copy_code`: `hyper-y` is not a key");
    pty.send("m");
    pty.wait_for("mouse capture off");
    pty.wait_for_raw(b"\x1b[?1000l");
    // The valid entry applies: Ctrl-Q quits.
    pty.send("\x11");
    assert!(pty.wait_exit().success());
}

#[test]
fn mouse_capture_is_off_by_default() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());
    let raw = pty.raw.lock().unwrap();
    assert!(
        !raw.windows(8).any(|w| w == b"\x1b[?1000h"),
        "mouse capture was turned on"
    );
}

/// With nothing loaded every screen still works and says what is missing.
#[test]
fn nothing_loaded_still_opens_and_explains() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &["--no-builtin"], 100, 30);
    pty.wait_for("No documents loaded");
    pty.send("/cupti");
    pty.wait_until("an answer from the empty index", |s| {
        s.contains("no hits") || s.contains("search unavailable")
    });
    // Esc and the next key must arrive apart, or they read as Alt-d.
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("No decision trees loaded");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// `kill`, a closed SSH connection (SIGHUP), `kill -INT` or SIGQUIT left
/// the terminal raw, on the alternate screen, with bracketed paste on and
/// the cursor hidden. Each now puts the terminal back, then exits with 128 +
/// the signal's number. (SIGINT came back after the others were fixed: a
/// red team's `kill -INT` exited 130 with the terminal still raw.)
#[cfg(unix)]
#[test]
fn stop_signals_restore_the_terminal_and_exit_with_128_plus_the_signal() {
    use nix::sys::signal::{Signal, kill};
    use nix::sys::termios::LocalFlags;
    use nix::unistd::Pid;

    for signal in [
        Signal::SIGTERM,
        Signal::SIGHUP,
        Signal::SIGINT,
        Signal::SIGQUIT,
    ] {
        let home = common::home();
        let mut pty = Pty::spawn(&home, &[], 100, 30);
        pty.wait_for("lore · Library");
        let raw = pty.master.get_termios().expect("the terminal's modes");
        assert!(
            !raw.local_flags.contains(LocalFlags::ICANON),
            "lore runs in raw mode"
        );
        let pid = pty.child.process_id().expect("lore's pid");
        kill(Pid::from_raw(pid as i32), signal).unwrap();
        let status = pty.wait_exit();
        assert_eq!(
            status.exit_code(),
            128 + signal as u32,
            "{signal}: {status:?}"
        );
        let modes = pty.master.get_termios().expect("the terminal's modes");
        assert!(
            modes
                .local_flags
                .contains(LocalFlags::ICANON | LocalFlags::ECHO),
            "{signal}: the terminal is still raw"
        );
        // The last bytes written reach the parser on its own thread.
        pty.wait_until("the normal screen", |_| {
            !pty.parser.lock().unwrap().screen().alternate_screen()
        });
        let parser = pty.parser.lock().unwrap();
        let screen = parser.screen();
        assert!(!screen.bracketed_paste(), "{signal}: bracketed paste is on");
        assert!(!screen.hide_cursor(), "{signal}: the cursor is hidden");
        drop(parser);
        let log = std::fs::read_to_string(home.path().join("state/lore.log")).unwrap();
        assert!(
            log.contains(&format!("stopped by signal {}", signal as i32)),
            "{log}"
        );
    }
}

/// `lore.log` received raw escape sequences from config keys, tree files
/// and file names, and the README asks users to attach it to bug reports.
/// Every record is sanitized, and a message's line breaks cannot start a
/// forged record.
#[cfg(unix)]
#[test]
fn the_log_file_holds_no_control_sequences() {
    let home = common::home();
    std::fs::write(
        home.path().join("config.toml"),
        "[keys.reader]\ncopy_code = \"\\u001b]52;c;ZXZpbA==\\u0007\"\n\"\\u001b[2Jevil\" = \"y\"\n",
    )
    .unwrap();
    let trees = tempfile::tempdir().unwrap();
    std::fs::write(
        trees.path().join("bad\x1b[31m\nforged\u{202e}.toml"),
        "[tree]\nid = \"x\u{1b}[2J\"\n",
    )
    .unwrap();
    let mut pty = Pty::spawn(&home, &["--trees", trees.path().to_str().unwrap()], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());
    let log = std::fs::read_to_string(home.path().join("state/lore.log")).unwrap();
    assert!(log.contains("bad^[[31m"), "{log}");
    assert!(log.contains("^[]52;c;ZXZpbA==^G"), "{log}");
    assert!(
        !log.chars()
            .any(|c| c != '\n' && lore::text::needs_escape(c)),
        "{log:?}"
    );
    for line in log.lines() {
        assert!(
            line.starts_with("20") || line.starts_with("    "),
            "a record that does not start with its time: {line:?}"
        );
    }
}

/// `lore open PATH#ANCHOR` (and `lore PATH#ANCHOR`, and a search hit's
/// `PATH:LINE`) starts in the reader at that section; Backspace goes to the
/// library.
#[test]
fn lore_open_starts_in_the_reader_at_the_section() {
    let home = common::home();
    let mut pty = Pty::spawn(
        &home,
        &[
            "open",
            "cuda/20-cupti-deep-dive-arr-coc.md#initialisation-and-its-failure-modes",
        ],
        100,
        30,
    );
    let screen = pty.wait_for("Initialisation and its failure modes");
    assert!(header(&screen).contains("CUPTI Deep Dive"), "{screen}");
    pty.send("\x7f");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());

    // A unique fragment of the path, as a bare word.
    let mut pty = Pty::spawn(
        &home,
        &["27-nvidia-apt#e-conflicting-values-set-for-option-signed-by-cuda-repository"],
        100,
        30,
    );
    pty.wait_for("Conflicting values set for option Signed-By");
    pty.send("q");
    assert!(pty.wait_exit().success());

    // A hit as `lore search` prints it.
    let out = common::lore(&home)
        .args(["search", "--limit", "1", "cicc: not found"])
        .output()
        .unwrap();
    let hit = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert!(hit.contains(".md:"), "{hit}");
    let mut pty = Pty::spawn(&home, &["open", &hit], 100, 30);
    pty.wait_for("cicc: not found");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// `TERM=dumb`: the CLI prints no escape sequences even on a terminal, and
/// the TUI refuses with a message instead of drawing garbage.
#[test]
fn a_dumb_terminal_gets_plain_output_and_no_tui() {
    let home = common::home();
    let mut pty = Pty::spawn_with(&home, &["search", "cupti"], &[("TERM", "dumb")], 100, 30);
    assert!(pty.wait_exit().success());
    let raw = pty.raw.lock().unwrap().clone();
    assert!(String::from_utf8_lossy(&raw).contains("cupti"));
    assert!(!raw.contains(&0x1b), "{:?}", String::from_utf8_lossy(&raw));
    // The same search on a capable terminal is coloured.
    let mut pty = Pty::spawn(&home, &["search", "cupti"], 100, 30);
    assert!(pty.wait_exit().success());
    assert!(pty.raw.lock().unwrap().contains(&0x1b));

    let mut pty = Pty::spawn_with(&home, &[], &[("TERM", "dumb")], 100, 30);
    let status = pty.wait_exit();
    assert_eq!(status.exit_code(), 2);
    pty.wait_for("TERM=dumb says this terminal cannot");
}

/// What lore remembers between runs: the document read last is listed
/// first and opens where it was left; Up in the empty search box brings back
/// the last search. Deleting the file only forgets.
#[test]
fn documents_reopen_where_they_were_left_and_searches_come_back() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("/");
    pty.wait_for("lore · Search");
    pty.send("libcupti.so.12 cannot open");
    pty.wait_for("best 50 hits");
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());

    let cupti = "cuda/20-cupti-deep-dive-arr-coc.md";
    let mut pty = Pty::spawn(&home, &["open", cupti], 100, 30);
    pty.wait_for(cupti);
    // Far down the document, then quit from there.
    pty.send("G");
    pty.send(&"k".repeat(20));
    thread::sleep(Duration::from_millis(300));
    let left = pty.screen();
    pty.send("q");
    assert!(pty.wait_exit().success());
    let saved = std::fs::read_to_string(home.path().join("data/history.json")).unwrap();
    assert!(saved.contains(cupti), "{saved}");

    let mut pty = Pty::spawn(&home, &[], 100, 30);
    let library = pty.wait_for("recently read");
    assert!(library.contains("CUPTI"), "{library}");
    // The latest document is selected: Enter returns to where it was left
    // (to the first screen line of the file line that was at the top).
    pty.send("\r");
    let screen = pty.wait_for("where you left it");
    let left_top = left.lines().nth(1).unwrap_or_default().trim_end();
    assert!(!left_top.is_empty(), "{left}");
    assert!(
        screen
            .lines()
            .skip(1)
            .take(3)
            .any(|l| l.trim_end() == left_top),
        "left at:\n{left}\nreopened at:\n{screen}"
    );
    pty.send("q");
    assert!(pty.wait_exit().success());

    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("/");
    pty.wait_for("lore · Search");
    pty.send("\x1b[A");
    pty.wait_for("libcupti.so.12 cannot open");
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());

    std::fs::remove_file(home.path().join("data/history.json")).unwrap();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    let library = pty.wait_for("lore · Library");
    assert!(!library.contains("recently read"), "{library}");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// With no theme asked for, lore asks the terminal for its background (OSC
/// 11) and picks the light or the dark theme; a theme asked for is used as
/// is, and a terminal that does not answer gets the dark one.
#[test]
fn with_no_theme_set_lore_asks_the_terminal_for_its_background() {
    let run = |background: Option<&str>, env: &[(&str, &str)]| {
        let home = common::home();
        let mut pty = Pty::spawn_answering(&home, &[], env, 100, 30, background);
        pty.wait_for("lore · Library");
        let colours: Vec<String> = {
            let parser = pty.parser.lock().unwrap();
            let screen = parser.screen();
            (0..3)
                .flat_map(|row| (0..40).map(move |col| (row, col)))
                .map(|(row, col)| format!("{:?}", screen.cell(row, col).map(|c| c.fgcolor())))
                .collect()
        };
        let asked = pty
            .raw
            .lock()
            .unwrap()
            .windows(6)
            .any(|w| w == b"\x1b]11;?");
        pty.send("q");
        assert!(pty.wait_exit().success());
        let log = std::fs::read_to_string(home.path().join("state/lore.log")).unwrap();
        (colours, asked, log)
    };
    let (light, asked, log) = run(Some("rgb:ffff/ffff/ffff"), &[]);
    assert!(asked);
    assert!(log.contains("background is Light"), "{log}");
    let (dark, _, log) = run(Some("rgb:1c1c/1c1c/1c1c"), &[]);
    assert!(log.contains("background is Dark"), "{log}");
    assert_ne!(light, dark, "the light theme's colours on a white terminal");

    let (chosen, asked, _) = run(Some("rgb:ffff/ffff/ffff"), &[("LORE_THEME", "dark")]);
    assert!(!asked, "a theme asked for is not second-guessed");
    assert_eq!(chosen, dark);

    let (silent, asked, log) = run(None, &[]);
    assert!(asked);
    assert!(log.contains("did not tell its background"), "{log}");
    assert_eq!(silent, dark);
}

/// A key pressed as the terminal is resized is acted on at once. crossterm's
/// default reader could hold it back until the next key arrived (the resize
/// and the key were ready together, and the key's readiness was dropped).
#[test]
fn a_key_pressed_during_a_resize_is_not_held_back() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 80, 24);
    pty.wait_for("lore · Library");
    pty.send("d");
    pty.wait_for("Should the devel image be my runtime image?");
    pty.send("3");
    pty.wait_for("What is this image for?");
    for _ in 0..20 {
        pty.resize(60, 15);
        pty.send("j");
        pty.wait_for("▸ 2 Debugging");
        pty.resize(80, 24);
        pty.send("k");
        pty.wait_for("▸ 1 Development");
    }
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// SIGTERM while the terminal had stopped reading (a stalled SSH link):
/// lore waited for its output to drain (the UI thread, blocked in a write,
/// held stdout) and never exited. It now exits at once, with the terminal's
/// modes restored.
#[cfg(unix)]
#[test]
fn sigterm_with_a_stalled_terminal_exits_promptly() {
    use nix::sys::signal::{Signal, kill};
    use nix::sys::termios::LocalFlags;
    use nix::unistd::Pid;

    let home = common::home();
    let mut pty = Pty::spawn(
        &home,
        &["open", "cuda/20-cupti-deep-dive-arr-coc.md"],
        200,
        60,
    );
    pty.wait_for("CUPTI");
    pty.stall();
    // Whole-screen redraws, far more than the terminal buffers.
    for _ in 0..40 {
        pty.send("G");
        thread::sleep(Duration::from_millis(10));
        pty.send("g");
        thread::sleep(Duration::from_millis(10));
    }
    thread::sleep(Duration::from_millis(300));
    let pid = pty.child.process_id().expect("lore's pid");
    kill(Pid::from_raw(pid as i32), Signal::SIGTERM).unwrap();
    let start = Instant::now();
    let status = loop {
        if let Some(status) = pty.child.try_wait().unwrap() {
            break status;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "lore is still waiting for the stalled terminal 10 s after SIGTERM"
        );
        thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.exit_code(), 143, "{status:?}");
    let modes = pty.master.get_termios().expect("the terminal's modes");
    assert!(
        modes
            .local_flags
            .contains(LocalFlags::ICANON | LocalFlags::ECHO),
        "the terminal is still raw"
    );
}

/// A bracketed paste whose end marker never came (a stray `ESC [200~`)
/// swallowed every later key, `q` and Ctrl-C included. A paste that stalls
/// is over after a second: what came is the paste, and the keys after it
/// work. On the library a paste cut short over a flaky link was once typed
/// as keys, and the `q` of `pip install -q torch` quit lore; it starts a
/// search for it, as a whole paste does.
#[test]
fn an_unterminated_paste_is_typed_and_later_keys_work() {
    let home = common::home();
    let mut pty = Pty::spawn(&home, &[], 100, 30);
    pty.wait_for("lore · Library");
    pty.send("\x1b[200~pip install -q torch");
    pty.wait_for("lore · Search");
    pty.wait_for("pip install -q torch");
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("/");
    pty.wait_for("lore · Search");
    pty.send("\x1b[200~libcupti");
    pty.wait_for("libcupti");
    pty.send(".so");
    pty.wait_for("libcupti.so");
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// The background colour answer that arrives after lore stopped waiting
/// (0.5 s; a slow SSH link) was typed into lore: `/` opened the search and
/// `ffff/ffff` filled it. It is dropped now, and the keys around it work.
#[test]
fn a_late_background_answer_is_not_typed_into_the_tui() {
    let home = common::home();
    let late = Answer::After("rgb:ffff/ffff/ffff", Duration::from_millis(1200));
    let mut pty = Pty::spawn_program(&home, env!("CARGO_BIN_EXE_lore"), &[], &[], 100, 30, late);
    pty.wait_for("lore · Library");
    pty.wait_answered();
    thread::sleep(Duration::from_millis(300));
    let screen = pty.screen();
    assert!(screen.contains("lore · Library"), "{screen}");
    pty.send("/");
    pty.wait_for("lore · Search");
    pty.send("cupti");
    let screen = pty.wait_for("cupti");
    assert!(
        !screen.contains("ffff") && !screen.contains("11;"),
        "{screen}"
    );
    pty.send("\x1b");
    pty.wait_for("lore · Library");
    pty.send("q");
    assert!(pty.wait_exit().success());
}

/// A shell that runs `command` with `$LORE` set to the binary, then shows
/// whatever the terminal sends next (`cat -v`) after `NEXT-PROGRAM:`.
fn then_read_the_terminal(
    home: &tempfile::TempDir,
    command: &str,
    env: &[(&str, &str)],
    answer: Answer<'_>,
) -> Pty {
    let script = format!("{command}; printf 'NEXT-PROGRAM:'; exec cat -v");
    let mut env = env.to_vec();
    env.push(("LORE", env!("CARGO_BIN_EXE_lore")));
    Pty::spawn_program(home, "sh", &["-c", &script], &env, 100, 30, answer)
}

/// Ends the `cat -v` of `then_read_the_terminal` and returns what it read.
fn what_the_next_program_read(mut pty: Pty) -> String {
    pty.wait_for("NEXT-PROGRAM:");
    pty.send("END\r");
    pty.wait_for("END");
    pty.send("\x04");
    pty.wait_exit();
    let screen = pty.screen();
    let at = screen.rfind("NEXT-PROGRAM:").expect("the marker");
    screen[at..].to_string()
}

/// The late answer also reached the program after lore: the shell, once
/// lore had quit. lore now waits for it (3 s after the question at most)
/// before it gives the terminal back.
#[cfg(unix)]
#[test]
fn a_late_background_answer_is_not_left_for_the_shell() {
    let home = common::home();
    let late = Answer::After("rgb:ffff/ffff/ffff", Duration::from_millis(1500));
    let mut pty = then_read_the_terminal(&home, "\"$LORE\"", &[], late);
    pty.wait_for("lore · Library");
    pty.send("q");
    pty.wait_answered();
    let read = what_the_next_program_read(pty);
    assert!(!read.contains("11;"), "{read}");
    assert!(read.contains("END"), "{read}");
}

/// `lore show` asks for the background too; its late answer went to the
/// pager (`less` took it as commands) or the shell. It is read and dropped
/// before the pager starts.
#[cfg(unix)]
#[test]
fn a_late_background_answer_is_not_left_for_the_pager() {
    let home = common::home();
    let late = Answer::After("rgb:ffff/ffff/ffff", Duration::from_millis(1500));
    let pager = "sh -c 'cat >/dev/null; printf PAGER-READS:; read line </dev/tty; printf %s \"$line\" | od -c'";
    let mut pty = then_read_the_terminal(
        &home,
        "\"$LORE\" show 20-cupti --paging always",
        &[("LORE_PAGER", pager)],
        late,
    );
    pty.wait_for("PAGER-READS:");
    pty.wait_answered();
    thread::sleep(Duration::from_millis(200));
    pty.send("kkk\r");
    let screen = pty.wait_for("NEXT-PROGRAM:");
    let at = screen.find("PAGER-READS:").unwrap();
    let pager_read = &screen[at..];
    assert!(
        !pager_read.contains("033") && !pager_read.contains("11;"),
        "the pager read the answer: {pager_read}"
    );
    assert!(pager_read.contains("k   k   k"), "{pager_read}");
    let read = what_the_next_program_read(pty);
    assert!(!read.contains("11;"), "{read}");
}

/// Ctrl-C while `lore show` pages killed lore and left `less` orphaned,
/// fighting the shell for the terminal. lore now ignores it while the pager
/// runs and waits for the pager, as git and bat do.
#[cfg(unix)]
#[test]
fn ctrl_c_in_the_pager_leaves_lore_waiting_for_it() {
    let home = common::home();
    let pager = "sh -c 'trap \"\" INT; cat >/dev/null; echo paging; read line </dev/tty; echo \"pager read $line\"'";
    let mut pty = Pty::spawn_with(
        &home,
        &["show", "20-cupti", "--paging", "always"],
        &[("LORE_PAGER", pager), ("LORE_THEME", "dark")],
        100,
        30,
    );
    pty.wait_for("paging");
    pty.send("\x03");
    thread::sleep(Duration::from_millis(500));
    assert!(
        pty.child.try_wait().unwrap().is_none(),
        "lore died under Ctrl-C and left its pager running"
    );
    pty.send("done\r");
    pty.wait_for("pager read done");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
}

/// `lore open PATH#fn:LABEL`, the footnote anchor the README documents,
/// was refused as "no heading with anchor"; it opens the reader at the note.
#[test]
fn lore_open_goes_to_a_footnote() {
    let home = common::home();
    let knowledge = tempfile::tempdir().unwrap();
    let filler: String = (1..=80).map(|i| format!("Paragraph {i}.\n\n")).collect();
    std::fs::write(
        knowledge.path().join("notes.md"),
        format!("# Notes\n\nA claim.[^src]\n\n{filler}[^src]: The source of the claim.\n"),
    )
    .unwrap();
    let dir = knowledge.path().to_str().unwrap();
    let mut pty = Pty::spawn(
        &home,
        &[
            "--no-builtin",
            "--knowledge",
            dir,
            "open",
            "notes.md#fn:src",
        ],
        100,
        30,
    );
    let screen = pty.wait_for("The source of the claim.");
    assert!(!screen.contains("Paragraph 1."), "{screen}");
    pty.send("q");
    assert!(pty.wait_exit().success());
}
