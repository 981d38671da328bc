//! `lore check`: one fixture per message, asserting the message and where it
//! points, plus the exit codes scripts rely on.

mod common;

use common::{check_dir, fixture, home, lore};
use predicates::prelude::*;

fn assert_line(stdout: &str, expected: &str) {
    assert!(
        stdout.lines().any(|l| l == expected),
        "expected line\n  {expected}\nin output:\n{stdout}"
    );
}

#[test]
fn broken_anchor_names_file_line_and_anchor() {
    let (code, out) = check_dir(&fixture("check/broken-anchor"));
    assert_eq!(code, 1, "{out}");
    assert_line(
        &out,
        "a.md:3: error: broken link `b.md#missing-part`: `b.md` has no heading with anchor `#missing-part`",
    );
}

/// Footnote references and links to a note's `#fn:label` land, here or in
/// another file; a link to a note that does not exist is named as one.
#[test]
fn footnote_anchors_are_checked_like_heading_anchors() {
    let (code, out) = check_dir(&fixture("check/footnotes"));
    assert_eq!(code, 1, "{out}");
    let errors: Vec<&str> = out.lines().filter(|l| l.contains(": error: ")).collect();
    assert_eq!(
        errors,
        [
            "a.md:7: error: broken link `#fn:missing`: `a.md` has no footnote `[^missing]` (nor a heading with anchor `#fn:missing`)"
        ],
        "{out}"
    );
}

#[test]
fn link_to_missing_file_is_an_error() {
    let (code, out) = check_dir(&fixture("check/missing-file"));
    assert_eq!(code, 1);
    assert_line(
        &out,
        "a.md:6: error: broken link `nope.md`: no file `nope.md`",
    );
}

#[test]
fn link_leaving_the_root_is_an_error() {
    let (code, out) = check_dir(&fixture("check/outside-root"));
    assert_eq!(code, 1);
    assert_line(
        &out,
        "a.md:6: error: link `../../../etc/passwd.md` leaves the knowledge root",
    );
}

#[test]
fn drop_naming_a_missing_file_is_an_error() {
    let (code, out) = check_dir(&fixture("check/drop-missing-file"));
    assert_eq!(code, 1);
    assert_line(
        &out,
        "drops/KNOWLEDGE-DROP-gone-2026-11-22.md:3: error: drop describes `cuda/gone.md`, which does not exist",
    );
}

#[test]
fn drop_without_a_file_field_is_an_error() {
    let (code, out) = check_dir(&fixture("check/drop-no-file"));
    assert_eq!(code, 1);
    assert_line(
        &out,
        "drops/KNOWLEDGE-DROP-nothing-2026-11-22.md:1: error: drop names no knowledge file: expected a line `- **File**: [cuda/x.md](../cuda/x.md)`",
    );
}

#[test]
fn knowledge_file_without_drop_is_a_warning() {
    let (code, out) = check_dir(&fixture("check/no-drop"));
    assert_eq!(code, 0, "warnings alone exit 0: {out}");
    assert_line(
        &out,
        "lonely.md:1: warning: no KNOWLEDGE DROP describes this file (add one under drops/, or `drop: none` front matter if no expansion created it)",
    );
}

/// A folder of plain notes uses neither drops nor an index: well-formed
/// notes get no warnings, alone or on top of the built-in knowledge (whose
/// drops and INDEX.md are conventions of that root only).
#[test]
fn plain_notes_get_no_warnings() {
    let (code, out) = check_dir(&fixture("check/plain-notes"));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "checked 2 files: 0 errors, 0 warnings\n");
    let home = home();
    let out = lore(&home)
        .args(["check", "--knowledge"])
        .arg(fixture("check/plain-notes"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.ends_with(" 0 errors, 0 warnings\n"), "{stdout}");
}

/// A root without drops yet can still ask for one per file.
#[test]
fn index_front_matter_opts_a_root_into_drops() {
    let (code, out) = check_dir(&fixture("check/drops-required"));
    assert_eq!(code, 0, "{out}");
    assert_line(
        &out,
        "first.md:1: warning: no KNOWLEDGE DROP describes this file (add one under drops/, or `drop: none` front matter if no expansion created it)",
    );
}

