//! Reading the keyboard: the bytes the terminal sends become key, mouse,
//! paste and resize events.
//!
//! lore decodes them itself instead of through crossterm's reader, because
//! crossterm holds on to two things without limit:
//!
//! - a bracketed paste whose end marker never comes (a stray `ESC [200~`)
//!   kept every later key, `q` and Ctrl-C included. Here a paste that goes
//!   [`PASTE_WAIT`] without a byte is over, and what came is the paste;
//! - the terminal's answers to questions (the background colour that came
//!   after lore stopped waiting for it, device attributes) were read as keys
//!   (`]11;rgb:ffff/ffff/ffff` typed into the filter). Here answers are
//!   recognised and dropped, and the end of the background question's
//!   exchange is reported (`terminal_answer`).
//!
//! Any other sequence that does not complete within [`SEQUENCE_WAIT`] is
//! typed as it came, so no byte can hold back the keys after it. Keys decode
//! as crossterm decodes them (the same `KeyEvent`s), so the key table is
//! unchanged.
//!
//! [`Decoder`] is pure (bytes and times in, events out) and tested on its
//! own; [`spawn`] runs it on the terminal on a thread of its own.

use std::time::{Duration, Instant};

use ratatui::crossterm::event::{
    Event, KeyCode, KeyEvent, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};

/// How long the rest of an escape sequence is waited for before what came
/// is taken as typed (an Alt-key, then plain keys). A terminal sends a
/// sequence in one write; vim waits as long (`ttimeoutlen`).
pub const SEQUENCE_WAIT: Duration = Duration::from_millis(100);
/// How long a bracketed paste may go without a byte before it is taken as
/// over without its end marker. Terminals send a paste in one go.
pub const PASTE_WAIT: Duration = Duration::from_secs(1);
/// A paste is handed on in pieces of at most this many bytes, so one that
/// never ends cannot take all memory.
const PASTE_PIECE: usize = 16 << 20;
/// The longest control sequence (`ESC [` …) taken as one; a longer run of
/// parameter bytes is typed.
const SEQUENCE_MAX: usize = 64;
/// The longest answer string (`ESC ]` … `BEL`) taken as one.
const ANSWER_MAX: usize = 4096;

const ESC: u8 = 0x1b;
const BEL: u8 = 0x07;
const PASTE_END: &[u8] = b"\x1b[201~";

/// Turns the terminal's bytes into events. Feed it what was read, and call
/// [`Decoder::expire`] when [`Decoder::deadline`] passes.
#[derive(Debug, Default)]
pub struct Decoder {
    /// Bytes not decoded yet: the start of a sequence waiting for the rest.
    pending: Vec<u8>,
    /// Inside a bracketed paste: what it held so far.
    paste: Option<Vec<u8>>,
    /// When the last byte arrived.
    last: Option<Instant>,
    /// A device attributes answer was dropped since the last `take_answered`.
    answered: bool,
}

/// What the bytes at the front of the input are.
#[derive(Debug, PartialEq)]
enum Step {
    /// An event, and how many bytes it took.
    Event(Event, usize),
    /// Bytes that are not input: an answer from the terminal, or a sequence
    /// lore has no use for.
    Skip(usize),
    /// The answer to the device attributes question (`ESC [ ? … c`): the
    /// end of a question's exchange.
    Answer(usize),
    /// The start of a bracketed paste.
    PasteStart(usize),
    /// The start of a sequence; the rest has not come yet.
    Incomplete,
}

impl Decoder {
    /// Decodes `bytes`, which arrived at `now`. `more` says more input is
    /// ready already; if not, an ESC at the end is the Esc key (not the start
    /// of a sequence), as crossterm decides.
    pub fn feed(&mut self, bytes: &[u8], now: Instant, more: bool) -> Vec<Event> {
        let mut out = Vec::new();
        if bytes.is_empty() {
            return out;
        }
        self.last = Some(now);
        self.pending.extend_from_slice(bytes);
        self.run(&mut out, more, false);
        out
    }

