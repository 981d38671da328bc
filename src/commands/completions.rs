//! `lore completions SHELL` and `lore man`: lore fitted into a shell.
//!
//! The completion script is clap_complete's dynamic one: on each Tab the
//! shell runs `lore` again with `COMPLETE=<shell>` set (handled first thing in
//! `main`), so document paths, anchors and tree ids are always current.

use std::io::Write;

use clap::CommandFactory;
use clap_complete::env::Shells;
use clap_mangen::Man;

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
    let page = manual_page()?;
    let mut out = stdout();
    out.write_all(&page)?;
    out.flush()?;
    Ok(EXIT_OK)
}

/// The whole manual as one page: clap_mangen's sections for `lore`, then a
/// COMMANDS section with each verb's synopsis, description and options.
/// clap_mangen's own SUBCOMMANDS section points at `lore-check(1)` and
/// the like, pages `lore man` never writes.
pub fn manual_page() -> std::io::Result<Vec<u8>> {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    let man = Man::new(cmd.clone());
    let mut page = Vec::new();
    man.render_title(&mut page)?;
    man.render_name_section(&mut page)?;
    man.render_synopsis_section(&mut page)?;
    man.render_description_section(&mut page)?;
    man.render_options_section(&mut page)?;
    page.extend_from_slice(b".SH COMMANDS\n");
    let globals: Vec<clap::Id> = cmd
        .get_arguments()
        .filter(|a| a.is_global_set())
        .map(|a| a.get_id().clone())
        .collect();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("lore {}", sub.get_name());
        // The global flags are listed once, under OPTIONS.
        let mut sub = sub.clone().bin_name(&name).display_name(&name);
        for id in &globals {
            sub = sub.mut_arg(id, |a| a.hide(true));
        }
        page.extend_from_slice(format!(".SS \"{name}\"\n").as_bytes());
        let man = Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        if sub.get_after_help().is_some() || sub.get_after_long_help().is_some() {
            man.render_extra_section(&mut part)?;
        }
        // The verb's parts become paragraphs of its subsection.
        for line in String::from_utf8_lossy(&part).lines() {
            let line = if line.starts_with(".SH ") {
                ".PP"
            } else {
                line
            };
            page.extend_from_slice(line.as_bytes());
            page.push(b'\n');
        }
    }
    man.render_extra_section(&mut page)?;
    man.render_version_section(&mut page)?;
    Ok(page)
}