/// An overlay's INDEX.md lists the overlay's files, not the built-in ones;
/// the built-in INDEX.md does not list the overlay's.
#[test]
fn each_index_governs_its_own_root() {
    let home = home();
    let out = lore(&home)
        .args(["check", "--knowledge"])
        .arg(fixture("check/overlay-index"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_line(
        &stdout,
        &format!(
            "{}/INDEX.md: warning: `stray.md` is not listed in the index",
            fixture("check/overlay-index").display()
        ),
    );
    assert!(
        stdout.ends_with(" 0 errors, 1 warning\n"),
        "only the overlay's own unlisted file: {stdout}"
    );
}

#[test]
fn invalid_front_matter_is_reported_with_file_and_line() {
    let (code, out) = check_dir(&fixture("check/front-matter"));
    assert_eq!(code, 0, "warnings only: {out}");
    let line = |prefix: &str| {
        out.lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix:?} in:\n{out}"))
            .to_string()
    };
    assert!(line("bad-toml.md:3: warning: front matter is not valid TOML").len() > 40);
    assert!(line("bad-yaml.md:3: warning: front matter is not valid YAML").len() > 40);
    assert_line(
        &out,
        "unclosed.md:1: warning: front matter opened with `---` is never closed: the file is read as Markdown without it",
    );
    assert!(!out.contains("fine.md"), "{out}");
    assert!(
        out.ends_with("checked 4 files: 0 errors, 3 warnings\n"),
        "{out}"
    );
}

#[test]
fn index_mismatches_are_warnings() {
    let (code, out) = check_dir(&fixture("check/index"));
    assert_eq!(code, 0, "{out}");
    assert_line(
        &out,
        "INDEX.md:4: warning: index entry `planned.md` has no file",
    );
    assert_line(
        &out,
        "INDEX.md: warning: `unlisted.md` is not listed in the index",
    );
    assert!(!out.contains("`listed.md` is not listed"), "{out}");
}

#[test]
fn drop_line_count_mismatch_is_a_warning() {
    let (code, out) = check_dir(&fixture("check/drop-lines"));
    assert_eq!(code, 0);
    assert_line(
        &out,
        "drops/KNOWLEDGE-DROP-sized-2026-11-22.md:4: warning: drop says `cuda/sized.md` has 400 lines; it has 4",
    );
}

#[test]
fn clean_folder_exits_zero_with_a_summary() {
    let (code, out) = check_dir(&fixture("check/clean"));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "checked 2 files: 0 errors, 0 warnings\n");
}

#[test]
fn empty_corpus_is_clean() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check_dir(dir.path());
    assert_eq!(code, 0);
    assert_eq!(out, "checked 0 files: 0 errors, 0 warnings\n");
}

#[test]
fn non_utf8_and_oversized_files_are_skipped_with_warnings() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bad.md"), b"# Bad\n\nline two \xff\xfe\n").unwrap();
    let big = vec![b'a'; 8 * 1024 * 1024 + 1];
    std::fs::write(dir.path().join("big.md"), big).unwrap();
    std::fs::write(dir.path().join("good.md"), "---\ndrop: none\n---\n# Good\n").unwrap();
    let (code, out) = check_dir(dir.path());
    assert_eq!(code, 0, "{out}");
    assert_line(
        &out,
        "bad.md:3: warning: not valid UTF-8 (byte 16), skipped",
    );
    assert_line(
        &out,
        "big.md: warning: file is 8388609 bytes, over the 8 MiB limit, skipped",
    );
    assert!(
        out.ends_with("checked 1 file: 0 errors, 2 warnings\n"),
        "{out}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_are_warnings_not_hangs() {
    let dir = tempfile::tempdir().unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    std::os::unix::fs::symlink(dir.path(), sub.join("loop")).unwrap();
    std::fs::write(sub.join("a.md"), "---\ndrop: none\n---\n# A\n").unwrap();
    let (code, out) = check_dir(dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("warning: symlink loop"), "{out}");
    assert!(
        out.ends_with("checked 1 file: 0 errors, 1 warning\n"),
        "{out}"
    );
}

