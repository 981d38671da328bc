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
