//! `lore check`: every rule over everything loaded, compiler-style output.

use std::io::Write;

use crate::check::check_corpus;
use crate::cli::CheckArgs;
use crate::config::Settings;
use crate::corpus::Corpus;
use crate::decide;

use super::{EXIT_OK, EXIT_PROBLEMS, stdout, write_diagnostics, write_json};

pub fn run(settings: &Settings, args: &CheckArgs) -> anyhow::Result<u8> {
    let corpus = Corpus::load(&settings.knowledge);
    let mut diagnostics = settings.warnings.clone();
    diagnostics.extend(check_corpus(&corpus));
    diagnostics.extend(crate::search::vocabulary::Vocabulary::load(&settings.knowledge).1);
    let trees = decide::load(&settings.trees, &corpus);
    diagnostics.extend(trees.diagnostics);
    // The built-in image table the probes settle questions with.
    diagnostics.extend(crate::probe::images::check());
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = diagnostics.len() - errors;
    let files = corpus.len() + trees.files;
    let mut out = stdout();
    if args.json {
        let list: Vec<serde_json::Value> = diagnostics
            .iter()
            .map(|d| {
                serde_json::json!({
                    "path": d.path,
                    "file": d.location(),
                    "line": d.line,
                    "severity": d.severity.to_string(),
                    "message": d.message,
                })
            })
            .collect();
        let report = serde_json::json!({
            "files": files,
            "errors": errors,
            "warnings": warnings,
            "diagnostics": list,
        });
        write_json(&mut out, &report)?;
    } else {
        write_diagnostics(&mut out, &diagnostics, settings.color)?;
        writeln!(
            out,
            "checked {files} file{}: {errors} error{}, {warnings} warning{}",
            plural(files),
            plural(errors),
            plural(warnings)
        )?;
    }
    out.flush()?;
    Ok(if errors > 0 { EXIT_PROBLEMS } else { EXIT_OK })
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
