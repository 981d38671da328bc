//! `lore` with no verb: the terminal UI; `lore open PATH[#ANCHOR]` (or just
//! `lore PATH#ANCHOR`): the same, opened in the reader there. Both refuse
//! (exit 2) when stdout is not a terminal, so a pipe or a script gets an
//! error instead of escape codes.

use std::io::IsTerminal;
use std::sync::Arc;

use crate::config::Settings;
use crate::corpus::Corpus;
use crate::text::inline;
use crate::tui::reader::At;
use crate::tui::{self, Start, TuiError};

use super::{EXIT_OK, EXIT_USAGE};

pub fn run(settings: &Settings, probing: &crate::probe::ProbeOptions) -> anyhow::Result<u8> {
    finish(tui::run_probing(settings, probing.clone()))
}

/// `lore open TARGET`: the reader at a document, section or file line.
pub fn open(
    settings: &Settings,
    probing: &crate::probe::ProbeOptions,
    target: &str,
) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    let (path, at) = match resolve(&corpus, target) {
        Ok(found) => found,
        Err(message) => {
            say!("{message}");
            return Ok(EXIT_USAGE);
        }
    };
    if !std::io::stdout().is_terminal() {
        return finish(Err(TuiError::NotATerminal));
    }
    let start = Start {
        corpus: Arc::new(corpus),
        path,
        at,
    };
    finish(tui::run_at(settings, probing.clone(), Some(start)))
}

/// `lore WORD…` with a word that is not a verb: a document path (`lore
/// cuda/20-cupti.md#what-is-cupti`) opens it; anything else is the usage
/// error a mistyped verb deserves.
pub fn open_external(
    settings: &Settings,
    probing: &crate::probe::ProbeOptions,
    words: &[String],
) -> anyhow::Result<u8> {
    match words {
        [target] if looks_like_a_path(target) => open(settings, probing, target),
        _ => {
            let word = words.first().map(String::as_str).unwrap_or_default();
            let verbs: Vec<String> = <crate::cli::Cli as clap::CommandFactory>::command()
                .get_subcommands()
                .map(|c| c.get_name().to_string())
                .collect();
            say!(
                "lore: error: `{}` is not a verb ({}) nor a document path; see `lore --help`",
                inline(word),
                verbs.join(", ")
            );
            Ok(EXIT_USAGE)
        }
    }
}

/// A path, `PATH#ANCHOR` or `PATH:LINE`, rather than a mistyped verb.
fn looks_like_a_path(word: &str) -> bool {
    word.contains(['/', '#']) || word.ends_with(".md") || super::show::line_suffix(word).is_some()
}

/// The document path and where in it `target` points.
fn resolve(corpus: &Corpus, target: &str) -> Result<(String, At), String> {
    match super::show::resolve_target(corpus, target) {
        Ok((doc, anchor)) => Ok((
            doc.path.clone(),
            anchor.map_or(At::Top, |a| At::Anchor(a.to_string())),
        )),
        Err(message) => match super::show::line_suffix(target) {
            Some((path, line)) => match super::show::resolve_target(corpus, path) {
                Ok((doc, None)) => Ok((doc.path.clone(), At::Line(line))),
                _ => Err(message),
            },
            None => Err(message),
        },
    }
}

fn finish(result: Result<(), TuiError>) -> anyhow::Result<u8> {
    match result {
        Ok(()) => Ok(EXIT_OK),
        Err(err @ (TuiError::NotATerminal | TuiError::DumbTerminal)) => {
            say!("lore: error: {err}");
            Ok(EXIT_USAGE)
        }
        Err(err) => Err(err.into()),
    }
}
