//! The edge: each verb turns library results into terminal output and an exit
//! code. Library code never prints; this is where text meets stdout.

mod check;
mod completions;
mod decide;
mod index;
mod list;
mod pager;
mod probe;
mod search;
mod show;
mod tui;

use std::io::{self, Write};
use std::process::ExitCode;

pub use completions::COMPLETE_VAR;

use crate::cli::{Cli, Command};
use crate::config::Settings;
use crate::text::sanitize;

/// Exit codes shared by every verb.
pub const EXIT_OK: u8 = 0;
pub const EXIT_PROBLEMS: u8 = 1;
pub const EXIT_USAGE: u8 = 2;

/// Runs the parsed command line and returns the process exit code.
pub fn run(cli: Cli) -> ExitCode {
    let settings = match Settings::resolve(cli.flags()) {
        Ok(settings) => settings,
        Err(err) => {
            // Names a folder from the config file, the environment or a flag.
            eprintln!("lore: error: {}", sanitize(&err.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    let probing = cli.probe_options();
    let result = match cli.command {
        Some(Command::Check(args)) => check::run(&settings, &args),
        Some(Command::Decide(args)) => decide::run(&settings, &args, &probing),
        Some(Command::Probe(args)) => probe::run(&settings, &args, &probing),
        Some(Command::Show(args)) => show::run(&settings, &args),
        Some(Command::Search(args)) => search::run(&settings, &args),
        Some(Command::Index(args)) => index::run(&settings, &args),
        Some(Command::List(args)) => list::run(&settings, &args),
        Some(Command::Completions(args)) => completions::run(&args),
        Some(Command::Man) => completions::man(),
        None => tui::run(&settings, &probing),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            eprintln!("lore: error: {}", sanitize(&format!("{err:#}")));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// A command line clap refused, or `--help`/`--version`. Clap's message
/// echoes the argument it refused, which may have come from a file
/// (`lore show "$(cat list)"`): it is sanitized like file text, and so
/// printed without clap's colours.
pub fn parse_error(err: &clap::Error) -> ExitCode {
    if !err.use_stderr() {
        // Help and version text: clap's own, on stdout.
        let _ = err.print();
    } else {
        eprint!("{}", sanitize(&err.render().to_string()));
    }
    ExitCode::from(u8::try_from(err.exit_code()).unwrap_or(EXIT_USAGE))
}

/// The reader of our output went away (`lore … | head -1`): not an error.
/// The io error may be wrapped, e.g. by serde_json while writing `--json`.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        let kind = cause
            .downcast_ref::<io::Error>()
            .map(io::Error::kind)
            .or_else(|| {
                cause
                    .downcast_ref::<serde_json::Error>()
                    .and_then(serde_json::Error::io_error_kind)
            });
        kind == Some(io::ErrorKind::BrokenPipe)
    })
}

/// Stdout, locked and buffered: verbs write through this and flush at the end.
pub fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::new(io::stdout().lock())
}

/// Writes `value` as pretty JSON and a newline. serde_json escapes C0
/// controls (ESC becomes `\u001b`) but lets DEL and the C1 controls through
/// as they are, and some terminals obey U+009B as CSI and U+009D as OSC: they
/// are escaped too. In JSON those characters can only sit inside strings, so
/// escaping them keeps the document valid and its values exact.
pub fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    let mut escaped = String::with_capacity(text.len());
    for ch in text.chars() {
        if ('\u{7f}'..='\u{9f}').contains(&ch) {
            escaped.push_str(&format!("\\u{:04x}", u32::from(ch)));
        } else {
            escaped.push(ch);
        }
    }
    writeln!(out, "{escaped}")?;
    Ok(())
}

/// Writes diagnostics compiler-style, `error`/`warning` coloured when asked.
pub fn write_diagnostics(
    out: &mut impl Write,
    diagnostics: &[crate::diagnostic::Diagnostic],
    color: bool,
) -> io::Result<()> {
    use crate::diagnostic::Severity;
    for d in diagnostics {
        let location = match d.line {
            Some(line) => format!("{}:{}", d.path, line),
            None => d.path.clone(),
        };
        let label = match (color, d.severity) {
            (false, s) => s.to_string(),
            (true, Severity::Error) => "\x1b[1;31merror\x1b[0m".to_string(),
            (true, Severity::Warning) => "\x1b[1;33mwarning\x1b[0m".to_string(),
        };
        let message = sanitize(&d.message);
        let location = sanitize(&location);
        writeln!(out, "{location}: {label}: {message}")?;
    }
    Ok(())
}
