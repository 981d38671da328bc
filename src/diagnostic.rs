//! Problems found while loading or checking files, printed compiler-style:
//! `path:line: error: message`. Every layer reports through this one type so
//! `lore check`, the TUI status bar and the log all say the same thing.

use std::fmt;
use std::path::Path;

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
    /// The file as the user can open it from where lore runs, where that is
    /// not `path`: an overlay file's folder as given joined with its id
    /// (`notes/a.md`). Printed instead of `path`, so an editor's quickfix
    /// list finds the file; `None` for built-in files (their id is all
    /// there is) and files named by their path already.
    pub file: Option<String>,
    pub line: Option<usize>,
    pub severity: Severity,
    pub message: String,
}

impl Diagnostic {
    pub fn error(path: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.into(),
            file: None,
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
            file: None,
            line,
            severity: Severity::Warning,
            message: message.into(),
        }
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The same problem, in the on-disk file `file` (see [`Diagnostic::file`];
    /// `None`, a built-in file, changes nothing).
    #[must_use]
    pub fn in_file(mut self, file: Option<&Path>) -> Self {
        if let Some(file) = file {
            self.file = Some(shown(file));
        }
        self
    }

    /// Where the problem is, as printed: the openable file, else `path`.
    pub fn location(&self) -> &str {
        self.file.as_deref().unwrap_or(&self.path)
    }
}

/// A path as lore prints it: without a leading `./` (an overlay given as
/// `.` names its files `a.md`, as a compiler would).
pub fn shown(path: &Path) -> String {
    match path.strip_prefix(".") {
        Ok(rest) if !rest.as_os_str().is_empty() => rest.display().to_string(),
        _ => path.display().to_string(),
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(
                f,
                "{}:{}: {}: {}",
                self.location(),
                line,
                self.severity,
                self.message
            ),
            None => write!(
                f,
                "{}: {}: {}",
                self.location(),
                self.severity,
                self.message
            ),
        }
    }
}

/// Sorts diagnostics by file (as printed), then line, so output is stable
/// across runs.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| {
        (
            a.location(),
            a.line.unwrap_or(0),
            a.severity,
            a.message.as_str(),
        )
            .cmp(&(
                b.location(),
                b.line.unwrap_or(0),
                b.severity,
                b.message.as_str(),
            ))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overlay_file_is_printed_where_it_can_be_opened() {
        let d = Diagnostic::error("a.md", Some(3), "broken").in_file(Some(Path::new("notes/a.md")));
        assert_eq!(d.path, "a.md");
        assert_eq!(d.to_string(), "notes/a.md:3: error: broken");
        let d = Diagnostic::error("a.md", Some(3), "broken").in_file(Some(Path::new("./a.md")));
        assert_eq!(d.to_string(), "a.md:3: error: broken");
        assert_eq!(shown(Path::new(".")), ".");
        assert_eq!(shown(Path::new("./.hidden/a.md")), ".hidden/a.md");
        assert_eq!(shown(Path::new("../a.md")), "../a.md");
    }

    #[test]
    fn a_built_in_file_keeps_its_id() {
        let d = Diagnostic::warning("cuda/x.md", None, "odd").in_file(None);
        assert_eq!(d.to_string(), "cuda/x.md: warning: odd");
    }
}
