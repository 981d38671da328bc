//! Output through a pager, as bat and git do: `lore show` on a terminal pipes
//! its text to `$LORE_PAGER`, else `$PAGER`, else `less -R -F` (`-R` keeps the
//! colours, `-F` quits at once when the text fits on one screen, so short
//! output just prints). A bare `less` gets the same two flags. When the pager
//! cannot be started, the text goes to stdout as if paging were off.
//!
//! While the pager runs, Ctrl-C belongs to it (`less` stops a search or a
//! follow with it): lore ignores SIGINT and waits for the pager to end, as
//! git and bat do. Dying there left `less` orphaned, fighting the shell for
//! the terminal.

use std::io::{self, IsTerminal, Write};
use std::process::{Command, Stdio};

use crate::cli::Paging;

/// Whether output should go through a pager.
pub fn wanted(paging: Paging) -> bool {
    match paging {
        Paging::Always => true,
        Paging::Never => false,
        Paging::Auto => io::stdout().is_terminal(),
    }
}

/// The pager command line from the environment, split like a shell would;
/// `None` for an empty variable (paging off) or unbalanced quotes.
pub fn command_line(lore_pager: Option<&str>, pager: Option<&str>) -> Option<Vec<String>> {
    let chosen = lore_pager.or(pager).unwrap_or("less");
    let mut words = shell_words::split(chosen).ok()?;
    if words.is_empty() {
        return None;
    }
    let program = std::path::Path::new(&words[0])
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("");
    if program == "less" && words.len() == 1 {
        words.extend(["-R".to_string(), "-F".to_string()]);
    }
    Some(words)
}

/// Writes `text` through the pager, or to stdout when there is none or it
/// cannot be started. A pager that exits early (the user quit `less`) is not
/// an error.
pub fn page(text: &[u8]) -> io::Result<()> {
    let lore_pager = std::env::var("LORE_PAGER").ok();
    let pager = std::env::var("PAGER").ok();
    let Some(words) = command_line(lore_pager.as_deref(), pager.as_deref()) else {
        return write_stdout(text);
    };
    let _interrupts = IgnoreInterrupts::start();
    let child = Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return write_stdout(text);
    };
    // Closing the pipe (the end of this block) tells the pager the text is
    // all there; whatever happened while writing, it is waited for.
    let written = match child.stdin.take() {
        Some(mut stdin) => stdin.write_all(text),
        None => Ok(()),
    };
    let waited = child.wait();
    match written {
        Err(err) if err.kind() != io::ErrorKind::BrokenPipe => return Err(err),
        _ => {}
    }
    waited?;
    Ok(())
}

/// SIGINT does not stop lore while this lives. The pager is started after:
/// a signal lore handles is back to its default action in a new program,
/// so the pager gets Ctrl-C as usual.
struct IgnoreInterrupts {
    #[cfg(unix)]
    id: Option<signal_hook::SigId>,
}

impl IgnoreInterrupts {
    #[cfg(unix)]
    fn start() -> IgnoreInterrupts {
        let flag = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let id = signal_hook::flag::register(signal_hook::consts::SIGINT, flag).ok();
        IgnoreInterrupts { id }
    }

    #[cfg(not(unix))]
    fn start() -> IgnoreInterrupts {
        IgnoreInterrupts {}
    }
}

/// Once the pager is gone lore only exits; signal-hook leaves SIGINT
/// ignored after its last action is removed, so this is only tidiness.
impl Drop for IgnoreInterrupts {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(id) = self.id.take() {
            signal_hook::low_level::unregister(id);
        }
    }
}

fn write_stdout(text: &[u8]) -> io::Result<()> {
    let mut out = super::stdout();
    out.write_all(text)?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bare_less_gets_raw_colours_and_quit_if_one_screen() {
        assert_eq!(command_line(None, None).unwrap(), ["less", "-R", "-F"]);
        assert_eq!(
            command_line(None, Some("less")).unwrap(),
            ["less", "-R", "-F"]
        );
        assert_eq!(
            command_line(None, Some("/usr/bin/less")).unwrap(),
            ["/usr/bin/less", "-R", "-F"]
        );
        assert_eq!(command_line(None, Some("less -S")).unwrap(), ["less", "-S"]);
        assert_eq!(command_line(Some("most"), Some("less")).unwrap(), ["most"]);
        assert_eq!(
            command_line(None, Some("sh -c 'cat >x'")).unwrap(),
            ["sh", "-c", "cat >x"]
        );
        assert!(command_line(None, Some("")).is_none());
        assert!(command_line(None, Some("less 'unclosed")).is_none());
    }
}
