//! Runs before lore is compiled:
//!
//! - builds in `knowledge/` and `decision-trees/`: each file compressed
//!   with lz4 into `OUT_DIR/<name>/`, and `OUT_DIR/<name>.rs` listing them
//!   (path, size, digest, compressed bytes), which `src/sources/builtin.rs`
//!   includes. It tells cargo to rebuild when a file in them is added,
//!   removed or edited: a stale embedded corpus would be a silent bug;
//! - compiles the syntax set the highlighter loads: bat's grammars (through
//!   two-face) plus lore's own under `assets/syntaxes/` (CUDA), written to
//!   `OUT_DIR/syntaxes.bin` in syntect's dump format. A grammar that does not
//!   load, has a regex that does not compile, or names a context that does
//!   not exist fails the build with the file's name: it can never reach a
//!   user as plain code or a panic.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use syntect::parsing::SyntaxDefinition;
use syntect::parsing::syntax_definition::{ContextReference, MatchOperation, Pattern};

// The library's own code for what is built in, so that the build and
// `BuiltinFolder::from_folder` store files the same way. The library uses
// the rest of `hash`.
#[allow(dead_code)]
#[path = "hash.rs"]
mod hash;
#[path = "sources/packing.rs"]
mod packing;

/// lore's own grammars, each a `.sublime-syntax` file.
const SYNTAXES: &str = "assets/syntaxes";

/// The folders built into the binary, and the name each is written under
/// in `OUT_DIR` (`src/sources/builtin.rs` includes `<name>.rs`).
const BUILTIN: [(&str, &str); 2] = [
    ("knowledge", "builtin_knowledge"),
    ("decision-trees", "builtin_trees"),
];

fn main() {
    println!("cargo:rerun-if-changed=assets");
    // `rerun-if-changed` on a folder only sees files added or removed in
    // it, not edits to a file inside.
    println!("cargo:rerun-if-changed={SYNTAXES}");
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut result = compile_syntaxes(Path::new(SYNTAXES), &out.join("syntaxes.bin"));
    for (folder, name) in BUILTIN {
        result = result.and_then(|()| write_builtin(Path::new(folder), &out, name));
    }
    if let Err(message) = result {
        eprintln!("error: {message}");
        std::process::exit(1);
    }
}

