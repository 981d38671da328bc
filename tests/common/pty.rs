//! The real `lore` binary in a pseudo-terminal, driven like a user would: keys
//! in, screen read back through a vt100 parser. Every step waits for the text
//! it expects (with a timeout) instead of sleeping, so a test is as fast as
//! the program and does not flake on a slow machine. Shared by the PTY tests
//! (`#[path = "common/pty.rs"] mod pty;`).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long a step waits for the screen it expects.
pub const TIMEOUT: Duration = Duration::from_secs(30);

pub struct Pty {
    pub master: Box<dyn MasterPty + Send>,
    pub writer: Arc<Mutex<Box<dyn Write + Send>>>,
    pub child: Box<dyn Child + Send + Sync>,
    pub parser: Arc<Mutex<vt100::Parser>>,
    /// Every byte the program wrote, for sequences the parser does not keep
    /// (OSC 52).
    pub raw: Arc<Mutex<Vec<u8>>>,
    /// Set, the terminal stops reading what the program writes (a stalled
    /// link): its writes block once the pseudo-terminal's buffer is full.
    /// A flag the reader looks at between reads, not a lock held across a
    /// read: a lock held while the reader waited for output deadlocked the
    /// test that took it once the program had gone quiet.
    stalled: Arc<AtomicBool>,
    /// The background colour answer has been written.
    pub answered: Arc<AtomicBool>,
    /// The reader has seen the end of the program's output (the program
    /// exited and everything it wrote has gone through the parser).
    pub drained: Arc<AtomicBool>,
}

