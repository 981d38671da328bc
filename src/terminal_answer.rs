//! The terminal's late answer to lore's question about its background.
//!
//! lore asks the terminal for its background colour (OSC 11, then the
//! device attributes question, which every terminal answers, so one that
//! cannot tell its colour is known at once; see
//! `Settings::theme_for_terminal`) and waits 0.5 s for the answer. On a
//! slow SSH link the answer comes later, when nothing reads it as an
//! answer: it was read as typed keys, by lore (`]11;rgb:ffff/ffff/ffff` in
//! the filter), by the pager, or by the shell after lore exited.
//!
//! So an unanswered question is remembered here, and before lore hands the
//! terminal on it waits until the answer came (the device attributes
//! answer, which ends the exchange) or [`WINDOW`] after the question was
//! asked, whichever is first:
//! - the TUI's keyboard reader drops answers (`tui::input`) and reports the
//!   end of the exchange ([`answered`]); the TUI calls [`wait`] before it
//!   leaves the terminal;
//! - a verb that reads no keys reads the answer off the terminal itself
//!   ([`drain`]) before it prints or starts a pager.
//!
//! This module must not import `tui` or `commands`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long after the question lore waits for its answer, at most, before
/// handing the terminal on. An answer later still would be read as keys.
pub const WINDOW: Duration = Duration::from_secs(3);

/// When the question that went unanswered was asked.
static ASKED: Mutex<Option<Instant>> = Mutex::new(None);
/// Its answer has come since.
static ANSWERED: AtomicBool = AtomicBool::new(false);

/// The question asked at `asked` was not answered in time: its answer may
/// still come.
pub fn unanswered(asked: Instant) {
    ANSWERED.store(false, Ordering::SeqCst);
    *ASKED.lock().unwrap_or_else(PoisonError::into_inner) = Some(asked);
}

/// The terminal's answer came (it was read and dropped).
pub fn answered() {
    ANSWERED.store(true, Ordering::SeqCst);
}

/// Until when an answer may still come; `None` when none is outstanding.
pub fn outstanding() -> Option<Instant> {
    if ANSWERED.load(Ordering::SeqCst) {
        return None;
    }
    let asked = (*ASKED.lock().unwrap_or_else(PoisonError::into_inner))?;
    let until = asked + WINDOW;
    (Instant::now() < until).then_some(until)
}

/// For the TUI, whose keyboard reader drops the answer: waits until it came
/// or the window is over.
pub fn wait() {
    if outstanding().is_none() {
        return;
    }
    let started = Instant::now();
    while outstanding().is_some() {
        std::thread::sleep(Duration::from_millis(10));
    }
    log::info!(
        "waited {:?} for the terminal's late answer ({})",
        started.elapsed(),
        if ANSWERED.load(Ordering::SeqCst) {
            "it came and was dropped"
        } else {
            "it did not come"
        }
    );
}

/// For a verb that reads no keys: reads the outstanding answer off the
/// terminal (with echo off, so it is not shown either) and drops it, so
/// neither the pager nor the shell reads it as keys. Keys typed meanwhile
/// are dropped with it; Ctrl-C and `Ctrl-\` still stop lore.
#[cfg(unix)]
pub fn drain() {
    let Some(until) = outstanding() else {
        return;
    };
    let started = Instant::now();
    match read_answer(until) {
        Ok(true) => {
            answered();
            log::info!(
                "the terminal's late answer came after {:?} more and was dropped",
                started.elapsed()
            );
        }
        Ok(false) => {
            log::info!("the terminal's answer did not come within {WINDOW:?} of the question")
        }
        Err(err) => log::info!("the terminal's late answer could not be read: {err}"),
    }
}

#[cfg(not(unix))]
pub fn drain() {}

/// Reads the terminal until the answer that ends the exchange or `until`.
#[cfg(unix)]
fn read_answer(until: Instant) -> std::io::Result<bool> {
    use rustix::termios::{self, LocalModes, OptionalActions, SpecialCodeIndex};
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;

    let mut tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(rustix::fs::OFlags::NOCTTY.bits() as i32)
        .open("/dev/tty")?;
    let saved = termios::tcgetattr(&tty)?;
    let mut quiet = saved.clone();
    // No echo, no line editing; Ctrl-C arrives as a byte (see below) rather
    // than a signal that would kill lore with echo off. A read returns
    // after 0.1 s with nothing, so the deadline is kept.
    quiet
        .local_modes
        .remove(LocalModes::ICANON | LocalModes::ECHO | LocalModes::ISIG);
    quiet.special_codes[SpecialCodeIndex::VMIN] = 0;
    quiet.special_codes[SpecialCodeIndex::VTIME] = 1;
    termios::tcsetattr(&tty, OptionalActions::Now, &quiet)?;
    let mut seen: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 256];
    let mut stop = None;
    let result = loop {
        if ends_exchange(&seen) {
            break Ok(true);
        }
        if Instant::now() >= until {
            break Ok(false);
        }
        match tty.read(&mut buffer) {
            Ok(n) => {
                let read = &buffer[..n];
                stop = stop.or_else(|| stop_signal(read, &saved));
                if stop.is_some() {
                    break Ok(false);
                }
                seen.extend_from_slice(read);
                // Only the end can still hold the start of the answer.
                if seen.len() > 4096 {
                    seen.drain(..seen.len() - 64);
                }
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => break Err(err),
        }
    };
    termios::tcsetattr(&tty, OptionalActions::Now, &saved)?;
    if let Some(signal) = stop {
        // Now that the terminal is as it was: what the key would have done.
        let _ = signal_hook::low_level::emulate_default_handler(signal);
    }
    result
}

/// The signal a key among `read` would have sent had ISIG been on: the
/// terminal's interrupt key (Ctrl-C) or quit key (`Ctrl-\`); a key switched off is 0.
#[cfg(unix)]
fn stop_signal(read: &[u8], modes: &rustix::termios::Termios) -> Option<i32> {
    use rustix::termios::SpecialCodeIndex;
    let interrupt = modes.special_codes[SpecialCodeIndex::VINTR];
    let quit = modes.special_codes[SpecialCodeIndex::VQUIT];
    read.iter().filter(|&&b| b != 0).find_map(|&b| {
        if b == interrupt {
            Some(signal_hook::consts::SIGINT)
        } else if b == quit {
            Some(signal_hook::consts::SIGQUIT)
        } else {
            None
        }
    })
}

/// Whether `bytes` hold the device attributes answer (`ESC [ ? 62 ; 22 c`)
/// that ends the exchange.
fn ends_exchange(bytes: &[u8]) -> bool {
    let mut from = 0;
    while let Some(i) = bytes[from..].windows(3).position(|w| w == b"\x1b[?") {
        let body = &bytes[from + i + 3..];
        if let Some(end) = body
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b';'))
            && body[end] == b'c'
        {
            return true;
        }
        from += i + 3;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_device_attributes_answer_ends_the_exchange() {
        assert!(ends_exchange(
            b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"
        ));
        assert!(ends_exchange(b"typed\x1b[?65;1;9c"));
        assert!(!ends_exchange(b"\x1b]11;rgb:ffff/ffff/ffff\x07"));
        assert!(!ends_exchange(b"\x1b[?62;22"), "not yet complete");
        assert!(!ends_exchange(b"\x1b[?1;2R\x1b[A"));
    }
}