/// Compresses every file under `folder` into `out/<name>/` and writes
/// `out/<name>.rs`: the `BuiltinFolder` expression that lists them.
fn write_builtin(folder: &Path, out: &Path, name: &str) -> Result<(), String> {
    println!("cargo:rerun-if-changed={}", folder.display());
    let contents =
        packing::read_folder(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let blobs = out.join(name);
    // Files of an earlier build that no longer exist go too.
    let _ = std::fs::remove_dir_all(&blobs);
    std::fs::create_dir_all(&blobs).map_err(|e| format!("{}: {e}", blobs.display()))?;
    let mut code = String::from("BuiltinFolder {\n    files: &[\n");
    for (number, (path, bytes)) in contents.files.iter().enumerate() {
        let file = folder.join(path);
        println!("cargo:rerun-if-changed={}", file.display());
        let compressed = packing::compress(bytes);
        // Checked once here rather than at every start: what is stored
        // reads back as the file.
        if packing::decompress(&compressed, bytes.len()).as_deref() != Ok(bytes.as_slice()) {
            return Err(format!("{}: lz4 did not give it back", file.display()));
        }
        let blob = blobs.join(format!("{number}.lz4"));
        std::fs::write(&blob, &compressed).map_err(|e| format!("{}: {e}", blob.display()))?;
        let _ = writeln!(
            code,
            "        BuiltinFile {{ path: {path:?}, size: {}, digest: {:#034x}, compressed: include_bytes!({:?}) }},",
            bytes.len(),
            packing::digest(bytes),
            blob.display().to_string(),
        );
    }
    code.push_str("    ],\n    folders: &[\n");
    for sub in &contents.folders {
        println!("cargo:rerun-if-changed={}", folder.join(sub).display());
        let _ = writeln!(code, "        {sub:?},");
    }
    code.push_str("    ],\n}\n");
    let listing = out.join(format!("{name}.rs"));
    std::fs::write(&listing, code).map_err(|e| format!("{}: {e}", listing.display()))
}

/// bat's grammars and the ones in `folder`, checked, linked and dumped to `dump`.
fn compile_syntaxes(folder: &Path, dump: &Path) -> Result<(), String> {
    let mut builder = two_face::syntax::extra_newlines().into_builder();
    let mut files: Vec<PathBuf> = std::fs::read_dir(folder)
        .map_err(|e| format!("{}: {e}", folder.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "sublime-syntax"))
        .collect();
    files.sort();
    for file in &files {
        println!("cargo:rerun-if-changed={}", file.display());
        let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
        let stem = file.file_stem().and_then(|s| s.to_str());
        // Lines are highlighted with their newline, as two-face's set expects.
        let syntax = SyntaxDefinition::load_from_str(&text, true, stem)
            .map_err(|e| format!("{}: not a usable grammar: {e}", file.display()))?;
        check_references(&syntax, builder.syntaxes())
            .map_err(|e| format!("{}: {e}", file.display()))?;
        builder.add(syntax);
    }
    let set = builder.build();
    syntect::dumps::dump_to_uncompressed_file(&set, dump)
        .map_err(|e| format!("writing {}: {e}", dump.display()))
}

/// Every context `syntax` includes, pushes or sets exists: syntect would
/// otherwise stop colouring the block where it meets the missing one.
fn check_references(syntax: &SyntaxDefinition, others: &[SyntaxDefinition]) -> Result<(), String> {
    let mut names: Vec<&String> = syntax.contexts.keys().collect();
    names.sort();
    for name in names {
        for pattern in &syntax.contexts[name].patterns {
            let references: Vec<&ContextReference> = match pattern {
                Pattern::Include(reference) => vec![reference],
                Pattern::Match(matched) => {
                    let mut references: Vec<&ContextReference> = match &matched.operation {
                        MatchOperation::Push(refs) | MatchOperation::Set(refs) => {
                            refs.iter().collect()
                        }
                        _ => Vec::new(),
                    };
                    references.extend(&matched.with_prototype);
                    references
                }
            };
            for reference in references {
                if !resolves(reference, syntax, others) {
                    return Err(format!(
                        "context `{name}` refers to `{}`, which no grammar has",
                        written(reference)
                    ));
                }
            }
        }
    }
    Ok(())
}

fn resolves(
    reference: &ContextReference,
    syntax: &SyntaxDefinition,
    others: &[SyntaxDefinition],
) -> bool {
    let context_of = |found: Option<&SyntaxDefinition>, sub_context: &Option<String>| {
        found.is_some_and(|grammar| {
            grammar
                .contexts
                .contains_key(sub_context.as_deref().unwrap_or("main"))
        })
    };
    // The grammar itself first (`scope:source.cuda#words`), then the others.
    let find = |matches: &dyn Fn(&SyntaxDefinition) -> bool| {
        std::iter::once(syntax).chain(others).find(|s| matches(s))
    };
    match reference {
        ContextReference::Named { 0: name, .. } | ContextReference::Inline { 0: name, .. } => {
            let name = if name == "$top_level_main" {
                "main"
            } else {
                name
            };
            syntax.contexts.contains_key(name)
        }
        ContextReference::ByScope {
            scope, sub_context, ..
        } => context_of(find(&|s| s.scope == *scope), sub_context),
        ContextReference::File {
            name, sub_context, ..
        } => context_of(find(&|s| s.name == *name), sub_context),
        // Already linked, or a kind this build does not know: syntect's
        // own linking decides.
        _ => true,
    }
}

/// A reference as a grammar writes it.
fn written(reference: &ContextReference) -> String {
    let sub = |sub_context: &Option<String>| {
        sub_context
            .as_ref()
            .map_or_else(String::new, |c| format!("#{c}"))
    };
    match reference {
        ContextReference::Named { 0: name, .. } | ContextReference::Inline { 0: name, .. } => {
            name.clone()
        }
        ContextReference::ByScope {
            scope, sub_context, ..
        } => format!("scope:{}{}", scope.build_string(), sub(sub_context)),
        ContextReference::File {
            name, sub_context, ..
        } => format!("{name}.sublime-syntax{}", sub(sub_context)),
        other => format!("{other:?}"),
    }
}
