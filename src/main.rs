use std::process::ExitCode;

use clap::{CommandFactory, Parser};

fn main() -> ExitCode {
    // A shell asking for completions (`COMPLETE=bash lore …`): answer and exit.
    clap_complete::CompleteEnv::with_factory(lore::cli::Cli::command)
        .var(lore::commands::COMPLETE_VAR)
        .complete();
    match lore::cli::Cli::try_parse() {
        Ok(cli) => lore::commands::run(cli),
        Err(err) => lore::commands::parse_error(&err),
    }
}
