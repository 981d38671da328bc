//! `lore probe`: the facts the probes establish, each with its evidence, as
//! text or JSON. Problems met on the way are printed on stderr (text) or in
//! `notes` (JSON). Exit 0 with facts, 1 with none, 2 when the root or the
//! Dockerfile cannot be opened.

use std::io::Write;

use serde::Serialize;

use crate::cli::ProbeArgs;
use crate::config::Settings;
use crate::probe::{self, Fact, ProbeOptions};
use crate::text::sanitize;

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
            eprintln!("lore: error: {}", sanitize(&err.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    let facts: Vec<Fact> = findings
        .facts()
        .into_iter()
        .map(|f| Fact {
            fact: f.fact,
            value: sanitize(&f.value),
            evidence: f.evidence.iter().map(|e| sanitize(e)).collect(),
        })
        .collect();
    let notes: Vec<String> = findings
        .notes
        .iter()
        .map(|n| sanitize(&n.to_string()))
        .collect();
    let mut out = stdout();
    if args.json {
        super::write_json(
            &mut out,
            &ProbeJson {
                probed: sanitize(&options.describe()),
                facts: facts.clone(),
                notes,
            },
        )?;
    } else {
        for note in &notes {
            eprintln!("lore: warning: {note}");
        }
        let bold = |s: &str| {
            if settings.color {
                format!("\x1b[1m{s}\x1b[0m")
            } else {
                s.to_string()
            }
        };
        writeln!(out, "Probed {}:", sanitize(&options.describe()))?;
        let width = facts.iter().map(|f| f.fact.len()).max().unwrap_or(0);
        for f in &facts {
            let name = format!("{:<width$}", f.fact);
            writeln!(out, "{}  {}", bold(&name), f.value)?;
            for e in &f.evidence {
                writeln!(out, "{:width$}    {e}", "")?;
            }
        }
        if facts.is_empty() {
            writeln!(out, "(no facts found)")?;
        }
    }
    out.flush()?;
    Ok(if facts.is_empty() {
        EXIT_PROBLEMS
    } else {
        EXIT_OK
    })
}