    /// When what is held must be given up on: the paste is over, or the
    /// sequence's start is typed. `None` when nothing is held.
    pub fn deadline(&self) -> Option<Instant> {
        let last = self.last?;
        if self.paste.is_some() {
            Some(last + PASTE_WAIT)
        } else if !self.pending.is_empty() {
            Some(last + SEQUENCE_WAIT)
        } else {
            None
        }
    }

    /// Past the deadline: an unterminated paste is over, its text handed on
    /// as a paste (never as keys: a `q` in it would quit), and a sequence
    /// that never completed is typed.
    pub fn expire(&mut self, now: Instant) -> Vec<Event> {
        let mut out = Vec::new();
        if self.deadline().is_none_or(|deadline| now < deadline) {
            return out;
        }
        if let Some(pasted) = self.paste.take() {
            log::warn!(
                "a paste's end marker did not come within {PASTE_WAIT:?}: its {} bytes are taken as the paste",
                pasted.len()
            );
            // What is held is at most the start of the end marker that was cut.
            if marker_prefix(&self.pending, PASTE_END) == self.pending.len() {
                self.pending.clear();
            }
            if !pasted.is_empty() {
                out.push(Event::Paste(String::from_utf8_lossy(&pasted).into_owned()));
            }
        }
        self.last = Some(now);
        self.run(&mut out, false, true);
        out
    }

    /// Whether the terminal answered a device attributes question since the
    /// last call.
    pub fn take_answered(&mut self) -> bool {
        std::mem::take(&mut self.answered)
    }

    /// Decodes what is pending. `force`: a sequence that is incomplete is
    /// typed as it is (its deadline passed).
    fn run(&mut self, out: &mut Vec<Event>, more: bool, force: bool) {
        let mut at = 0;
        loop {
            if let Some(paste) = &mut self.paste {
                let rest = &self.pending[at..];
                if let Some(end) = find(rest, PASTE_END) {
                    paste.extend_from_slice(&rest[..end]);
                    let text = String::from_utf8_lossy(paste).into_owned();
                    out.push(Event::Paste(text));
                    self.paste = None;
                    at += end + PASTE_END.len();
                    continue;
                }
                // Keep what may be the start of the end marker.
                let keep = marker_prefix(rest, PASTE_END);
                paste.extend_from_slice(&rest[..rest.len() - keep]);
                at += rest.len() - keep;
                if paste.len() >= PASTE_PIECE {
                    let cut = char_boundary(paste);
                    let piece: Vec<u8> = paste.drain(..cut).collect();
                    out.push(Event::Paste(String::from_utf8_lossy(&piece).into_owned()));
                }
                break;
            }
            let rest = &self.pending[at..];
            if rest.is_empty() {
                break;
            }
            let step = match decode(rest) {
                Step::Incomplete if force => typed(rest),
                Step::Incomplete if !more && rest == [ESC] => {
                    Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1)
                }
                step => step,
            };
            match step {
                Step::Event(event, n) => {
                    out.push(event);
                    at += n;
                }
                Step::Skip(n) => at += n,
                Step::Answer(n) => {
                    self.answered = true;
                    at += n;
                }
                Step::PasteStart(n) => {
                    self.paste = Some(Vec::new());
                    at += n;
                }
                Step::Incomplete => break,
            }
        }
        self.pending.drain(..at);
    }
}

/// The first step of `bytes` (not empty).
fn decode(bytes: &[u8]) -> Step {
    let ctrl = |c: u8| Step::Event(key(KeyCode::Char(c as char), KeyModifiers::CONTROL), 1);
    match bytes[0] {
        ESC => escape(bytes),
        b'\r' => Step::Event(key(KeyCode::Enter, KeyModifiers::NONE), 1),
        b'\t' => Step::Event(key(KeyCode::Tab, KeyModifiers::NONE), 1),
        0x7f => Step::Event(key(KeyCode::Backspace, KeyModifiers::NONE), 1),
        0 => ctrl(b' '),
        c @ 0x01..=0x1a => ctrl(c - 0x01 + b'a'),
        c @ 0x1c..=0x1f => ctrl(c - 0x1c + b'4'),
        _ => character(bytes),
    }
}

