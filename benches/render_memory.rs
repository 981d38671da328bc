//! Memory a render takes, against the size of the document: generated
//! documents of about 8 MB (one of prose, lists, code and tables as the
//! knowledge is written, and some of one construct each), each rendered at
//! width 100 in a process of its own. Reports the peak resident memory the
//! render added (`VmHWM` after resetting it through `/proc/self/clear_refs`,
//! less the resident memory before) and that as a multiple of the document
//! size; the goal is 10× or less. Linux only.
//!
//! Run: `cargo bench --bench render_memory` (release build; about a minute).

use std::fs;
use std::process::Command;

use lore::config::ThemeName;
use lore::corpus::Document;
use lore::markdown::{Highlighter, RenderOptions, render};
use lore::sources::{Origin, SourceFile};
use lore::theme::Theme;

/// Each shape's generated size.
const TARGET_BYTES: usize = 8_000_000;
const SHAPES: [&str; 6] = ["mixed", "paragraphs", "list", "code", "table", "headings"];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--shape") {
        let shape = &args[i + 1];
        let highlighted = args.iter().any(|a| a == "--highlighted");
        measure(shape, highlighted);
        return;
    }
    if !std::path::Path::new("/proc/self/clear_refs").exists() {
        eprintln!("render_memory: needs Linux's /proc/self/clear_refs; skipped");
        return;
    }
    println!(
        "{:<11} {:>11} {:>7} {:>14} {:>8}",
        "document", "bytes", "colour", "render peak", "× size"
    );
    let exe = std::env::current_exe().expect("the bench's own path");
    for shape in SHAPES {
        for highlighted in [false, true] {
            let mut cmd = Command::new(&exe);
            cmd.args(["--shape", shape]);
            if highlighted {
                cmd.arg("--highlighted");
            }
            let out = cmd.output().expect("the bench runs itself");
            print!("{}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                eprintln!("{}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}

/// Renders one generated document in this process and prints one row.
fn measure(shape: &str, highlighted: bool) {
    let text = generate(shape);
    let doc = Document::parse(SourceFile {
        rel: format!("{shape}.md"),
        origin: Origin::Builtin,
        text,
        stamp: None,
    });
    let theme = Theme::for_name(ThemeName::Dark);
    let highlighter = highlighted.then(|| {
        // Syntax sets are loaded once per process whatever the document:
        // not counted.
        let h = Highlighter::global();
        Highlighter::warm();
        h
    });
    let options = RenderOptions {
        width: 100,
        theme: &theme,
        highlighter,
        wrap_code: true,
    };
    fs::write("/proc/self/clear_refs", "5").expect("reset the peak");
    let before = status_kb("VmRSS:");
    let rendered = render(&doc, &options);
    let peak = status_kb("VmHWM:");
    let added = (peak.saturating_sub(before)) * 1024;
    println!(
        "{:<11} {:>11} {:>7} {:>11} MB {:>7.1}×  ({} lines)",
        shape,
        doc.text.len(),
        if highlighted { "yes" } else { "no" },
        added / 1_000_000,
        added as f64 / doc.text.len() as f64,
        rendered.lines.len()
    );
}

fn status_kb(field: &str) -> usize {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .expect("a field of /proc/self/status")
}

/// A deterministic document of `TARGET_BYTES` or a little more.
fn generate(shape: &str) -> String {
    const WORDS: [&str; 16] = [
        "cuda", "docker", "image", "layer", "build", "cache", "cupti", "torch", "wheel", "runtime",
        "devel", "driver", "library", "path", "error", "shared",
    ];
    let mut out = String::from("---\ndrop: none\n---\n# Generated\n\n");
    let mut i = 0usize;
    let word = |n: usize| WORDS[(n * 7 + n / 3) % WORDS.len()];
    while out.len() < TARGET_BYTES {
        i += 1;
        match shape {
            "mixed" => {
                out.push_str(&format!("## Section {i}\n\n"));
                for p in 0..3 {
                    let words: Vec<&str> = (0..60).map(|k| word(i * 60 + k + p)).collect();
                    out.push_str(&format!(
                        "{} `libcupti.so.12` and a [link](https://example.org/{i}/{p}) and **bold** text.\n\n",
                        words.join(" ")
                    ));
                }
                out.push_str(
                    "- item one with some words\n- item two with `code`\n  - nested item\n\n",
                );
                out.push_str("```bash\n");
                for k in 0..8 {
                    out.push_str(&format!(
                        "docker build --build-arg CUDA={i}.{k} -t image:{k} . && echo done {k}\n"
                    ));
                }
                out.push_str("```\n\n| a | b | c |\n|---|---|---|\n");
                for k in 0..5 {
                    out.push_str(&format!(
                        "| cell {k} | value {} | more text here |\n",
                        k * i
                    ));
                }
                out.push('\n');
            }
            "paragraphs" => out.push_str(&format!("{} {i}\n\n", word(i))),
            "list" => out.push_str(&format!("- {} {i}\n", word(i))),
            "code" => {
                if i == 1 {
                    out.push_str("```bash\n");
                }
                out.push_str(&format!("echo {i}\n"));
            }
            "table" => {
                if i == 1 {
                    out.push_str("| name | value |\n|---|---|\n");
                }
                out.push_str(&format!("| {} | {i} |\n", word(i)));
            }
            "headings" => out.push_str(&format!("## {} {i}\n\n", word(i))),
            other => panic!("no shape {other}"),
        }
    }
    if shape == "code" {
        out.push_str("```\n");
    }
    out
}
