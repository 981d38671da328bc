//! The command line, as clap types. Global flags work before or after the verb.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use crate::complete;

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

    /// Probe an unpacked image filesystem instead of this machine (`lore probe`,
    /// `lore diagnose`, `lore decide --probe` and the TUI's probe key)
    #[arg(long, value_name = "DIR", global = true)]
    pub root: Option<PathBuf>,

    /// Probe a Dockerfile, read statically (`lore probe`, `lore diagnose`,
    /// `lore decide --probe` and the TUI's probe key); `-` reads it from
    /// stdin (not in the TUI)
    #[arg(long, value_name = "FILE", global = true)]
    pub dockerfile: Option<PathBuf>,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate the knowledge (links, anchors, drops, index) and decision trees; exit 1 on errors
    Check(CheckArgs),
    /// List decision trees, or walk one: interactively on a terminal, or with --answer
    Decide(DecideArgs),
    /// Print a document, or one section of it, rendered for the terminal
    Show(ShowArgs),
    /// Open the terminal UI's reader at a document or section (`lore PATH#ANCHOR` too)
    Open(OpenArgs),
    /// Find the sections that explain an error line or answer a few words; exit 1 if none
    Search(SearchArgs),
    /// Build the search index if it is stale (or always, with --rebuild) and print its size
    Index(IndexArgs),
    /// List the documents: path, kind and title (exit 1 if none)
    List(ListArgs),
    /// Print a shell completion script (verbs, flags, paths, anchors, trees)
    Completions(CompletionsArgs),
    /// Print lore's manual page (roff) on stdout
    Man,
    /// Print what lore can read about this machine, an image (--root DIR) or a
    /// Dockerfile (--dockerfile FILE): torch, CUDA, CUPTI, packages, each with evidence
    Probe(ProbeArgs),
    /// Which cause of an error applies here: search the message, check each
    /// cause the sections list against the probes; exit 1 if none holds
    Diagnose(DiagnoseArgs),
    /// `lore PATH[#ANCHOR]`: a document path in place of a verb opens it
    #[command(external_subcommand)]
    External(Vec<String>),
}

/// `lore open PATH[#ANCHOR]`
#[derive(Debug, clap::Args)]
#[command(
    after_help = "PATH may be any fragment of a path that only one document has. A search hit as \
                  `lore search` prints it (PATH:LINE) or as --json gives it (path, anchor) works too. \
                  Backspace in the reader goes to the library."
)]
pub struct OpenArgs {
    /// The document, and optionally the section: PATH, PATH#ANCHOR or PATH:LINE
    #[arg(value_name = "PATH[#ANCHOR]", add = ArgValueCompleter::new(complete::targets))]
    pub target: String,
}

/// `lore probe [--root DIR] [--dockerfile FILE] [--json]`
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Reads files only: runs no program, follows no symlink out of the root, and reads \
                  bounded amounts. Without --root or --dockerfile, probes this machine (/). \
                  `--dockerfile -` reads the Dockerfile from stdin (`git show main:Dockerfile | \
                  lore probe --dockerfile -`); evidence names it <stdin>."
)]
pub struct ProbeArgs {
    /// Print JSON: {facts: [{fact, value, evidence}], notes: [..]}
    #[arg(long)]
    pub json: bool,
}

/// `lore diagnose [--root DIR] [--dockerfile FILE] [--json] QUERY|-`
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Searches the message as `lore search` does, takes the first sections that list causes, \
                  and checks each cause against this machine, an image (--root DIR) or a Dockerfile \
                  (--dockerfile FILE), reading files only, and against what the message itself states \
                  (torch's capability warnings, the architecture nvcc refuses), with the message as \
                  evidence. A container build log (`docker build . 2>&1 | lore diagnose -`) failed inside its \
                  image, so without --root or --dockerfile it is checked against the Dockerfile in the current \
                  folder whose RUN is the failed step, or against nothing, never against this machine. \
                  Causes are printed as they hold here, are unknown, or are ruled out, each with its evidence; the fix of the first that holds \
                  comes first. Exit 0 when a cause holds, 1 when none does or no section lists causes."
)]
pub struct DiagnoseArgs {
    /// Print JSON: {probed, sections, causes: [{text, check, check_words, verdict, reasons, evidence, fix, confirm, at}], holds, fix, stated, named, notes}
    #[arg(long)]
    pub json: bool,

