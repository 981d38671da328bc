//! Output through a pager, as bat and git do: `lore show` on a terminal pipes
//! its text to `$LORE_PAGER`, else `$PAGER`, else `less -R -F` (`-R` keeps the
//! colours, `-F` quits at once when the text fits on one screen, so short
//! output just prints). A bare `less` gets the same two flags. When the pager
//! cannot be started, the text goes to stdout as if paging were off.

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
    let child = Command::new(&words[0])
        .args(&words[1..])
        .stdin(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        return write_stdout(text);
    };
    if let Some(mut stdin) = child.stdin.take() {
        match stdin.write_all(text) {
            Err(err) if err.kind() != io::ErrorKind::BrokenPipe => return Err(err),
            _ => {}
        }
    }
    child.wait()?;
    Ok(())
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
