//! The TUI's log: a small `log` implementation that appends to a file in the
//! state folder. The screen belongs to the UI, so nothing is ever logged to it;
//! the panic hook and the log view point at this file instead.
//!
//! The README asks users to attach the log to bug reports, and messages
//! quote tree files, config keys and file names: every line is sanitized
//! (`text::sanitize`), and a message's own line breaks are indented, so
//! nothing in the file is an escape sequence and no message can forge a
//! record of its own.

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::date::timestamp;
use crate::text::{inline, sanitize};

use log::{LevelFilter, Log, Metadata, Record};

/// A log file past this size is moved to `lore.log.old` at start-up, so the
/// log never grows without bound.
const ROTATE_BYTES: u64 = 1024 * 1024;

/// Environment variable: `error`, `warn`, `info` (default), `debug` or `trace`.
pub const ENV_LOG: &str = "LORE_LOG";

struct FileLogger {
    file: Mutex<File>,
    level: LevelFilter,
}

impl Log for FileLogger {
    fn enabled(&self, metadata: &Metadata<'_>) -> bool {
        metadata.level() <= self.level
    }

    fn log(&self, record: &Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let line = record_line(
            &timestamp(SystemTime::now()),
            record.level(),
            record.target(),
            &record.args().to_string(),
        );
        if let Ok(mut file) = self.file.lock() {
            let _ = file.write_all(line.as_bytes());
        }
    }

    fn flush(&self) {
        if let Ok(mut file) = self.file.lock() {
            let _ = file.flush();
        }
    }
}

/// One record as written to the file: `TIME LEVEL target: message`, then a
/// newline. Continuation lines of a message start with four spaces.
fn record_line(time: &str, level: log::Level, target: &str, message: &str) -> String {
    let message = sanitize(message.trim_end_matches('\n')).replace('\n', "\n    ");
    format!("{time} {level:<5} {}: {message}\n", inline(target))
}

/// Opens `DIR/lore.log` for appending and makes it the process's logger.
/// Returns the file's path. Fails if the folder or file cannot be written or a
/// logger is already installed.
pub fn install(state_dir: &Path) -> Result<PathBuf, String> {
    fs::create_dir_all(state_dir)
        .map_err(|e| format!("cannot create {}: {e}", state_dir.display()))?;
    let path = state_dir.join("lore.log");
    if fs::metadata(&path).is_ok_and(|m| m.len() > ROTATE_BYTES) {
        let _ = fs::rename(&path, state_dir.join("lore.log.old"));
    }
    // Not through a FIFO or a device put in its place (the open would block).
    let file = crate::datafile::open_append(&path)
        .map_err(|e| format!("cannot open {}: {e}", path.display()))?;
    let level = std::env::var(ENV_LOG)
        .ok()
        .and_then(|v| v.parse::<LevelFilter>().ok())
        .unwrap_or(LevelFilter::Info);
    // The logger lives as long as the process, so leaking it is the point.
    let logger: &'static FileLogger = Box::leak(Box::new(FileLogger {
        file: Mutex::new(file),
        level,
    }));
    log::set_logger(logger).map_err(|e| format!("cannot install the logger: {e}"))?;
    log::set_max_level(level);
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_sanitized_and_cannot_forge_records() {
        let line = record_line(
            "2026-01-01T00:00:00Z",
            log::Level::Warn,
            "lore",
            "tree\x1b[31m.toml:1: bad key `\u{9b}2J`\n2026-01-01T00:00:00Z ERROR lore: forged\u{202e}",
        );
        assert_eq!(
            line,
            "2026-01-01T00:00:00Z WARN  lore: tree^[[31m.toml:1: bad key `<U+009B>2J`\n    2026-01-01T00:00:00Z ERROR lore: forged<U+202E>\n"
        );
    }
}
