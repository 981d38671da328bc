//! The corpus as the rest of lore sees it: shadowing between sources, drops
//! linked both ways, ids that are full paths.

mod common;

use include_dir::{Dir, include_dir};
use lore::corpus::{Corpus, Kind};
use lore::sources::{Origin, SourceSet};

static FIXTURE_BUILTIN: Dir<'static> =
    include_dir!("$CARGO_MANIFEST_DIR/tests/fixtures/shadow/builtin");

fn titles(corpus: &Corpus) -> Vec<(&str, &str)> {
    corpus
        .documents
        .iter()
        .map(|d| (d.path.as_str(), d.title.as_str()))
        .collect()
}

#[test]
fn overlays_shadow_builtin_files_and_later_overlays_win() {
    let sources = SourceSet {
        builtin: Some(&FIXTURE_BUILTIN),
        overlays: vec![
            common::fixture("shadow/overlay1"),
            common::fixture("shadow/overlay2"),
        ],
    };
    let corpus = Corpus::load(&sources);
    assert_eq!(
        titles(&corpus),
        vec![
            ("cuda/a.md", "Overlay two A"),
            ("cuda/b.md", "Builtin B"),
            ("cuda/c.md", "Overlay two C"),
        ]
    );
    assert!(corpus.get("cuda/b.md").unwrap().origin.is_builtin());
    assert!(matches!(
        corpus.get("cuda/a.md").unwrap().origin,
        Origin::Overlay { .. }
    ));
}

#[test]
fn no_builtin_leaves_only_overlays() {
    let sources = SourceSet {
        builtin: None,
        overlays: vec![common::fixture("shadow/overlay1")],
    };
    let corpus = Corpus::load(&sources);
    assert_eq!(titles(&corpus), vec![("cuda/a.md", "Overlay one A")]);
}

#[test]
fn drops_and_files_know_each_other() {
    let sources = SourceSet {
        builtin: None,
        overlays: vec![common::fixture("check/clean")],
    };
    let corpus = Corpus::load(&sources);
    let file = corpus.get("cuda/clean.md").unwrap();
    let drop = corpus
        .get("drops/KNOWLEDGE-DROP-clean-2026-11-22.md")
        .unwrap();
    assert_eq!(file.kind, Kind::Knowledge);
    assert_eq!(drop.kind, Kind::Drop);
    assert_eq!(corpus.companion(file).unwrap().path, drop.path);
    assert_eq!(corpus.companion(drop).unwrap().path, file.path);
    let info = drop.drop.as_ref().unwrap();
    assert_eq!(info.date.as_deref(), Some("2026-11-22"));
    assert_eq!(info.status.as_deref(), Some("COMPLETE"));
    assert_eq!(info.lines, Some(9));
    assert_eq!(info.sources, vec!["https://docs.nvidia.com/cuda/"]);
}

#[test]
fn files_sharing_a_numeric_prefix_are_distinct_documents() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("cuda")).unwrap();
    std::fs::write(dir.path().join("cuda/12-one.md"), "# One\n").unwrap();
    std::fs::write(dir.path().join("cuda/12-two.md"), "# Two\n").unwrap();
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![dir.path().to_path_buf()],
    });
    assert_eq!(
        titles(&corpus),
        vec![("cuda/12-one.md", "One"), ("cuda/12-two.md", "Two")]
    );
}

#[test]
fn punctuation_heavy_and_duplicate_headings_get_github_anchors() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.md"),
        "# T\n## What is CUPTI?\n## CUDA 12.4 vs 12.6\n## Usage\n## Usage\n## `libcupti.so.12` (not found!)\n",
    )
    .unwrap();
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![dir.path().to_path_buf()],
    });
    let anchors: Vec<&str> = corpus.documents[0]
        .sections
        .iter()
        .map(|s| s.anchor.as_str())
        .collect();
    assert_eq!(
        anchors,
        vec![
            "t",
            "what-is-cupti",
            "cuda-124-vs-126",
            "usage",
            "usage-1",
            "libcuptiso12-not-found"
        ]
    );
}
