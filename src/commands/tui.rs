//! `lore` with no verb: the terminal UI. Refuses (exit 2) when stdout is not a
//! terminal, so a pipe or a script gets an error instead of escape codes.

use crate::config::Settings;
use crate::tui::{self, TuiError};

use super::{EXIT_OK, EXIT_USAGE};

pub fn run(settings: &Settings, probing: &crate::probe::ProbeOptions) -> anyhow::Result<u8> {
    match tui::run_probing(settings, probing.clone()) {
        Ok(()) => Ok(EXIT_OK),
        Err(TuiError::NotATerminal) => {
            eprintln!("lore: error: {}", TuiError::NotATerminal);
            Ok(EXIT_USAGE)
        }
        Err(err) => Err(err.into()),
    }
}
