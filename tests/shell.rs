//! lore in a shell: completions, the man page, `lore list`, JSON from
//! `check` and `index`, `lore show` by a fragment of a path, paging, and
//! output that is safe to copy.

mod common;

use common::{home, lore};

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn every_shell_gets_a_completion_script_that_calls_back_into_lore() {
    let home = home();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = lore(&home).args(["completions", shell]).output().unwrap();
        assert!(out.status.success(), "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains("COMPLETE"), "{shell}: {script}");
        assert!(script.contains("lore"), "{shell}: {script}");
    }
    let out = lore(&home).args(["completions", "tcsh"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// What the shell gets back on Tab (fish's protocol: one `value\thelp` a line).
fn complete(words: &[&str]) -> Vec<String> {
    let home = home();
    let out = lore(&home)
        .env("COMPLETE", "fish")
        .arg("--")
        .args(words)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| l.split('\t').next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn tab_completes_paths_anchors_trees_and_answers() {
    assert_eq!(
        complete(&["lore", "show", "cuda/20-"]),
        ["cuda/20-cupti-deep-dive-arr-coc.md"]
    );
    let anchors = complete(&["lore", "show", "cuda/20-cupti-deep-dive-arr-coc.md#what-is"]);
    assert!(
        anchors.contains(&"cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti".to_string()),
        "{anchors:?}"
    );
    let anchors = complete(&["lore", "open", "cuda/20-cupti-deep-dive-arr-coc.md#what-is"]);
    assert!(
        anchors.contains(&"cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti".to_string()),
        "{anchors:?}"
    );
    assert_eq!(complete(&["lore", "decide", "need-"]), ["need-cupti"]);
    let answers = complete(&["lore", "decide", "need-cupti", "--answer", "torch-install="]);
    assert!(
        answers.contains(&"torch-install=pip".to_string()),
        "{answers:?}"
    );
    let verbs = complete(&["lore", "comp"]);
    assert!(verbs.contains(&"completions".to_string()), "{verbs:?}");
}

/// The forms users type: `lore show 20-cu<Tab>` (a fragment `lore show`
/// accepts) completes, and `lore decide TREE --answer <Tab>` offers that
/// tree's questions only, through the real binary and the shell protocol.
#[test]
fn tab_completes_path_fragments_and_the_named_trees_answers() {
    assert_eq!(
        complete(&["lore", "show", "20-cu"]),
        ["20-cupti-deep-dive-arr-coc.md"]
    );
    assert_eq!(
        complete(&["lore", "open", "knowledge/cuda/20-cu"]),
        ["knowledge/cuda/20-cupti-deep-dive-arr-coc.md"]
    );
    let answers = complete(&["lore", "decide", "need-cupti", "--answer", ""]);
    assert!(
        answers.contains(&"torch-install=pip".to_string()),
        "{answers:?}"
    );
    // devel-as-runtime's first question is not need-cupti's.
    assert!(
        !answers.iter().any(|a| a.starts_with("purpose=")),
        "{answers:?}"
    );
    let rest = complete(&[
        "lore",
        "decide",
        "need-cupti",
        "--answer",
        "torch-install=pip",
        "--answer",
        "",
    ]);
    assert!(
        !rest.iter().any(|a| a.starts_with("torch-install=")),
        "{rest:?}"
    );
}

#[test]
fn the_man_page_is_roff_and_names_every_verb() {
    let home = home();
    let out = lore(&home).arg("man").output().unwrap();
    assert!(out.status.success());
    let page = stdout(&out);
    assert!(page.contains(".TH lore 1"), "{page}");
    for verb in [
        "search",
        "show",
        "decide",
        "check",
        "index",
        "list",
        "completions",
    ] {
        assert!(page.contains(verb), "the man page lacks {verb}");
    }
}

/// clap_mangen's default page sent readers to `lore-search(1)`, `lore-show(1)`
/// … that no one installs (`man lore-search`: "No manual entry"). The one
/// page `lore man` prints holds every verb, with its own flags.
#[test]
fn the_man_page_names_no_sub_pages_and_documents_each_verb_itself() {
    let home = home();
    let out = lore(&home).arg("man").output().unwrap();
    assert!(out.status.success());
    let page = stdout(&out);
    assert!(
        !page.contains("(1)"),
        "a reference to another page:\n{page}"
    );
    for (verb, flag) in [
        ("search", "limit"),
        ("show", "paging"),
        ("open", "PATH"),
        ("decide", "answer"),
        ("check", "json"),
        ("index", "rebuild"),
        ("list", "kind"),
        ("completions", "SHELL"),
        ("man", ""),
        ("probe", "json"),
    ] {
        let head = format!(".SS \"lore {verb}\"");
        let at = page
            .find(&head)
            .unwrap_or_else(|| panic!("no subsection {head}:\n{page}"));
        let section = &page[at + head.len()..];
        let section = &section[..section.find(".SS ").unwrap_or(section.len())];
        assert!(
            section.contains(flag),
            "lore {verb} lacks {flag}:\n{section}"
        );
        // Global flags are described once, not under every verb.
        assert!(!section.contains("no\\-builtin"), "lore {verb}:\n{section}");
    }
}

#[test]
fn list_prints_paths_kinds_and_titles_and_json() {
    let home = home();
    let out = lore(&home).arg("list").output().unwrap();
    assert!(out.status.success());
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("cuda/20-cupti-deep-dive-arr-coc.md "))
        .expect("the CUPTI file is listed");
    assert!(
        line.contains("knowledge") && line.contains("CUPTI Deep Dive"),
        "{line}"
    );

    let out = lore(&home)
        .args(["list", "--json", "--kind", "drop"])
        .output()
        .unwrap();
    let docs: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!docs.is_empty());
    assert!(
        docs.iter()
            .all(|d| d["kind"] == "drop" && d["builtin"] == true)
    );
    assert!(
        docs.iter()
            .all(|d| d["path"].as_str().unwrap().starts_with("drops/"))
    );

    // Every listed path is a valid argument to `lore show`.
    let first = docs[0]["path"].as_str().unwrap();
    let out = lore(&home)
        .args(["show", first, "--plain"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));

    let empty = tempfile::tempdir().unwrap();
    let out = lore(&home)
        .args(["list", "--no-builtin", "--knowledge"])
        .arg(empty.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn check_and_index_speak_json() {
    let home = home();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\n[gone](b.md)\n").unwrap();
    let out = lore(&home)
        .args(["check", "--json", "--no-builtin", "--knowledge"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["errors"], 1);
    let diagnostics = report["diagnostics"].as_array().unwrap();
    let first = diagnostics
        .iter()
        .find(|d| d["severity"] == "error")
        .expect("the broken link");
    assert_eq!(first["path"], "a.md");
    assert_eq!(first["line"], 3);
    assert_eq!(first["severity"], "error");
    assert!(first["message"].as_str().unwrap().contains("b.md"));

    let out = lore(&home)
        .args(["index", "--json", "--rebuild"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let index: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(index["documents"].as_u64().unwrap() > 10);
    assert!(index["sections"].as_u64().unwrap() > index["documents"].as_u64().unwrap());
    assert_eq!(index["rebuilt"], true);
    assert!(index["build_seconds"].as_f64().is_some());
    let out = lore(&home).args(["index", "--json"]).output().unwrap();
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(again["rebuilt"], false);
    assert!(again["build_seconds"].is_null());
}

#[test]
fn show_takes_a_unique_fragment_and_lists_the_candidates_of_a_shared_one() {
    let home = home();
    let out = lore(&home)
        .args(["show", "20-cupti#what-is-cupti", "--plain"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("What is CUPTI?"),
        "{}",
        stdout(&out)
    );

    let out = lore(&home)
        .args(["show", "cupti-deep-dive"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("matches several documents"), "{err}");
    assert!(
        err.contains("\n  cuda/20-cupti-deep-dive-arr-coc.md\n"),
        "{err}"
    );
    assert!(
        err.contains("drops/KNOWLEDGE-DROP-cupti-deep-dive"),
        "{err}"
    );
}

#[test]
fn piped_output_is_not_wrapped_and_plain_code_has_no_continuation_marks() {
    let dir = tempfile::tempdir().unwrap();
    let long_prose = "word ".repeat(60);
    let long_command = format!("docker run --rm {} nvidia-smi", "--flag=value ".repeat(20));
    std::fs::write(
        dir.path().join("a.md"),
        format!("# A\n\n{long_prose}\n\n```bash\n{long_command}\n```\n"),
    )
    .unwrap();
    let home = home();
    let show = |extra: &[&str]| {
        let out = lore(&home)
            .args(["show", "a.md", "--no-builtin", "--knowledge"])
            .arg(dir.path())
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        stdout(&out)
    };
    // Piped with no --width: one line per paragraph, the command whole.
    let piped = show(&["--plain"]);
    assert!(piped.contains(long_prose.trim()), "{piped}");
    assert!(piped.contains(&long_command), "{piped}");
    // --width wraps prose, but plain code still copies as the command.
    let narrow = show(&["--plain", "--width", "40"]);
    assert!(
        narrow
            .lines()
            .all(|l| !l.contains("word word") || l.chars().count() <= 40)
    );
    assert!(!narrow.contains('↪'), "{narrow}");
    assert!(narrow.contains(&long_command), "{narrow}");
    // Without --plain the marks show where a long line was broken.
    let coloured = show(&["--width", "40", "--color", "never"]);
    assert!(coloured.contains('↪'), "{coloured}");
}

#[test]
fn paging_always_pipes_through_the_pager_and_never_does_not() {
    let home = home();
    let paged = lore(&home)
        .env("PAGER", "sed s/^/PAGED:/")
        .env_remove("LORE_PAGER")
        .args([
            "show",
            "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti",
            "--plain",
        ])
        .args(["--paging", "always"])
        .output()
        .unwrap();
    assert!(paged.status.success(), "{}", stderr(&paged));
    assert!(
        stdout(&paged).starts_with("PAGED:What is CUPTI?"),
        "{}",
        stdout(&paged)
    );

    // LORE_PAGER wins over PAGER.
    let ours = lore(&home)
        .env("PAGER", "sed s/^/PAGED:/")
        .env("LORE_PAGER", "sed s/^/LORE:/")
        .args([
            "show",
            "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti",
            "--plain",
        ])
        .args(["--paging", "always"])
        .output()
        .unwrap();
    assert!(
        stdout(&ours).starts_with("LORE:What is CUPTI?"),
        "{}",
        stdout(&ours)
    );

    for args in [&["--paging", "never"][..], &[][..]] {
        let direct = lore(&home)
            .env("PAGER", "sed s/^/PAGED:/")
            .args([
                "show",
                "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti",
                "--plain",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(
            stdout(&direct).starts_with("What is CUPTI?"),
            "{}",
            stdout(&direct)
        );
    }

    // A pager that cannot start: the text still arrives.
    let missing = lore(&home)
        .env("PAGER", "/nonexistent/pager")
        .args([
            "show",
            "cuda/20-cupti-deep-dive-arr-coc.md#what-is-cupti",
            "--plain",
        ])
        .args(["--paging", "always"])
        .output()
        .unwrap();
    assert!(missing.status.success());
    assert!(stdout(&missing).starts_with("What is CUPTI?"));
}

/// A config mistake is said by every verb, on stderr, and the verb still
/// runs with the defaults.
#[test]
fn config_mistakes_are_warned_about_by_every_verb() {
    let home = home();
    std::fs::write(
        home.path().join("config.toml"),
        "theme = \"dark\"\ncolour = \"never\"\n",
    )
    .unwrap();
    for args in [
        &["search", "cupti"][..],
        &["list"],
        &["show", "cuda/20-cupti-deep-dive-arr-coc.md", "--plain"],
        &["decide", "need-cupti", "--json"],
    ] {
        let out = lore(&home).args(args).output().unwrap();
        let err = stderr(&out);
        assert!(
            err.contains(
                "config.toml:2: warning: invalid config, using defaults: unknown field `colour`"
            ),
            "{args:?}: {err}"
        );
        assert_eq!(err.matches("warning").count(), 1, "{args:?}: {err}");
        assert!(!stdout(&out).contains("colour"), "{args:?}");
    }
    // `lore check` lists it with its other findings, on stdout, once.
    let out = lore(&home).arg("check").output().unwrap();
    assert!(
        stdout(&out).contains("unknown field `colour`"),
        "{}",
        stdout(&out)
    );
    assert!(!stderr(&out).contains("colour"), "{}", stderr(&out));
}

/// A config file where lore does not look is named, with where it should go.
#[test]
fn a_config_file_in_a_likely_wrong_place_is_named() {
    let home = home();
    std::fs::create_dir(home.path().join("config")).unwrap();
    std::fs::write(
        home.path().join("config/config.toml"),
        "theme = \"light\"\n",
    )
    .unwrap();
    let out = lore(&home).args(["list"]).output().unwrap();
    assert!(out.status.success());
    let err = stderr(&out);
    let wrong = home.path().join("config").join("config.toml");
    let right = home.path().join("config.toml");
    assert!(
        err.contains(&format!(
            "{}: warning: lore does not read this file; its settings go in {} (TOML)",
            wrong.display(),
            right.display()
        )),
        "{err}"
    );
    // Once the file is where lore reads it, nothing is said.
    std::fs::rename(&wrong, &right).unwrap();
    let out = lore(&home).args(["list"]).output().unwrap();
    assert_eq!(stderr(&out), "");
}

/// A target that names no document is a usage error with the closest
/// paths, before any terminal is needed; a mistyped verb is not taken for a
/// document.
#[test]
fn lore_open_refuses_what_names_no_document_and_mistyped_verbs() {
    let home = home();
    let out = lore(&home)
        .args(["open", "cuda/20-cupti-deep-dive.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("no document"), "{err}");
    assert!(err.contains("cuda/20-cupti-deep-dive-arr-coc.md"), "{err}");
    let out = lore(&home)
        .args(["open", "cuda/20-cupti-deep-dive-arr-coc.md#nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no heading with anchor `#nope`"),
        "{}",
        stderr(&out)
    );
    // A good target without a terminal: the terminal UI's own refusal.
    let out = lore(&home)
        .args(["cuda/20-cupti-deep-dive-arr-coc.md"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("needs a terminal"),
        "{}",
        stderr(&out)
    );
    let out = lore(&home).args(["serach", "cupti"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`serach` is not a verb"),
        "{}",
        stderr(&out)
    );
}

/// `LORE_THEME` picks the theme when no `--theme` does; a value that is no
/// theme is a warning, not an error.
#[test]
fn lore_theme_picks_the_theme_and_a_bad_one_is_a_warning() {
    let home = home();
    let show = |env: Option<&str>, flag: Option<&str>| {
        let mut cmd = lore(&home);
        cmd.args([
            "show",
            "20-cupti#what-is-cupti",
            "--color",
            "always",
            "--paging",
            "never",
        ]);
        if let Some(theme) = flag {
            cmd.args(["--theme", theme]);
        }
        match env {
            Some(value) => cmd.env("LORE_THEME", value),
            None => cmd.env_remove("LORE_THEME"),
        };
        cmd.output().unwrap()
    };
    let light = stdout(&show(Some("light"), None));
    assert_eq!(light, stdout(&show(None, Some("light"))));
    assert_ne!(light, stdout(&show(Some("dark"), None)));
    assert_eq!(stdout(&show(Some("dark"), None)), stdout(&show(None, None)));
    // The flag wins over the environment.
    assert_eq!(light, stdout(&show(Some("dark"), Some("light"))));
    let out = show(Some("solarized"), None);
    assert!(out.status.success());
    assert!(
        stderr(&out)
            .contains("LORE_THEME: warning: unknown theme `solarized` (dark or light); ignored"),
        "{}",
        stderr(&out)
    );
}
