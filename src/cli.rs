//! The command line, as clap types. Global flags work before or after the verb.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::config::{ColorChoice, Flags, ThemeName};

#[derive(Debug, Parser)]
#[command(
    name = "lore",
    version,
    about = "Offline knowledge browser and decision assistant for CUDA, Docker and PyTorch builds",
    long_about = "Offline knowledge browser and decision assistant for CUDA, Docker and PyTorch builds.\n\n\
                  Run without a verb to open the terminal UI on the bundled knowledge.",
    after_help = "Exit status: 0 ok, 1 problems found or no results, 2 usage or I/O error."
)]
pub struct Cli {
    /// Add a knowledge folder on top of the built-in one (repeatable; later wins)
    #[arg(long = "knowledge", value_name = "DIR", global = true)]
    pub knowledge: Vec<PathBuf>,

    /// Add a decision-tree folder on top of the built-in one (repeatable)
    #[arg(long = "trees", value_name = "DIR", global = true)]
    pub trees: Vec<PathBuf>,

    /// Leave out the knowledge and trees compiled into lore
    #[arg(long, global = true)]
    pub no_builtin: bool,

    /// When to use colour (NO_COLOR is honoured under auto)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto, global = true)]
    pub color: ColorChoice,

    /// Colour theme
    #[arg(long, value_enum, value_name = "THEME", global = true)]
    pub theme: Option<ThemeName>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate the knowledge (links, anchors, drops, index); exit 1 on any error
    Check,
    /// Find the sections that explain an error line or answer a few words; exit 1 if none
    Search(SearchArgs),
    /// Build the search index if it is stale (or always, with --rebuild) and print its size
    Index(IndexArgs),
}

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Show at most N hits
    #[arg(long, short = 'n', value_name = "N", default_value_t = 10)]
    pub limit: usize,

    /// Print the hits as a JSON array
    #[arg(long)]
    pub json: bool,

    /// Only search files of this kind
    #[arg(long, value_name = "KIND", value_parser = ["knowledge", "drop", "index"])]
    pub kind: Option<String>,

    /// Words, an error line, or `-` to read the query (a pasted log) from stdin.
    /// `"quoted phrases"`, `kind:drop` and `path:cuda/` work inside the query;
    /// put `--` before a query that starts with `-`
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Rebuild even if the index is up to date
    #[arg(long)]
    pub rebuild: bool,
}

impl Cli {
    pub fn flags(&self) -> Flags {
        Flags {
            knowledge: self.knowledge.clone(),
            trees: self.trees.clone(),
            no_builtin: self.no_builtin,
            color: self.color,
            theme: self.theme,
        }
    }
}
