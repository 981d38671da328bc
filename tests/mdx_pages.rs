//! MDX pages (`.mdx`), as Docusaurus, Nextra and Mintlify doc sets keep
//! them: read as Markdown, with their imports, `{/* */}` comments and
//! component tag lines (`<Tabs>`, `<TabItem label="pip">`) hidden, and links
//! to them followed. The fixture is a small Docusaurus-style page written
//! for these tests.

mod common;

use common::{fixture, home, lore};

fn run(args: &[&str]) -> (i32, String, String) {
    let home = home();
    let dir = fixture("mdx").display().to_string();
    let out = lore(&home)
        .args(["--no-builtin", "--knowledge", &dir])
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Docusaurus page's paragraph between `<TabItem>` tags is found.
#[test]
fn search_finds_a_word_of_a_paragraph_inside_a_docusaurus_tab() {
    let (code, out, err) = run(&["search", "quokkaword", "--json"]);
    assert_eq!(code, 0, "{out}{err}");
    let hits: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(hits[0]["path"], "docs/setup.mdx", "{out}");
}

/// The words of a `{/* … */}` comment are for editors, as an HTML
/// comment's are: not found.
#[test]
fn search_does_not_find_the_words_of_an_mdx_comment() {
    let (code, out, _) = run(&["search", "zeppelinword", "--json"]);
    assert_eq!(code, 1, "{out}");
    // An export line is not prose either: no snippet shows it.
    let (_, out, _) = run(&["search", "minimumDriver", "--json"]);
    assert!(!out.contains("550.54"), "{out}");
}

#[test]
fn show_prints_no_import_line_and_no_raw_component_tag() {
    let (code, out, err) = run(&["show", "docs/setup.mdx", "--plain", "--width", "100"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Set up the toolkit"), "{out}");
    assert!(!out.contains("import "), "{out}");
    assert!(!out.contains("export "), "{out}");
    assert!(!out.contains("zeppelinword"), "{out}");
    assert!(!out.contains("<Tabs"), "{out}");
    assert!(!out.contains("<TabItem value=\"pip\""), "{out}");
    assert!(!out.contains("Admonition"), "{out}");
    // The tab's label is kept, the text between the tags is prose, and
    // code is shown as written.
    assert!(out.lines().any(|l| l.trim() == "pip:"), "{out}");
    assert!(out.lines().any(|l| l.trim() == "Conda:"), "{out}");
    assert!(
        out.contains("Check the driver before the toolkit."),
        "{out}"
    );
    assert!(
        out.contains("<TabItem value=\"kept\">{/* code stays as written */}</TabItem>"),
        "{out}"
    );
    // Without the extension too, as the site names it.
    let (code, again, _) = run(&["show", "docs/setup", "--plain", "--width", "100"]);
    assert_eq!(code, 0);
    assert_eq!(again, out);
}

#[test]
fn list_shows_an_mdx_page_with_its_kind() {
    let (code, out, _) = run(&["list"]);
    assert_eq!(code, 0, "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("docs/setup.mdx"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("knowledge"), "{line}");
    assert!(line.contains("Set up the toolkit"), "{line}");
}

/// `[…](./setup.mdx#install)` and `[…](./setup)` from a `.md` page name a
/// page lore reads: not broken.
#[test]
fn check_follows_links_from_md_to_mdx_pages() {
    let (_, out, err) = run(&["check"]);
    assert!(!out.contains("broken link"), "{out}{err}");
    assert!(!out.contains("intro.md"), "{out}");
}