/// A sequence whose rest did not come: its ESC is typed (with the key after
/// it, as an Alt-key), or a cut character is dropped.
fn typed(bytes: &[u8]) -> Step {
    if bytes[0] != ESC {
        return Step::Skip(1);
    }
    if bytes.len() > 1
        && let Step::Event(Event::Key(mut k), n) = decode(&bytes[1..])
    {
        k.modifiers |= KeyModifiers::ALT;
        return Step::Event(Event::Key(k), n + 1);
    }
    Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1)
}

fn escape(bytes: &[u8]) -> Step {
    let Some(&second) = bytes.get(1) else {
        return Step::Incomplete;
    };
    match second {
        b'[' => csi(bytes),
        b'O' => ss3(bytes),
        b']' => answer_string(bytes),
        // The first ESC alone is the Esc key.
        ESC => Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1),
        _ => match decode(&bytes[1..]) {
            Step::Event(Event::Key(mut k), n) => {
                k.modifiers |= KeyModifiers::ALT;
                Step::Event(Event::Key(k), n + 1)
            }
            Step::Incomplete => Step::Incomplete,
            _ => Step::Event(key(KeyCode::Esc, KeyModifiers::NONE), 1),
        },
    }
}

/// `ESC O x`: cursor and F1–F4 keys in application mode.
fn ss3(bytes: &[u8]) -> Step {
    let Some(&third) = bytes.get(2) else {
        return Step::Incomplete;
    };
    let code = match third {
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        f @ b'P'..=b'S' => KeyCode::F(1 + f - b'P'),
        _ => return typed(bytes),
    };
    Step::Event(key(code, KeyModifiers::NONE), 3)
}

/// `ESC ] … BEL` or `ESC ] … ESC \`: only terminals send these (the answer
/// to a colour question), so the whole string is dropped. One that runs
/// past `ANSWER_MAX` or holds a control character is not an answer: typed.
fn answer_string(bytes: &[u8]) -> Step {
    for (i, &b) in bytes.iter().enumerate().skip(2) {
        if i > ANSWER_MAX {
            return typed(bytes);
        }
        match b {
            BEL => return Step::Skip(i + 1),
            ESC => {
                return match bytes.get(i + 1) {
                    Some(b'\\') => Step::Skip(i + 2),
                    Some(_) => typed(bytes),
                    None => Step::Incomplete,
                };
            }
            0x00..=0x1f => return typed(bytes),
            _ => {}
        }
    }
    Step::Incomplete
}

/// `ESC [` parameters, intermediates, final byte.
fn csi(bytes: &[u8]) -> Step {
    let Some(&third) = bytes.get(2) else {
        return Step::Incomplete;
    };
    match third {
        // The Linux console's F1–F5: `ESC [ [ A`.
        b'[' => {
            return match bytes.get(3) {
                None => Step::Incomplete,
                Some(&f @ b'A'..=b'E') => {
                    Step::Event(key(KeyCode::F(1 + f - b'A'), KeyModifiers::NONE), 4)
                }
                Some(_) => typed(bytes),
            };
        }
        // X10 mouse: three raw bytes follow.
        b'M' => {
            if bytes.len() < 6 {
                return Step::Incomplete;
            }
            let at = |b: u8| u16::from(b.saturating_sub(32)).saturating_sub(1);
            return match bytes[3].checked_sub(32).and_then(mouse_button) {
                Some((kind, modifiers)) => Step::Event(
                    Event::Mouse(MouseEvent {
                        kind,
                        column: at(bytes[4]),
                        row: at(bytes[5]),
                        modifiers,
                    }),
                    6,
                ),
                None => Step::Skip(6),
            };
        }
        _ => {}
    }
    for (i, &b) in bytes.iter().enumerate().skip(2) {
        if i >= SEQUENCE_MAX {
            return typed(bytes);
        }
        match b {
            0x20..=0x3f => {}
            0x40..=0x7e => return control_sequence(&bytes[2..i], b, i + 1),
            _ => return typed(bytes),
        }
    }
    Step::Incomplete
}

