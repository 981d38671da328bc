//! `lore show`: the rendered document on stdout, colour only when asked,
//! sections by anchor, helpful errors, and hostile files printed harmlessly.

mod common;

use common::{fixture, home, lore};

const CUPTI: &str = "cuda/20-cupti-deep-dive-arr-coc.md";

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn plain_output_has_no_escape_sequences() {
    let home = home();
    let out = lore(&home)
        .args([
            "show", CUPTI, "--plain", "--color", "always", "--width", "100",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains('\x1b'));
    assert!(text.starts_with("CUPTI Deep Dive"), "{}", &text[..200]);
    // Without --plain, everything wraps at the width asked for (--plain
    // leaves code lines whole, so they copy as the command).
    let wrapped = lore(&home)
        .args(["show", CUPTI, "--color", "never", "--width", "100"])
        .output()
        .unwrap();
    let wrapped = stdout(&wrapped);
    assert!(wrapped.lines().all(|l| l.chars().count() <= 100));
    assert!(text.lines().any(|l| l.chars().count() > 100));
    assert!(text.lines().any(|l| l.chars().count() > 90));
}

#[test]
fn without_a_terminal_auto_colour_is_off() {
    let home = home();
    let out = lore(&home).args(["show", CUPTI]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(!stdout(&out).contains('\x1b'));
}

#[test]
fn colour_always_highlights_code_and_fits_tables() {
    let home = home();
    let out = lore(&home)
        .args([
            "show",
            "cuda/21-docker-build-strategy-patterns.md",
            "--color",
            "always",
            "--width",
            "90",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    // Syntax colours are 256-colour (or RGB) SGR sequences.
    assert!(text.contains("\x1b[0;38;5;"), "no highlighted code");
    let stripped = strip_sgr(&text);
    assert!(stripped.contains("┌─ dockerfile "), "no Dockerfile block");
    assert!(stripped.contains("┌─ bash "), "no bash block");
    assert!(
        stripped.contains(" │ ") && stripped.contains("─┼─"),
        "no fitted table"
    );
    assert!(stripped.lines().all(|l| l.chars().count() <= 90));
    // The Dockerfile's `FROM` keyword is coloured.
    let from = text.find("FROM").unwrap();
    assert!(text[..from].ends_with('m'), "FROM is not styled");
}

#[test]
fn truecolor_terminals_get_rgb_code_colours() {
    let home = home();
    let out = lore(&home)
        .args(["show", CUPTI, "--color", "always"])
        .env("COLORTERM", "truecolor")
        .output()
        .unwrap();
    assert!(stdout(&out).contains("\x1b[0;38;2;"));
}

#[test]
fn width_flag_wraps_and_is_checked() {
    let home = home();
    let out = lore(&home)
        .args(["show", CUPTI, "--width", "40"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert!(text.lines().all(|l| l.chars().count() <= 40));
    let out = lore(&home)
        .args(["show", CUPTI, "--width", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--width"));
}

#[test]
fn an_anchor_shows_only_that_section() {
    let home = home();
    let out = lore(&home)
        .args(["show", &format!("{CUPTI}#what-is-cupti"), "--plain"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "What is CUPTI?");
    // Subsections come along; the next section at its level does not.
    assert!(lines.contains(&"▸ The API families"));
    assert!(!lines.contains(&"Who loads CUPTI"));
    assert!(!text.contains("Quick answers"));
    assert!(!text.ends_with("\n\n"));
}

/// The Quick start's promise: a hit's `path:line`, copied from `lore
/// search`'s output, prints that hit's section. It was "no document".
#[test]
fn a_search_hits_path_and_line_shows_its_section() {
    let home = home();
    let hit = lore(&home)
        .args(["search", "--limit", "1", "what is CUPTI"])
        .output()
        .unwrap();
    let first = stdout(&hit);
    let place = first.split_whitespace().next().unwrap().to_string();
    assert!(place.starts_with(CUPTI), "{first}");
    let by_line = lore(&home)
        .args(["show", &place, "--plain"])
        .output()
        .unwrap();
    assert_eq!(by_line.status.code(), Some(0), "{}", stderr(&by_line));
    let by_anchor = lore(&home)
        .args(["show", &format!("{CUPTI}#what-is-cupti"), "--plain"])
        .output()
        .unwrap();
    assert_eq!(stdout(&by_line), stdout(&by_anchor));
    // A line inside the section's text, not only its heading, and the
    // short form of the path.
    let (_, line) = place.rsplit_once(':').unwrap();
    let inside = format!("20-cupti:{}", line.parse::<usize>().unwrap() + 3);
    let out = lore(&home)
        .args(["show", &inside, "--plain"])
        .output()
        .unwrap();
    assert_eq!(stdout(&out), stdout(&by_anchor));
    // Still an error when the path names no document.
    let out = lore(&home)
        .args(["show", "no-such-doc.md:12"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no document"), "{}", stderr(&out));
}

/// A file whose lines end in a carriage return alone (a classic Mac
/// editor, a terminal paste saved to disk) was one long line: its title the
/// whole file, no sections. CommonMark ends a line at a lone CR, and so does
/// lore now; CRLF files were already read by line.
#[test]
fn a_file_with_carriage_returns_alone_for_line_ends_has_its_sections() {
    let home = home();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("cr.md"),
        "# CR only\r\rbody about the platypus\r\r## Sub\r\rmore text\r",
    )
    .unwrap();
    let knowledge = dir.path().to_str().unwrap();
    let list = lore(&home)
        .args(["list", "--no-builtin", "--knowledge", knowledge])
        .output()
        .unwrap();
    assert!(stdout(&list).contains("CR only"), "{}", stdout(&list));
    assert!(!stdout(&list).contains("platypus"), "{}", stdout(&list));
    let out = lore(&home)
        .args([
            "show",
            "--no-builtin",
            "--knowledge",
            knowledge,
            "cr#sub",
            "--plain",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim_end(), "Sub\n───\n\nmore text");
}

#[test]
fn paths_may_omit_the_extension_or_the_folder() {
    let home = home();
    for query in [
        "cuda/20-cupti-deep-dive-arr-coc",
        "20-cupti-deep-dive-arr-coc.md",
        "knowledge/cuda/20-cupti-deep-dive-arr-coc.md",
    ] {
        let out = lore(&home).args(["show", query]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{query}: {}", stderr(&out));
        assert!(stdout(&out).starts_with("CUPTI Deep Dive"));
    }
}

#[test]
fn an_unknown_path_lists_the_closest_paths() {
    let home = home();
    let out = lore(&home)
        .args(["show", "cuptii-deep-dive"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.starts_with("lore: error: no document `cuptii-deep-dive` in the knowledge\nclosest paths:\n  cuda/20-cupti-deep-dive-arr-coc.md\n"),
        "{err}"
    );
}

/// An anchor typed from the heading (`#What-Is-CUPTI`, or the heading's
/// words in quotes) is the section it slugs to, as GitHub's anchors are
/// lower case: it used to be "no heading with anchor".
#[test]
fn an_anchor_in_other_case_or_as_words_names_its_heading() {
    let home = home();
    let by_anchor = lore(&home)
        .args(["show", &format!("{CUPTI}#what-is-cupti"), "--plain"])
        .output()
        .unwrap();
    for typed in ["#What-Is-CUPTI", "#WHAT-IS-CUPTI", "#What is CUPTI?"] {
        let out = lore(&home)
            .args(["show", &format!("{CUPTI}{typed}"), "--plain"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{typed}: {}", stderr(&out));
        assert_eq!(stdout(&out), stdout(&by_anchor), "{typed}");
    }
}

#[test]
fn an_unknown_anchor_lists_the_documents_anchors() {
    let home = home();
    let out = lore(&home)
        .args(["show", &format!("{CUPTI}#what-is-it")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.starts_with(&format!(
        "lore: error: `{CUPTI}` has no heading with anchor `#what-is-it`\nanchors in {CUPTI}:\n"
    )));
    assert!(err.contains("\n    #what-is-cupti\n"), "{err}");
    assert!(err.contains("\n      #the-api-families\n"), "{err}");
}

/// `lore show PATH#fn:LABEL`, the footnote anchor the README documents,
/// was refused as "no heading with anchor"; it prints the note.
#[test]
fn a_footnote_anchor_shows_the_note() {
    let home = home();
    let knowledge = tempfile::tempdir().unwrap();
    std::fs::write(
        knowledge.path().join("notes.md"),
        "# Notes\n\nA claim.[^src] Another.[^n2]\n\n## Later\n\nText.\n\n\
         [^src]: The source of the claim,\n    over two lines.\n\n[^n2]: The second note.\n",
    )
    .unwrap();
    let show = |target: &str| {
        lore(&home)
            .args(["show", "--no-builtin", "--knowledge"])
            .arg(knowledge.path())
            .args([target, "--plain", "--width", "80"])
            .output()
            .unwrap()
    };
    let out = show("notes.md#fn:src");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "[src] The source of the claim, over two lines.\n"
    );
    let out = show("notes.md#fn:n2");
    assert_eq!(stdout(&out), "[n2] The second note.\n");
    // An unknown one lists the notes with the headings.
    let out = show("notes.md#fn:nope");
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("\n  #fn:src\n  #fn:n2"), "{err}");
}

#[test]
fn front_matter_is_not_printed() {
    let home = home();
    let out = lore(&home)
        .args(["show", "--no-builtin", "--knowledge"])
        .arg(fixture("render"))
        .args(["showcase.md", "--plain", "--width", "80"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("Showcase: every construct lore renders\n"));
    assert!(!text.contains("never shown"));
}

/// A file stuffed with every kind of terminal control sequence.
const HOSTILE: &str = "# Evil \x1b[2J\x1b[H title\n\n\
    CSI \x1b[31mred\x1b[0m; OSC 52 \x1b]52;c;cm0gLXJmIH4=\x07; \
    OSC 8 \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\; \
    C1 CSI \u{9b}2J; C1 OSC \u{9d}52;c;eA==\u{9c}; BEL \x07; NUL \x00; DEL \x7f.\n\n\
    ```bash\nprintf '\x1b]52;c;eA==\x07'\n```\n\n\
    | col \x1b[5m | b |\n|---|---|\n| \u{90}dcs | \x1bP+q\x1b\\ |\n\n\
    [a \x1b[8mlink](https://x.org/\x1b]8;;) and <span>\x1b[?1049h</span>\n";

fn hostile_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("evil.md"), HOSTILE).unwrap();
    dir
}

#[test]
fn escape_sequences_in_a_file_print_harmlessly() {
    let home = home();
    let dir = hostile_dir();
    for colour in ["always", "never"] {
        let out = lore(&home)
            .args(["show", "--no-builtin", "--knowledge"])
            .arg(dir.path())
            .args(["evil.md", "--color", colour])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let text = stdout(&out);
        assert_eq!(
            strip_sgr(&text).chars().find(|&c| is_control(c)),
            None,
            "--color {colour}: {text:?}"
        );
        if colour == "never" {
            assert!(!text.contains('\x1b'));
        }
        // The sequences are shown, visibly, so the reader knows they are there.
        let shown = strip_sgr(&text);
        assert!(shown.contains("^[]52;c;cm0gLXJmIH4=^G"), "{shown}");
        assert!(
            shown.contains("^[]8;;https://evil.example^[\\click"),
            "{shown}"
        );
        assert!(shown.contains("<U+009B>2J"), "{shown}");
        assert!(shown.contains("NUL ^@"), "{shown}");
    }
}

#[test]
fn escape_sequences_in_a_path_or_anchor_are_not_echoed() {
    let home = home();
    let dir = hostile_dir();
    let out = lore(&home)
        .args(["show", "--no-builtin", "--knowledge"])
        .arg(dir.path())
        .arg("evil.md#\x1b]52;c;eA==\x07")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(!err.chars().any(is_control), "{err:?}");
    assert!(err.contains("#^[]52;c;eA==^G"));
}

fn is_control(c: char) -> bool {
    (c.is_control() && c != '\n') || ('\u{80}'..='\u{9f}').contains(&c)
}

/// Removes `ESC [ digits;… m` sequences; anything else is left in place.
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            let mut seq = String::from("\x1b[");
            chars.next();
            while let Some(&n) = chars.peek() {
                if n.is_ascii_digit() || n == ';' {
                    seq.push(n);
                    chars.next();
                } else {
                    break;
                }
            }
            if chars.peek() == Some(&'m') {
                chars.next();
                continue;
            }
            out.push_str(&seq);
            continue;
        }
        out.push(c);
    }
    out
}

/// A section's questions block is an HTML comment for search: `lore show`
/// never prints it (it once printed `<!-- questions` and every question
/// under each heading), while other HTML (not comments) is still shown as
/// written.
#[test]
fn questions_blocks_are_never_shown() {
    let home = home();
    let out = lore(&home)
        .args(["show", CUPTI, "--plain", "--width", "100"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("<!--"), "{text}");
    assert!(!text.contains("-->"), "{text}");
    assert!(
        !text.contains("What is libcupti and what is it used for?"),
        "{text}"
    );
    assert!(text.contains("CUPTI Deep Dive"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("notes.md"),
        "# Notes\n\n## Part\n\n<!-- questions\n- Which word is only in this question?\n- Is the second question hidden as well?\n-->\n\nBody text.\n\n<div>kept html</div>\n\n<!-- a plain comment -->\n",
    )
    .unwrap();
    let out = lore(&home)
        .args(["--no-builtin", "--knowledge"])
        .arg(dir.path())
        .args(["show", "notes.md", "--plain"])
        .output()
        .unwrap();
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!text.contains("question"), "{text}");
    assert!(text.contains("Body text."), "{text}");
    assert!(text.contains("<div>kept html</div>"), "{text}");
    // Any other comment is hidden too, as every Markdown viewer hides it.
    assert!(!text.contains("a plain comment"), "{text}");
}

/// A docs.docker.com page overlaid as it is: Hugo front matter naming the
/// page, a generator comment, tabs as shortcodes on lines of their own.
/// `list` names it by its title, and `show` prints what the site shows.
#[test]
fn a_hugo_page_is_listed_by_its_title_and_shown_without_its_markup() {
    let home = home();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("manuals/engine")).unwrap();
    std::fs::write(
        dir.path().join("manuals/engine/gpu.md"),
        "---\ntitle: GPU access\nweight: 40\n---\n\n<!-- vale off -->\n\n## Access an NVIDIA GPU\n\n{{< tabs >}}\n{{< tab name=\"Linux\" >}}\n\n```console\n$ docker run --gpus all ubuntu nvidia-smi\n```\n\n{{< /tab >}}\n{{< /tabs >}}\n",
    )
    .unwrap();
    let knowledge = dir.path().to_str().unwrap();
    let list = lore(&home)
        .args(["list", "--no-builtin", "--knowledge", knowledge])
        .output()
        .unwrap();
    assert_eq!(
        stdout(&list),
        "manuals/engine/gpu.md  knowledge  GPU access\n"
    );
    let out = lore(&home)
        .args([
            "show",
            "--no-builtin",
            "--knowledge",
            knowledge,
            "manuals/engine/gpu.md",
            "--plain",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out).trim_end(),
        "Access an NVIDIA GPU\n────────────────────\n\nLinux:\n\n┌─ console ──────────────────────────────\n$ docker run --gpus all ubuntu nvidia-smi\n└────────────────────────────────────────"
    );
}

/// docker's CLI reference heads each option's section with an HTML anchor
/// tag, `### <a name="attest"></a> Create attestations (--attest)`: `lore
/// show PAGE#attest` prints that section, its heading without the tag
/// (it printed the tag raw, and `#attest` was "no heading").
#[test]
fn a_docker_reference_html_anchor_names_its_section_and_the_tag_is_hidden() {
    let home = home();
    let out = lore(&home)
        .args(["--no-builtin", "--knowledge"])
        .arg(fixture("check/html-anchors"))
        .args(["show", "run.md#attest", "--plain"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "▸ Create attestations (--attest)\n\nBody.\n");
    // A tag on the line above a heading names that heading.
    let out = lore(&home)
        .args(["--no-builtin", "--knowledge"])
        .arg(fixture("check/html-anchors"))
        .args(["show", "run.md#why-run", "--plain"])
        .output()
        .unwrap();
    assert!(stdout(&out).starts_with("Why run\n"), "{}", stdout(&out));
    // An unknown anchor lists the tags' anchors beside their headings'.
    let out = lore(&home)
        .args(["--no-builtin", "--knowledge"])
        .arg(fixture("check/html-anchors"))
        .args(["show", "run.md#nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("\n      #create-attestations---attest (also #attest)\n"),
        "{}",
        stderr(&out)
    );
}
