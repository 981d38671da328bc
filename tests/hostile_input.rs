//! What a hostile or careless user (or knowledge folder) does to lore: each
//! test is a way lore once broke, driven through the real binary. The bar:
//! exit codes 0/1/2, one clear message naming the problem, nothing read from
//! outside the knowledge folders, no control sequences on the terminal, no
//! panics.

mod common;

use std::path::Path;

use common::{home, lore};
use predicates::prelude::*;

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// A symlink inside an overlay that points outside it is reported and not
/// followed: a link to `/` must not walk the whole disk, and a `notes.md`
/// linking to a private file must not bring it into lore. Links that stay
/// inside the folder still work.
#[cfg(unix)]
#[test]
fn symlinks_leaving_the_knowledge_folder_are_skipped() {
    use std::os::unix::fs::symlink;
    let outside = tempfile::tempdir().unwrap();
    write(&outside.path().join("secret.md"), "# Secret\n\nhunter2\n");
    let knowledge = tempfile::tempdir().unwrap();
    let k = knowledge.path();
    write(&k.join("sub/inside.md"), "---\ndrop: none\n---\n# Inside\n");
    symlink(outside.path().join("secret.md"), k.join("notes.md")).unwrap();
    symlink(outside.path(), k.join("elsewhere")).unwrap();
    symlink("/", k.join("root")).unwrap();
    symlink("sub/inside.md", k.join("alias.md")).unwrap();

    let home = home();
    let out = lore(&home)
        .args(["check", "--no-builtin", "--knowledge"])
        .arg(k)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    for name in ["notes.md", "elsewhere", "root"] {
        assert!(
            stdout.lines().any(|l| {
                l.contains(&format!("{name}: warning: symlink to "))
                    && l.contains(", outside the knowledge folder ")
                    && l.ends_with(", skipped")
            }),
            "no warning for {name}:\n{stdout}"
        );
    }
    // Only the two names of the file inside were loaded.
    assert!(
        stdout.ends_with("checked 2 files: 0 errors, 3 warnings\n"),
        "{stdout}"
    );

    lore(&home)
        .args(["show", "--no-builtin", "--knowledge"])
        .arg(k)
        .arg("notes.md")
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("hunter2").not());
    lore(&home)
        .args(["show", "--no-builtin", "--knowledge"])
        .arg(k)
        .arg("alias.md")
        .assert()
        .code(0)
        .stdout(predicate::str::contains("Inside"));
}

/// `--limit` is a count the collectors reserved room for up front: a huge one
/// panicked (capacity overflow) or aborted (allocation failure). It now means
/// "all of them"; 0 is a usage error rather than a silent "no results".
#[test]
fn search_limits_huge_or_zero() {
    let home = home();
    for limit in ["18446744073709551615", "100000000000"] {
        lore(&home)
            .args(["search", "--limit", limit, "cupti"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(
                "cuda/20-cupti-deep-dive-arr-coc.md:",
            ));
    }
    lore(&home)
        .args(["search", "--limit", "0", "cupti"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the limit must be at least 1"));
}

/// `lore VERB | head -1`: when the reader goes away, lore stops quietly
/// with exit 0, whatever it was writing (`--json` went through serde_json,
/// whose wrapped io error was reported as `lore: error: Broken pipe`, exit 2).
#[test]
fn a_closed_pipe_ends_every_verb_quietly() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::{Command, Stdio};

    let knowledge = tempfile::tempdir().unwrap();
    let mut big = String::from("# Big\n\n");
    for i in 0..3000 {
        big.push_str(&format!(
            "## Part {i}\n\ncupti section {i} [broken](missing.md)\n\n"
        ));
    }
    write(&knowledge.path().join("big.md"), &big);
    let home = home();
    let verbs: [&[&str]; 4] = [
        &["search", "--json", "--limit", "5000", "cupti"],
        &["search", "--limit", "5000", "cupti"],
        &["show", "big.md"],
        &["check"],
    ];
    for verb in verbs {
        let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
            .env("LORE_HOME", home.path())
            .env_remove("LORE_KNOWLEDGE")
            .args(verb)
            .arg("--no-builtin")
            .arg("--knowledge")
            .arg(knowledge.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(!first.is_empty(), "{verb:?} printed nothing");
        // Reader dropped: the rest of the output meets a closed pipe. The
        // wait is bounded, so a lore stuck on that pipe fails this test
        // instead of hanging the run; stderr is drained meanwhile.
        let mut errors = child.stderr.take().unwrap();
        let drain = std::thread::spawn(move || {
            let mut text = String::new();
            let _ = errors.read_to_string(&mut text);
            text
        });
        let status = common::exit_status(&mut child, &format!("{verb:?}"));
        let stderr = drain.join().unwrap();
        assert_eq!(status.code(), Some(0), "{verb:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe"), "{verb:?}: {stderr}");
    }
}

/// Output with no control character but newline: nothing a terminal would
/// act on.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text.chars().any(|c| c.is_control() && c != '\n'),
        "{what} reached the terminal raw: {text:?}"
    );
}