#[test]
fn missing_knowledge_folder_exits_two() {
    let home = home();
    lore(&home)
        .args(["check", "--knowledge", "/definitely/not/here"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "lore: error: --knowledge /definitely/not/here: no such directory",
        ));
}

#[test]
fn global_flags_work_before_the_verb() {
    let home = home();
    lore(&home)
        .arg("--no-builtin")
        .arg("--knowledge")
        .arg(fixture("check/clean"))
        .arg("check")
        .assert()
        .code(0)
        .stdout("checked 2 files: 0 errors, 0 warnings\n");
}

#[test]
fn colour_only_when_asked() {
    let (_, plain) = check_dir(&fixture("check/missing-file"));
    assert!(!plain.contains('\x1b'));
    let home = home();
    lore(&home)
        .args(["check", "--no-builtin", "--color", "always", "--knowledge"])
        .arg(fixture("check/missing-file"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("\x1b[1;31merror\x1b[0m"));
}

#[test]
fn knowledge_env_var_adds_folders() {
    let home = home();
    lore(&home)
        .env("LORE_KNOWLEDGE", fixture("check/clean"))
        .args(["check", "--no-builtin"])
        .assert()
        .code(0)
        .stdout("checked 2 files: 0 errors, 0 warnings\n");
}

#[test]
fn config_file_knowledge_dirs_are_used_and_bad_config_is_reported() {
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        format!(
            "knowledge_dirs = [{:?}]\n",
            fixture("check/clean").display().to_string()
        ),
    )
    .unwrap();
    lore(&home)
        .args(["check", "--no-builtin"])
        .assert()
        .code(0)
        .stdout("checked 2 files: 0 errors, 0 warnings\n");
    std::fs::write(
        home.path().join("config.toml"),
        "theme = \"dark\"\ncolour = 1\n",
    )
    .unwrap();
    lore(&home)
        .args(["check", "--no-builtin"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "config.toml:2: warning: invalid config, using defaults: unknown field `colour`",
        ));
}

#[test]
fn shipped_corpus_is_clean() {
    let home = home();
    let out = lore(&home).arg("check").output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.ends_with(" 0 errors, 0 warnings\n"),
        "the shipped corpus must have no warnings either:\n{stdout}"
    );
}

#[test]
fn hidden_characters_are_warned_about_line_by_line() {
    let (code, out) = check_dir(&fixture("check/hidden-characters"));
    assert_eq!(code, 0, "warnings only: {out}");
    assert_line(
        &out,
        "a.md:7: warning: control character U+0007 in the text (and 1 more on this line): lore shows it as `^G`; remove it unless it is meant to be seen",
    );
    assert_line(
        &out,
        "a.md:10: warning: bidirectional override U+202E in the text (and 3 more on this line): lore shows it as `<U+202E>`; remove it unless it is meant to be seen",
    );
    // Tabs and CRLF line ends are not hidden characters.
    assert!(!out.contains("a.md:6:"), "{out}");
    assert!(out.contains("2 warnings"), "{out}");
}

/// Notes in Persian, Malayalam or Hindi spell words with zero-width
/// joiners (as tldr-pages' translations do): no warning for those, while a
/// joiner hidden inside an English command still gets one.
#[test]
fn joiners_that_spell_a_word_are_not_hidden_characters() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("fa.md"),
        "# \u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}\n\n\u{d28}\u{d3f}\u{d7c}\u{200d}\u{d26}\u{d47}\u{d36}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("en.md"),
        "# Install\n\npip in\u{200c}stall torch\n",
    )
    .unwrap();
    let (code, out) = check_dir(dir.path());
    assert_eq!(code, 0, "{out}");
    assert!(!out.contains("fa.md"), "{out}");
    assert_line(
        &out,
        "en.md:3: warning: invisible format character U+200C in the text: lore shows it as `<U+200C>`; remove it unless it is meant to be seen",
    );
    assert!(
        out.ends_with("checked 2 files: 0 errors, 1 warning\n"),
        "{out}"
    );
}

