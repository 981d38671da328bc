//! `lore completions SHELL` and `lore man`: lore fitted into a shell.
//!
//! The completion script is clap_complete's dynamic one: on each Tab the
//! shell runs `lore` again with `COMPLETE=<shell>` set (handled first thing in
//! `main`), so document paths, anchors and tree ids are always current.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::env::Shells;

use crate::cli::{Cli, CompletionsArgs};

use super::{EXIT_OK, stdout};

/// The environment variable the generated scripts set.
pub const COMPLETE_VAR: &str = "COMPLETE";

pub fn run(args: &CompletionsArgs) -> anyhow::Result<u8> {
    let shells = Shells::builtins();
    let shell = shells
        .completer(args.shell.name())
        .ok_or_else(|| anyhow::anyhow!("no completion support for {}", args.shell.name()))?;
    let mut buf = Vec::new();
    // The script calls `lore` by name, so it keeps working after an upgrade
    // moves the binary.
    shell.write_registration(COMPLETE_VAR, "lore", "lore", "lore", &mut buf)?;
    let mut out = stdout();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(EXIT_OK)
}

pub fn man() -> anyhow::Result<u8> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut buf)?;
    let mut out = stdout();
    out.write_all(&buf)?;
    out.flush()?;
    Ok(EXIT_OK)
}