/// A complete control sequence: its parameters, final byte and length.
fn control_sequence(params: &[u8], last: u8, len: usize) -> Step {
    // Parameters are ASCII here (0x20..=0x3f).
    let params = std::str::from_utf8(params).unwrap_or_default();
    match (params.as_bytes().first(), last) {
        (Some(b'<'), b'M' | b'm') => return sgr_mouse(&params[1..], last == b'm', len),
        (Some(b'?'), b'c') => return Step::Answer(len),
        // Other answers (keyboard flags, secondary attributes).
        (Some(b'?' | b'>' | b'='), _) => return Step::Skip(len),
        _ => {}
    }
    let mut numbers = params.split(';');
    let first = numbers.next().unwrap_or_default();
    let modifiers = numbers
        .next()
        .and_then(|m| m.split(':').next())
        .and_then(|m| m.parse::<u8>().ok())
        .map_or(KeyModifiers::NONE, modifiers_of);
    let code = match last {
        b'~' => match first.parse::<u16>() {
            Ok(200) => return Step::PasteStart(len),
            Ok(1 | 7) => KeyCode::Home,
            Ok(2) => KeyCode::Insert,
            Ok(3) => KeyCode::Delete,
            Ok(4 | 8) => KeyCode::End,
            Ok(5) => KeyCode::PageUp,
            Ok(6) => KeyCode::PageDown,
            Ok(n @ 11..=15) => KeyCode::F((n - 10) as u8),
            Ok(n @ 17..=21) => KeyCode::F((n - 11) as u8),
            Ok(n @ 23..=26) => KeyCode::F((n - 12) as u8),
            Ok(n @ 28..=29) => KeyCode::F((n - 15) as u8),
            Ok(n @ 31..=34) => KeyCode::F((n - 17) as u8),
            // 201 (a paste's end with no start) and keys lore has no use for.
            _ => return Step::Skip(len),
        },
        b'A' => KeyCode::Up,
        b'B' => KeyCode::Down,
        b'C' => KeyCode::Right,
        b'D' => KeyCode::Left,
        b'H' => KeyCode::Home,
        b'F' => KeyCode::End,
        b'P' => KeyCode::F(1),
        b'Q' => KeyCode::F(2),
        // With parameters, a cursor position report (an answer).
        b'R' if params.is_empty() => KeyCode::F(3),
        b'S' => KeyCode::F(4),
        b'Z' => {
            return Step::Event(key(KeyCode::BackTab, KeyModifiers::SHIFT), len);
        }
        // rxvt's mouse: `ESC [ Cb ; Cx ; Cy M`.
        b'M' => return rxvt_mouse(params, len),
        // Focus reports, cursor position reports, keys of protocols lore
        // never turns on.
        _ => return Step::Skip(len),
    };
    Step::Event(key(code, modifiers), len)
}

/// `ESC [ < Cb ; Cx ; Cy M` (pressed) or `… m` (released).
fn sgr_mouse(params: &str, released: bool, len: usize) -> Step {
    let mut numbers = params.split(';').map(|n| n.parse::<u16>().ok());
    let (Some(Some(cb)), Some(Some(x)), Some(Some(y))) =
        (numbers.next(), numbers.next(), numbers.next())
    else {
        return Step::Skip(len);
    };
    let Some((kind, modifiers)) = u8::try_from(cb).ok().and_then(mouse_button) else {
        return Step::Skip(len);
    };
    let kind = match kind {
        MouseEventKind::Down(button) if released => MouseEventKind::Up(button),
        kind => kind,
    };
    Step::Event(
        Event::Mouse(MouseEvent {
            kind,
            column: x.saturating_sub(1),
            row: y.saturating_sub(1),
            modifiers,
        }),
        len,
    )
}

fn rxvt_mouse(params: &str, len: usize) -> Step {
    let mut numbers = params.split(';').map(|n| n.parse::<u16>().ok());
    let (Some(Some(cb)), Some(Some(x)), Some(Some(y))) =
        (numbers.next(), numbers.next(), numbers.next())
    else {
        return Step::Skip(len);
    };
    let button = u8::try_from(cb)
        .ok()
        .and_then(|cb| cb.checked_sub(32))
        .and_then(mouse_button);
    match button {
        Some((kind, modifiers)) => Step::Event(
            Event::Mouse(MouseEvent {
                kind,
                column: x.saturating_sub(1),
                row: y.saturating_sub(1),
                modifiers,
            }),
            len,
        ),
        None => Step::Skip(len),
    }
}

