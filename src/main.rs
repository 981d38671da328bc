use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    match lore::cli::Cli::try_parse() {
        Ok(cli) => lore::commands::run(cli),
        Err(err) => lore::commands::parse_error(&err),
    }
}
