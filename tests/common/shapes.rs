//! Generated documents of one shape each, and the memory a render of one
//! takes (Linux), shared by `benches/render_memory.rs` and
//! `tests/render_memory.rs`.

use std::fs;

use lore::config::ThemeName;
use lore::corpus::Document;
use lore::markdown::{Highlighter, RenderOptions, render};
use lore::sources::{Origin, SourceFile};
use lore::theme::Theme;

/// Prose, lists, code and tables as the knowledge is written, then
/// documents of one construct each.
pub const SHAPES: [&str; 6] = ["mixed", "paragraphs", "list", "code", "table", "headings"];

/// What rendering one document added to the process's peak resident memory.
pub struct Measured {
    pub bytes: usize,
    pub added: usize,
    pub lines: usize,
}

/// Whether this system can reset the peak that [`measure`] reads.
pub fn supported() -> bool {
    std::path::Path::new("/proc/self/clear_refs").exists()
}

/// Renders a generated document of `shape` of about `target` bytes at width
/// 100 in this process, and measures the peak resident memory it added
/// (`VmHWM` after resetting it through `/proc/self/clear_refs`, less the
/// resident memory before). The syntax sets are loaded and the grammars
/// used first: not counted.
pub fn measure(shape: &str, highlighted: bool, target: usize) -> Measured {
    let text = generate(shape, target);
    let doc = Document::parse(SourceFile {
        rel: format!("{shape}.md"),
        origin: Origin::Builtin,
        text,
        stamp: None,
    });
    let theme = Theme::for_name(ThemeName::Dark);
    let highlighter = highlighted.then(|| {
        let h = Highlighter::global();
        Highlighter::warm();
        // Grammars compile their patterns on first use, once per process:
        // not counted either.
        for lang in ["bash", "dockerfile"] {
            h.highlight("echo 1\n", lang, &theme);
        }
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
    Measured {
        bytes: doc.text.len(),
        added: peak.saturating_sub(before) * 1024,
        lines: rendered.lines.len(),
    }
}

fn status_kb(field: &str) -> usize {
    let status = fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse().ok())
        .expect("a field of /proc/self/status")
}

/// A deterministic document of `target` bytes or a little more.
pub fn generate(shape: &str, target: usize) -> String {
    const WORDS: [&str; 16] = [
        "cuda", "docker", "image", "layer", "build", "cache", "cupti", "torch", "wheel", "runtime",
        "devel", "driver", "library", "path", "error", "shared",
    ];
    let mut out = String::from("---\ndrop: none\n---\n# Generated\n\n");
    let mut i = 0usize;
    let word = |n: usize| WORDS[(n * 7 + n / 3) % WORDS.len()];
    while out.len() < target {
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
