//! The README's key table is generated from the TUI's key table; this test
//! fails when they differ. `LORE_BLESS=1 cargo test --test readme_keys`
//! rewrites the README's table from the code.

use lore::tui::keymap::KeyMap;

const BEGIN: &str = "<!-- keys:begin -->\n";
const END: &str = "<!-- keys:end -->";

#[test]
fn the_readme_key_table_matches_the_code() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find(BEGIN).expect("README has <!-- keys:begin -->") + BEGIN.len();
    let end = start
        + readme[start..]
            .find(END)
            .expect("README has <!-- keys:end -->");
    let generated = KeyMap::default().markdown();
    if readme[start..end] != generated {
        if std::env::var_os("LORE_BLESS").is_some() {
            let updated = format!("{}{generated}{}", &readme[..start], &readme[end..]);
            std::fs::write(&path, updated).unwrap();
            return;
        }
        panic!(
            "README.md's key table is stale; run `LORE_BLESS=1 cargo test --test readme_keys`.\nExpected:\n{generated}"
        );
    }
}

/// The `[keys]` example in the README applies without a warning.
#[test]
fn the_readme_keys_example_is_valid() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md");
    let readme = std::fs::read_to_string(&path).unwrap();
    let start = readme.find("```toml\n[keys.").expect("a [keys] example") + "```toml\n".len();
    let end = start + readme[start..].find("```").unwrap();
    let config: toml::Table = toml::from_str(&readme[start..end]).expect("the example parses");
    let keys = config["keys"].as_table().expect("a [keys] table");
    let (_, warnings) = KeyMap::with_overrides(keys);
    assert!(warnings.is_empty(), "{warnings:?}");
}
