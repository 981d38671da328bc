//! Entering and leaving the terminal's full-screen mode, and putting it back
//! when anything goes wrong: a panic anywhere first restores the terminal
//! (main screen, cooked mode, visible cursor, no mouse capture), then says what
//! happened and where the log is. SIGTERM, SIGHUP, SIGINT and SIGQUIT
//! restore it too, then end the process with the status a shell expects
//! (128 + the signal's number), promptly even when the terminal has stopped
//! reading lore's output.

use std::io::{self, Stdout, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};

use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use ratatui::crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::crossterm::{cursor, execute};

pub type Tui = Terminal<CrosstermBackend<Stdout>>;

/// Set while the terminal is in full-screen mode, so restoring twice (panic
/// hook, then normal exit) does nothing the second time.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Switches to the alternate screen in raw mode with bracketed paste.
pub fn enter() -> io::Result<Tui> {
    enable_raw_mode()?;
    ACTIVE.store(true, Ordering::SeqCst);
    let mut stdout = io::stdout();
    if let Err(err) = execute!(stdout, EnterAlternateScreen, EnableBracketedPaste) {
        restore();
        return Err(err);
    }
    let terminal = Terminal::new(CrosstermBackend::new(io::stdout()));
    if terminal.is_err() {
        restore();
    }
    terminal
}

/// Restores the terminal when the process is asked to stop (SIGTERM: `kill`,
/// a service manager; SIGHUP: the terminal or SSH connection went away;
/// SIGINT: `kill -INT`, as Ctrl-C is a key in raw mode; SIGQUIT), then exits
/// with 128 + the signal's number. Without this the default action killed
/// lore with the terminal still raw, on the alternate screen, with
/// bracketed paste on. Call once, before `enter`.
///
/// A terminal that stopped reading (a stalled SSH link, Ctrl-S in some
/// emulators) leaves the UI thread blocked in a write, holding stdout: the
/// restoring neither waits for that thread nor for its own output to drain
/// (see `restore_promptly`).
#[cfg(unix)]
pub fn restore_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGHUP, SIGINT, SIGQUIT])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                // Holding stdout keeps the UI thread from drawing after the
                // terminal is back to normal; the process ends holding it.
                hold_stdout(PATIENCE);
                restore_promptly(PATIENCE);
                log::warn!("stopped by signal {signal}");
                log::logger().flush();
                std::process::exit(128 + signal);
            }
        })?;
    Ok(())
}

/// How long stopping on a signal waits for stdout, and then for its own
/// output, before going on without.
#[cfg(unix)]
const PATIENCE: std::time::Duration = std::time::Duration::from_millis(200);

/// Takes stdout's lock on a thread that keeps it until the process ends,
/// waiting at most `patience` for it: a UI thread blocked in a write holds
/// it for as long as the terminal does not read.
#[cfg(unix)]
fn hold_stdout(patience: std::time::Duration) {
    let (taken, wait) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("hold-stdout".into())
        .spawn(move || {
            let _stdout = io::stdout().lock();
            let _ = taken.send(());
            loop {
                std::thread::park();
            }
        });
    if spawned.is_ok() && wait.recv_timeout(patience).is_err() {
        log::warn!("stdout is busy (the terminal is not reading): restoring it without waiting");
    }
}

/// `restore`, without waiting on anything: the terminal's modes are set at
/// once (that never waits for output), and the escape sequences are written
/// straight to stdout's file (not through `io::stdout()`, whose lock another
/// thread may hold) from a thread that is waited for at most `patience`.
#[cfg(unix)]
fn restore_promptly(patience: std::time::Duration) {
    use std::os::fd::AsFd;
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let _ = disable_raw_mode();
    let mut sequences = Vec::new();
    let _ = ratatui::crossterm::queue!(
        sequences,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let Ok(out) = io::stdout().as_fd().try_clone_to_owned() else {
        return;
    };
    let mut out = std::fs::File::from(out);
    let (written, wait) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("restore".into())
        .spawn(move || {
            let _ = out.write_all(&sequences);
            let _ = written.send(());
        });
    if spawned.is_ok() && wait.recv_timeout(patience).is_err() {
        log::warn!("the terminal did not take the sequences that restore it");
    }
}

#[cfg(not(unix))]
pub fn restore_on_signals() -> io::Result<()> {
    Ok(())
}

/// Turns mouse capture on or off.
pub fn set_mouse(on: bool) -> io::Result<()> {
    let mut stdout = io::stdout();
    if on {
        execute!(stdout, EnableMouseCapture)
    } else {
        execute!(stdout, DisableMouseCapture)
    }
}

/// Puts the terminal back the way the shell expects it. Safe to call more than
/// once and from the panic hook; errors are ignored because there is nothing
/// better to do with them at that point.
pub fn restore() {
    if !ACTIVE.swap(false, Ordering::SeqCst) {
        return;
    }
    let mut stdout = io::stdout();
    let _ = execute!(
        stdout,
        DisableMouseCapture,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = stdout.flush();
}

/// Installs a panic hook that restores the terminal before anything is
/// printed, logs the panic, and names the log file. The process then exits
/// with status 101, so a panic in a worker thread cannot leave the UI drawing
/// on a restored terminal.
pub fn install_panic_hook(log_path: Option<PathBuf>) {
    std::panic::set_hook(Box::new(move |info| {
        // A panic the code expects (damaged data, see `panics`) is caught
        // and recovered from: the UI goes on.
        if crate::panics::is_catching() {
            log::error!("caught: {}", crate::panics::message(info.payload()));
            return;
        }
        restore();
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let message = crate::panics::message(info.payload());
        let thread = std::thread::current();
        let thread = thread.name().unwrap_or("unnamed");
        log::error!("panic in thread {thread}{location}: {message}");
        // The functions the panic came through, for the bug report: the
        // release binary keeps its symbol table (no debug info), so they
        // are named even without file and line.
        let backtrace = std::backtrace::Backtrace::force_capture();
        log::error!("backtrace:\n{backtrace}");
        log::logger().flush();
        // A closed stderr must not turn the report into a second panic.
        let mut err = io::stderr();
        let _ = writeln!(err, "lore: internal error{location}: {message}");
        let _ = match &log_path {
            Some(path) => writeln!(
                err,
                "The terminal has been restored. The log is in {}; please include it in a bug report.",
                path.display()
            ),
            None => writeln!(
                err,
                "The terminal has been restored. (No log file could be written.)"
            ),
        };
        std::process::exit(101);
    }));
}
