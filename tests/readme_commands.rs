//! Every command the README shows runs, and prints what the README says it
//! prints, so the examples cannot go stale again (the `lore index` example
//! once said 41 documents and 581 sections when lore had 57 and 847).
//!
//! - In ```` ```console ```` blocks, a line `$ lore …` (or a pipeline ending
//!   in `lore …`) is run by bash and the lines after it, up to the next `$`,
//!   must appear in its output (stdout and stderr together). `…` in a shown
//!   line stands for text that differs from run to run (a path, a time); a
//!   line that is only `…` stands for lines left out.
//! - In ```` ```bash ```` and ```` ```sh ```` blocks, every line that starts
//!   with `lore` is run.
//!
//! Each runs the built binary from the repository root (so `tests/fixtures/…`
//! paths work), with a fresh `LORE_HOME` and `HOME`, and must exit 0, or the
//! status its comment names (`# … exit 1`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// One command shown in the README.
#[derive(Debug)]
struct Example {
    /// Line in README.md, for messages.
    line: usize,
    command: String,
    /// Output lines shown after it (console blocks only).
    shown: Vec<String>,
    status: i32,
}

/// The commands of README.md's runnable blocks.
fn examples(readme: &str) -> Vec<Example> {
    let mut out: Vec<Example> = Vec::new();
    let mut fence: Option<String> = None;
    let mut pending = String::new();
    for (i, line) in readme.lines().enumerate() {
        let number = i + 1;
        if let Some(rest) = line.trim_start().strip_prefix("```") {
            fence = match fence {
                None => Some(rest.trim().to_string()),
                Some(_) => None,
            };
            continue;
        }
        let Some(lang) = fence.as_deref() else {
            continue;
        };
        match lang {
            "console" => {
                if let Some(command) = line.strip_prefix("$ ") {
                    out.push(example(number, command));
                } else if let Some(last) = out.last_mut()
                    && last.line < number
                    && !line.trim().is_empty()
                    && line.trim() != "…"
                {
                    last.shown.push(line.to_string());
                }
            }
            "bash" | "sh" => {
                let text = line.trim();
                if !pending.is_empty() {
                    pending.push('\n');
                    pending.push_str(text);
                } else if text.starts_with("lore ") || text == "lore" {
                    pending = text.to_string();
                } else {
                    continue;
                }
                if !text.ends_with('\\') {
                    out.push(example(number, &std::mem::take(&mut pending)));
                }
            }
            _ => {}
        }
    }
    out
}

fn example(line: usize, command: &str) -> Example {
    // `# … exit 1` in the command's comment: the status the README documents.
    let status = command
        .split_once(" #")
        .and_then(|(_, comment)| comment.split("exit ").nth(1))
        .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    Example {
        line,
        command: command.to_string(),
        shown: Vec::new(),
        status,
    }
}

/// The shown line appears in the output: its parts between `…` in order,
/// within one line.
fn appears(shown: &str, output: &str) -> bool {
    let parts: Vec<&str> = shown
        .trim_end()
        .split('…')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    output.lines().any(|line| {
        let mut rest = line;
        parts.iter().all(|part| match rest.find(part) {
            Some(at) => {
                rest = &rest[at + part.len()..];
                true
            }
            None => false,
        })
    })
}

fn binary_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_lore"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn run(example: &Example, root: &Path) -> (i32, String) {
    let home = tempfile::tempdir().unwrap();
    // Redirections into the home folder (`> ~/.local/share/man/man1/lore.1`)
    // write where a user's folders exist.
    for target in example.command.split("> ").skip(1) {
        if let Some(rel) = target
            .split_whitespace()
            .next()
            .and_then(|t| t.strip_prefix("~/"))
            && let Some(parent) = Path::new(rel).parent()
        {
            std::fs::create_dir_all(home.path().join(parent)).unwrap();
        }
    }
    let path = format!(
        "{}:{}",
        binary_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!("set -o pipefail\n{}", example.command))
        .current_dir(root)
        .env("PATH", path)
        .env("HOME", home.path())
        .env("LORE_HOME", home.path().join("lore"))
        .env("COLUMNS", "100")
        .env("PAGER", "cat")
        .env_remove("LORE_PAGER")
        .env_remove("LORE_KNOWLEDGE")
        .env_remove("LORE_THEME")
        .env_remove("NO_COLOR")
        .output()
        .expect("bash runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

#[test]
fn every_command_in_the_readme_runs_as_shown() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let examples = examples(&readme);
    assert!(
        examples.len() >= 10,
        "only {} runnable examples found",
        examples.len()
    );
    let mut problems = Vec::new();
    for example in &examples {
        let (status, output) = run(example, root);
        if status != example.status {
            problems.push(format!(
                "README.md:{}: `{}` exited {status}, the README says {}:\n{output}",
                example.line, example.command, example.status
            ));
            continue;
        }
        for shown in &example.shown {
            if !appears(shown, &output) {
                problems.push(format!(
                    "README.md:{}: `{}` no longer prints\n  {shown}\nIt printed:\n{output}",
                    example.line, example.command
                ));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

/// The reader of the README finds what the test does with it.
#[test]
fn the_examples_are_read_as_the_module_says() {
    let readme = "```console\n$ lore index\ndocuments   57\n…\nlocation    /home/…/search/…\n\n$ lore search zzz # no hits: exit 1\n```\n\
                  ```bash\nlore decide need-cupti \\\n  --answer a=b\necho skipped\n```\n\
                  ```text\nlore show PATH\n```\n";
    let found = examples(readme);
    assert_eq!(found.len(), 3, "{found:?}");
    assert_eq!(found[0].command, "lore index");
    assert_eq!(
        found[0].shown,
        ["documents   57", "location    /home/…/search/…"]
    );
    assert_eq!(found[1].status, 1);
    assert_eq!(found[2].command, "lore decide need-cupti \\\n--answer a=b");
    assert!(appears(
        "location    /home/…/search/…",
        "x\nlocation    /home/me/.cache/lore/search/v1\n"
    ));
    assert!(!appears("documents   41", "documents   57\n"));
}
