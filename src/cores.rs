//! How many threads lore's parallel work (walking a big overlay, colouring a
//! document's code blocks, checking a scan record) may use, and how that
//! work is shared out.

use std::sync::OnceLock;

/// The cores this process may run on, at most four (lore's parallel work is
/// short; more threads would cost more to start than they save). std reads
/// the cgroup quota files to know, so this asks once.
pub fn available() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}

/// Runs `first` on this thread while `helpers` other threads run `work`,
/// then `work` on this thread too, and returns `first`'s answer once every
/// thread is done. `work` takes pieces from a queue shared by all its
/// callers and returns when none are left, so no thread waits for another
/// to start, and a thread that cannot be spawned is no error.
///
/// On Linux the helpers move off the core this thread is on. Linux often
/// runs a new thread at once on its spawner's core, and the spawner then
/// waits there for the next scheduler tick (up to 4 ms) while the other
/// cores idle: on the 2-core development VM that happened in one
/// `lore search` out of ten or more, and moving the helpers took the
/// average at 10,000 documents from 7.9 to 6.7 ms.
pub fn share_out<T>(helpers: usize, work: impl Fn() + Sync, first: impl FnOnce() -> T) -> T {
    let elsewhere = placement::Elsewhere::than_here();
    std::thread::scope(|scope| {
        for _ in 0..helpers {
            let helper = || {
                elsewhere.go();
                work();
            };
            if std::thread::Builder::new()
                .spawn_scoped(scope, helper)
                .is_err()
            {
                break;
            }
        }
        let answer = first();
        work();
        answer
    })
}

#[cfg(target_os = "linux")]
mod placement {
    use rustix::thread::{CpuSet, sched_getaffinity, sched_getcpu, sched_setaffinity};

    /// The cores this thread may use except the one it is on, if any.
    pub struct Elsewhere(Option<CpuSet>);

    impl Elsewhere {
        pub fn than_here() -> Elsewhere {
            let here = sched_getcpu();
            let others = sched_getaffinity(None).ok().and_then(|mut cores| {
                if cores.count() < 2 || !cores.is_set(here) {
                    return None;
                }
                cores.unset(here);
                Some(cores)
            });
            Elsewhere(others)
        }

        /// Moves the calling thread there (best effort).
        pub fn go(&self) {
            if let Some(cores) = &self.0 {
                let _ = sched_setaffinity(None, cores);
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod placement {
    pub struct Elsewhere;

    impl Elsewhere {
        pub fn than_here() -> Elsewhere {
            Elsewhere
        }

        pub fn go(&self) {}
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn every_piece_is_done_once_and_first_answers() {
        let next = AtomicUsize::new(0);
        let done = Mutex::new(Vec::new());
        let work = || {
            loop {
                let piece = next.fetch_add(1, Ordering::Relaxed);
                if piece >= 1000 {
                    return;
                }
                done.lock().unwrap().push(piece);
            }
        };
        let answer = super::share_out(3, work, || 42);
        assert_eq!(answer, 42);
        let mut done = done.into_inner().unwrap();
        done.sort_unstable();
        assert_eq!(done, (0..1000).collect::<Vec<_>>());
    }
}
