//! The TUI's log: a small `log` implementation that appends to a file in the
//! state folder. The screen belongs to the UI, so nothing is ever logged to it;
//! the panic hook and the log view point at this file instead.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

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
        let line = format!(
            "{} {:<5} {}: {}\n",
            timestamp(SystemTime::now()),
            record.level(),
            record.target(),
            record.args()
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
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
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

/// `2026-11-22T00:56:00Z` for a point in time, in UTC.
pub fn timestamp(time: SystemTime) -> String {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rest = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Today's date, `2026-11-22`, in UTC.
pub fn today() -> String {
    timestamp(SystemTime::now())[..10].to_string()
}

/// Days since 1970-01-01 to a (year, month, day) date (Howard Hinnant's
/// algorithm), so lore needs no date crate for a log line.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_dates() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_795_308_960);
        assert_eq!(timestamp(t), "2026-11-22T00:56:00Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(timestamp(leap), "2000-02-29T00:00:00Z");
    }
}
