//! The last resort against damaged data: running code that may panic on it
//! (tantivy panics on some same-size damage to an index file that no check
//! caught) and getting an error back instead, so the caller can rebuild.
//!
//! A caught panic must not look like a crash: the panic hook (Rust's default
//! one, or the TUI's, which restores the terminal and exits) still runs
//! before the unwinding reaches `catch`. Hooks ask [`is_catching`] and only
//! log such a panic; `catch` wraps whatever hook is installed the first time
//! it runs, and the TUI's own hook checks too.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// How many `catch` calls this thread is inside.
    static CATCHING: Cell<u32> = const { Cell::new(0) };
}

static QUIET_HOOK: Once = Once::new();

/// Runs `f`; a panic in it becomes `Err` with the panic's message.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    QUIET_HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if is_catching() {
                log::error!("caught: {}", message(info.payload()));
            } else {
                previous(info);
            }
        }));
    });
    CATCHING.with(|c| c.set(c.get() + 1));
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    CATCHING.with(|c| c.set(c.get().saturating_sub(1)));
    result.map_err(|payload| message(payload.as_ref()))
}

/// True while this thread runs inside [`catch`]: a panic hook should then
/// log the panic and return, not report a crash.
pub fn is_catching() -> bool {
    CATCHING.with(|c| c.get() > 0)
}

/// A panic payload's message.
pub fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error() {
        assert_eq!(catch(|| 1), Ok(1));
        assert!(!is_catching());
        let err = catch(|| -> u32 { panic!("index damaged at {}", 7) }).unwrap_err();
        assert_eq!(err, "index damaged at 7");
        assert!(!is_catching());
    }
}
