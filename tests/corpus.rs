//! The corpus as the rest of lore sees it: shadowing between sources, drops
//! linked both ways, ids that are full paths.

mod common;

use std::sync::LazyLock;

use lore::corpus::{Corpus, Kind, LinkTarget};
use lore::sources::{BuiltinFolder, Origin, SourceSet};

/// Built-in files of this test's own, stored as the build stores lore's.
static FIXTURE_BUILTIN: LazyLock<&'static BuiltinFolder> = LazyLock::new(|| {
    BuiltinFolder::from_folder(&common::fixture("shadow/builtin")).expect("fixture readable")
});

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
        builtin: Some(*FIXTURE_BUILTIN),
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

/// `lore diagnose` reads only the documents its hits name: the same text
/// the whole corpus would hold for them, shadowing applied.
#[test]
fn reading_named_files_keeps_shadowing() {
    let sources = SourceSet {
        builtin: Some(*FIXTURE_BUILTIN),
        overlays: vec![
            common::fixture("shadow/overlay1"),
            common::fixture("shadow/overlay2"),
        ],
    };
    let (named, _) = sources.collect_named("md", &["cuda/a.md", "cuda/b.md", "cuda/nothing.md"]);
    let (all, _) = sources.collect("md");
    let text_of = |files: &[lore::sources::SourceFile], id: &str| {
        files.iter().find(|f| f.rel == id).map(|f| f.text.clone())
    };
    assert_eq!(
        named.iter().map(|f| f.rel.as_str()).collect::<Vec<_>>(),
        ["cuda/a.md", "cuda/b.md"]
    );
    for id in ["cuda/a.md", "cuda/b.md"] {
        assert_eq!(text_of(&named, id), text_of(&all, id), "{id}");
    }
    assert!(named[0].text.contains("Overlay two A"));
    assert!(named[1].origin.is_builtin());
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

/// MkDocs / Hugo / Sphinx doc sets have an `index.md` landing page in many
/// folders: an ordinary page. Only the root's `INDEX.md` is lore's index.
#[test]
fn only_the_roots_index_md_is_the_index() {
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![common::fixture("check/nested-index")],
    });
    let index = corpus.get("sub/index.md").expect("the landing page");
    assert_eq!(index.kind, Kind::Knowledge);
    assert!(corpus.documents.iter().all(|d| d.kind != Kind::Index));
}

/// docker's CLI reference anchors headings with `<a name="x"></a>`; the
/// pytorch-lightning README puts `<a id="x"></a>` on the line above one;
/// docker.md keeps an old deep link as a tag in a section's text. Each is
/// an anchor of that heading, and links to it land on the heading.
#[test]
fn html_anchor_tags_are_anchors_of_their_headings() {
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![common::fixture("check/html-anchors")],
    });
    let run = corpus.get("run.md").unwrap();
    let anchors: Vec<(&str, &str, Vec<&str>)> = run
        .sections
        .iter()
        .map(|s| {
            let aliases = s.aliases.iter().map(String::as_str).collect();
            (s.anchor.as_str(), s.title.as_str(), aliases)
        })
        .collect();
    assert_eq!(
        anchors,
        [
            ("docker-run", "docker run", vec![]),
            ("why-run", "Why run", vec![]),
            ("examples", "Examples", vec![]),
            (
                "create-attestations---attest",
                "Create attestations (--attest)",
                vec!["attest"]
            ),
            (
                "add-entries-to-the-hosts-file---add-host",
                "Add entries to the hosts file (--add-host)",
                vec!["add-host"]
            ),
            ("quiet--q", "Quiet (-q)", vec!["quiet"]),
            (
                "configuration-file",
                "Configuration file",
                vec!["configjson-properties"]
            ),
        ]
    );
    let other = corpus.get("other.md").unwrap();
    assert_eq!(
        other.links[0].target,
        LinkTarget::Internal {
            path: "run.md".into(),
            anchor: Some("create-attestations---attest".into())
        }
    );
}

/// Links as doc sites resolve them: `../supported_models` (doc-builder)
/// is `supported_models.md`, `../tools/` (a folder) its README.md, `./`
/// the folder's Hugo `_index.md`; a link to `LICENSE` or a code folder
/// stays as written, and the corpus knows those exist.
#[test]
fn extensionless_and_folder_links_resolve_to_pages() {
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![common::fixture("check/extensionless-links")],
    });
    let start = corpus.get("guides/start.md").unwrap();
    let paths: Vec<(&str, String)> = start
        .links
        .iter()
        .map(|l| match &l.target {
            LinkTarget::Internal { path, .. } => (l.dest.as_str(), path.clone()),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        paths,
        [
            ("../supported_models", "supported_models.md".to_string()),
            ("../tools/", "tools/README.md".to_string()),
            ("../tools", "tools/README.md".to_string()),
            ("./", "guides/_index.md".to_string()),
            ("../LICENSE", "LICENSE".to_string()),
            ("../src/", "src".to_string()),
            ("../gone", "gone".to_string()),
            ("../gone-folder/", "gone-folder".to_string()),
        ]
    );
    assert!(corpus.others.contains("LICENSE"));
    assert!(corpus.others.contains("src"));
    assert!(
        !corpus.others.contains("src/main.go"),
        "files with an extension are not listed"
    );
}

/// Hugo and MkDocs pages (the docs.docker.com layout) have no `# H1`: the
/// page's title is the front matter's `title:` (YAML) or `title = "…"`
/// (TOML), and it names the page instead of its file (`_index`, `gpu`).
/// A page with both keeps its `# H1`, the heading its reader sees on top.
#[test]
fn a_hugo_page_without_an_h1_is_titled_by_its_front_matter() {
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "engine/containers/gpu.md",
        "---\ntitle: GPU access\nweight: 40\naliases:\n  - /config/gpu/\n---\n\n## Access an NVIDIA GPU\n\ntext\n",
    );
    write(
        "engine/install/_index.md",
        "---\ntitle: \"Install Docker Engine: overview\"\nlinkTitle: Install\n---\n\nPick a distro.\n",
    );
    write(
        "engine/install/debian.md",
        "+++\ntitle = \"Install Docker Engine on Debian\"\nweight = 20\n+++\n\n## Uninstall old versions\n",
    );
    write(
        "mkdocs/both.md",
        "---\ntitle: Front matter title\n---\n\n# The page's own heading\n\ntext\n",
    );
    write("mkdocs/plain.md", "---\nweight: 1\n---\n\n## Only h2\n");
    let corpus = Corpus::load(&SourceSet {
        builtin: None,
        overlays: vec![dir.path().to_path_buf()],
    });
    assert_eq!(
        titles(&corpus),
        vec![
            ("engine/containers/gpu.md", "GPU access"),
            (
                "engine/install/_index.md",
                "Install Docker Engine: overview"
            ),
            (
                "engine/install/debian.md",
                "Install Docker Engine on Debian"
            ),
            ("mkdocs/both.md", "The page's own heading"),
            ("mkdocs/plain.md", "plain"),
        ]
    );
    let gpu = corpus.get("engine/containers/gpu.md").unwrap();
    assert_eq!(gpu.heading_path(0), vec!["Access an NVIDIA GPU"]);
    assert!(gpu.titled_by_front_matter());
    assert!(
        !corpus
            .get("mkdocs/both.md")
            .unwrap()
            .titled_by_front_matter()
    );
}
