//! `lore index [--rebuild]`: bring the search index up to date and say how
//! big it is. Also home of `open_index`, which `lore search` shares: both show
//! a progress bar on stderr when a build takes longer than half a second on a
//! terminal.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::cli::IndexArgs;
use crate::config::Settings;
use crate::search::{IndexReport, OpenOptions, Progress, SearchIndex};

use super::{EXIT_OK, stdout, write_diagnostics, write_json};

/// A build shorter than this shows no progress bar.
const QUIET_FOR: Duration = Duration::from_millis(500);

pub fn run(settings: &Settings, args: &IndexArgs) -> anyhow::Result<u8> {
    let (_, report) = open_index(settings, args.rebuild, true)?;
    let mut out = stdout();
    if args.json {
        let value = serde_json::json!({
            "documents": report.documents,
            "sections": report.sections,
            "bytes": report.bytes,
            "rebuilt": report.build_time.is_some(),
            "build_seconds": report.build_time.map(|t| t.as_secs_f64()),
            "location": report.location.as_ref().map(|p| p.display().to_string()),
        });
        write_json(&mut out, &value)?;
        out.flush()?;
        return Ok(EXIT_OK);
    }
    writeln!(out, "documents   {}", report.documents)?;
    writeln!(out, "sections    {}", report.sections)?;
    writeln!(out, "bytes       {}", report.bytes)?;
    match report.build_time {
        Some(time) => writeln!(out, "build time  {:.2} s", time.as_secs_f64())?,
        None => writeln!(out, "build time  - (up to date, not rebuilt)")?,
    }
    match &report.location {
        Some(path) => writeln!(
            out,
            "location    {}",
            crate::text::inline(&path.display().to_string())
        )?,
        None => writeln!(out, "location    - (in memory)")?,
    }
    out.flush()?;
    Ok(EXIT_OK)
}

/// Opens (building if needed) the index of the configured knowledge in the
/// cache folder, printing cache warnings to stderr.
pub(super) fn open_index(
    settings: &Settings,
    rebuild: bool,
    verify: bool,
) -> anyhow::Result<(SearchIndex, IndexReport)> {
    let (index, report, ()) = open_index_then(settings, rebuild, verify, |_| ())?;
    Ok((index, report))
}

/// `open_index`, then `then` on the index (run while the cache's freshness
/// is still being checked: see `SearchIndex::open_sources_then`).
pub(super) fn open_index_then<T>(
    settings: &Settings,
    rebuild: bool,
    verify: bool,
    then: impl Fn(&SearchIndex) -> T,
) -> anyhow::Result<(SearchIndex, IndexReport, T)> {
    let started = Instant::now();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let terminal = std::io::stderr().is_terminal();
    let mut shown = false;
    let mut progress = |p: Progress| {
        if !shown && terminal && started.elapsed() >= QUIET_FOR {
            shown = true;
            bar.set_style(
                ProgressStyle::with_template("indexing {bar:30} {pos}/{len} files {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_length(p.total as u64);
        bar.set_position(p.done as u64);
        if p.done == p.total {
            bar.set_message("(writing)");
        }
    };
    let options = OpenOptions {
        rebuild,
        verify,
        progress: Some(&mut progress),
    };
    let result = SearchIndex::open_sources_then(
        &settings.knowledge,
        settings.paths.cache_dir.as_deref(),
        options,
        then,
    );
    bar.finish_and_clear();
    let (index, report, answer) = result?;
    // On stderr: a closed one must not cost the verb its output.
    let mut err = std::io::stderr().lock();
    let _ = write_diagnostics(&mut err, &report.warnings, false);
    Ok((index, report, answer))
}
