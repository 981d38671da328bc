//! The edge: each verb turns library results into terminal output and an exit
//! code. Library code never prints; this is where text meets stdout.
//!
//! Output never panics on a closed pipe. Stdout is written through
//! [`stdout`] with `?`, and a reader gone away ends the verb quietly with
//! exit 0 (`is_broken_pipe`). Stderr lines (warnings, errors, notices) go
//! through `say!`, which drops a line stderr will not take: `eprintln!`
//! panics there (`lore decide T --probe 2>&1 | head -c1` exited 101 with
//! "failed printing to stderr").

/// `eprintln!` that cannot panic: writes one line on stderr, and drops it if
/// stderr is closed or full. Nobody is left to tell, and the verb goes on to
/// its real output (whose own closed pipe then ends it quietly).
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::commands::say_line(format_args!($($arg)*))
    };
}

mod check;
mod completions;
mod decide;
mod diagnose;
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
use crate::probe::{DockerfileSource, ProbeOptions};
use crate::text::{inline, sanitize};

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
            say!("lore: error: {}", inline(&err.to_string()));
            return ExitCode::from(EXIT_USAGE);
        }
    };
    // Config mistakes are never silent: `check` lists them with the rest
    // and the TUI shows them in its log; every other verb says them here.
    if !matches!(cli.command, None | Some(Command::Check(_))) && !settings.warnings.is_empty() {
        let _ = write_diagnostics(&mut io::stderr().lock(), &settings.warnings, false);
    }
    let probing = match probe_options(&cli) {
        Ok(probing) => probing,
        Err(code) => return ExitCode::from(code),
    };
    let result = match cli.command {
        Some(Command::Check(args)) => check::run(&settings, &args),
        Some(Command::Decide(args)) => decide::run(&settings, &args, &probing),
        Some(Command::Probe(args)) => probe::run(&settings, &args, &probing),
        Some(Command::Diagnose(args)) => diagnose::run(&settings, &args, &probing),
        Some(Command::Show(args)) => show::run(&settings, &args),
        Some(Command::Search(args)) => search::run(&settings, &args),
        Some(Command::Index(args)) => index::run(&settings, &args),
        Some(Command::List(args)) => list::run(&settings, &args),
        Some(Command::Completions(args)) => completions::run(&args),
        Some(Command::Man) => completions::man(),
        Some(Command::Open(args)) => tui::open(&settings, &probing, &args.target),
        Some(Command::External(words)) => tui::open_external(&settings, &probing, &words),
        None => tui::run(&settings, &probing),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) if is_broken_pipe(&err) => ExitCode::from(EXIT_OK),
        Err(err) => {
            say!("lore: error: {}", inline(&format!("{err:#}")));
            ExitCode::from(EXIT_USAGE)
        }
    }
}

/// What `--root` and `--dockerfile` name, with `--dockerfile -` read from
/// stdin here, at the edge, by the verbs that probe (`probe`, `diagnose`,
/// `decide --probe`); the others ignore it as they ignore a path. `Err`
/// holds the exit code after the message: stdin that is a terminal (lore
/// would wait for a Dockerfile typed by hand), empty or not UTF-8; stdin
/// wanted twice (`diagnose -`); the TUI, whose keys come from stdin.
fn probe_options(cli: &Cli) -> Result<ProbeOptions, u8> {
    use std::io::IsTerminal;
    let mut options = cli.probe_options();
    let piped =
        matches!(&options.dockerfile, Some(DockerfileSource::File(p)) if p.as_os_str() == "-");
    if !piped {
        return Ok(options);
    }
    let reads = match &cli.command {
        Some(Command::Probe(_)) => true,
        Some(Command::Diagnose(args)) if args.query == ["-"] => {
            say!(
                "lore: error: --dockerfile - and the query `-` cannot both read stdin; give the query as words or the Dockerfile as a file"
            );
            return Err(EXIT_USAGE);
        }
        Some(Command::Diagnose(_)) => true,
        Some(Command::Decide(args)) => args.probe,
        None | Some(Command::Open(_) | Command::External(_)) => {
            say!(
                "lore: error: --dockerfile -: the terminal UI reads its keys from the terminal, not a Dockerfile from stdin; save the Dockerfile and give its path"
            );
            return Err(EXIT_USAGE);
        }
        Some(_) => false,
    };
    if !reads {
        return Ok(options);
    }
    if io::stdin().is_terminal() {
        say!(
            "lore: error: --dockerfile -: standard input is a terminal; pipe a Dockerfile in (git show main:Dockerfile | lore probe --dockerfile -) or give its path"
        );
        return Err(EXIT_USAGE);
    }
    match crate::probe::read_piped(io::stdin().lock()) {
        Ok(bytes) => options.dockerfile = Some(DockerfileSource::Stdin(bytes)),
        Err(message) => {
            say!("lore: error: --dockerfile -: {}", inline(&message));
            return Err(EXIT_USAGE);
        }
    }
    Ok(options)
}

/// The writer of `say!`.
pub(crate) fn say_line(line: std::fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "{line}");
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
        let _ = write!(
            io::stderr().lock(),
            "{}",
            sanitize(&err.render().to_string())
        );
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

/// Writes `value` as pretty JSON and a newline: every `--json` output goes
/// through here, with one rule. Values are exact (a script gets the file's
/// text, not how lore displays it), and every character a terminal could act
/// on or that hides itself is a JSON escape: serde_json escapes the C0
/// controls (ESC is `\u001b`) but lets DEL, the C1 controls (U+009B is CSI
/// on some terminals), bidirectional overrides and invisible format
/// characters through raw, so those become `\u009b`, `\u202e`, `\u200b`
/// here (a pair of surrogate escapes above U+FFFF). In JSON those
/// characters can only sit inside strings, so the document stays valid.
pub fn write_json(out: &mut impl Write, value: &impl serde::Serialize) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    writeln!(out, "{}", escape_json(&text))?;
    Ok(())
}

fn escape_json(text: &str) -> String {
    if !text.chars().any(crate::text::needs_escape) {
        return text.to_string();
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    let mut units = [0u16; 2];
    for ch in text.chars() {
        if crate::text::needs_escape(ch) {
            for unit in ch.encode_utf16(&mut units) {
                escaped.push_str(&format!("\\u{unit:04x}"));
            }
        } else {
            escaped.push(ch);
        }
    }
    escaped
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
            Some(line) => format!("{}:{}", d.location(), line),
            None => d.location().to_string(),
        };
        let label = match (color, d.severity) {
            (false, s) => s.to_string(),
            (true, Severity::Error) => "\x1b[1;31merror\x1b[0m".to_string(),
            (true, Severity::Warning) => "\x1b[1;33mwarning\x1b[0m".to_string(),
        };
        let message = inline(&d.message);
        let location = inline(&location);
        writeln!(out, "{location}: {label}: {message}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_escapes_what_a_terminal_would_act_on_and_keeps_values_exact() {
        let value = serde_json::json!({
            "s": "a\u{1b}[2J\u{7f}\u{9b}\u{202e}\u{2066}\u{200b}\u{200d}\u{2028}\u{feff}\u{e0041}\tb ✓"
        });
        let mut out = Vec::new();
        write_json(&mut out, &value).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\n  \"s\": \"a\\u001b[2J\\u007f\\u009b\\u202e\\u2066\\u200b\\u200d\\u2028\\ufeff\\udb40\\udc41\\tb ✓\"\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
    }
}
