//! The probe worker: reads the machine's (or an image's, or a Dockerfile's)
//! files on its own thread, so the probe key never blocks input or drawing,
//! and reports the findings through the event channel.

use std::sync::Arc;
use std::sync::mpsc::Sender;
use std::thread;

use crate::diagnose;
use crate::probe::{self, ProbeOptions};

use super::Event;
use super::action::Action;

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

/// Starts one probe run for the search screen's causes, with the Python
/// environments the query names; its answer arrives as
/// `Action::CausesProbed`, the facts ready to judge causes against.
pub fn spawn_causes(options: ProbeOptions, named: Vec<probe::NamedEnv>, events: Sender<Event>) {
    let fallback = events.clone();
    let spawned = thread::Builder::new()
        .name("probe-causes".into())
        .spawn(move || {
            let started = std::time::Instant::now();
            let result = diagnose::probe_context_with_named_envs(&options, &named)
                .map(|(_, ctx)| Arc::new(ctx))
                .map_err(|err| err.to_string());
            log::info!(
                "probed {} for causes in {:?}",
                options.describe(),
                started.elapsed()
            );
            let _ = events.send(Event::Action(Action::CausesProbed(result)));
        });
    if let Err(err) = spawned {
        let message = format!("cannot start the probe thread: {err}");
        let _ = fallback.send(Event::Action(Action::CausesProbed(Err(message))));
    }
}
