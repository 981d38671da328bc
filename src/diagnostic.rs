//! Problems found while loading or checking files, printed compiler-style:
//! `path:line: error: message`. Every layer reports through this one type so
//! `lore check`, the TUI status bar and the log all say the same thing.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// One problem in one file. `path` is the file's id (relative to its knowledge
/// root) or, for files outside any root, the path as the user gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub path: String,
    pub line: Option<usize>,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub fn error(path: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            line,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    pub fn warning(
        path: impl Into<String>,
        line: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            path: path.into(),
            line,
            severity: Severity::Warning,
            message: message.into(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "{}:{}: {}: {}",
                self.path, line, self.severity, self.message
            ),
            None => write!(f, "{}: {}: {}", self.path, self.severity, self.message),
        }
    }
}

/// Sorts diagnostics by file, then line, so output is stable across runs.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (
            a.path.as_str(),
            a.line.unwrap_or(0),
            a.severity,
            a.message.as_str(),
        )
            .cmp(&(
                b.path.as_str(),
                b.line.unwrap_or(0),
                b.severity,
                b.message.as_str(),
            ))
    });
}