/// A mouse report's button byte: which button did what, with which
/// modifiers (xterm's layout, as crossterm reads it).
fn mouse_button(cb: u8) -> Option<(MouseEventKind, KeyModifiers)> {
    let button = (cb & 0b0000_0011) | ((cb & 0b1100_0000) >> 4);
    let dragging = cb & 0b0010_0000 != 0;
    let kind = match (button, dragging) {
        (0, false) => MouseEventKind::Down(MouseButton::Left),
        (1, false) => MouseEventKind::Down(MouseButton::Middle),
        (2, false) => MouseEventKind::Down(MouseButton::Right),
        (0, true) => MouseEventKind::Drag(MouseButton::Left),
        (1, true) => MouseEventKind::Drag(MouseButton::Middle),
        (2, true) => MouseEventKind::Drag(MouseButton::Right),
        (3, false) => MouseEventKind::Up(MouseButton::Left),
        (3..=5, true) => MouseEventKind::Moved,
        (4, false) => MouseEventKind::ScrollUp,
        (5, false) => MouseEventKind::ScrollDown,
        (6, false) => MouseEventKind::ScrollLeft,
        (7, false) => MouseEventKind::ScrollRight,
        _ => return None,
    };
    let mut modifiers = KeyModifiers::NONE;
    if cb & 0b0000_0100 != 0 {
        modifiers |= KeyModifiers::SHIFT;
    }
    if cb & 0b0000_1000 != 0 {
        modifiers |= KeyModifiers::ALT;
    }
    if cb & 0b0001_0000 != 0 {
        modifiers |= KeyModifiers::CONTROL;
    }
    Some((kind, modifiers))
}

/// xterm's modifier parameter (1 + a bit mask).
fn modifiers_of(mask: u8) -> KeyModifiers {
    let mask = mask.saturating_sub(1);
    let mut modifiers = KeyModifiers::NONE;
    for (bit, modifier) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
        (16, KeyModifiers::HYPER),
        (32, KeyModifiers::META),
    ] {
        if mask & bit != 0 {
            modifiers |= modifier;
        }
    }
    modifiers
}

/// One UTF-8 character; a byte that cannot start or continue one is
/// dropped.
fn character(bytes: &[u8]) -> Step {
    let width = match bytes[0] {
        0x00..=0x7f => 1,
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return Step::Skip(1),
    };
    let Some(encoded) = bytes.get(..width) else {
        // Wait for the rest, unless what came already cannot be it.
        return if bytes[1..].iter().all(|b| (0x80..=0xbf).contains(b)) {
            Step::Incomplete
        } else {
            Step::Skip(1)
        };
    };
    match std::str::from_utf8(encoded)
        .ok()
        .and_then(|s| s.chars().next())
    {
        Some(c) => {
            let modifiers = if c.is_uppercase() {
                KeyModifiers::SHIFT
            } else {
                KeyModifiers::NONE
            };
            Step::Event(key(KeyCode::Char(c), modifiers), width)
        }
        None => Step::Skip(1),
    }
}

fn key(code: KeyCode, modifiers: KeyModifiers) -> Event {
    Event::Key(KeyEvent::new(code, modifiers))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = haystack[from..].iter().position(|&b| b == needle[0]) {
        if haystack[from + i..].starts_with(needle) {
            return Some(from + i);
        }
        from += i + 1;
    }
    None
}

/// How many bytes at the end of `bytes` are the start of `marker`.
fn marker_prefix(bytes: &[u8], marker: &[u8]) -> usize {
    (1..marker.len())
        .rev()
        .find(|&n| bytes.ends_with(&marker[..n]))
        .unwrap_or(0)
}

/// The length of `bytes` without a character cut at its end.
fn char_boundary(bytes: &[u8]) -> usize {
    let len = bytes.len();
    for back in 1..=len.min(4) {
        let b = bytes[len - back];
        if b & 0xc0 != 0x80 {
            let width = match b {
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf7 => 4,
                _ => 1,
            };
            return if back < width { len - back } else { len };
        }
    }
    len
}

