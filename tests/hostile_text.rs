//! Hostile text in files, file names and trees, and where it must not go:
//! the clipboard, the JSON a script reads, the lines a user or a grep reads.
//! Each test is one way a red-team run broke lore.

mod common;

use std::path::Path;
use std::sync::Arc;

use common::{home, lore};
use lore::sources::SourceSet;
use lore::theme::Theme;
use lore::tui::app::{App, AppInit, Effect};
use lore::tui::keymap::Key;

fn write(path: &Path, text: &str) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

/// The TUI's app on these folders only, as `lore --no-builtin` starts it.
fn app_on(knowledge: &Path, trees: &Path) -> App {
    let corpus = lore::corpus::Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![knowledge.to_path_buf()],
    });
    let loaded = lore::decide::load(
        &SourceSet {
            builtin: None,
            overlays: vec![trees.to_path_buf()],
        },
        &corpus,
    );
    assert!(
        loaded.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        loaded.diagnostics
    );
    App::new(AppInit {
        corpus: Arc::new(corpus),
        keys: lore::tui::keymap::KeyMap::default(),
        theme: Theme::plain(),
        mouse: false,
        warnings: Vec::new(),
        log_path: None,
        size: ratatui::layout::Size::new(100, 30),
        trees: loaded.trees,
        sessions: Vec::new(),
        can_save: false,
        history: Default::default(),
    })
}

fn press(app: &mut App, keys: &[&str]) {
    for name in keys {
        let key = Key::parse(name).expect("a key name");
        if let Some(action) = app.action_for_key(key) {
            app.update(action);
        }
    }
}

fn copies(app: &mut App) -> Vec<String> {
    app.take_effects()
        .into_iter()
        .filter_map(|e| match e {
            Effect::Copy(text) => Some(text),
            _ => None,
        })
        .collect()
}

fn status(app: &App) -> String {
    app.status
        .as_ref()
        .map(|s| s.text.clone())
        .unwrap_or_default()
}

const HOSTILE_BLOCK: &str = "# Hostile\n\n```bash\nprintf 'x \u{1b}[201~ y'\r\necho ok # \u{202e}\u{2066}txt\u{200b}\u{9b}\n\tindented\n```\n\n<https://example.org/a\u{200d}b>\n";
const HOSTILE_TREE: &str = r#"[tree]
id = "hostile"
title = "Hostile"
summary = "A tree with control characters in its commands"
start = "q"

[nodes.q]
kind = "question"
text = "Which?"
why = "Because"
[[nodes.q.options]]
id = "a"
label = "A"
next = "out"

[nodes.out]
kind = "outcome"
title = "Out"
verdict = "Run it"
[[nodes.out.actions]]
label = "the command"
lang = "bash"
code = "printf 'x \u001b[201~ y'\u202e\u2066"

[[tests]]
answers = { q = "a" }
expect = "out"
"#;

