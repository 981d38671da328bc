//! lore: an offline knowledge browser and decision assistant for people who
//! build and debug CUDA, Docker and PyTorch software.
//!
//! Data flows one way:
//!
//! ```text
//! files (built-in + overlays)   sources
//!        │
//!        ▼
//! Document / Corpus             corpus      (the only Markdown structure parser)
//!        │
//!        ├──► check             lore check
//!        ├──► decide            decision trees, validated against the corpus
//!        │      ▲
//!        │    probe              read-only facts from a root or a Dockerfile
//!        │      ▼
//!        ├──► diagnose          a message's causes (corpus) judged against the facts
//!        ├──► markdown          Document + width + theme -> styled lines (pure)
//!        ├──► search            section index, cached on disk (lore search, lore index)
//!        ▼
//! CLI verbs / TUI               commands, tui
//! ```
//!
//! Lower layers never import `commands`, `cli` or `tui`.

pub mod check;
pub mod cli;
pub mod commands;
pub mod complete;
pub mod config;
pub mod cores;
pub mod corpus;
pub mod datafile;
pub mod date;
pub mod decide;
pub mod diagnose;
pub mod diagnostic;
pub mod hash;
pub mod markdown;
pub mod panics;
pub mod pasted;
pub mod probe;
pub mod search;
pub mod sources;
pub mod terminal_answer;
pub mod text;
pub mod theme;
pub mod tui;
