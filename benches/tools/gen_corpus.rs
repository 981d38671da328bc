//! Writes a generated knowledge folder for benchmarks:
//! `cargo run --release --example gen_corpus -- DIR COUNT [SEED]`.
//! The same arguments always give the same files (see `lore::search::synthetic`).

use std::path::PathBuf;
use std::process::ExitCode;

use lore::corpus::Corpus;
use lore::search::synthetic;
use lore::sources::SourceSet;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(count)) = (args.first(), args.get(1).and_then(|c| c.parse().ok())) else {
        eprintln!("usage: gen_corpus DIR COUNT [SEED]");
        return ExitCode::from(2);
    };
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    let vocabulary = Corpus::load(&SourceSet::builtin_knowledge());
    match synthetic::write_corpus(&PathBuf::from(dir), &vocabulary, count, seed) {
        Ok(bytes) => {
            println!("{count} documents, {bytes} bytes in {dir}");
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("gen_corpus: {dir}: {err}");
            ExitCode::from(2)
        }
    }
}