/// What the threads that watch the terminal tell the decoding thread.
#[cfg(unix)]
enum Input {
    /// Bytes read, and whether more were ready (the read filled the buffer).
    Bytes(Vec<u8>, bool),
    /// SIGWINCH: the terminal's size changed.
    Resized,
    Closed(String),
}

/// Reads the terminal and decodes what it sends into `Event::Terminal`s; a
/// resize (SIGWINCH) is sent as `Resize` with the new size. One thread reads
/// (blocking), one waits for resizes, one decodes, waking up at the
/// decoder's deadline. Without them nothing could reach the event loop, so
/// failing to start them is an error.
#[cfg(unix)]
pub fn spawn(events: std::sync::mpsc::Sender<super::Event>) -> std::io::Result<()> {
    use std::io::{IsTerminal, Read};
    use std::os::fd::AsFd;
    use std::sync::mpsc;
    use std::thread::Builder;

    // The terminal crossterm puts in raw mode: stdin when it is one, else
    // the controlling terminal.
    let mut tty: std::fs::File = if std::io::stdin().is_terminal() {
        std::io::stdin().as_fd().try_clone_to_owned()?.into()
    } else {
        std::fs::File::open("/dev/tty")?
    };
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH])?;
    let (input, received) = mpsc::channel();
    Builder::new().name("keys".into()).spawn(move || {
        decode_input(&received, &events);
    })?;
    let resized = input.clone();
    Builder::new().name("resize".into()).spawn(move || {
        for _ in signals.forever() {
            if resized.send(Input::Resized).is_err() {
                return;
            }
        }
    })?;
    Builder::new().name("input".into()).spawn(move || {
        let mut buffer = vec![0u8; 64 << 10];
        loop {
            let read = match tty.read(&mut buffer) {
                Ok(0) => Input::Closed("the terminal closed".into()),
                Ok(n) => Input::Bytes(buffer[..n].to_vec(), n == buffer.len()),
                Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(err) => Input::Closed(format!("reading the terminal: {err}")),
            };
            let closed = matches!(read, Input::Closed(_));
            if input.send(read).is_err() || closed {
                return;
            }
        }
    })?;
    Ok(())
}

#[cfg(unix)]
fn decode_input(
    received: &std::sync::mpsc::Receiver<Input>,
    events: &std::sync::mpsc::Sender<super::Event>,
) {
    use std::sync::mpsc::RecvTimeoutError;

    let mut decoder = Decoder::default();
    loop {
        let next = match decoder.deadline() {
            Some(deadline) => {
                match received.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                    Ok(input) => Some(input),
                    Err(RecvTimeoutError::Timeout) => None,
                    Err(RecvTimeoutError::Disconnected) => return,
                }
            }
            None => match received.recv() {
                Ok(input) => Some(input),
                Err(_) => return,
            },
        };
        let mut out = Vec::new();
        match next {
            Some(Input::Bytes(bytes, more)) => out = decoder.feed(&bytes, Instant::now(), more),
            Some(Input::Resized) => {
                if let Ok((width, height)) = ratatui::crossterm::terminal::size() {
                    out.push(Event::Resize(width, height));
                }
            }
            Some(Input::Closed(message)) => {
                let _ = events.send(super::Event::InputClosed(message));
                return;
            }
            None => {}
        }
        out.extend(decoder.expire(Instant::now()));
        if decoder.take_answered() {
            crate::terminal_answer::answered();
        }
        for event in out {
            if events.send(super::Event::Terminal(event)).is_err() {
                return;
            }
        }
    }
}

