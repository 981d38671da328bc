//! The command line surface: help, version, usage errors.

mod common;

use common::{home, lore};

#[test]
fn help_lists_the_verbs_and_global_flags() {
    let home = home();
    let out = lore(&home).arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}

#[test]
fn version_prints_the_crate_version() {
    let home = home();
    lore(&home)
        .arg("--version")
        .assert()
        .code(0)
        .stdout(format!("lore {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn unknown_verb_is_a_usage_error() {
    let home = home();
    lore(&home).arg("frobnicate").assert().code(2);
}

/// The README's commands, run as shown: every `lore …` line in a `text`
/// block (synopses like `lore show PATH[#ANCHOR]` aside) must succeed, and a
/// `$ lore …` line's output must be what lore prints (its first lines; the
/// numbers, build time and cache location of `lore index` vary with the corpus).
#[test]
fn readme_commands_work_as_shown() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let home = home();
    // The folder of the `lore check` example.
    let cwd = tempfile::tempdir().unwrap();
    let notes = cwd.path().join("notes");
    std::fs::create_dir(&notes).unwrap();
    let files = [
        (
            "a.md",
            "---\ndrop: none\n---\n# A\nSee [the part](b.md#missing-part).\n",
        ),
        ("b.md", "---\ndrop: none\n---\n# B\n\n## Present part\n"),
        ("lonely.md", "# Lonely\n"),
    ];
    for (name, text) in files {
        std::fs::write(notes.join(name), text).unwrap();
    }

    let mut ran = 0;
    for (command, shown) in readme_commands(&readme) {
        let args = shell_words(&command);
        assert_eq!(args[0], "lore", "{command}");
        let out = lore(&home)
            .args(&args[1..])
            .current_dir(cwd.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let expected_code = if shown.iter().any(|l| l.contains(": error: ")) {
            1
        } else {
            0
        };
        assert_eq!(
            out.status.code(),
            Some(expected_code),
            "`{command}`:\n{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let actual: Vec<&str> = stdout.lines().collect();
        assert!(actual.len() >= shown.len(), "`{command}` printed\n{stdout}");
        for (want, got) in shown.iter().zip(&actual) {
            let label = |l: &str| l.split("  ").next().unwrap_or("").to_string();
            // `lore index` reports sizes of the corpus as it is today: the
            // README shows the shape, the test checks every field is there.
            if command.starts_with("lore index") {
                assert_eq!(label(want), label(got), "`{command}`");
            } else {
                assert_eq!(want, got, "`{command}` printed\n{stdout}");
            }
        }
        ran += 1;
    }
    // The quick start's examples are in `console`/`bash` blocks, which
    // tests/readme_commands.rs runs; these are the reference sections' `text`
    // examples. The floor only guards against the parser finding nothing.
    assert!(ran >= 5, "only {ran} commands found in the README");
}

/// `(command, shown output)` for each `lore` line of the README's `text`
/// blocks, `\` continuations joined, `# comments` and `| pager` dropped.
fn readme_commands(readme: &str) -> Vec<(String, Vec<String>)> {
    let mut found: Vec<(String, Vec<String>)> = Vec::new();
    let mut in_text = false;
    let mut output_of: Option<usize> = None;
    let mut pending = String::new();
    for line in readme.lines() {
        if line.starts_with("```") {
            in_text = line == "```text";
            output_of = None;
            continue;
        }
        if !in_text {
            continue;
        }
        if let Some(rest) = line.strip_suffix('\\') {
            pending.push_str(rest);
            continue;
        }
        let line = format!("{pending}{line}");
        pending.clear();
        let (dollar, command) = match line.strip_prefix("$ ") {
            Some(c) => (true, c.to_string()),
            None => (false, line.clone()),
        };
        if command.starts_with("lore ") || command == "lore" {
            // Synopsis lines hold placeholders (`DIR`, `PATH[`, `[--flag]`): not run.
            let synopsis = ["[GLOBAL", "PATH[", "[--", "QUERY…", " DIR"];
            if synopsis.iter().any(|s| command.contains(s)) {
                output_of = None;
                continue;
            }
            let command = command.split(" | ").next().unwrap();
            // A ` #` outside quotes starts a comment.
            let command = match command.find(" #") {
                Some(at) if command[..at].matches('"').count() % 2 == 0 => &command[..at],
                _ => command,
            };
            found.push((command.trim().to_string(), Vec::new()));
            output_of = dollar.then(|| found.len() - 1);
        } else if let Some(i) = output_of {
            found[i].1.push(line);
        }
    }
    found
}

/// Words of a command line: spaces separate, double quotes group.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                any = true;
            }
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                    any = false;
                }
            }
            c => {
                word.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(word);
    }
    words
}
