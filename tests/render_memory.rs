//! Rendering a document takes at most ten times its size in memory, for
//! every shape of document: prose as the knowledge is written, and
//! documents of nothing but one-line paragraphs, list items, code lines,
//! table rows or headings (each once took 30 to 55 times its size). Each
//! render runs in a process of its own, which reports the peak resident
//! memory it added (Linux only; `benches/render_memory.rs` does the same at
//! 8 MB).

use std::process::Command;

#[path = "common/shapes.rs"]
mod shapes;

const BYTES: usize = 2_000_000;
const CHILD: &str = "LORE_RENDER_MEMORY_SHAPE";

#[test]
fn a_render_takes_at_most_ten_times_the_document_size() {
    if let Ok(which) = std::env::var(CHILD) {
        let (shape, highlighted) = match which.strip_suffix("+colour") {
            Some(shape) => (shape.to_string(), true),
            None => (which, false),
        };
        let m = shapes::measure(&shape, highlighted, BYTES);
        println!("measured {} {} {}", m.added, m.bytes, m.lines);
        return;
    }
    if !shapes::supported() {
        eprintln!("needs Linux's /proc/self/clear_refs; skipped");
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut report = Vec::new();
    let mut over = Vec::new();
    for shape in shapes::SHAPES {
        for which in [shape.to_string(), format!("{shape}+colour")] {
            let out = Command::new(&exe)
                .args([
                    "a_render_takes_at_most_ten_times_the_document_size",
                    "--exact",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD, &which)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            let numbers: Vec<f64> = stdout
                .lines()
                .find_map(|l| l.split_once("measured ").map(|(_, rest)| rest))
                .unwrap_or_else(|| {
                    panic!(
                        "{which}: no measurement\n{stdout}\n{}",
                        String::from_utf8_lossy(&out.stderr)
                    )
                })
                .split(' ')
                .map(|n| n.parse().unwrap())
                .collect();
            let times = numbers[0] / numbers[1];
            report.push(format!("{which}: {times:.1}× ({} lines)", numbers[2]));
            if times > 10.0 {
                over.push(which);
            }
        }
    }
    assert!(over.is_empty(), "over 10×: {over:?}\n{}", report.join("\n"));
    eprintln!("{}", report.join("\n"));
}
