//! `lore decide TREE` on a real terminal: the binary runs in a pseudo-terminal,
//! so it must notice the terminal and ask interactively; quitting keeps the
//! session and the next run offers to resume it.
#![cfg(unix)]

mod common;

use std::io::{Read, Write};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, PtySize, native_pty_system};

struct Terminal {
    writer: Box<dyn Write + Send>,
    output: mpsc::Receiver<Vec<u8>>,
    seen: String,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

impl Terminal {
    fn start(home: &std::path::Path, args: &[&str]) -> Terminal {
        Terminal::start_with(home, args, &[("NO_COLOR", "1")])
    }

    fn start_with(home: &std::path::Path, args: &[&str], env: &[(&str, &str)]) -> Terminal {
        Terminal::start_sized(home, args, env, 120)
    }

    fn start_sized(
        home: &std::path::Path,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
    ) -> Terminal {
        let pty = native_pty_system()
            .openpty(PtySize {
                rows: 40,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pty");
        let mut cmd = CommandBuilder::new(env!("CARGO_BIN_EXE_lore"));
        cmd.args(args);
        cmd.env("LORE_HOME", home);
        cmd.env_remove("NO_COLOR");
        for (key, value) in env {
            cmd.env(key, value);
        }
        cmd.env_remove("LORE_KNOWLEDGE");
        cmd.env_remove("LORE_THEME");
        let child = pty.slave.spawn_command(cmd).expect("lore starts");
        drop(pty.slave);
        let mut reader = pty.master.try_clone_reader().unwrap();
        let writer = pty.master.take_writer().unwrap();
        let (tx, output) = mpsc::channel();
        std::thread::spawn(move || {
            // Keep the master alive as long as the reader runs.
            let _master = pty.master;
            let mut buf = [0u8; 4096];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        Terminal {
            writer,
            output,
            seen: String::new(),
            child,
        }
    }

    /// Waits until `text` has appeared since the last call, or fails after 10 s.
    fn expect(&mut self, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(at) = self.seen.find(text) {
                self.seen.drain(..at + text.len());
                return;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(bytes) => self.seen.push_str(&String::from_utf8_lossy(&bytes)),
                Err(_) => panic!(
                    "timed out waiting for {text:?}; screen so far:\n{}",
                    self.seen
                ),
            }
        }
    }

    fn type_line(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).unwrap();
        self.writer.write_all(b"\r").unwrap();
        self.writer.flush().unwrap();
    }

    /// Everything printed from the last `expect` until the program closed
    /// the terminal.
    fn rest(mut self) -> (String, u32) {
        let code = self.wait_exit();
        while let Ok(bytes) = self.output.recv_timeout(Duration::from_secs(2)) {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        (self.seen, code)
    }

    fn exit_code(mut self) -> u32 {
        self.wait_exit()
    }

    /// The exit code, or a failure naming what was on screen if lore has
    /// not exited within 30 s: a test that waits without a limit turns a
    /// hang into a CI run that never finishes instead of a failure.
    fn wait_exit(&mut self) -> u32 {
        let child = &mut self.child;
        if let Some(status) = common::within(Duration::from_secs(30), || child.try_wait().unwrap())
        {
            return status.exit_code();
        }
        let _ = self.child.kill();
        while let Ok(bytes) = self.output.try_recv() {
            self.seen.push_str(&String::from_utf8_lossy(&bytes));
        }
        panic!(
            "lore did not exit within 30 s; screen so far:\n{}",
            self.seen
        );
    }
}

#[test]
fn asks_on_a_terminal_keeps_the_session_and_offers_to_resume() {
    let home = tempfile::tempdir().unwrap();

    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("How did PyTorch get into the image that runs your code?");
    t.expect("1. pip install torch from PyPI (Linux x86_64 wheel)");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("?");
    t.expect("▸ Why it matters");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("1");
    t.expect("Which build of torch is it");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("1");
    t.expect("Does import torch already fail");
    t.expect("Choose 1-2, b back, ? why, q quit: ");
    t.type_line("q");
    t.expect("Session kept; `lore decide need-cupti` offers to resume it.");
    assert_eq!(t.exit_code(), 0);
    assert!(home.path().join("data/sessions/need-cupti.json").is_file());

    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("You have an unfinished `need-cupti` session (2 answers). Resume it? [Y/n] ");
    t.type_line("");
    t.expect("Does import torch already fail");
    t.type_line("1");
    t.expect("Put the wheel's CUPTI back");
    t.expect("Verdict:");
    t.expect("b back, t save a transcript, q quit: ");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);
    assert!(
        !home.path().join("data/sessions/need-cupti.json").exists(),
        "a finished session is not offered again"
    );
}

/// On a terminal, questions and outcomes are Markdown rendered to the
/// terminal's width: no backticks or `**`, no line wider than the terminal,
/// commands in code blocks, and an inline command never split where it fits.
#[test]
fn questions_and_outcomes_are_rendered_to_the_terminal_width() {
    let home = tempfile::tempdir().unwrap();
    let args = [
        "decide",
        "need-cupti",
        "--answer",
        "torch-install=pip",
        "--answer",
        "pip-wheel=cu12",
        "--answer",
        "pip-import=fails",
    ];
    let (outcome, code) =
        Terminal::start_sized(home.path(), &args, &[("NO_COLOR", "1")], 60).rest();
    assert_eq!(code, 0, "{outcome}");
    let (question, code) =
        Terminal::start_sized(home.path(), &args[..6], &[("NO_COLOR", "1")], 60).rest();
    assert_eq!(code, 0, "{question}");
    for out in [&outcome, &question] {
        for line in out.split("\r\n").filter(|l| !l.starts_with("Next: ")) {
            assert!(
                line.chars().count() <= 60,
                "wider than the terminal: {line:?}\n{out}"
            );
            assert!(
                !line.contains('`') && !line.contains("**"),
                "raw Markdown: {line:?}"
            );
        }
    }
    assert!(
        question.contains("Does import torch already fail"),
        "{question}"
    );
    assert!(question.contains("▸ How to find out"), "{question}");
    assert!(
        question.contains("┌─ bash"),
        "the commands are a code block:\n{question}"
    );
    assert!(
        outcome.contains("Verdict: Reinstall the pinned"),
        "{outcome}"
    );
    assert!(
        outcome.contains("lore decide devel-as-runtime"),
        "a related tree is named by its command, in one piece:\n{outcome}"
    );
}

/// Clap echoes a refused argument with its own colours on a terminal; an
/// argument holding escape sequences (from `$(cat file)`, say) must not
/// reach the terminal as such.
#[test]
fn a_refused_argument_is_echoed_inertly_on_a_terminal() {
    let home = tempfile::tempdir().unwrap();
    let mut t = Terminal::start_with(
        home.path(),
        &[
            "decide",
            "need-cupti",
            "--answer",
            "x\u{1b}]0;pwned\u{7}\u{1b}[2J",
        ],
        &[("TERM", "xterm-256color")],
    );
    t.expect("for '");
    let (rest, code) = t.rest();
    assert_eq!(code, 2, "{rest}");
    assert!(rest.contains("expected QUESTION=OPTION"), "{rest:?}");
    assert!(
        !rest.contains("\u{1b}]0;") && !rest.contains('\u{7}') && !rest.contains("\u{1b}[2J"),
        "{rest:?}"
    );
}

/// A saved walk is anyone's to write: a time beyond what the clock holds
/// once panicked `lore decide` (and kept the TUI from starting), a FIFO in
/// its place hung it, and a file naming another tree was resumed as this
/// tree's walk. Each is now reported and a fresh walk starts.
#[test]
fn hostile_saved_walks_are_reported_not_obeyed() {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join("data/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let file = sessions.join("need-cupti.json");
    let saved = |tree: &str, saved_at: &str| {
        format!(
            r#"{{"tree":"{tree}","path":[{{"question":"torch-install","answer":"pip"}}],"saved_at":{saved_at}}}"#
        )
    };

    std::fs::write(&file, saved("need-cupti", "18446744073709551615")).unwrap();
    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("(saved session ignored: ");
    t.expect("`saved_at` 18446744073709551615 is not a time)");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);

    std::fs::write(&file, saved("cuda-install-method", "1795305600")).unwrap();
    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("names tree `cuda-install-method`, not `need-cupti`)");
    t.expect("How did PyTorch get into the image that runs your code?");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);

    std::fs::remove_file(&file).unwrap();
    rustix::fs::mkfifoat(
        rustix::fs::CWD,
        &file,
        rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
    )
    .unwrap();
    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("not a regular file but a named pipe (FIFO))");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);
}

/// Answers that no longer fit the tree are named, with the reason, before
/// the offer to resume; a walk none of whose answers fit says so too.
#[test]
fn dropped_answers_are_named_with_the_reason() {
    let home = tempfile::tempdir().unwrap();
    let sessions = home.path().join("data/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    let file = sessions.join("need-cupti.json");
    std::fs::write(
        &file,
        r#"{"tree":"need-cupti","path":[{"question":"torch-install","answer":"pip"},{"question":"pip-wheel","answer":"cu12"},{"question":"pip-import","answer":"gone"}],"saved_at":1795305600}"#,
    )
    .unwrap();
    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("1 saved answer no longer fits the tree and was dropped: `pip-import=gone`");
    t.expect("has no option `gone`");
    t.expect("Resume it? [Y/n] ");
    t.type_line("n");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);

    std::fs::write(
        &file,
        r#"{"tree":"need-cupti","path":[{"question":"renamed","answer":"pip"}],"saved_at":1795305600}"#,
    )
    .unwrap();
    let mut t = Terminal::start(home.path(), &["decide", "need-cupti"]);
    t.expect("Your saved `need-cupti` session cannot be resumed: 1 saved answer");
    t.expect("`renamed=pip`");
    t.expect("Choose 1-3, b back, ? why, q quit: ");
    t.type_line("q");
    assert_eq!(t.exit_code(), 0);
}
