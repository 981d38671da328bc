//! How many threads lore's parallel work (walking a big overlay, colouring a
//! document's code blocks) may use.

use std::sync::OnceLock;

/// The cores this process may run on, at most four (lore's parallel work is
/// short; more threads would cost more to start than they save). std reads
/// the cgroup quota files to know, so this asks once.
pub fn available() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)))
}