/// A block showing `printf 'x ^[[201~ y'` copied a real `ESC [201~`, which
/// ends a bracketed paste early in a terminal that does not filter pastes:
/// the rest would run as typed. `y`, `Y`, `c` and the outcome's `y` copy
/// what a user sees and would type, and say what was left out.
#[test]
fn copies_carry_no_control_or_invisible_characters() {
    let knowledge = tempfile::tempdir().unwrap();
    write(&knowledge.path().join("hostile.md"), HOSTILE_BLOCK);
    let trees = tempfile::tempdir().unwrap();
    write(&trees.path().join("hostile.toml"), HOSTILE_TREE);
    let mut a = app_on(knowledge.path(), trees.path());
    let clean = "printf 'x [201~ y'\necho ok # txt\n\tindented\n";

    press(&mut a, &["enter"]);
    let _ = a.take_effects();
    press(&mut a, &["y"]);
    assert_eq!(copies(&mut a), vec![clean]);
    assert!(
        status(&a).ends_with("; left out 5 control or invisible characters"),
        "{}",
        status(&a)
    );

    press(&mut a, &["Y", "1"]);
    assert_eq!(copies(&mut a), vec![clean]);
    assert!(status(&a).contains("left out 5"), "{}", status(&a));

    press(&mut a, &["tab", "c"]);
    assert_eq!(copies(&mut a), vec!["https://example.org/ab"]);
    assert!(status(&a).contains("left out 1 control"), "{}", status(&a));

    press(&mut a, &["d", "1", "1"]);
    let _ = a.take_effects();
    press(&mut a, &["y"]);
    assert_eq!(copies(&mut a), vec!["printf 'x [201~ y'\n"]);
    assert!(status(&a).contains("left out 3"), "{}", status(&a));

    // Nothing to leave out: nothing said.
    press(&mut a, &["x"]);
    let transcript = copies(&mut a);
    assert_eq!(transcript.len(), 1);
    assert!(
        !transcript[0]
            .chars()
            .any(|c| c != '\n' && c != '\t' && lore::text::needs_escape(c)),
        "{:?}",
        transcript[0]
    );
    assert!(!status(&a).contains("left out"), "{}", status(&a));
}

/// Output holding no character a terminal acts on or that hides itself:
/// only printable text and newlines.
fn assert_inert(what: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    assert!(
        !text
            .chars()
            .any(|c| c != '\n' && (c.is_control() || lore::text::needs_escape(c))),
        "{what} reached the terminal raw: {text:?}"
    );
}