    /// The error line or words, or `-` to read a pasted log from stdin;
    /// put `--` before a query that starts with `-`
    #[arg(required = true, value_name = "QUERY")]
    pub query: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Print the problems as JSON: {files, errors, warnings, diagnostics: [{path, line, severity, message}]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// Print a JSON array of {path, title, kind, builtin, lines}
    #[arg(long)]
    pub json: bool,

    /// Only list files of this kind
    #[arg(long, value_name = "KIND", value_parser = ["knowledge", "drop", "index"])]
    pub kind: Option<String>,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Install, for example:\n  \
    bash:  echo 'source <(lore completions bash)' >> ~/.bashrc\n  \
    zsh:   echo 'source <(lore completions zsh)' >> ~/.zshrc\n  \
    fish:  lore completions fish > ~/.config/fish/completions/lore.fish")]
pub struct CompletionsArgs {
    /// The shell to complete for
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Elvish,
    Powershell,
}

impl Shell {
    pub fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
            Shell::Elvish => "elvish",
            Shell::Powershell => "powershell",
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The document's path in the knowledge, optionally with `#anchor` for one section
    /// (e.g. cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti), or a search hit's `PATH:LINE`
    /// for the section holding that line
    #[arg(value_name = "PATH[#ANCHOR]", add = ArgValueCompleter::new(complete::targets))]
    pub target: String,

    /// No colours or escape sequences at all, whatever --color says
    #[arg(long)]
    pub plain: bool,

    /// Wrap at N columns (default: the terminal's width; piped output is not wrapped)
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(10..))]
    pub width: Option<u16>,

    /// Page the output through $LORE_PAGER, $PAGER or `less -R -F` (auto: when stdout is a terminal)
    #[arg(long, value_enum, value_name = "WHEN", default_value_t = Paging::Auto)]
    pub paging: Paging,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Paging {
    Auto,
    Always,
    Never,
}

/// `lore decide [TREE] [--answer Q=O]… [--json] [--graph mermaid|dot] [--transcript FILE]`
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Without TREE, lists the trees. On a terminal without --answer, asks each question in turn \
                  (a number chooses, b goes back, ? explains, q quits and keeps the session for later). \
                  Otherwise prints where the given answers lead: the next question or the outcome."
)]
pub struct DecideArgs {
    /// Id of the tree to walk (omit to list the trees)
    #[arg(value_name = "TREE", add = ArgValueCandidates::new(complete::tree_ids))]
    pub tree: Option<String>,

    /// Answer a question (repeatable, any order), e.g. --answer torch-install=pip
    #[arg(long = "answer", value_name = "QUESTION=OPTION", value_parser = parse_answer, requires = "tree",
          add = ArgValueCompleter::new(complete::answers))]
    pub answers: Vec<(String, String)>,

    /// Print JSON instead of text
    #[arg(long)]
    pub json: bool,

    /// Print the tree as a graph instead of walking it
    #[arg(long, value_enum, value_name = "FORMAT", requires = "tree", conflicts_with_all = ["answers", "json", "transcript"])]
    pub graph: Option<GraphFormat>,

    /// Also write the session as Markdown to FILE
    #[arg(long, value_name = "FILE", requires = "tree")]
    pub transcript: Option<PathBuf>,

    /// Answer what the built-in probes can settle, from this machine, or from
    /// --root DIR / --dockerfile FILE; --answer still wins
    #[arg(long, requires = "tree", conflicts_with = "graph")]
    pub probe: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    Mermaid,
    Dot,
}

fn parse_answer(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((q, o)) if !q.trim().is_empty() && !o.trim().is_empty() => {
            Ok((q.trim().to_string(), o.trim().to_string()))
        }
        _ => Err(format!("expected QUESTION=OPTION, got `{s}`")),
    }
}

#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Show at most N hits (1 or more)
    #[arg(long, short = 'n', value_name = "N", default_value_t = 10, value_parser = parse_limit)]
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

/// `--limit 0` would print nothing and exit 1 as if nothing matched; say so
/// instead.
fn parse_limit(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("the limit must be at least 1".to_string()),
        Ok(n) => Ok(n),
        Err(err) => Err(err.to_string()),
    }
}

#[derive(Debug, clap::Args)]
pub struct IndexArgs {
    /// Rebuild even if the index is up to date
    #[arg(long)]
    pub rebuild: bool,

    /// Print {documents, sections, bytes, rebuilt, build_seconds, location} as JSON
    #[arg(long)]
    pub json: bool,
}

impl Cli {
    /// What `--root` and `--dockerfile` ask the probes to read.
    pub fn probe_options(&self) -> crate::probe::ProbeOptions {
        crate::probe::ProbeOptions {
            root: self.root.clone(),
            dockerfile: self.dockerfile.clone().map(Into::into),
            dockerfile_line: None,
        }
    }

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