/// `a-shortcut -> notes` sorts before `notes`, yet `notes/doc.md` keeps its
/// real path (links to it work) and the shortcut is the one reported.
#[cfg(unix)]
#[test]
fn a_folder_symlink_never_steals_the_real_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir(root.join("notes")).unwrap();
    std::fs::write(root.join("notes/doc.md"), "# Doc\n\n## Part\n").unwrap();
    std::fs::write(
        root.join("readme.md"),
        "# Read me\n\nSee [doc](notes/doc.md#part).\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("notes", root.join("a-shortcut")).unwrap();
    let (code, out) = check_dir(root);
    assert_eq!(code, 0, "{out}");
    let warnings: Vec<&str> = out.lines().filter(|l| l.contains(": warning: ")).collect();
    assert_eq!(warnings.len(), 1, "{out}");
    assert!(
        warnings[0].contains("a-shortcut") && warnings[0].contains("duplicate"),
        "{out}"
    );
    assert!(
        out.ends_with("checked 2 files: 0 errors, 1 warning\n"),
        "{out}"
    );
}

/// Causes blocks: one fixture per message, each at the line of the mistake.
#[test]
fn causes_blocks_report_syntax_operators_and_unknown_facts_at_their_line() {
    let (code, out) = check_dir(&fixture("check/causes"));
    assert_eq!(code, 1, "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("bad-toml.md:6: error: causes block:")),
        "{out}"
    );
    assert_line(
        &out,
        "unknown-fact.md:8: error: check `torch.cuda_version > 12`: unknown fact `torch.cuda_version` (did you mean `torch.cuda`?); the facts are listed in the README (lore's probe vocabulary)",
    );
    assert_line(
        &out,
        "unknown-operator.md:8: error: check `torch.cuda = 12.4`: column 12: unknown operator `=` (write `==`); use one of == != < <= > >= contains",
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("unknown-key.md:8: error: causes block:") && l.contains("chek")),
        "{out}"
    );
    assert!(
        out.lines().any(|l| l.starts_with(
            "unknown-env.md:8: error: check `env.MY_SECRET == \"x\"`: lore does not read the variable MY_SECRET"
        )),
        "{out}"
    );
    assert!(!out.contains("good.md"), "{out}");
}

/// Questions blocks (the form in the README's Knowledge section): one
/// fixture line per rule, each reported at the line that breaks it; a
/// well-formed block says nothing.
#[test]
fn questions_blocks_report_each_rule_at_its_line() {
    let (code, out) = check_dir(&fixture("check/questions"));
    assert_eq!(code, 1, "{out}");
    for expected in [
        "malformed.md:5: error: a questions block is several lines: `<!-- questions`, one `- ` line per question, then `-->` on a line of its own",
        "malformed.md:5: error: a questions block holds 2 to 5 questions; this one has 0",
        "malformed.md:10: error: a question is 12 to 160 characters long; this one has 6",
        "malformed.md:11: error: a question ends with `?`",
        "malformed.md:12: error: emphasis in a question: no Markdown but backticks (for identifiers)",
        "malformed.md:14: error: a blank line inside a questions block: one `- ` line per question and nothing else",
        "malformed.md:15: error: each line of a questions block is `- ` followed by a question",
        "malformed.md:16: error: the same question as line 13",
        "malformed.md:21: error: a questions block holds 2 to 5 questions; this one has 1",
        "malformed.md:27: error: this questions block is never closed: end it with a line `-->`",
        "misplaced.md:1: error: a questions block goes directly under the heading of the section it is about; this one is before the first heading",
        "misplaced.md:12: error: a questions block is the first thing under its heading (line 8): move it above the section's text",
        "misplaced.md:24: error: a second questions block in this section (line 19 has one)",
    ] {
        assert_line(&out, expected);
    }
    assert!(!out.contains("good.md"), "{out}");
}

