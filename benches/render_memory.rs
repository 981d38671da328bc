//! Memory a render takes, against the size of the document: generated
//! documents of about 8 MB (one of prose, lists, code and tables as the
//! knowledge is written, and some of one construct each), each rendered at
//! width 100 in a process of its own. Reports the peak resident memory the
//! render added and that as a multiple of the document size; the goal is
//! 10× or less (`tests/render_memory.rs` holds it to that at 2 MB). Linux
//! only.
//!
//! Run: `cargo bench --bench render_memory` (release build; about a minute).

use std::process::Command;

#[path = "../tests/common/shapes.rs"]
mod shapes;

/// Each shape's generated size.
const TARGET_BYTES: usize = 8_000_000;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--shape") {
        let shape = &args[i + 1];
        let highlighted = args.iter().any(|a| a == "--highlighted");
        let m = shapes::measure(shape, highlighted, TARGET_BYTES);
        println!(
            "{:<11} {:>11} {:>7} {:>11} MB {:>7.1}×  ({} lines)",
            shape,
            m.bytes,
            if highlighted { "yes" } else { "no" },
            m.added / 1_000_000,
            m.added as f64 / m.bytes as f64,
            m.lines
        );
        return;
    }
    if !shapes::supported() {
        eprintln!("render_memory: needs Linux's /proc/self/clear_refs; skipped");
        return;
    }
    println!(
        "{:<11} {:>11} {:>7} {:>14} {:>8}",
        "document", "bytes", "colour", "render peak", "× size"
    );
    let exe = std::env::current_exe().expect("the bench's own path");
    for shape in shapes::SHAPES {
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