/// Elsewhere, crossterm's reader.
#[cfg(not(unix))]
pub fn spawn(events: std::sync::mpsc::Sender<super::Event>) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("input".into())
        .spawn(move || {
            loop {
                let event = match ratatui::crossterm::event::read() {
                    Ok(event) => super::Event::Terminal(event),
                    Err(err) => {
                        let _ = events.send(super::Event::InputClosed(err.to_string()));
                        return;
                    }
                };
                if events.send(event).is_err() {
                    return;
                }
            }
        })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed(decoder: &mut Decoder, bytes: &[u8]) -> Vec<Event> {
        decoder.feed(bytes, Instant::now(), false)
    }

    fn keys(text: &str) -> Vec<Event> {
        text.chars()
            .map(|c| {
                let shift = if c.is_uppercase() {
                    KeyModifiers::SHIFT
                } else {
                    KeyModifiers::NONE
                };
                key(KeyCode::Char(c), shift)
            })
            .collect()
    }

    #[test]
    fn keys_decode_as_crossterm_decodes_them() {
        let mut d = Decoder::default();
        let cases: &[(&[u8], Event)] = &[
            (b"q", key(KeyCode::Char('q'), KeyModifiers::NONE)),
            (b"G", key(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            ("é".as_bytes(), key(KeyCode::Char('é'), KeyModifiers::NONE)),
            (b"\r", key(KeyCode::Enter, KeyModifiers::NONE)),
            (b"\t", key(KeyCode::Tab, KeyModifiers::NONE)),
            (b"\x7f", key(KeyCode::Backspace, KeyModifiers::NONE)),
            (b"\x03", key(KeyCode::Char('c'), KeyModifiers::CONTROL)),
            (b"\x1b", key(KeyCode::Esc, KeyModifiers::NONE)),
            (b"\x1bx", key(KeyCode::Char('x'), KeyModifiers::ALT)),
            (b"\x1b[A", key(KeyCode::Up, KeyModifiers::NONE)),
            (b"\x1bOB", key(KeyCode::Down, KeyModifiers::NONE)),
            (b"\x1b[1;5C", key(KeyCode::Right, KeyModifiers::CONTROL)),
            (b"\x1b[5~", key(KeyCode::PageUp, KeyModifiers::NONE)),
            (b"\x1b[6~", key(KeyCode::PageDown, KeyModifiers::NONE)),
            (b"\x1b[3;2~", key(KeyCode::Delete, KeyModifiers::SHIFT)),
            (b"\x1b[H", key(KeyCode::Home, KeyModifiers::NONE)),
            (b"\x1b[4~", key(KeyCode::End, KeyModifiers::NONE)),
            (b"\x1b[15~", key(KeyCode::F(5), KeyModifiers::NONE)),
            (b"\x1b[[A", key(KeyCode::F(1), KeyModifiers::NONE)),
            (b"\x1b[Z", key(KeyCode::BackTab, KeyModifiers::SHIFT)),
        ];
        for (bytes, event) in cases {
            assert_eq!(
                feed(&mut d, bytes),
                std::slice::from_ref(event),
                "{bytes:?}"
            );
            assert_eq!(d.deadline(), None, "{bytes:?} left something behind");
        }
        let scroll = feed(&mut d, b"\x1b[<65;10;5M");
        assert!(
            matches!(&scroll[..], [Event::Mouse(m)] if m.kind == MouseEventKind::ScrollDown && m.column == 9 && m.row == 4),
            "{scroll:?}"
        );
    }

    /// A paste arrives whole, however the terminal's writes split it, even
    /// through its end marker.
    #[test]
    fn a_paste_is_one_event_however_it_is_split() {
        let mut d = Decoder::default();
        let all = b"\x1b[200~q line\nnext \xc3\xa9\x1b[201~x";
        for split in 0..all.len() {
            let events = d.decoder_feed_split(all, split);
            assert_eq!(
                events,
                [
                    Event::Paste("q line\nnext é".into()),
                    key(KeyCode::Char('x'), KeyModifiers::NONE)
                ],
                "split at {split}"
            );
        }
    }

    impl Decoder {
        fn decoder_feed_split(&mut self, bytes: &[u8], at: usize) -> Vec<Event> {
            let now = Instant::now();
            let mut events = self.feed(&bytes[..at], now, true);
            events.extend(self.feed(&bytes[at..], now, false));
            events
        }
    }

    /// A stray paste start (`ESC [200~` with no end, as a red team sent it)
    /// held every later key, `q` and Ctrl-C included, for good. Once the
    /// paste has gone PASTE_WAIT without a byte, what came is handed on as
    /// the paste and the keys after it work. It was once typed as keys: a
    /// paste cut short over a flaky SSH link, `pip install -q torch`, quit
    /// lore at its `q`.
    #[test]
    fn an_unterminated_paste_is_a_paste_after_its_wait() {
        let mut d = Decoder::default();
        let start = Instant::now();
        assert_eq!(d.feed(b"\x1b[200~pip install -q", start, false), []);
        let deadline = d.deadline().expect("the paste is held");
        assert_eq!(deadline, start + PASTE_WAIT);
        assert_eq!(d.expire(start + PASTE_WAIT / 2), [], "not yet");
        assert_eq!(d.expire(deadline), [Event::Paste("pip install -q".into())]);
        assert_eq!(d.deadline(), None);
        assert_eq!(
            d.feed(b"q", deadline, false),
            [key(KeyCode::Char('q'), KeyModifiers::NONE)]
        );
    }

    /// The background colour answer that comes after lore stopped waiting
    /// (a slow SSH link) was typed into the filter as `]11;rgb:ffff/…`.
    /// Answers are dropped, in either terminator, and the device attributes
    /// answer after them is reported.
    #[test]
    fn a_late_colour_answer_is_dropped_not_typed() {
        let mut d = Decoder::default();
        for answer in [
            &b"\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c"[..],
            &b"\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?65;1;9c"[..],
        ] {
            for split in 1..answer.len() {
                let events = d.decoder_feed_split(answer, split);
                assert_eq!(events, [], "split at {split}");
                assert!(d.take_answered(), "split at {split}");
                assert_eq!(d.deadline(), None);
            }
        }
        // Keys around an answer are kept.
        assert_eq!(
            feed(&mut d, b"a\x1b]11;rgb:0/0/0\x07b"),
            [
                key(KeyCode::Char('a'), KeyModifiers::NONE),
                key(KeyCode::Char('b'), KeyModifiers::NONE)
            ]
        );
    }

    /// A sequence that never completes, or runs too long, is typed: it
    /// cannot hold back the keys after it.
    #[test]
    fn an_incomplete_or_endless_sequence_is_typed() {
        let mut d = Decoder::default();
        let start = Instant::now();
        assert_eq!(d.feed(b"\x1b[1;", start, false), []);
        let typed = d.expire(start + SEQUENCE_WAIT);
        assert_eq!(typed[0], key(KeyCode::Char('['), KeyModifiers::ALT));
        assert_eq!(typed[1..], keys("1;")[..]);
        assert_eq!(d.deadline(), None);

        // Alt-] waits for its sequence, then is the key.
        assert_eq!(d.feed(b"\x1b]", start, false), []);
        assert_eq!(
            d.expire(start + SEQUENCE_WAIT * 2),
            [key(KeyCode::Char(']'), KeyModifiers::ALT)]
        );

        let endless = [b"\x1b]".as_slice(), &[b'x'; ANSWER_MAX + 10]].concat();
        let events = feed(&mut d, &endless);
        assert_eq!(events[0], key(KeyCode::Char(']'), KeyModifiers::ALT));
        assert_eq!(events.len(), ANSWER_MAX + 11);
        let long = [b"\x1b[".as_slice(), &[b'1'; SEQUENCE_MAX]].concat();
        assert_eq!(feed(&mut d, &long).len(), SEQUENCE_MAX + 1);
        assert_eq!(d.deadline(), None);
    }

    /// A paste too big to hold is handed on in pieces, each cut between
    /// characters.
    #[test]
    fn a_huge_paste_comes_in_pieces() {
        let mut d = Decoder::default();
        let mut events = feed(&mut d, b"\x1b[200~");
        let chunk = "é".repeat(1 << 16);
        let mut sent = 0;
        while sent <= PASTE_PIECE {
            events.extend(feed(&mut d, chunk.as_bytes()));
            sent += chunk.len();
        }
        events.extend(feed(&mut d, b"\x1b[201~"));
        let pieces: Vec<&String> = events
            .iter()
            .map(|e| match e {
                Event::Paste(text) => text,
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(pieces.len(), 2);
        assert!(pieces[0].len() <= PASTE_PIECE);
        assert_eq!(pieces.iter().map(|p| p.len()).sum::<usize>(), sent);
        assert!(pieces.iter().all(|p| !p.contains('\u{fffd}')));
    }
}
