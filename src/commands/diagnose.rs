//! `lore diagnose [--root DIR] [--dockerfile FILE] [--json] QUERY|-`: the
//! search `lore search` runs, the causes its first sections list, each
//! judged against the probes `lore probe` runs. Exit 0 when a cause holds,
//! 1 when none does (or no section lists causes), 2 when the query is empty
//! or the root / Dockerfile cannot be opened.

use std::collections::HashMap;
use std::io::Write;

use serde::Serialize;

use crate::cli::DiagnoseArgs;
use crate::config::Settings;
use crate::corpus::Document;
use crate::diagnose::build_log;
use crate::diagnose::{self, Diagnosis, Judged, SectionCauses, Verdict};
use crate::probe::ProbeOptions;
use crate::text::{inline, sanitize};

use super::search::{find, read_query};
use super::{EXIT_OK, EXIT_PROBLEMS, EXIT_USAGE, stdout};

/// Hits asked of the search: enough to find sections with causes.
const SEARCH_LIMIT: usize = 10;
/// Columns of the verdict label.
const LABEL_WIDTH: usize = 11;

const BOLD: &str = "\x1b[1m";
const GREEN: &str = "\x1b[1;32m";
const YELLOW: &str = "\x1b[33m";
const DIM: &str = "\x1b[2m";
const PATH_STYLE: &str = "\x1b[35m";
const RESET: &str = "\x1b[0m";

#[derive(Serialize)]
struct DiagnoseJson<'a> {
    probed: String,
    sections: &'a [SectionCauses],
    causes: Vec<Judged>,
    /// Whether a cause holds here.
    holds: bool,
    /// The fix of the first cause that holds.
    fix: Option<String>,
    /// What the message itself states, `fact value` (`gpu.capability 12.0`).
    stated: Vec<String>,
    /// Python environments the message names by a path (a traceback's
    /// `File "…/site-packages/…"`) that were probed too: their prefixes.
    named: Vec<String>,
    notes: Vec<String>,
}

pub fn run(settings: &Settings, args: &DiagnoseArgs, options: &ProbeOptions) -> anyhow::Result<u8> {
    let text = match read_query(&args.query)? {
        Ok(text) => text,
        Err(code) => return Ok(code),
    };
    let (_, hits) = match find(settings, &text, SEARCH_LIMIT, None)? {
        Ok(found) => found,
        Err(code) => return Ok(code),
    };
    // Only the documents of the first hits are read and parsed.
    let wanted: Vec<&str> = hits
        .iter()
        .take(diagnose::HITS_CONSIDERED)
        .map(|h| h.path.as_str())
        .collect();
    let (files, _) = settings.knowledge.collect_named("md", &wanted);
    let docs: HashMap<String, Document> = files
        .into_iter()
        .map(|f| (f.rel.clone(), Document::parse(f)))
        .collect();
    let sections = diagnose::section_causes(&hits, &text, |path| docs.get(path));
    if sections.is_empty() {
        match hits.first() {
            None => say!("lore: no section explains this; nothing to diagnose"),
            Some(hit) => say!(
                "lore: the sections that match ({}:{} first) list no causes to check; read them with `lore search`",
                inline(&hit.path),
                hit.line
            ),
        }
        return Ok(EXIT_PROBLEMS);
    }
    // A container build log failed inside its image: its Dockerfile here,
    // or nothing, is probed rather than this machine.
    let place = build_log::place(&text, options, std::path::Path::new(""));
    let (notes, ctx) = match diagnose::probe_place(&place, options, &text) {
        Ok(found) => found,
        Err(err) => {
            say!("lore: error: {}", sanitize(&err.to_string()));
            return Ok(EXIT_USAGE);
        }
    };
    let probed = match place.options(options) {
        Some(probing) => probing.describe(),
        None => "nothing".to_string(),
    };
    let named = ctx.named_envs().to_vec();
    let stated = diagnose::message::facts(&text);
    let diagnosis = diagnose::diagnose(sections, &ctx.with_stated(&stated));
    // `fact value` for --json, as documented; the text output adds units.
    let stated_json: Vec<String> = stated
        .iter()
        .map(|f| format!("{} {}", f.fact, f.value))
        .collect();
    let stated: Vec<String> = stated
        .iter()
        .map(
            |f| match crate::probe::fact_name(f.fact).and_then(|n| n.unit) {
                Some(unit) => format!("{} {} {unit}", f.fact, f.value),
                None => format!("{} {}", f.fact, f.value),
            },
        )
        .collect();
    let mut notes: Vec<String> = notes.iter().map(|n| sanitize(&n.to_string())).collect();
    let place_note = place.note().map(|n| sanitize(&n));
    if let Some(note) = &place_note {
        notes.insert(0, note.clone());
    }
    let holds = diagnosis.first_holding().is_some();
    let mut out = stdout();
    if args.json {
        super::write_json(
            &mut out,
            &DiagnoseJson {
                probed,
                sections: &diagnosis.sections,
                causes: diagnosis.causes.clone(),
                holds,
                fix: diagnosis.first_holding().and_then(|c| c.fix.clone()),
                stated: stated_json,
                named,
                notes,
            },
        )?;
    } else {
        for note in notes.iter().skip(usize::from(place_note.is_some())) {
            say!("lore: warning: {note}");
        }
        write_text(
            &mut out,
            &diagnosis,
            &probed,
            place_note.as_deref(),
            &stated,
            &named,
            settings.color,
        )?;
    }
    out.flush()?;
    Ok(if holds { EXIT_OK } else { EXIT_PROBLEMS })
}