/// A message quoted in a heading with angle brackets (`gemm<at::Half>`)
/// loses them to Markdown's link and HTML rules; escaped or in backticks it
/// keeps them, and the check says nothing.
#[test]
fn a_heading_that_loses_its_angle_brackets_is_warned_about() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.md"),
        "# Messages\n\n## RuntimeError: gemm<at::Half> argument n must be non-negative\n\n\
         text\n\n## Vec<T> is not Send\n\ntext\n\n## RuntimeError: gemm\\<at::Half\\> escaped\n\n\
         text\n\n## `gemm<at::Half>` in code\n\ntext\n\n## a < b and c > d\n\ntext\n",
    )
    .unwrap();
    let (code, out) = check_dir(dir.path());
    assert_eq!(code, 0, "{out}");
    let warning = "warning: the heading's `<…>` is read as a link or an HTML tag and left out of its text: write `\\<` and `\\>`, or put the message in backticks";
    assert_line(&out, &format!("a.md:3: {warning}"));
    assert_line(&out, &format!("a.md:7: {warning}"));
    assert!(
        out.ends_with("checked 1 file: 0 errors, 2 warnings\n"),
        "{out}"
    );
}

/// A notes folder on an unmounted disk, or one deleted since, named in
/// `config.toml`: every verb warns once, naming the config file's line, and
/// the other folders still load (before, every verb exited 2). On the
/// command line the same folder is still a usage error (see
/// `missing_knowledge_folder_exits_two`).
#[test]
fn an_unmounted_folder_in_config_is_a_warning_and_the_rest_loads() {
    let home = home();
    let config = home.path().join("config.toml");
    let gone = home.path().join("unmounted/notes");
    let gone_trees = home.path().join("unmounted/trees");
    std::fs::write(
        &config,
        format!(
            "theme = \"dark\"\nknowledge_dirs = [\n  {:?},\n  {:?},\n]\ntrees_dirs = [{:?}]\n",
            fixture("check/clean").display().to_string(),
            gone.display().to_string(),
            gone_trees.display().to_string(),
        ),
    )
    .unwrap();
    let warning = format!(
        "{}:4: warning: knowledge_dirs: {}: no such directory, skipped",
        config.display(),
        gone.display()
    );
    let trees_warning = format!(
        "{}:6: warning: trees_dirs: {}: no such directory, skipped",
        config.display(),
        gone_trees.display()
    );
    let out = lore(&home)
        .args(["check", "--no-builtin"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert_line(&stdout, &warning);
    assert_line(&stdout, &trees_warning);
    assert!(
        stdout.ends_with("checked 2 files: 0 errors, 2 warnings\n"),
        "the folder that is there still loads: {stdout}"
    );

    let out = lore(&home)
        .args(["search", "--no-builtin", "cupti"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_line(&stderr, &warning);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("cuda/clean.md"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Two overlay folders given as relative paths, as a user types them: each
/// problem names the file as it can be opened from there (`k2/links.md`),
/// the same way the walk's own warnings name their paths, so an editor's
/// quickfix list opens the right file. `--json` keeps `path` (the file's id
/// in its folder) and adds `file`, the path as printed.
#[test]
fn overlay_files_are_named_as_the_user_can_open_them() {
    let cwd = tempfile::tempdir().unwrap();
    let k2 = cwd.path().join("k2");
    let k6 = cwd.path().join("k6/sub");
    std::fs::create_dir_all(&k2).unwrap();
    std::fs::create_dir_all(&k6).unwrap();
    std::fs::write(k2.join("links.md"), "# Links\n\nSee [gone](gone.md).\n").unwrap();
    std::fs::write(k6.join("alias.md"), "# Alias\n\nSee [nope](nope.md).\n").unwrap();
    let home = home();
    let out = lore(&home)
        .current_dir(cwd.path())
        .args([
            "check",
            "--no-builtin",
            "--knowledge",
            "k2",
            "--knowledge",
            "k6",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_line(
        &stdout,
        "k2/links.md:3: error: broken link `gone.md`: no file `gone.md`",
    );
    assert_line(
        &stdout,
        "k6/sub/alias.md:3: error: broken link `nope.md`: no file `sub/nope.md`",
    );

    let out = lore(&home)
        .current_dir(cwd.path())
        .args(["check", "--json", "--no-builtin", "--knowledge", "k2"])
        .args(["--knowledge", "k6"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let first = &json["diagnostics"][0];
    assert_eq!(first["path"], "links.md", "{json}");
    assert_eq!(first["file"], "k2/links.md", "{json}");
    assert_eq!(first["line"], 3, "{json}");
}

/// A broken tree in the second of two `--trees` folders is named with its
/// folder, not as `broken.toml` of no folder in particular.
#[test]
fn overlay_trees_are_named_with_their_folder() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(cwd.path().join("a")).unwrap();
    std::fs::create_dir_all(cwd.path().join("b")).unwrap();
    std::fs::write(
        cwd.path().join("b/broken.toml"),
        "[tree]\nid = \"broken\"\ntitle = \"oops\n",
    )
    .unwrap();
    let home = home();
    let out = lore(&home)
        .current_dir(cwd.path())
        .args(["check", "--trees", "a", "--trees", "b"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("b/broken.toml:3: error: ")),
        "{stdout}"
    );
}

/// `LORE_KNOWLEDGE` set in a shell profile outlives the disk it names (an
/// unmounted share, a laptop away from the NFS): like `knowledge_dirs`, the
/// missing folder is one warning naming the variable, and the folders that
/// are there still load. It used to stop every verb with exit 2.
#[test]
fn a_folder_in_lore_knowledge_that_is_gone_is_a_warning() {
    let home = home();
    let gone = home.path().join("unmounted/notes");
    let list = std::env::join_paths([gone.clone(), fixture("check/clean")]).unwrap();
    let out = lore(&home)
        .env("LORE_KNOWLEDGE", &list)
        .args(["search", "--no-builtin", "cupti"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_line(
        &stderr,
        &format!(
            "LORE_KNOWLEDGE: warning: {}: no such directory, skipped",
            gone.display()
        ),
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("cuda/clean.md"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// docker CLI reference pages (cli-docs-tool) anchor their option headings
/// with an HTML tag, `### <a name="attest"></a> Create attestations
/// (--attest)`, and link to them as `[--attest](#attest)`: on GitHub and
/// docs.docker.com the tag's `name` (or `id`) is an anchor beside the
/// heading's own. So is a tag standing alone on the line before a heading
/// (`<a id="why-run"></a>`, the pytorch-lightning README) or in a section
/// (an old deep link kept alive). None of them is a mistake to warn about.
#[test]
fn html_anchor_tags_in_docker_reference_headings_are_anchors() {
    let (code, out) = check_dir(&fixture("check/html-anchors"));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "run.md:35: error: broken link `#not-there`: `run.md` has no heading with anchor `#not-there`\n\
         checked 2 files: 1 error, 0 warnings\n"
    );
}

/// MkDocs, Hugo and Sphinx-MyST doc sets have an `index.md` landing page in
/// many folders; none of them is lore's `INDEX.md` of the whole root, so
/// files they do not list are not "not listed in the index".
#[test]
fn a_nested_index_md_landing_page_is_not_the_roots_index() {
    let (code, out) = check_dir(&fixture("check/nested-index"));
    assert_eq!(code, 0, "{out}");
    assert_eq!(out, "checked 4 files: 0 errors, 0 warnings\n");
}

/// Hugo and Hugging Face doc-builder pages link without `.md`
/// (`../supported_models`), and READMEs link to folders (`../tools/`, which
/// GitHub shows as its README.md): such a link is checked as the doc site
/// resolves it, a non-Markdown file or folder that exists is left alone,
/// and one that names nothing is broken.
#[test]
fn extensionless_and_folder_links_of_doc_builder_sites_are_checked() {
    let (code, out) = check_dir(&fixture("check/extensionless-links"));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "guides/start.md:4: error: broken link `../gone-folder/`: no folder `gone-folder/` with a README.md, index.md or _index.md, nor a file `gone-folder.md`\n\
         guides/start.md:4: error: broken link `../gone`: no file `gone.md`, nor a folder `gone/` with a README.md, index.md or _index.md\n\
         checked 4 files: 2 errors, 0 warnings\n"
    );
}

/// A GitHub repository's README links into `.github/` and `.devcontainer/`;
/// lore reads no hidden folder, so it cannot say whether the file is there,
/// and says that instead of "no file".
#[test]
fn links_into_hidden_github_folders_say_lore_does_not_read_them() {
    let (code, out) = check_dir(&fixture("check/hidden-folder"));
    assert_eq!(code, 1, "{out}");
    assert_eq!(
        out,
        "README.md:3: warning: link `.github/CONTRIBUTING.md` is in the hidden folder `.github/`, which lore does not read\n\
         README.md:3: warning: link `/.devcontainer/README.md` is in the hidden folder `.devcontainer/`, which lore does not read\n\
         README.md:3: error: broken link `docs/gone.md`: no file `docs/gone.md`\n\
         checked 1 file: 1 error, 2 warnings\n"
    );
}

/// Two public doc sets overlaid (`--knowledge a --knowledge b`) that both
/// have a `README.md` and a `docs/install.md`: the later folder's pages win,
/// as documented, and `lore check` says which of the earlier's it hid, in
/// one warning naming both folders. A warning: the exit code stays 0.
#[test]
fn two_doc_sets_with_same_named_pages_are_warned_of_once_per_pair() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    for dir in [first.path(), second.path()] {
        std::fs::create_dir_all(dir.join("docs")).unwrap();
        std::fs::write(dir.join("README.md"), "# Readme\n\nText.\n").unwrap();
        std::fs::write(dir.join("docs/install.md"), "# Install\n\nSteps.\n").unwrap();
    }
    std::fs::write(first.path().join("only-first.md"), "# First\n").unwrap();
    let (a, b) = (
        first.path().display().to_string(),
        second.path().display().to_string(),
    );
    let home = home();
    let out = lore(&home)
        .args([
            "check",
            "--no-builtin",
            "--knowledge",
            &a,
            "--knowledge",
            &b,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let warnings: Vec<&str> = text.lines().filter(|l| l.contains("hidden by")).collect();
    assert_eq!(
        warnings,
        [format!(
            "{b}: warning: 2 documents of {a} are hidden by same-named documents of {b} (later wins): README.md, docs/install.md"
        )],
        "{text}"
    );
    // `lore list` says so in one line on stderr.
    let out = lore(&home)
        .args(["list", "--no-builtin", "--knowledge", &a, "--knowledge", &b])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("2 documents") && err.contains("lore check"),
        "{err}"
    );
}

/// Distinct names hide nothing: no such warning, and `lore list` is quiet.
#[test]
fn overlays_with_distinct_names_give_no_hidden_warning() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    std::fs::write(first.path().join("a.md"), "# A\n").unwrap();
    std::fs::write(second.path().join("b.md"), "# B\n").unwrap();
    let (a, b) = (
        first.path().display().to_string(),
        second.path().display().to_string(),
    );
    let home = home();
    for verb in ["check", "list"] {
        let out = lore(&home)
            .args([verb, "--no-builtin", "--knowledge", &a, "--knowledge", &b])
            .output()
            .unwrap();
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!all.contains("hidden"), "{verb}: {all}");
        assert_eq!(out.status.code(), Some(0), "{verb}: {all}");
    }
    // A user folder replacing a built-in page is what overlays are for.
    let out = lore(&home)
        .args(["check", "--knowledge", &a, "--knowledge", &a])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("hidden by"));
}