/// Error messages that echo a config value, an environment variable, a
/// flag's path or a refused argument show control characters visibly, like
/// file text.
#[test]
fn error_messages_echo_paths_and_values_inertly() {
    let evil = "/nope\u{1b}]52;c;ZXZpbA==\u{7}\u{1b}[2J";
    let home = home();
    write(
        &home.path().join("config.toml"),
        "knowledge_dirs = [\"/nope\\u001b]52;c;ZXZpbA==\\u0007\\u001b[2J\"]\n",
    );
    // A folder of the config that is not there is a warning (see
    // tests/check.rs), listed by `check` and said on stderr by the others.
    let out = lore(&home).arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(
            "config.toml:1: warning: knowledge_dirs: /nope^[]52;c;ZXZpbA==^G^[[2J: no such directory, skipped"
        ),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert_inert("check's stdout", &out.stdout);
    let out = lore(&home).args(["list"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("knowledge_dirs: /nope^[]52;c;ZXZpbA==^G^[[2J: no such directory, skipped"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_inert("list's stderr", &out.stderr);

    let home = common::home();
    let runs: Vec<Vec<std::ffi::OsString>> = vec![
        vec!["check".into(), "--knowledge".into(), evil.into()],
        vec!["check".into(), "--trees".into(), evil.into()],
        vec![
            "decide".into(),
            "need-cupti".into(),
            "--answer".into(),
            "torch-install=pip".into(),
            "--transcript".into(),
            format!("{evil}/t.md").into(),
        ],
        vec![
            "decide".into(),
            "need-cupti".into(),
            "--answer".into(),
            evil.into(),
        ],
        vec!["search".into(), "--kind".into(), evil.into(), "x".into()],
    ];
    for args in runs {
        let out = lore(&home).args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_inert(&format!("{args:?}"), &out.stderr);
        assert_inert(&format!("{args:?}"), &out.stdout);
    }
    // A folder in LORE_KNOWLEDGE that is not there is a warning, not an error.
    let out = lore(&home)
        .env("LORE_KNOWLEDGE", evil)
        .arg("check")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_inert("LORE_KNOWLEDGE", &out.stderr);
    assert_inert("LORE_KNOWLEDGE", &out.stdout);
}

/// `lore show '#'` said "no document `` in the knowledge" and listed five
/// arbitrary paths; a file that exists but was skipped (not UTF-8, too big)
/// was "no document" too, with no word of why; `a.md##x` split at the last
/// `#` and blamed the path.
#[test]
fn show_says_what_is_wrong_with_the_target() {
    let knowledge = tempfile::tempdir().unwrap();
    let k = knowledge.path();
    std::fs::write(k.join("latin1.md"), b"# Caf\xe9\n").unwrap();
    write(&k.join("c#.md"), "# Sharp\n\n## Types\n\nvalue types\n");
    write(&k.join("a.md"), "# A\n\n## X\n");
    let home = home();
    let show = |target: &str| {
        let out = lore(&home)
            .args(["show", "--no-builtin", "--knowledge"])
            .arg(k)
            .arg(target)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for empty in ["", "#", "#x", "  "] {
        let (code, stdout, stderr) = show(empty);
        assert_eq!(code, 2);
        assert!(stdout.is_empty());
        assert!(
            stderr.starts_with(&format!(
                "lore: error: `{empty}` names no document: expected PATH[#ANCHOR]"
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("closest paths"), "{stderr}");
    }
    let (code, _, stderr) = show("latin1");
    assert_eq!(code, 2);
    // The skipped file is named where it can be opened: its folder, then it.
    assert_eq!(
        stderr,
        format!(
            "lore: error: `latin1` could not be loaded\n{}/latin1.md:1: warning: not valid UTF-8 (byte 5), skipped\n",
            k.display()
        )
    );
    let (code, _, stderr) = show("a.md##x");
    assert_eq!(code, 2);
    assert!(
        stderr
            .starts_with("lore: error: `a.md` has no heading with anchor `##x`\nanchors in a.md:"),
        "{stderr}"
    );
    let (code, stdout, _) = show("c#.md#types");
    assert_eq!(code, 0);
    assert!(stdout.starts_with("Types\n"), "{stdout}");
    let (code, stdout, _) = show("c#");
    assert_eq!(code, 0);
    assert!(stdout.starts_with("Sharp\n"), "{stdout}");
}

/// An empty query exited 1 with no word, like a search that found nothing;
/// a query of noise alone (addresses, times, punctuation) likewise. Empty
/// is now a usage error, and noise says why nothing was looked up.
#[test]
fn empty_and_noise_only_queries_say_so() {
    let home = home();
    for empty in ["", "   "] {
        lore(&home)
            .args(["search", "--", empty])
            .assert()
            .code(2)
            .stdout("")
            .stderr(
                "lore: error: the query is empty: give words, an error line, or `-` for stdin\n",
            );
    }
    lore(&home)
        .args(["search", "-"])
        .write_stdin("\n  \n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the query is empty"));
    for noise in ["0x7ffe12345678 12:34:56", "\"", "[ 3/12]"] {
        lore(&home)
            .args(["search", "--", noise])
            .assert()
            .code(1)
            .stdout("")
            .stderr(predicate::str::starts_with("lore: nothing to search for: "));
    }
}

/// serde_json escapes ESC but not DEL or the C1 controls (U+009B is CSI,
/// U+009D OSC on terminals that honour 8-bit controls): a heading holding
/// them reached the terminal raw through `lore search --json`. They are now
/// escaped, and the values stay exact.
#[test]
fn json_output_escapes_c1_controls() {
    let knowledge = tempfile::tempdir().unwrap();
    write(
        &knowledge.path().join("a.md"),
        "# Title \u{9b}31m red\u{7f}\n\n## Sec \u{9d}0;pwn\u{9c} \u{1b}[2J\n\nmarker text\n",
    );
    let home = home();
    let out = lore(&home)
        .args(["search", "--json", "--no-builtin", "--knowledge"])
        .arg(knowledge.path())
        .arg("marker")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_inert("search --json", &out.stdout);
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        hits[0]["heading"],
        "Title \u{9b}31m red\u{7f} › Sec \u{9d}0;pwn\u{9c} \u{1b}[2J"
    );
}
