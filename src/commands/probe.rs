//! `lore probe`: the facts the probes establish, each with its evidence, as
//! text or JSON. Problems met on the way are printed on stderr (text) or in
//! `notes` (JSON). Exit 0 with facts, 1 with none, 2 when the root or the
//! Dockerfile cannot be opened.
//!
//! Values, evidence and notes hold names from the probed files (a folder
//! may be called `x\nforged-fact  …`): as text each is printed within its
//! one line, escaped (`inline`), so no name can start a line of its own; as
//! JSON each is the exact string, which `write_json` escapes.

use std::io::Write;

use serde::Serialize;

use crate::cli::ProbeArgs;
use crate::config::Settings;
use crate::probe::{self, Fact, ProbeOptions};
use crate::text::inline;

use super::{EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, stdout};

#[derive(Serialize)]
struct ProbeJson {
    probed: String,
    facts: Vec<Fact>,
    notes: Vec<String>,
}

pub fn run(settings: &Settings, args: &ProbeArgs, options: &ProbeOptions) -> anyhow::Result<u8> {
    let findings = match probe::run(options) {
        Ok(findings) => findings,
        Err(err) => {
            say!("lore: error: {}", inline(&err.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    let facts = findings.facts();
    let code = if facts.is_empty() {
        EXIT_PROBLEMS
    } else {
        EXIT_OK
    };
    let notes: Vec<String> = findings.notes.iter().map(ToString::to_string).collect();
    let mut out = stdout();
    if args.json {
        super::write_json(
            &mut out,
            &ProbeJson {
                probed: options.describe(),
                facts,
                notes,
            },
        )?;
        out.flush()?;
        return Ok(code);
    }
    for note in &notes {
        say!("lore: warning: {}", inline(note));
    }
    let bold = |s: &str| {
        if settings.color {
            format!("\x1b[1m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    };
    writeln!(out, "Probed {}:", inline(&options.describe()))?;
    let width = facts.iter().map(|f| f.fact.len()).max().unwrap_or(0);
    for f in &facts {
        let name = format!("{:<width$}", f.fact);
        // A number with a unit reads as one (`131072 MiB`); JSON keeps the
        // bare value that conditions compare.
        let value = match probe::fact_name(f.fact).and_then(|n| n.unit) {
            Some(unit) => format!("{} {unit}", f.value),
            None => f.value.clone(),
        };
        writeln!(out, "{}  {}", bold(&name), inline(&value))?;
        for e in &f.evidence {
            writeln!(out, "{:width$}    {}", "", inline(e))?;
        }
    }
    if facts.is_empty() {
        writeln!(out, "(no facts found)")?;
    }
    out.flush()?;
    Ok(code)
}
