use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let cli = lore::cli::Cli::parse();
    lore::commands::run(cli)
}