fn write_text(
    out: &mut impl Write,
    diagnosis: &Diagnosis,
    probed: &str,
    place_note: Option<&str>,
    stated: &[String],
    named: &[String],
    color: bool,
) -> std::io::Result<()> {
    let paint = |style: &str, s: &str| {
        if color {
            format!("{style}{s}{RESET}")
        } else {
            s.to_string()
        }
    };
    writeln!(out, "Probed {}.", sanitize(probed))?;
    if let Some(note) = place_note {
        // `the message is …` as a sentence of its own.
        let mut chars = note.chars();
        let first: String = chars
            .next()
            .map(|c| c.to_uppercase().collect())
            .unwrap_or_default();
        writeln!(out, "{first}{}.", chars.as_str())?;
    }
    if !stated.is_empty() {
        // Values read from the message's own words: digits and dots only.
        writeln!(out, "The message states: {}.", stated.join(", "))?;
    }
    if !named.is_empty() {
        let named: Vec<String> = named.iter().map(|p| inline(p)).collect();
        writeln!(
            out,
            "Also probed, as the message's paths lead there: {}.",
            named.join(", ")
        )?;
    }
    writeln!(out, "Sections that list causes:")?;
    for s in &diagnosis.sections {
        writeln!(
            out,
            "  {}:{}  {}",
            paint(PATH_STYLE, &inline(&s.path)),
            s.line,
            inline(&s.heading)
        )?;
    }
    writeln!(out)?;
    match diagnosis.first_holding() {
        Some(first) => {
            writeln!(out, "{}", paint(GREEN, "Holds here:"))?;
            writeln!(out, "  {}", inline(&first.text))?;
            if let Some(fix) = &first.fix {
                writeln!(out, "{} {}", paint(BOLD, "Fix:"), inline(fix))?;
            }
        }
        None => {
            writeln!(out, "{}", paint(BOLD, "No cause holds here."))?;
            let unknown: Vec<&Judged> = diagnosis
                .causes
                .iter()
                .filter(|c| c.evaluation.verdict == Verdict::Unknown)
                .collect();
            let pool: Vec<&Judged> = if unknown.is_empty() {
                diagnosis.causes.iter().collect()
            } else {
                unknown
            };
            let mut seen: Vec<&str> = Vec::new();
            let confirms: Vec<&Judged> = pool
                .into_iter()
                .filter(|c| match c.confirm.as_deref() {
                    Some(command) if !seen.contains(&command) => {
                        seen.push(command);
                        true
                    }
                    _ => false,
                })
                .collect();
            if !confirms.is_empty() {
                writeln!(out, "Check by hand:")?;
                for c in confirms {
                    writeln!(out, "  # {}", inline(&c.text))?;
                    for line in c.confirm.as_deref().unwrap_or("").lines() {
                        writeln!(out, "  {}", sanitize(line))?;
                    }
                }
            }
        }
    }
    writeln!(out)?;
    let pad = " ".repeat(LABEL_WIDTH + 2);
    for c in &diagnosis.causes {
        let (label, style) = match c.evaluation.verdict {
            Verdict::Holds => ("HOLDS", GREEN),
            Verdict::Unknown => ("UNKNOWN", YELLOW),
            Verdict::RuledOut => ("RULED OUT", DIM),
        };
        writeln!(
            out,
            "{}  {}",
            paint(style, &format!("{label:<LABEL_WIDTH$}")),
            inline(&c.text)
        )?;
        writeln!(out, "{pad}{}", paint(DIM, &format!("({})", inline(&c.at))))?;
        if let Some(words) = &c.check_words {
            writeln!(out, "{pad}check: {}", inline(words))?;
        }
        if !c.evaluation.reasons.is_empty() {
            let seen: Vec<String> = c.evaluation.reasons.iter().map(|r| inline(r)).collect();
            writeln!(out, "{pad}seen: {}", seen.join("; "))?;
        }
        for (i, e) in c.evaluation.evidence.iter().enumerate() {
            let head = if i == 0 { "evidence: " } else { "          " };
            writeln!(out, "{pad}{head}{}", inline(e))?;
        }
        if let Some(fix) = &c.fix
            && c.evaluation.verdict != Verdict::RuledOut
        {
            writeln!(out, "{pad}fix: {}", inline(fix))?;
        }
        if let Some(confirm) = &c.confirm
            && c.evaluation.verdict == Verdict::Unknown
        {
            writeln!(out, "{pad}confirm: {}", inline(confirm))?;
        }
    }
    Ok(())
}