/// How the terminal answers the background colour question (OSC 11).
#[derive(Clone, Copy)]
pub enum Answer<'a> {
    Never,
    /// At once, with this colour (`rgb:ffff/ffff/ffff`).
    Now(&'a str),
    /// This long after the question, as over a slow SSH link.
    After(&'a str, Duration),
}

impl Pty {
    pub fn spawn(home: &tempfile::TempDir, args: &[&str], cols: u16, rows: u16) -> Pty {
        Pty::spawn_with(home, args, &[], cols, rows)
    }

    pub fn spawn_with(
        home: &tempfile::TempDir,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
    ) -> Pty {
        Pty::spawn_answering(home, args, env, cols, rows, None)
    }

    /// `spawn_with`, answering the terminal's background colour query (OSC
    /// 11) with `background` (`rgb:ffff/ffff/ffff`), as a terminal does:
    /// the colour, then the answer to the device attributes query after it.
    pub fn spawn_answering(
        home: &tempfile::TempDir,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
        background: Option<&str>,
    ) -> Pty {
        let answer = background.map_or(Answer::Never, Answer::Now);
        Pty::spawn_program(
            home,
            env!("CARGO_BIN_EXE_lore"),
            args,
            env,
            cols,
            rows,
            answer,
        )
    }

    /// `program` (lore, or a shell that runs it) in a terminal of
    /// `cols`×`rows` that answers the background question as `answer` says.
    pub fn spawn_program(
        home: &tempfile::TempDir,
        program: &str,
        args: &[&str],
        env: &[(&str, &str)],
        cols: u16,
        rows: u16,
        answer: Answer<'_>,
    ) -> Pty {
        let system = native_pty_system();
        let pair = system
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(program);
        cmd.args(args);
        cmd.env("LORE_HOME", home.path());
        cmd.env("TERM", "xterm-256color");
        cmd.env_remove("LORE_KNOWLEDGE");
        cmd.env_remove("LORE_THEME");
        cmd.env_remove("NO_COLOR");
        cmd.env_remove("TMUX");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = pair.slave.spawn_command(cmd).expect("the program starts");
        drop(pair.slave);
        let parser = Arc::new(Mutex::new(vt100::Parser::new(nz(rows), nz(cols), 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let stalled = Arc::new(AtomicBool::new(false));
        let answered = Arc::new(AtomicBool::new(false));
        let drained = Arc::new(AtomicBool::new(false));
        let mut reader = pair.master.try_clone_reader().expect("a reader");
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("a writer")));
        {
            let parser = Arc::clone(&parser);
            let raw = Arc::clone(&raw);
            let stalled = Arc::clone(&stalled);
            let answer_to = Arc::clone(&writer);
            let answered = Arc::clone(&answered);
            let drained = Arc::clone(&drained);
            let (colour, delay) = match answer {
                Answer::Never => (None, Duration::ZERO),
                Answer::Now(colour) => (Some(colour), Duration::ZERO),
                Answer::After(colour, delay) => (Some(colour), delay),
            };
            let answer = colour.map(|bg| format!("\x1b]11;{bg}\x1b\\\x1b[?62;22c"));
            thread::spawn(move || {
                let mut buf = [0u8; 8192];
                let mut asked = false;
                loop {
                    while stalled.load(Ordering::SeqCst) {
                        thread::sleep(Duration::from_millis(5));
                    }
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => {
                            drained.store(true, Ordering::SeqCst);
                            return;
                        }
                        Ok(n) => {
                            parser.lock().unwrap().process(&buf[..n]);
                            let mut raw = raw.lock().unwrap();
                            raw.extend_from_slice(&buf[..n]);
                            if let Some(answer) = &answer
                                && !asked
                                && raw.windows(6).any(|w| w == b"\x1b]11;?")
                            {
                                asked = true;
                                let answer = answer.clone();
                                let answer_to = Arc::clone(&answer_to);
                                let answered = Arc::clone(&answered);
                                thread::spawn(move || {
                                    thread::sleep(delay);
                                    let mut w = answer_to.lock().unwrap();
                                    let _ = w.write_all(answer.as_bytes());
                                    let _ = w.flush();
                                    answered.store(true, Ordering::SeqCst);
                                });
                            }
                        }
                    }
                }
            });
        }
        Pty {
            master: pair.master,
            writer,
            child,
            parser,
            raw,
            stalled,
            answered,
            drained,
        }
    }

    /// Stops reading the program's output, as a stalled link does. A read
    /// already waiting still passes its one chunk (at most 8 KiB) on.
    pub fn stall(&self) {
        self.stalled.store(true, Ordering::SeqCst);
    }

    /// Reads the program's output again.
    pub fn resume(&self) {
        self.stalled.store(false, Ordering::SeqCst);
    }

    /// Waits until the terminal has answered the background question.
    pub fn wait_answered(&self) {
        let start = Instant::now();
        while !self.answered.load(Ordering::SeqCst) {
            assert!(
                start.elapsed() < TIMEOUT,
                "lore never asked for the background"
            );
            thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn send(&mut self, bytes: &str) {
        let mut writer = self.writer.lock().unwrap();
        writer.write_all(bytes.as_bytes()).unwrap();
        writer.flush().unwrap();
    }

    pub fn screen(&self) -> String {
        self.parser.lock().unwrap().screen().contents()
    }

    /// Waits until the screen shows `text`; fails with the screen if it never does.
    pub fn wait_for(&self, text: &str) -> String {
        self.wait_until(&format!("`{text}` on screen"), |screen| {
            screen.contains(text)
        })
    }

    pub fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if ok(&screen) {
                return screen;
            }
            if start.elapsed() > TIMEOUT {
                panic!("timed out waiting for {what}; the screen shows:\n{screen}");
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    pub fn wait_for_raw(&self, bytes: &[u8]) {
        let start = Instant::now();
        while !self
            .raw
            .lock()
            .unwrap()
            .windows(bytes.len())
            .any(|w| w == bytes)
        {
            if start.elapsed() > TIMEOUT {
                panic!(
                    "timed out waiting for {:?} in the output; the screen shows:\n{}",
                    String::from_utf8_lossy(bytes),
                    self.screen()
                );
            }
            thread::sleep(Duration::from_millis(20));
        }
    }

    /// The text of the last OSC 52 copy in the output.
    pub fn osc52_text(&self) -> String {
        use base64::Engine;
        let raw = self.raw.lock().unwrap();
        let raw = String::from_utf8_lossy(&raw);
        let start = raw.rfind("\x1b]52;c;").expect("an OSC 52 sequence") + 7;
        let end = start + raw[start..].find('\x07').expect("a BEL after OSC 52");
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&raw[start..end])
            .expect("base64 in OSC 52");
        String::from_utf8(bytes).expect("UTF-8 in the copy")
    }

    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.parser.lock().unwrap().set_size(nz(rows), nz(cols));
        self.master
            .resize(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .unwrap();
    }

    pub fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                // The program has exited, but the reader may not have passed
                // its last writes (leaving the alternate screen) to the
                // parser yet: wait for the end of its output, briefly.
                let exited = Instant::now();
                while !self.drained.load(Ordering::SeqCst)
                    && exited.elapsed() < Duration::from_secs(5)
                {
                    thread::sleep(Duration::from_millis(10));
                }
                return status;
            }
            if start.elapsed() > TIMEOUT {
                let _ = self.child.kill();
                panic!("lore did not exit; the screen shows:\n{}", self.screen());
            }
            thread::sleep(Duration::from_millis(20));
        }
    }
}

pub fn nz(n: u16) -> std::num::NonZeroU16 {
    std::num::NonZeroU16::new(n).expect("a size above zero")
}

impl Drop for Pty {
    fn drop(&mut self) {
        self.resume();
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
    }
}
