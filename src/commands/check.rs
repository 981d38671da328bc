//! `lore check`: every rule over everything loaded, compiler-style output.

use std::io::Write;

use crate::check::check_corpus;
use crate::config::Settings;
use crate::corpus::Corpus;
use crate::decide;

use super::{EXIT_OK, EXIT_PROBLEMS, stdout, write_diagnostics};

pub fn run(settings: &Settings) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    let mut diagnostics = settings.warnings.clone();
    diagnostics.extend(check_corpus(&corpus));
    diagnostics.extend(crate::search::vocabulary::Vocabulary::load(&settings.knowledge).1);
    let trees = decide::load(&settings.trees, &corpus);
    diagnostics.extend(trees.diagnostics);
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let mut out = stdout();
    write_diagnostics(&mut out, &diagnostics, settings.color)?;
    writeln!(
        out,
        "checked {} files: {errors} error{}, {warnings} warning{}",
        corpus.len() + trees.files,
        plural(errors),
        plural(warnings)
    )?;
    out.flush()?;
    Ok(if errors > 0 { EXIT_PROBLEMS } else { EXIT_OK })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