/// `lore search --json` printed bidirectional overrides raw in `path`,
/// `title` and `heading`, while `lore decide --json` rewrote values to
/// caret notation. One rule now: exact values, JSON-escaped (`\u202e`).
#[test]
fn every_json_output_has_exact_values_escaped() {
    let knowledge = tempfile::tempdir().unwrap();
    let name = "evil\u{202e}dm.md";
    write(
        &knowledge.path().join(name),
        "# Title \u{2066}x\u{2069} \u{200b}\n\n## Sec \u{1b}[2J\u{9b}\n\nmarker text\n",
    );
    let trees = tempfile::tempdir().unwrap();
    write(
        &trees.path().join("hostile.toml"),
        &HOSTILE_TREE.replace(
            "title = \"Hostile\"",
            "title = \"Hostile \\u001b[31m\\u202e\"",
        ),
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
    assert!(String::from_utf8_lossy(&out.stdout).contains("evil\\u202edm.md"));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits[0]["path"], name);
    assert_eq!(hits[0]["title"], "Title \u{2066}x\u{2069} \u{200b}");
    assert_eq!(
        hits[0]["heading"],
        "Title \u{2066}x\u{2069} \u{200b} › Sec \u{1b}[2J\u{9b}"
    );

    let decide = |args: &[&str]| {
        let out = lore(&home)
            .args(["decide", "--no-builtin", "--trees"])
            .arg(trees.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_inert(&format!("decide {args:?}"), &out.stdout);
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let list = decide(&["--json"]);
    assert_eq!(list[0]["title"], "Hostile \u{1b}[31m\u{202e}");
    let walked = decide(&["hostile", "--answer", "q=a", "--json"]);
    assert_eq!(
        walked["outcome"]["actions"][0]["code"],
        "printf 'x \u{1b}[201~ y'\u{202e}\u{2066}"
    );
}

/// A file named `evil⏎forged.md:1: error: x.md` printed a second, forged
/// line in `lore check`, `lore search`, "closest paths" and other errors.
/// Names are printed on one line with the break escaped (`^J`).
#[cfg(unix)]
#[test]
fn file_names_with_line_breaks_never_forge_output_lines() {
    let knowledge = tempfile::tempdir().unwrap();
    let k = knowledge.path();
    let name = "evil\nforged.md:1: error: x.md";
    write(
        &k.join(name),
        "---\ndrop: none\n---\n# Evil\n\nmarker text and a [broken](missing.md) link\n",
    );
    write(
        &k.join("good.md"),
        "---\ndrop: none\n---\n# Good\n\nplain\n",
    );
    let trees = tempfile::tempdir().unwrap();
    write(
        &trees.path().join("bad\nforged.toml:1: error: y.toml"),
        "[tree]\n",
    );
    let shown = "evil^Jforged.md:1: error: x.md";
    let home = home();
    let run = |args: &[&str]| {
        let out = lore(&home)
            .args(["--no-builtin", "--knowledge"])
            .arg(k)
            .arg("--trees")
            .arg(trees.path())
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        for line in stdout.lines().chain(stderr.lines()) {
            assert!(
                !line.trim_start().starts_with("forged"),
                "{args:?} printed a forged line:\n{stdout}{stderr}"
            );
        }
        (out.status.code().unwrap_or(-1), stdout, stderr)
    };
    let (code, stdout, _) = run(&["check"]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains(&format!("{shown}:6: error: broken link")),
        "{stdout}"
    );
    assert!(
        stdout.contains("bad^Jforged.toml:1: error: y.toml"),
        "{stdout}"
    );
    let (code, stdout, _) = run(&["search", "marker"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with(&format!("{shown}:4  Evil")), "{stdout}");
    // Not a fragment of the evil name, so the closest paths are listed.
    let (code, _, stderr) = run(&["show", "forgedx.md"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!("closest paths:\n  {shown}")),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["show", &format!("{name}#nope")]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(&format!(
            "lore: error: `{shown}` has no heading with anchor `#nope`\nanchors in {shown}:"
        )),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["show", "new\nline.md"]);
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("lore: error: no document `new^Jline.md`"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["decide", "nope\nforged"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("`nope^Jforged`"), "{stderr}");
}

/// An overlay tree with a shipped tree's id took it over or lost depending
/// on whether its file name sorted before the shipped one, and the error
/// blamed the shipped file. The overlay now wins whatever it is called, as
/// for knowledge; two files of one folder with one id are an error naming
/// both.
#[test]
fn an_overlay_tree_takes_a_shipped_id_whatever_its_file_name() {
    let overlay = |title: &str| {
        HOSTILE_TREE
            .replace("id = \"hostile\"", "id = \"need-cupti\"")
            .replace("title = \"Hostile\"", &format!("title = \"{title}\""))
    };
    for name in ["aaa.toml", "need-cupti-local.toml", "zzz.toml"] {
        let trees = tempfile::tempdir().unwrap();
        write(&trees.path().join(name), &overlay("Local CUPTI"));
        let home = home();
        let out = lore(&home)
            .args(["decide", "--json", "--trees"])
            .arg(trees.path())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}");
        let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let cupti: Vec<&serde_json::Value> = list
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["id"] == "need-cupti")
            .collect();
        assert_eq!(cupti.len(), 1, "{name}: {list}");
        assert_eq!(cupti[0]["title"], "Local CUPTI", "{name}");
        let out = lore(&home)
            .args(["check", "--trees"])
            .arg(trees.path())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(!stdout.contains("already used"), "{name}: {stdout}");
    }

    // Two later folders: the last one given wins.
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    write(&first.path().join("zzz.toml"), &overlay("First"));
    write(&second.path().join("aaa.toml"), &overlay("Second"));
    let home = home();
    let out = lore(&home)
        .args(["decide", "--json", "--trees"])
        .arg(first.path())
        .arg("--trees")
        .arg(second.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let titles: Vec<&serde_json::Value> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["id"] == "need-cupti")
        .map(|t| &t["title"])
        .collect();
    assert_eq!(titles, ["Second"]);

    // One folder, one id twice: an error on the second file naming the first.
    let trees = tempfile::tempdir().unwrap();
    write(&trees.path().join("b.toml"), &overlay("B"));
    write(&trees.path().join("a.toml"), &overlay("A"));
    let out = lore(&home)
        .args(["check", "--trees"])
        .arg(trees.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(
            "b.toml:2: error: tree id `need-cupti` is already used by `a.toml` in the same folder; this file is skipped"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("need-cupti.toml"), "{stdout}");
}

/// U+200D, U+2028 and U+2029 passed through and corrupted the TUI in tmux;
/// U+200B, U+FEFF, U+2060 and U+061C reached CLI output invisibly. Every
/// invisible or separator character is now shown as `<U+XXXX>`, and wrapping
/// never splits such an escape.
#[test]
fn invisible_characters_are_shown_and_their_escapes_never_split() {
    let knowledge = tempfile::tempdir().unwrap();
    write(
        &knowledge.path().join("z.md"),
        "---\ndrop: none\n---\n# Zero \u{200b}width\n\njoin👩\u{200d}💻 line\u{2028}sep para\u{2029}sep bom\u{feff} wj\u{2060} alm\u{061c}\n\nabcdefghijklmnopqrstuvwxyz0123456789ab\u{2066}cdefghijklmnopqrstuvwxyz0123\u{1b}[31m\n",
    );
    let home = home();
    let out = lore(&home)
        .args([
            "show",
            "--no-builtin",
            "--plain",
            "--width",
            "40",
            "--knowledge",
        ])
        .arg(knowledge.path())
        .arg("z.md")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_inert("show", &out.stdout);
    let stdout = String::from_utf8_lossy(&out.stdout);
    for shown in [
        "Zero <U+200B>width",
        "join👩<U+200D>💻",
        "line<U+2028>sep",
        "para<U+2029>sep",
        "bom<U+FEFF>",
        "wj<U+2060>",
        "alm<U+061C>",
    ] {
        assert!(stdout.contains(shown), "{shown}:\n{stdout}");
    }
    // The long word breaks at 40 columns, but around the escapes: a line
    // never ends in half of one.
    assert!(
        stdout.contains("0123456789ab\n<U+2066>cdefghijklmnopqrstuvwxyz0123^[[3\n"),
        "{stdout}"
    );
    for line in stdout.lines() {
        let tail: String = line
            .chars()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        assert!(
            !line.ends_with('^') && (!tail.contains("<U") || tail.contains('>')),
            "{line:?}"
        );
    }
    let (code, check) = common::check_dir(knowledge.path());
    assert_eq!(code, 0, "{check}");
    assert!(
        check.contains("z.md:4: warning: invisible format character U+200B in the text"),
        "{check}"
    );
}

/// Tab completion printed overlay file names raw: a name holding ESC
/// reached the terminal as a control sequence when the shell listed the
/// candidates, and one holding a newline forged a second candidate. Values
/// and their help are escaped like every other name lore prints.
#[test]
fn tab_completion_escapes_hostile_file_names() {
    let knowledge = tempfile::tempdir().unwrap();
    write(
        &knowledge.path().join("evil\x1b]0;pwned\x07.md"),
        "# Title \x1b[2J here\n",
    );
    write(&knowledge.path().join("two\nforged.md"), "# Two\n");
    let home = home();
    let out = lore(&home)
        .env("LORE_KNOWLEDGE", knowledge.path())
        .env("COMPLETE", "fish")
        .args(["--", "lore", "show", ""])
        .output()
        .unwrap();
    assert!(out.status.success());
    let listed = String::from_utf8(out.stdout).unwrap();
    // Fish's protocol: `value<TAB>help`, one a line.
    assert_inert("completions", listed.replace('\t', " ").as_bytes());
    let values: Vec<&str> = listed
        .lines()
        .map(|l| l.split('\t').next().unwrap_or_default())
        .collect();
    assert!(values.contains(&"evil^[]0;pwned^G.md"), "{values:?}");
    assert!(values.contains(&"two^Jforged.md"), "{values:?}");
    assert!(!values.contains(&"forged.md"), "{values:?}");
}
