//! The search worker: opens (or builds) the index off the input path, then
//! answers queries one at a time, always the newest waiting one, so fast
//! typing never queues stale work. It reports through the event channel.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, Sender};
use std::thread;
use std::time::{Duration, Instant};

use crate::corpus::Corpus;
use crate::search::vocabulary::Vocabulary;
use crate::search::{IndexReport, OpenOptions, Progress, SearchIndex, query};

use super::Event;
use super::action::Action;
use super::search::HIT_LIMIT;

/// One query for the worker.
#[derive(Debug, Clone)]
pub struct Query {
    pub generation: u64,
    pub text: String,
}

/// Starts the worker; queries sent on the returned channel are answered with
/// `Action::SearchResults` events. The worker ends when the channel closes.
/// Queries are parsed (a pasted log triaged) the same way as `lore search`,
/// with `vocabulary` (the knowledge roots' words; see `search::vocabulary`).
pub fn spawn(
    corpus: Arc<Corpus>,
    vocabulary: Vocabulary,
    cache_dir: Option<PathBuf>,
    events: Sender<Event>,
) -> std::io::Result<Sender<Query>> {
    let (tx, rx) = mpsc::channel();
    thread::Builder::new()
        .name("search".into())
        .spawn(move || run(&corpus, &vocabulary, cache_dir, &rx, &events))?;
    Ok(tx)
}

fn run(
    corpus: &Corpus,
    vocabulary: &Vocabulary,
    cache_dir: Option<PathBuf>,
    queries: &Receiver<Query>,
    events: &Sender<Event>,
) {
    let started = Instant::now();
    // Progress goes out at most every 100 ms: enough for a live count, few
    // enough events not to crowd out keys.
    let mut last_sent: Option<Instant> = None;
    let mut progress = |p: Progress| {
        if last_sent.is_none_or(|t| t.elapsed() >= Duration::from_millis(100)) || p.done == p.total
        {
            last_sent = Some(Instant::now());
            let _ = events.send(Event::Action(Action::IndexProgress {
                done: p.done,
                total: p.total,
            }));
        }
    };
    let options = OpenOptions {
        progress: Some(&mut progress),
        ..OpenOptions::default()
    };
    let (mut index, mut location) =
        match SearchIndex::open_with(corpus, cache_dir.as_deref(), options) {
            Ok((index, report)) => {
                log::info!(
                    "search index: {} sections of {} documents, {} in {:?}",
                    report.sections,
                    report.documents,
                    if report.rebuilt { "built" } else { "opened" },
                    started.elapsed()
                );
                let location = report.location.clone();
                if events.send(Event::Action(ready(report))).is_err() {
                    return;
                }
                (index, location)
            }
            Err(err) => {
                log::error!("search index unavailable: {err}");
                let _ = events.send(Event::Action(Action::IndexFailed(err.to_string())));
                return;
            }
        };
    while let Ok(mut query) = queries.recv() {
        while let Ok(newer) = queries.try_recv() {
            query = newer;
        }
        let mut parsed = query::parse(&query.text);
        vocabulary.expand(&mut parsed);
        let mut hits = index.query_parsed(&parsed, HIT_LIMIT);
        // A query that panicked inside the index (damage no check caught):
        // rebuild, answer from the new index, then say what happened.
        let mut rebuilt = None;
        if index.damage().is_some() {
            match index.rebuild_damaged(corpus, cache_dir.as_deref(), location.as_deref()) {
                Ok((fresh, report)) => {
                    index = fresh;
                    location = report.location.clone();
                    hits = index.query_parsed(&parsed, HIT_LIMIT);
                    rebuilt = Some(report);
                }
                Err(err) => {
                    log::error!("search index unavailable: {err}");
                    let _ = events.send(Event::Action(Action::IndexFailed(err.to_string())));
                    return;
                }
            }
        }
        let marked = if parsed.pasted {
            index.rare_words(&parsed)
        } else {
            Vec::new()
        };
        let answer = Action::SearchResults {
            generation: query.generation,
            hits: Arc::new(hits),
            searched: Arc::new(parsed.searched),
            marked: Arc::new(marked),
        };
        if events.send(Event::Action(answer)).is_err() {
            return;
        }
        if let Some(report) = rebuilt
            && events.send(Event::Action(ready(report))).is_err()
        {
            return;
        }
    }
}

fn ready(report: IndexReport) -> Action {
    Action::IndexReady {
        sections: report.sections,
        rebuilt: report.rebuilt,
        warnings: report.warnings,
    }
}
