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
    /// Print a document, or one section of it, rendered for the terminal
    Show(ShowArgs),
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The document's path in the knowledge, optionally with `#anchor` for one section
    /// (e.g. cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti)
    #[arg(value_name = "PATH[#ANCHOR]")]
    pub target: String,

    /// No colours or escape sequences at all, whatever --color says
    #[arg(long)]
    pub plain: bool,

    /// Wrap at N columns (default: the terminal's width, else 100)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(10..))]
    pub width: Option<u16>,
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
