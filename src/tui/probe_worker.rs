//! The probe worker: reads the machine's (or an image's, or a Dockerfile's)
//! files on its own thread, so the probe key never blocks input or drawing,
//! and reports the findings through the event channel.

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread;

use crate::diagnose;
use crate::diagnose::build_log;
use crate::probe::{self, ProbeOptions};

use super::Event;
use super::action::{Action, CausesChecked};

/// Starts one probe run; its answer arrives as `Action::Probed`.
pub fn spawn(options: ProbeOptions, events: Sender<Event>) {
    let fallback = events.clone();
    let spawned = thread::Builder::new().name("probe".into()).spawn(move || {
        let started = std::time::Instant::now();
        let result = probe::run(&options)
            .map(Arc::new)
            .map_err(|err| err.to_string());
        log::info!("probed {} in {:?}", options.describe(), started.elapsed());
        let _ = events.send(Event::Action(Action::Probed(result)));
    });
    if let Err(err) = spawned {
        let message = format!("cannot start the probe thread: {err}");
        let _ = fallback.send(Event::Action(Action::Probed(Err(message))));
    }
}

/// Starts one probe run for the search screen's causes of `query`, with the
/// Python environments it names; its answer arrives as
/// `Action::CausesProbed`, the facts ready to judge causes against. A
/// `docker build` log is probed where `lore diagnose` would: the
/// Dockerfile in `dir` that holds its failed step, or nothing.
pub fn spawn_causes(
    options: ProbeOptions,
    query: String,
    dir: std::path::PathBuf,
    events: Sender<Event>,
) {
    let fallback = events.clone();
    let spawned = thread::Builder::new()
        .name("probe-causes".into())
        .spawn(move || {
            let result = check_causes(&options, &query, &dir);
            let _ = events.send(Event::Action(Action::CausesProbed(result)));
        });
    if let Err(err) = spawned {
        let message = format!("cannot start the probe thread: {err}");
        let _ = fallback.send(Event::Action(Action::CausesProbed(Err(message))));
    }
}

/// What the causes worker does on its thread: the probes of the place
/// `query` is judged in (see `spawn_causes`), as `lore diagnose` runs them.
pub fn check_causes(
    options: &ProbeOptions,
    query: &str,
    dir: &std::path::Path,
) -> Result<CausesChecked, String> {
    let started = std::time::Instant::now();
    let place = build_log::place(query, options, dir);
    let (_, ctx) = diagnose::probe_place(&place, options, query).map_err(|e| e.to_string())?;
    log::info!("probed {place:?} for causes in {:?}", started.elapsed());
    Ok(CausesChecked {
        ctx: Arc::new(ctx),
        scope: place.scope(),
        brief: place.brief(),
    })
}
