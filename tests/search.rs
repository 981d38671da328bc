//! The search library as the TUI and the CLI use it: the on-disk cache
//! (freshness, damage, unusable folders, concurrent opens) and what queries
//! find (phrases, prefixes, filters, fuzzy fallback, pasted logs).

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use lore::corpus::{Corpus, Kind};
use lore::search::{OpenOptions, SearchIndex};
use lore::sources::{BUILTIN_KNOWLEDGE, SourceSet};

fn overlay(dir: &Path) -> SourceSet {
    SourceSet {
        builtin: None,
        overlays: vec![dir.to_path_buf()],
    }
}

fn builtin() -> SourceSet {
    SourceSet::builtin_knowledge()
}

fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let path = dir.join(rel);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, text).unwrap();
    path
}

/// Opens the overlay's index in `cache`; returns whether it was rebuilt and
/// the paths of the hits for `q`.
fn open(dir: &Path, cache: &Path, q: &str) -> (bool, Vec<String>) {
    let (index, report) =
        SearchIndex::open_sources(&overlay(dir), Some(cache), OpenOptions::default())
            .expect("index opens");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let hits = index.query(q, 10).into_iter().map(|h| h.path).collect();
    (report.rebuilt, hits)
}

fn notes() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "gpu/a.md",
        "# Alpha\n\n## Pinned memory\n\nzebrafish pinned host memory\n",
    );
    write(dir.path(), "gpu/b.md", "# Beta\n\nnothing special here\n");
    dir
}

#[test]
fn an_open_index_can_be_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<SearchIndex>();
}

#[test]
fn the_cache_is_reused_until_a_file_is_added_changed_or_removed() {
    let dir = notes();
    let cache = tempfile::tempdir().unwrap();
    assert_eq!(
        open(dir.path(), cache.path(), "zebrafish"),
        (true, vec!["gpu/a.md".into()])
    );
    assert_eq!(
        open(dir.path(), cache.path(), "zebrafish"),
        (false, vec!["gpu/a.md".into()])
    );

    let added = write(dir.path(), "gpu/c.md", "# Gamma\n\nokapi\n");
    assert_eq!(
        open(dir.path(), cache.path(), "okapi"),
        (true, vec!["gpu/c.md".into()])
    );

    // Same size, later modification time: still a change.
    fs::write(&added, "# Gamma\n\nlemur\n").unwrap();
    let later = SystemTime::now() + Duration::from_secs(5);
    fs::File::options()
        .write(true)
        .open(&added)
        .unwrap()
        .set_modified(later)
        .unwrap();
    assert_eq!(
        open(dir.path(), cache.path(), "lemur"),
        (true, vec!["gpu/c.md".into()])
    );

    fs::remove_file(&added).unwrap();
    assert_eq!(open(dir.path(), cache.path(), "lemur"), (true, vec![]));
    assert_eq!(open(dir.path(), cache.path(), "lemur"), (false, vec![]));
}

#[test]
fn a_different_set_of_sources_has_its_own_cache() {
    let one = notes();
    let two = tempfile::tempdir().unwrap();
    write(two.path(), "x.md", "# X\n\nzebrafish too\n");
    let cache = tempfile::tempdir().unwrap();
    assert!(open(one.path(), cache.path(), "zebrafish").0);
    assert!(open(two.path(), cache.path(), "zebrafish").0);
    // Switching back does not rebuild: each set keeps its index.
    assert!(!open(one.path(), cache.path(), "zebrafish").0);
    assert!(!open(two.path(), cache.path(), "zebrafish").0);
}

#[test]
fn the_corpus_and_the_sources_share_one_cache() {
    let dir = notes();
    let cache = tempfile::tempdir().unwrap();
    let sources = SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![dir.path().to_path_buf()],
    };
    let (_, first) =
        SearchIndex::open_sources(&sources, Some(cache.path()), OpenOptions::default()).unwrap();
    assert!(first.rebuilt);
    let corpus = Corpus::load(&sources);
    let (index, second) = SearchIndex::open(&corpus, Some(cache.path())).unwrap();
    assert!(
        !second.rebuilt,
        "the TUI's open must reuse lore search's index"
    );
    assert_eq!(second.documents, corpus.len());
    assert_eq!(index.query("zebrafish", 1)[0].path, "gpu/a.md");
}

/// The live generation folder of the only index under `cache`.
fn generation(cache: &Path) -> PathBuf {
    let (_, report) =
        SearchIndex::open_sources(&builtin(), Some(cache), OpenOptions::default()).unwrap();
    report.location.expect("an on-disk index")
}

fn still_works_after(damage: impl Fn(&Path)) {
    let cache = tempfile::tempdir().unwrap();
    let live = generation(cache.path());
    damage(&live);
    let (index, report) =
        SearchIndex::open_sources(&builtin(), Some(cache.path()), OpenOptions::default())
            .expect("a damaged cache is rebuilt, not an error");
    assert!(report.rebuilt, "damage must be detected");
    assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
    assert!(
        report.warnings[0]
            .message
            .contains("the search index was damaged"),
        "{}",
        report.warnings[0]
    );
    assert!(!index.query("cupti", 5).is_empty());
    // And the rebuilt index is used from then on.
    let (_, again) =
        SearchIndex::open_sources(&builtin(), Some(cache.path()), OpenOptions::default()).unwrap();
    assert!(!again.rebuilt);
}

fn largest_file(dir: &Path) -> PathBuf {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .max_by_key(|p| fs::metadata(p).unwrap().len())
        .unwrap()
}

#[test]
fn a_truncated_index_file_is_rebuilt() {
    still_works_after(|live| {
        let file = largest_file(live);
        let len = fs::metadata(&file).unwrap().len();
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_len(len / 2)
            .unwrap();
    });
}

#[test]
fn an_index_file_with_garbage_of_the_same_size_is_rebuilt() {
    still_works_after(|live| {
        let file = largest_file(live);
        let len = fs::metadata(&file).unwrap().len() as usize;
        fs::write(&file, vec![0x5a; len]).unwrap();
    });
}

#[test]
fn a_missing_or_garbled_meta_file_is_rebuilt() {
    still_works_after(|live| fs::remove_file(live.join("meta.json")).unwrap());
    still_works_after(|live| fs::write(live.join("meta.json"), "{ not json").unwrap());
    still_works_after(|live| {
        fs::write(live.parent().unwrap().join("current"), "gen-nonexistent\n").unwrap()
    });
}

#[test]
fn an_unusable_cache_folder_gives_an_in_memory_index_and_one_warning() {
    let dir = notes();
    let blocker = tempfile::NamedTempFile::new().unwrap();
    // A path under a regular file can never be created, even by root.
    let cache = blocker.path().join("cache");
    for _ in 0..2 {
        let (index, report) =
            SearchIndex::open_sources(&overlay(dir.path()), Some(&cache), OpenOptions::default())
                .expect("falls back to memory");
        assert_eq!(report.warnings.len(), 1, "{:?}", report.warnings);
        assert!(
            report.warnings[0].message.contains("in-memory"),
            "{}",
            report.warnings[0]
        );
        assert!(report.location.is_none());
        assert_eq!(index.query("zebrafish", 5)[0].path, "gpu/a.md");
    }
}

#[test]
fn threads_opening_a_cold_cache_at_once_build_it_once() {
    let dir = notes();
    let cache = tempfile::tempdir().unwrap();
    let rebuilt: Vec<bool> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| scope.spawn(|| open(dir.path(), cache.path(), "zebrafish")))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                let (rebuilt, hits) = h.join().unwrap();
                assert_eq!(hits, vec!["gpu/a.md".to_string()]);
                rebuilt
            })
            .collect()
    });
    assert_eq!(rebuilt.iter().filter(|&&r| r).count(), 1, "{rebuilt:?}");
    let generations = fs::read_dir(cache.path().join("search"))
        .unwrap()
        .flat_map(|key| fs::read_dir(key.unwrap().path()).unwrap())
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("gen-")
        })
        .count();
    assert_eq!(generations, 1);
}

#[test]
fn rebuild_builds_even_when_fresh() {
    let dir = notes();
    let cache = tempfile::tempdir().unwrap();
    open(dir.path(), cache.path(), "x");
    let options = OpenOptions {
        rebuild: true,
        ..OpenOptions::default()
    };
    let (_, report) =
        SearchIndex::open_sources(&overlay(dir.path()), Some(cache.path()), options).unwrap();
    assert!(report.rebuilt);
    assert!(report.build_time.is_some());
    assert_eq!((report.documents, report.sections), (2, 3));
}

fn shipped() -> SearchIndex {
    let corpus = Corpus::load(&builtin());
    SearchIndex::build_in_memory(&corpus).unwrap().0
}

#[test]
fn hits_carry_location_heading_and_a_highlighted_snippet() {
    let index = shipped();
    let hits = index.query(
        "ImportError: libcupti.so.12: cannot open shared object file",
        5,
    );
    assert_eq!(hits.len(), 5);
    for hit in &hits[..3] {
        assert!(hit.heading.contains("CUPTI"), "{}", hit.heading);
    }
    for hit in &hits {
        assert!(hit.heading.starts_with(&hit.title));
        assert!(hit.line >= 1 && !hit.anchor.is_empty());
        assert!(
            !hit.snippet.chars().any(char::is_control),
            "{:?}",
            hit.snippet
        );
        assert!(!hit.highlights.is_empty(), "{hit:?}");
    }
    for hit in &hits[..3] {
        let marked: Vec<&str> = hit
            .highlights
            .iter()
            .map(|r| &hit.snippet[r.clone()])
            .collect();
        assert!(
            marked.iter().any(|m| m.to_lowercase().contains("cupti")),
            "{marked:?} in {:?}",
            hit.snippet
        );
    }
    let scores: Vec<f32> = hits.iter().map(|h| h.score).collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}

#[test]
fn filters_restrict_kind_and_path() {
    let index = shipped();
    let drops = index.query("kind:drop cupti", 10);
    assert!(!drops.is_empty());
    assert!(drops.iter().all(|h| h.kind == Kind::Drop));
    let investigations = index.query("cupti path:investigations/", 10);
    assert!(!investigations.is_empty());
    assert!(
        investigations
            .iter()
            .all(|h| h.path.starts_with("investigations/"))
    );
    assert!(index.query("cupti path:no-such-folder/", 10).is_empty());
    // A filter alone lists what it lets through.
    assert!(!index.query("kind:index", 10).is_empty());
}

#[test]
fn quoted_phrases_rank_the_exact_words_first() {
    let index = shipped();
    let hits = index.query("\"compute capability\"", 5);
    assert!(!hits.is_empty());
    for hit in &hits {
        assert!(
            hit.snippet.to_lowercase().contains("compute capabilit")
                || hit.heading.to_lowercase().contains("compute capabilit"),
            "{hit:?}"
        );
    }
    // An unbalanced quote is just a character.
    assert!(!index.query("\"compute capability", 5).is_empty());
}

#[test]
fn the_word_being_typed_matches_as_a_prefix() {
    let index = shipped();
    let hits = index.query("libcup", 5);
    assert!(!hits.is_empty());
    assert!(hits.iter().any(|h| h.path.contains("cupti")), "{hits:?}");
    let marked: Vec<String> = hits
        .iter()
        .flat_map(|h| {
            h.highlights
                .iter()
                .map(|r| h.snippet[r.clone()].to_lowercase())
        })
        .collect();
    assert!(
        marked.iter().any(|m| m.starts_with("libcupti")),
        "{marked:?}"
    );
}

/// After other words, a last word the index has is taken as finished (a
/// pasted error line ends in one); an unfinished one, or a word typed
/// alone, still matches as a prefix.
#[test]
fn a_finished_last_word_after_others_is_not_expanded() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "keys.md",
        "# Keyring\n\nThe keyring holds the keys.\n",
    );
    write(dir.path(), "door.md", "# Door\n\nA key opens the door.\n");
    let cache = tempfile::tempdir().unwrap();
    let paths = |q: &str| open(dir.path(), cache.path(), q).1;
    assert_eq!(paths("door key"), ["door.md"]);
    assert_eq!(paths("opens the key"), ["door.md"]);
    let mut typing = paths("door ke");
    typing.sort();
    assert_eq!(typing, ["door.md", "keys.md"]);
    let mut alone = paths("key");
    alone.sort();
    assert_eq!(alone, ["door.md", "keys.md"]);
}

#[test]
fn a_typo_falls_back_to_fuzzy_matches() {
    let index = shipped();
    let hits = index.query("cuptii", 5);
    assert!(!hits.is_empty());
    assert!(hits.iter().any(|h| h.heading.contains("CUPTI")), "{hits:?}");
}

#[test]
fn a_pasted_build_log_finds_its_error() {
    let index = shipped();
    let mut log = String::new();
    for i in 0..120 {
        log.push_str(&format!(
            "#11 {i}.{i:03} Get:{i} http://archive.ubuntu.com/ubuntu jammy/main amd64 package-{i} [{i} kB]\n"
        ));
    }
    log.push_str("#11 95.21 E: Unable to locate package libcupti-dev-12-4\n");
    log.push_str("#11 ERROR: process \"/bin/sh -c apt-get install -y libcupti-dev-12-4\" did not complete successfully: exit code: 100\n");
    assert!(log.len() > 10_000, "{}", log.len());
    let hits = index.query(&log, 3);
    assert!(
        hits.iter().any(
            |h| h.path == "investigations/arr-coc-cupti-investigation.md"
                || h.path == "cuda/13-nvidia-container-cuda-packaging.md"
        ),
        "{hits:?}"
    );
}

/// Pattern: a traceback copied from `docker compose up`, each line behind
/// its container's padded name (`trainer-1  | `), and from `kubectl logs
/// --prefix` (`[pod/trainer-0/main] `). The prefixes are not the program's
/// words: the paste finds what the bare traceback finds.
#[test]
fn container_log_prefixes_do_not_change_what_a_paste_finds() {
    let index = shipped();
    let bare = "Traceback (most recent call last):
  File \"/app/train.py\", line 12, in <module>
    model = model.cuda()
  File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py\", line 293, in _lazy_init
    torch._C._cuda_init()
RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx
";
    let places = |text: &str| {
        index
            .query(text, 3)
            .iter()
            .map(|h| format!("{}#{}", h.path, h.anchor))
            .collect::<Vec<_>>()
    };
    let want = places(bare);
    assert_eq!(want.len(), 3);
    for prefix in [
        "trainer-1  | ",
        "app_trainer_1  | ",
        "[pod/trainer-0/main] ",
    ] {
        let mut pasted: String = bare.lines().map(|l| format!("{prefix}{l}\r\n")).collect();
        pasted.push_str("trainer-1 exited with code 1\r\n");
        assert_eq!(places(&pasted), want, "{prefix}");
    }
}

/// Pattern: a build log copied from a GitLab CI job's raw log (Kaniko or
/// any other builder): GitLab Runner writes a timestamp and the stream
/// (`00O `, `01E `, `01E+` for a continued line) before each line, and
/// `section_start:`/`section_end:` markers with `\r\x1b[0K` around the job's
/// sections. The prefixes are not the build's words: the paste finds what
/// the bare log finds, as confidently (the stream's `00O` counted as a
/// word of the query before, and the confidence differed).
#[test]
fn gitlab_job_log_prefixes_do_not_change_what_a_paste_finds() {
    let index = shipped();
    let bare = "Collecting flash-attn
  Downloading flash_attn-2.7.4.post1.tar.gz (6.0 MB)
  error: subprocess-exited-with-error
  × python setup.py egg_info did not run successfully.
  │ exit code: 1
      OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.
error building image: error building stage: failed to execute command: waiting for process to exit: exit status 1
";
    let places = |text: &str| {
        index
            .query(text, 3)
            .iter()
            .map(|h| format!("{}#{} {:.3}", h.path, h.anchor, h.confidence))
            .collect::<Vec<_>>()
    };
    let want = places(bare);
    assert_eq!(want.len(), 3);
    let mut raw = String::from(
        "2026-03-01T14:02:10.000001Z 00O section_start:1772373730:step_script\r\x1b[0K\x1b[0K\x1b[36;1mExecuting \"step_script\" stage of the job script\x1b[0;m\n",
    );
    for (i, line) in bare.lines().enumerate() {
        let stream = if line.starts_with("error") {
            "01E"
        } else {
            "00O"
        };
        raw.push_str(&format!("2026-03-01T14:02:11.{i:06}Z {stream} {line}\n"));
    }
    raw.push_str("2026-03-01T14:02:12.000001Z 00O section_end:1772373732:step_script\r\x1b[0K\n");
    assert_eq!(places(&raw), want);
}

/// torchrun prints each rank's error under a `[rankN]:` prefix and then its
/// own `ChildFailedError` summary, which only names the child. Pasted
/// whole, the log is answered by the rank's error: here NCCL's detail after
/// `Last error:`, not the launcher's summary.
#[test]
fn a_pasted_torchrun_log_is_answered_by_the_ranks_error() {
    let index = shipped();
    let log = "\
[rank0]: Traceback (most recent call last):
[rank0]:   File \"/srv/app/train_ddp.py\", line 41, in <module>
[rank0]:     dist.all_reduce(grad)
[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.27.3
[rank0]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
[rank0]: Last error:
[rank0]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 3b000
E0301 14:02:11.530000 9120 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) local_rank: 0 (pid: 9141) of binary: /srv/env/bin/python
Traceback (most recent call last):
  File \"/srv/env/bin/torchrun\", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train_ddp.py FAILED
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  rank      : 0 (local_rank: 0)
  exitcode  : 1 (pid: 9141)
  error_file: <N/A>
  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html
";
    let hits = index.query(log, 3);
    assert!(
        hits.first()
            .is_some_and(|h| h.heading.contains("Duplicate GPU detected")),
        "{:?}",
        hits.iter().map(|h| &h.heading).collect::<Vec<_>>()
    );
}

#[test]
fn nonsense_and_empty_queries_give_nothing_without_failing() {
    let index = shipped();
    assert!(index.query("", 10).is_empty());
    assert!(index.query("   ", 10).is_empty());
    assert!(index.query("qqqqxzzzv", 10).is_empty());
    assert!(index.query("cupti", 0).is_empty());
    for odd in [
        "\"",
        "::",
        "kind:",
        "path:",
        "\"\"",
        "\u{1b}[2J",
        "a\"b\"c\"",
        "((]]",
        "-",
    ] {
        let _ = index.query(odd, 10);
    }
    // One enormous line, as from a long linker command.
    let long = format!(
        "{} libcupti.so.12",
        "0x7ffe12345678 /usr/lib/x86_64-linux-gnu/libfoo.so ".repeat(400)
    );
    assert!(long.len() > 20_000);
    assert!(!index.query(&long, 5).is_empty());
}

#[test]
fn a_limit_beyond_the_number_of_sections_returns_them_all() {
    let index = shipped();
    let all = index.query("cupti", usize::MAX);
    assert!(all.len() > 10, "{}", all.len());
    assert_eq!(index.query("cupti", 100_000_000_000).len(), all.len());
    let empty = SearchIndex::build_in_memory(&Corpus::default()).unwrap().0;
    assert!(empty.query("cupti", usize::MAX).is_empty());
}

mod random_queries {
    use std::sync::OnceLock;

    use proptest::prelude::*;

    use super::*;

    fn index() -> &'static SearchIndex {
        static INDEX: OnceLock<SearchIndex> = OnceLock::new();
        INDEX.get_or_init(shipped)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Whatever is typed or pasted: no panic, and every hit's snippet is
        /// one clean line with highlights on character boundaries.
        #[test]
        fn any_query_gives_well_formed_hits(
            q in "[a-z_:.\"/ \\-=0-9\u{1b}\n\tñ€]{0,60}"
        ) {
            for hit in index().query(&q, 5) {
                prop_assert!(!hit.snippet.chars().any(char::is_control));
                for r in &hit.highlights {
                    prop_assert!(r.start < r.end && r.end <= hit.snippet.len());
                    prop_assert!(hit.snippet.is_char_boundary(r.start));
                    prop_assert!(hit.snippet.is_char_boundary(r.end));
                }
            }
        }
    }
}

/// While typing, the last word is also a prefix; its expansions are
/// alternatives for one word, so a section full of `keyring` and `keys` must
/// not outrank the sections quoting the pasted error line.
#[test]
fn the_word_being_typed_counts_once_however_many_words_it_starts() {
    let index = shipped();
    let typing = index.query("failed to compute cache key", 3);
    assert_eq!(typing.len(), 3);
    assert!(
        typing[0].snippet.contains("failed to compute cache key"),
        "{} ranks first with {:?}",
        typing[0].heading,
        typing[0].snippet
    );
    // `key` typed and not yet finished must rank as the finished word does:
    // its expansions (`keyring`, `keys`) add nothing. (Since the LLM runtime
    // catalogue of 2026-11-26, a section with `failed`, `compute` and `cache`
    // in its heading takes second place either way; see the session note.)
    let finished = index.query("failed to compute cache key ", 3);
    let anchors = |hits: &[lore::search::Hit]| -> Vec<String> {
        hits.iter()
            .map(|h| format!("{}#{}", h.path, h.anchor))
            .collect()
    };
    assert_eq!(anchors(&typing), anchors(&finished));
    // Two sections quoting the message stay in the top 5. (Top 3 until the
    // accuracy audit of 2026-11-27: cuda/10 and cuda/13 had quoted the
    // message for a wildcard `COPY` that matches nothing, which BuildKit
    // does not fail on; they now quote it once, for a literal path, inside
    // longer sections.)
    let top5 = index.query("failed to compute cache key", 5);
    let quoting = top5
        .iter()
        .filter(|h| h.snippet.contains("failed to compute cache key"))
        .count();
    assert!(quoting >= 2, "{:?}", anchors(&top5));
    // Still typing the last word: sections about caches (`cache` in their
    // heading, its trail and its prose) must not push the quoting ones out.
    // (Top 1 until the catalogues of 2026-11-26; top 3 since the LLM runtime
    // catalogue, whose KV-cache section has `failed`, `compute` and `cache`
    // in its heading and leads until `key` is typed; see the session note.)
    let hits = index.query("failed to compute cache ke", 3);
    assert!(
        hits.iter()
            .any(|h| h.snippet.contains("failed to compute cache key")),
        "{:?}",
        anchors(&hits)
    );
}

/// Sets the modification time of a file or folder.
fn age(path: &Path, ago: Duration) {
    fs::File::open(path)
        .unwrap()
        .set_modified(SystemTime::now() - ago)
        .unwrap();
}

fn cache_entries(cache: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(cache.join("search"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The cache does not grow forever: building an index removes the indexes
/// and scan records of knowledge folders unused for over 30 days, and using
/// one marks it used (at most once a day).
#[test]
fn indexes_unused_for_a_month_are_removed_when_another_is_built() {
    let cache = tempfile::tempdir().unwrap();
    let (old, recent, new) = (notes(), notes(), notes());
    let day = Duration::from_secs(24 * 3600);
    // Settled folders, so that a scan record is kept beside each index.
    for dir in [&old, &recent] {
        let root = dir.path();
        for path in [
            root.join("gpu/a.md"),
            root.join("gpu/b.md"),
            root.join("gpu"),
        ] {
            age(&path, Duration::from_secs(3600));
        }
        age(root, Duration::from_secs(3600));
    }
    open(old.path(), cache.path(), "zebrafish");
    let after_old = cache_entries(cache.path());
    assert_eq!(after_old.len(), 2, "an index and a record: {after_old:?}");
    open(recent.path(), cache.path(), "zebrafish");
    let after_recent = cache_entries(cache.path());
    assert_eq!(after_recent.len(), 4, "{after_recent:?}");
    let mine = |names: &[String]| -> Vec<String> {
        names
            .iter()
            .filter(|n| !after_old.contains(n))
            .cloned()
            .collect()
    };
    let recent_entries = mine(&after_recent);
    for (names, ago) in [(&after_old, day * 40), (&recent_entries, day * 10)] {
        for name in names {
            let path = cache.path().join("search").join(name);
            if path.is_dir() {
                age(&path.join("current"), ago);
            }
            age(&path, ago);
        }
    }
    open(new.path(), cache.path(), "zebrafish");
    let now = cache_entries(cache.path());
    for name in &after_old {
        assert!(!now.contains(name), "{name} unused for 40 days: {now:?}");
    }
    for name in &recent_entries {
        assert!(now.contains(name), "{name} used 10 days ago: {now:?}");
    }

    // Searching the recent folder again marks its index and record used.
    let (rebuilt, hits) = open(recent.path(), cache.path(), "zebrafish");
    assert!(!rebuilt && hits == ["gpu/a.md"]);
    for name in &recent_entries {
        let path = cache.path().join("search").join(name);
        let stamp = if path.is_dir() {
            path.join("current")
        } else {
            path
        };
        let age = SystemTime::now()
            .duration_since(fs::metadata(&stamp).unwrap().modified().unwrap())
            .unwrap();
        assert!(age < Duration::from_secs(3600), "{name} not marked used");
    }
}

/// Sections with equal scores come in path and line order, and the same
/// order every build, even when the corpus is big enough (over 8 MiB) to
/// be indexed on two threads, which hand sections out in no fixed order.
#[test]
fn equal_scores_keep_path_and_line_order_in_a_corpus_indexed_on_two_threads() {
    use lore::corpus::Document;
    use lore::sources::{Origin, SourceFile};
    let base = Corpus::load(&builtin());
    let mut documents = lore::search::synthetic::corpus(&base, 2_300, 1).documents;
    // Forty identical notes, each with the same rare word in the same place.
    for i in (0..40).rev() {
        documents.push(Document::parse(SourceFile {
            rel: format!("ties/note-{i:02}.md"),
            origin: Origin::Builtin,
            text: "# Note\n\n## Tie\n\nThe word zqxtiew appears here once.\n".to_string(),
            stamp: None,
        }));
    }
    let corpus = Corpus::from_documents(documents, Vec::new());
    let bytes: usize = corpus.documents.iter().map(|d| d.text.len()).sum();
    assert!(bytes > 8 << 20, "{bytes} bytes: too few for two threads");
    let expected: Vec<String> = (0..40).map(|i| format!("ties/note-{i:02}.md")).collect();
    for _ in 0..2 {
        let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
        let hits = index.query("zqxtiew", 40);
        let paths: Vec<String> = hits.iter().map(|h| h.path.clone()).collect();
        assert_eq!(paths, expected);
    }
}

/// Same-size damage in the middle of a big index file (over 8 MiB, where
/// tantivy reads without checking) is found on open and rebuilt, never
/// searched: before, every query panicked inside tantivy.
#[test]
fn same_size_damage_in_an_index_over_8_mib_is_rebuilt() {
    let base = Corpus::load(&builtin());
    let corpus = lore::search::synthetic::corpus(&base, 4_500, 1);
    let cache = tempfile::tempdir().unwrap();
    let (_, first) = SearchIndex::open(&corpus, Some(cache.path())).unwrap();
    let live = first.location.expect("an on-disk index");
    let file = largest_file(&live);
    let len = fs::metadata(&file).unwrap().len() as usize;
    assert!(len > 8 << 20, "{} is {len} bytes", file.display());
    let mut bytes = fs::read(&file).unwrap();
    bytes[len / 4..len * 3 / 4].fill(0xff);
    fs::write(&file, bytes).unwrap();
    let (index, report) = SearchIndex::open(&corpus, Some(cache.path())).unwrap();
    assert!(report.rebuilt, "damage must be detected");
    assert!(
        report.warnings[0]
            .message
            .contains("the search index was damaged"),
        "{:?}",
        report.warnings
    );
    assert!(!index.query("libcupti.so.12", 5).is_empty());
}

/// An index of one overlay folder holding `files` (path, text), in memory.
fn index_of(files: &[(&str, &str)]) -> (tempfile::TempDir, SearchIndex) {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        write(dir.path(), rel, text);
    }
    let corpus = Corpus::load(&overlay(dir.path()));
    let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
    (dir, index)
}

fn places(hits: &[lore::search::Hit]) -> Vec<String> {
    hits.iter()
        .map(|h| format!("{}#{}", h.path, h.anchor))
        .collect()
}

/// A phrase quoted inside a question (`"device-side assert"`) once had to
/// appear: the one section that said it, about something else, was the only
/// hit. Quotes raise the score of a section that has the phrase; the
/// section that answers the question is still found, and first.
#[test]
fn a_phrase_quoted_in_a_question_ranks_and_never_filters() {
    let (_dir, index) = index_of(&[
        (
            "loss.md",
            "# Loss functions\n\n## Labels outside the number of classes\n\nCrossEntropyLoss and NLLLoss index the class dimension with each label; a label equal to or above the number of classes reads past the end, and on the GPU the loss kernel stops the process. Check `labels.max() < num_classes` on the CPU first.\n",
        ),
        (
            "kernels.md",
            "# Writing kernels\n\n## assert in your own kernels\n\nA device-side assert in a kernel you wrote stops every later launch in the process; build with `-lineinfo` to see the line.\n",
        ),
    ]);
    let question = "why do I get \"device-side assert\" when a label is above the number of classes in CrossEntropyLoss";
    let hits = index.query(question, 10);
    assert_eq!(
        places(&hits),
        vec![
            "loss.md#labels-outside-the-number-of-classes",
            "kernels.md#assert-in-your-own-kernels"
        ]
    );
    // The quote still counts: alone, it puts the section that has it first.
    let hits = index.query("\"device-side assert\" classes", 10);
    assert_eq!(hits[0].path, "kernels.md", "{:?}", places(&hits));
}

/// A document's `## Sources` section is a list of links: it names the
/// thread titles of everything the document covers, so it once reached the
/// top 3 for queries no label pointed at it. It ranks only for a query that
/// names a URL or asks for sources.
#[test]
fn a_sources_section_ranks_only_when_sources_are_asked_for() {
    let (_dir, index) = index_of(&[(
        "cudnn.md",
        "# cuDNN in containers\n\n## Version mismatch at import\n\nThe wheel's cuDNN is older than the one the image put first on the loader path.\n\n## Sources\n\n- https://github.com/example/images/issues/12 — cuDNN version mismatch in containers at import\n- https://docs.example.org/cudnn/support-matrix.html — cuDNN version support matrix\n",
    )]);
    let hits = index.query("cuDNN version mismatch in containers at import", 10);
    assert_eq!(places(&hits)[0], "cudnn.md#version-mismatch-at-import");
    assert!(
        !places(&hits).contains(&"cudnn.md#sources".to_string()),
        "{:?}",
        places(&hits)
    );
    for asking in [
        "sources for cuDNN version mismatch",
        "https://github.com/example/images/issues/12",
    ] {
        let hits = index.query(asking, 10);
        assert!(
            places(&hits).contains(&"cudnn.md#sources".to_string()),
            "{asking}: {:?}",
            places(&hits)
        );
    }
    // A query only the list of sources answers still finds it.
    let hits = index.query("support matrix", 10);
    assert_eq!(places(&hits), vec!["cudnn.md#sources"]);
}

/// Pasted Python tracebacks of unrelated errors, written for this test in
/// the shape Python and PyTorch print them: the header, frames with their
/// source lines (none for `python -c`'s `<string>`), the error, and
/// PyTorch's advice after a CUDA error.
fn traceback(frames: &[(&str, &str)], error: &str, cuda_advice: bool) -> String {
    let mut text = String::from("Traceback (most recent call last):\n");
    for (i, (file, source)) in frames.iter().enumerate() {
        text.push_str(&format!(
            "  File \"{file}\", line {}, in step_{i}\n",
            40 + 17 * i
        ));
        if !source.is_empty() {
            text.push_str(&format!("    {source}\n"));
        }
    }
    text.push_str(error);
    text.push('\n');
    if cuda_advice {
        text.push_str("CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n");
    }
    text
}

/// The words of `Traceback (most recent call last):`, of a frame's source
/// line and of PyTorch's advice after every CUDA error stand side by side in
/// every section quoting a traceback: searching them made two long sections
/// (cuda/30's ninja wrapper, CUPTI's "What happens without it") top hits
/// for a third of all pasted tracebacks, whatever their error. Those lines
/// are said around every error, so they are not searched.
#[test]
fn lines_printed_around_every_error_make_no_section_a_hub() {
    let index = shipped();
    let app = "/home/dev/project/src/app";
    let venv = "/home/dev/.venv/lib/python3.12/site-packages/torch";
    let pastes = [
        traceback(
            &[(&format!("{app}/train.py"), "loss = criterion(out, y)")],
            "RuntimeError: expected scalar type Float but found Half",
            false,
        ),
        traceback(
            &[("<string>", "")],
            "ValueError: too many values to unpack (expected 2)",
            false,
        ),
        traceback(
            &[(
                &format!("{app}/load.py"),
                "model.load_state_dict(ckpt[\"state_dict\"])",
            )],
            "KeyError: 'state_dict'",
            false,
        ),
        traceback(
            &[
                (&format!("{app}/train.py"), "out = model(x)"),
                (
                    &format!("{venv}/nn/modules/module.py"),
                    "return forward_call(*args, **kwargs)",
                ),
            ],
            "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!",
            false,
        ),
        traceback(
            &[(&format!("{app}/main.py"), "model = torch.compile(model)")],
            "AttributeError: module 'torch' has no attribute 'compile'",
            false,
        ),
        traceback(
            &[(&format!("{app}/train.py"), "loss.backward()")],
            "RuntimeError: CUDA error: an illegal memory access was encountered",
            true,
        ),
        traceback(
            &[
                ("<string>", ""),
                (
                    &format!("{app}/export.py"),
                    "torch.onnx.export(model, x, path)",
                ),
            ],
            "ModuleNotFoundError: No module named 'onnx'",
            false,
        ),
        traceback(
            &[("<string>", "")],
            "RuntimeError: The size of tensor a (64) must match the size of tensor b (32) at non-singleton dimension 0",
            false,
        ),
        traceback(
            &[
                (&format!("{app}/train.py"), "opt.step()"),
                (
                    &format!("{venv}/optim/adam.py"),
                    "torch._foreach_add_(state_steps, 1)",
                ),
            ],
            "RuntimeError: CUDA error: misaligned address",
            true,
        ),
    ];
    let mut top3: std::collections::BTreeMap<String, usize> = Default::default();
    for paste in &pastes {
        for hit in index.query(paste, 3) {
            *top3
                .entry(format!("{}#{}", hit.path, hit.anchor))
                .or_default() += 1;
        }
    }
    let widest = top3.iter().max_by_key(|(_, n)| **n).unwrap();
    assert!(
        *widest.1 <= 2,
        "{} is in the top 3 of {} of {} unrelated tracebacks: {top3:#?}",
        widest.0,
        widest.1,
        pastes.len()
    );
}

/// A section with a questions block (`<!-- questions` under its heading):
/// its questions name things in a user's words that its text does not.
const QUESTIONED: &str = "# GPU memory\n\n## Finding which process holds the GPU\n\n<!-- questions\n- What program is hogging my graphics card after a crash?\n- Why does `nvidia-smi` list no processes inside a container?\n-->\n\nInside a container `nvidia-smi` cannot map host PIDs to processes; run `fuser -v /dev/nvidia*` on the host.\n\n## Pinned memory\n\nPinned host memory speeds up copies to the device.\n";

/// Section questions are searched as a field of their own: a word only a
/// question has (`hogging`) finds the section, the hit says which question
/// matched, and the snippet is a line of the section's text, never the
/// comment (it once showed `- What program is hogging…` as the snippet).
#[test]
fn a_users_words_in_a_sections_question_find_it_and_say_so() {
    let (_dir, index) = index_of(&[("gpu.md", QUESTIONED)]);
    let hits = index.query("program hogging the graphics card", 5);
    assert_eq!(
        places(&hits)[0],
        "gpu.md#finding-which-process-holds-the-gpu"
    );
    assert_eq!(
        hits[0].question.as_deref(),
        Some("What program is hogging my graphics card after a crash?")
    );
    assert!(
        !hits[0].snippet.contains("hogging") && !hits[0].snippet.contains("questions"),
        "{}",
        hits[0].snippet
    );
    // Words the section's text holds better than any question: no question
    // is claimed.
    let hits = index.query("fuser /dev/nvidia host PIDs", 5);
    assert_eq!(
        places(&hits)[0],
        "gpu.md#finding-which-process-holds-the-gpu"
    );
    assert_eq!(hits[0].question, None);
}

/// A block that breaks the form (misplaced, unclosed) is `lore check`'s to
/// report; search still works and still reads its questions.
#[test]
fn a_malformed_questions_block_still_searches() {
    let text = "# Notes\n\n## Pinned memory\n\nPinned host memory speeds up copies.\n\n<!-- questions\n- Why are my host to device copies so slow?\n";
    let (_dir, index) = index_of(&[("notes.md", text)]);
    let hits = index.query("why are copies so slow", 5);
    assert_eq!(places(&hits)[0], "notes.md#pinned-memory");
    assert!(index.query("pinned host memory", 5).len() == 1);
}

/// A message quoted in the knowledge matches the same message with other
/// variable parts, normalised the same way in the index and the query:
/// one fixture per pattern (`tests/fixtures/search/variable/`), each with a
/// section quoting the message and one whose prose shares its words (and
/// the query's values).
#[test]
fn a_quoted_message_matches_with_other_variable_parts() {
    let dir = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/search/variable"
    );
    let corpus = Corpus::load(&overlay(Path::new(dir)));
    let (index, _) = SearchIndex::build_in_memory(&corpus).unwrap();
    let cases = [
        (
            "sizes",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 1 has a total capacity of 79.10 GiB of which 3.25 GiB is free. Including non-PyTorch memory, this process has 75.80 GiB memory in use.",
            "sizes.md#out-of-memory-in-the-caching-allocator",
        ),
        (
            "paths",
            "  File \"/opt/venv/lib/python3.12/site-packages/torch/__init__.py\", line 290, in <module>\n    from torch._C import *  # noqa: F403",
            "paths.md#the-c-extension-fails-to-load",
        ),
        (
            "hex",
            "Fatal Python error: Segmentation fault\nThread 0x00007fe18d4c2740 (most recent call first):\n  <no Python frame>",
            "hex.md#a-fault-in-the-cuda-driver",
        ),
        (
            "pid",
            "torch.OutOfMemoryError: CUDA out of memory. Process 48213 has 1.20 GiB memory in use. Process 48214 has 70.05 GiB memory in use.",
            "pid.md#another-process-holds-the-memory",
        ),
        (
            "timestamp",
            "2025-03-04T11:22:33.456Z nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory",
            "timestamp.md#the-runtime-cannot-load-nvml",
        ),
        (
            "rank prefix",
            "[rank7]:[E0304 11:22:33.123456789 ProcessGroupNCCL.cpp:688] [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE) ran for 1800321 milliseconds before timing out.",
            "rank.md#collective-timed-out",
        ),
    ];
    let mut wrong = Vec::new();
    for (pattern, query, want) in cases {
        let got = places(&index.query(query, 3));
        if got.first().map(String::as_str) != Some(want) {
            wrong.push(format!("{pattern}: want {want}, got {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// CMake's message is its indented body; its header only says where. A
/// configure log that names a compiler path that does not exist is
/// answered by the section on CMake not finding the CUDA compiler.
#[test]
fn a_pasted_cmake_error_is_answered_by_its_body() {
    let index = shipped();
    let log = "\
-- The CXX compiler identification is GNU 12.3.0
-- The CUDA compiler identification is unknown
CMake Error at CMakeLists.txt:3 (project):
  The CMAKE_CUDA_COMPILER:

    /usr/local/cuda-12.6/bin/nvcc

  is not a full path to an existing compiler tool.

  Tell CMake where to find the compiler by setting either the environment
  variable \"CUDACXX\" or the CMake cache entry CMAKE_CUDA_COMPILER to the full
  path to the compiler, or to the compiler name if it is in the PATH.


-- Configuring incomplete, errors occurred!
";
    let hits = index.query(log, 3);
    assert!(
        hits.first()
            .is_some_and(|h| h.anchor == "no-cmake_cuda_compiler-could-be-found"),
        "{:?}",
        hits.iter().map(|h| &h.anchor).collect::<Vec<_>>()
    );
}

/// A compute-sanitizer report repeats one finding per thread under
/// `========= ` prefixes; the finding, not the last details (addresses,
/// host frames), is what lore searches for.
#[test]
fn a_pasted_sanitizer_report_is_searched_by_its_finding() {
    let index = shipped();
    let mut log = String::from("========= COMPUTE-SANITIZER\n");
    for t in 0..3 {
        log.push_str(&format!(
            "========= Uninitialized __global__ memory read of size 4 bytes\n\
             =========     at add_one(const float *, float *)+0x80 in add.cu:7\n\
             =========     by thread ({t},0,0) in block (0,0,0)\n\
             =========     Address 0x7f52a4600{t}0\n\
             =========     Saved host backtrace up to driver entry point at kernel launch time\n\
             =========         Host Frame: main [0x91c4] in add\n\
             ========= \n"
        ));
    }
    log.push_str("========= ERROR SUMMARY: 3 errors\n");
    let searched = lore::search::query::parse(&log).searched;
    assert!(
        searched
            .iter()
            .any(|l| l.contains("Uninitialized __global__ memory read")),
        "{searched:?}"
    );
    assert!(
        !searched.iter().any(|l| l.contains("Saved host backtrace")),
        "{searched:?}"
    );
    let hits = index.query(&log, 3);
    assert!(
        hits.first()
            .is_some_and(|h| h.path.starts_with("cuda/12-kernel-debugging")),
        "{:?}",
        hits.iter()
            .map(|h| (&h.path, &h.anchor))
            .collect::<Vec<_>>()
    );
}

/// Pattern: a family of messages that share their words (`<library>:
/// cannot open shared object file: No such file or directory`), one section
/// per library. A section that quotes the family's words for another
/// library must not beat the one about the library the message names,
/// which explains it in its own words: the words the family shares side by
/// side count by how few sections hold them so.
#[test]
fn the_shared_words_of_a_message_family_do_not_outrank_the_name_it_carries() {
    let dir = tempfile::tempdir().unwrap();
    for lib in [
        "libcudart.so.12",
        "libcublas.so.12",
        "libcublasLt.so.12",
        "libcudnn.so.9",
        "libcudnn_ops.so.9",
        "libnccl.so.2",
        "libnvrtc.so.12",
        "libcufft.so.11",
        "libcurand.so.10",
        "libcusparse.so.12",
        "libcusolver.so.11",
        "libnvJitLink.so.12",
        "libcupti.so.12",
        "libnvToolsExt.so.1",
        "libcuda.so.1",
        "libnvidia-ml.so.1",
        "libcudart.so.11.0",
        "libcublas.so.11",
        "libcudnn.so.8",
        "libnccl.so.1",
        "libtorch_cuda.so",
        "libc10_cuda.so",
        "libcaffe2_nvrtc.so",
        "libnvinfer.so.10",
    ] {
        let name = lib.replace('.', "-");
        write(
            dir.path(),
            &format!("libs/{name}.md"),
            &format!(
                "# {name}\n\n## ImportError: {lib}: cannot open shared object file\n\n\
                 ```text\nImportError: {lib}: cannot open shared object file: No such file or directory\n```\n\n\
                 The loader did not find {lib}. Install the package that ships it, or put its \
                 folder on the loader's search path.\n"
            ),
        );
    }
    rare_words_among_other_notes(dir.path());
    write(
        dir.path(),
        "libs/profiling.md",
        "# Profiling libraries\n\n## What a CUPTI install contains: libnvperf_host\n\n\
         | file | what it is |\n| --- | --- |\n\
         | libcupti.so | the tracing library |\n\
         | libnvperf_host.so | the range profiler's host side; an import fails without it |\n\
         | libnvperf_target.so | the range profiler's target side |\n\n\
         A slim image that copied libcupti alone cannot open a profiling session: copy \
         libnvperf_host.so and libnvperf_target.so with it, the whole CUPTI lib folder.\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let (_, hits) = open(
        dir.path(),
        cache.path(),
        "ImportError: libnvperf_host.so: cannot open shared object file: No such file or directory",
    );
    assert_eq!(
        hits.first().map(String::as_str),
        Some("libs/profiling.md"),
        "{hits:?}"
    );
}

/// Pattern: a question asked in the user's own words that one section's
/// author expected (its questions block), while another section uses
/// more of the question's words in its text. The section whose single
/// question the user's question holds comes first.
#[test]
fn a_question_that_a_section_expected_finds_that_section() {
    let dir = tempfile::tempdir().unwrap();
    rare_words_among_other_notes(dir.path());
    write(
        dir.path(),
        "containers/images.md",
        "# Container images\n\n## nvidia-smi inside the container shows the host's GPUs\n\n<!-- questions\n\
         - Which nvidia/cuda image tag should I pick?\n\
         - Is a devel image needed to run a model?\n-->\n\n\
         Inside the container, nvidia-smi shows what the host gives it: run nvidia-smi on the \
         host and inside the container to compare. The CUDA version of the image must not be \
         newer than the host driver allows; check the CUDA version on the host with nvidia-smi \
         and pick an image whose CUDA version is at most that.\n",
    );
    write(
        dir.path(),
        "containers/driver.md",
        "# The driver in a container\n\n## Whose number the header shows\n\n<!-- questions\n\
         - Why does nvidia-smi show a different CUDA version in the container than on the host?\n\
         - Does the container ship its own driver?\n-->\n\n\
         The number in the header is the newest runtime the mounted kernel module supports; \
         the toolkit inside may be older.\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let (_, hits) = open(
        dir.path(),
        cache.path(),
        "why does nvidia-smi show another CUDA version inside my container than on the host?",
    );
    assert_eq!(
        hits.first().map(String::as_str),
        Some("containers/driver.md"),
        "{hits:?}"
    );
}

/// 300 short notes on other topics, so that the words of a test's own
/// sections are as rare as in a real knowledge base (in a corpus of two
/// sections every word is common, and only adds to rarer ones).
fn rare_words_among_other_notes(dir: &Path) {
    let topics = [
        "stream", "kernel", "graph", "driver", "image", "wheel", "compiler", "cache",
    ];
    for i in 0..300 {
        let topic = topics[i % topics.len()];
        write(
            dir,
            &format!("other/{i:03}.md"),
            &format!(
                "# Note {i}\n\n## About the {topic} {i}\n\nHow the {topic} behaves in case {i}, with no error at import.\n"
            ),
        );
    }
}

/// Pattern: a pasted log whose hint lines speak in the first person
/// (torch's `For extended logs when we create symbols, …`), which makes the
/// paste read as a question. Its hints must not pull in a section whose
/// question they happen to hold: the section quoting the error comes first.
#[test]
fn a_pasted_log_that_says_we_is_not_matched_against_section_questions() {
    let dir = tempfile::tempdir().unwrap();
    rare_words_among_other_notes(dir.path());
    write(
        dir.path(),
        "export/guards.md",
        "# Export\n\n## Data-dependent expressions in torch.export\n\n<!-- questions\n\
         - Why does export fail on a branch over a tensor's value?\n\
         - What does a data-dependent guard mean?\n-->\n\n\
         Could not guard means the exported program met a Python `if` over a value computed from \
         a tensor (`u0`), which cannot be traced: rewrite the branch with `torch.cond`.\n",
    );
    write(
        dir.path(),
        "export/logging.md",
        "# Logging\n\n## Extended symbol logs\n\n<!-- questions\n\
         - How do we get extended logs when we create symbols?\n\
         - Which variable adds extended debug output for symbol creation?\n-->\n\n\
         Set the variable named in the hint to print where each symbol was created.\n",
    );
    let cache = tempfile::tempdir().unwrap();
    let (_, hits) = open(
        dir.path(),
        cache.path(),
        "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression Eq(u0, 1)\n\
         For extended logs when we create symbols, also add TORCHDYNAMO_EXTENDED_DEBUG_CREATE_SYMBOL=\"u0\"\n",
    );
    assert_eq!(
        hits.first().map(String::as_str),
        Some("export/guards.md"),
        "{hits:?}"
    );
}

/// A pasted `libcublas.so.12: cannot open shared object file` shares every
/// word but one with a section on TensorRT's `libnvinfer.so.N: cannot open
/// shared object file`, which the shipped knowledge ranked first for it. A
/// section whose heading names only other libraries explains another
/// message and ranks below one about the library the line names; another
/// version of the same library is the same failure and keeps its place.
#[test]
fn a_missing_library_line_ranks_sections_about_that_library_first() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "trt.md",
        "# TensorRT\n\n## ImportError: libnvinfer.so.N: cannot open shared object file\n\n\
         ImportError: libnvinfer.so.10: cannot open shared object file: No such file or directory.\n\
         TensorRT also needs cuBLAS (libcublas) at import; the import fails when a library\n\
         cannot be opened.\n",
    );
    write(
        dir.path(),
        "wheels.md",
        "# Wheels\n\n## Which wheel ships a CUDA library\n\n\
         The import cannot open shared object file libcublas.so.12 (No such file or\n\
         directory): it comes from nvidia-cublas-cu12, and torch installed with --no-deps\n\
         leaves it out.\n",
    );
    write(
        dir.path(),
        "cudart.md",
        "# Runtime\n\n## ImportError: libcudart.so.11.0: cannot open shared object file\n\n\
         ImportError: libcudart.so.11.0: cannot open shared object file: No such file or\n\
         directory: a package built for CUDA 11 in an environment with CUDA 12 only.\n",
    );
    let (index, _) = SearchIndex::build_in_memory(&Corpus::load(&overlay(dir.path()))).unwrap();
    let first = |q: &str| {
        let hits = index.query(q, 5);
        format!("{}#{}", hits[0].path, hits[0].anchor)
    };
    assert_eq!(
        first(
            "ImportError: libcublas.so.12: cannot open shared object file: No such file or directory"
        ),
        "wheels.md#which-wheel-ships-a-cuda-library"
    );
    assert_eq!(
        first(
            "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory"
        ),
        "cudart.md#importerror-libcudartso110-cannot-open-shared-object-file"
    );
}

/// `No module named 'torch'`, pasted bare, is the flash-attn build-isolation
/// failure the bundled knowledge explains under that very message; the
/// section on `No module named 'mmcv._ext'` (another module Python could not
/// import) had come first on its words and its many mentions of torch.
#[test]
fn a_missing_module_line_ranks_the_section_about_that_module_first() {
    let index = shipped();
    let hits = index.query("ModuleNotFoundError: No module named 'torch'", 5);
    assert_eq!(
        places(&hits)[0],
        "cuda/30-cuda-extension-build-errors.md#modulenotfounderror-no-module-named-torch-while-pip-builds-flash-attn",
        "{:#?}",
        places(&hits)
    );
    let mmcv = places(&hits)
        .iter()
        .position(|p| p.ends_with("#modulenotfounderror-no-module-named-mmcv_ext"));
    // Still found, below: the words are the same message's.
    assert!(mmcv.is_some_and(|at| at > 0), "{:#?}", places(&hits));
    // The mmcv line keeps its own section first.
    let hits = index.query("ModuleNotFoundError: No module named 'mmcv._ext'", 5);
    assert!(places(&hits)[0].ends_with("#modulenotfounderror-no-module-named-mmcv_ext"));
}

/// A `libcudart.so.10.1` line from an old package is the same failure as the
/// `libcudart.so.11.0` one a section quotes: another major of the same
/// library is not lowered the way another library is. The generic loader
/// section scores within 0.6 of it, so lowering other majors again (the
/// factor another library gets) would put the generic section first.
#[test]
fn another_major_of_the_missing_library_still_ranks_its_section_first() {
    let mut files = vec![
        (
            "cudart.md".to_string(),
            "# Runtime\n\n## ImportError: libcudart.so.11.0: cannot open shared object file\n\n\
             ImportError: libcudart.so.11.0: cannot open shared object file: No such file or\n\
             directory: a package built for CUDA 11 in an environment with CUDA 12 only.\n"
                .to_string(),
        ),
        (
            "loader.md".to_string(),
            "# Loader\n\n## ImportError: cannot open shared object file: No such file or directory\n\n\
             The dynamic loader found no file of that name on its search path (LD_LIBRARY_PATH,\n\
             RPATH, ld.so.cache): libcudart or any other library.\n"
                .to_string(),
        ),
    ];
    // Unrelated pages, so the message's words are not in every document.
    for i in 1..=8 {
        files.push((
            format!("topic{i}.md"),
            format!("# Topic {i}\n\n## Section {i}\n\nDocker build cache step {i}, apt packages and layers.\n"),
        ));
    }
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let (_dir, index) = index_of(&files);
    let hits = index.query(
        "ImportError: libcudart.so.10.1: cannot open shared object file: No such file or directory",
        5,
    );
    assert_eq!(
        places(&hits)[..2],
        [
            "cudart.md#importerror-libcudartso110-cannot-open-shared-object-file",
            "loader.md#importerror-cannot-open-shared-object-file-no-such-file-or-directory"
        ],
        "{hits:#?}"
    );
    assert!(hits[1].score > 0.6 * hits[0].score, "{hits:#?}");
}

/// A Hugo page (docs.docker.com) has its title in its front matter and no
/// `# H1`: its exact title finds the page itself, and its hits read
/// `Title › Section` with that title, not the file's name (`_index`).
#[test]
fn a_hugo_pages_front_matter_title_is_searched_and_heads_its_hits() {
    let (_dir, index) = index_of(&[
        (
            "install/_index.md",
            "---\ntitle: Install Docker Engine\nlinkTitle: Install\n---\n\nPick your distro: Ubuntu, Debian or Fedora.\n",
        ),
        (
            "install/ubuntu.md",
            "---\ntitle: Install Docker Engine on Ubuntu\n---\n## Uninstall old versions\n\nRemove the distro's packages first.\n",
        ),
        (
            "containers/gpu.md",
            "+++\ntitle = \"GPU access\"\n+++\n\n## Access an NVIDIA GPU\n\nPass `--gpus all` to docker run.\n",
        ),
    ]);
    let hits = index.query("Install Docker Engine on Ubuntu", 5);
    assert_eq!(places(&hits)[0], "install/ubuntu.md#", "{hits:#?}");
    assert_eq!(hits[0].heading, "Install Docker Engine on Ubuntu");
    assert_eq!(hits[0].title, "Install Docker Engine on Ubuntu");
    assert_eq!(hits[0].line, 1);
    let hits = index.query("gpus all", 5);
    assert_eq!(places(&hits)[0], "containers/gpu.md#access-an-nvidia-gpu");
    assert_eq!(hits[0].heading, "GPU access › Access an NVIDIA GPU");
    let hits = index.query("Install Docker Engine", 5);
    assert_eq!(hits[0].title, "Install Docker Engine", "{hits:#?}");
    assert!(hits.iter().all(|h| h.title != "_index"), "{hits:#?}");
}

/// What a reader never sees is never a match or a snippet: HTML comments
/// (docker/cli's `<!---MARKER_GEN_START-->`, licence headers, notes inside a
/// sentence) and Hugo shortcode lines (`{{< tabs >}}`). A section's
/// questions block, a comment too, is still searched as its questions.
#[test]
fn html_comments_and_shortcode_lines_are_not_searched() {
    let (_dir, index) = index_of(&[(
        "container_run.md",
        "# docker container run\n\n<!---MARKER_GEN_START-->\nCreate and run a new container from an image\n\n<!--\n  Licensed under the Apache License.\n-->\n\n## Options\n\n<!-- questions\n- How do I launch a container from an image?\n- Which flag runs a container detached?\n-->\n\nRun it <!-- TODO: zebrafish --> detached with `-d`.\n\n{{< tabs >}}\n{{< tab name=\"Linux\" >}}\nOn Linux, `--gpus all` works.\n{{< /tab >}}\n{{< /tabs >}}\n",
    )]);
    for hidden in ["MARKER_GEN_START", "Apache License", "zebrafish", "tabs"] {
        let hits = index.query(hidden, 5);
        assert!(hits.is_empty(), "{hidden} was found: {hits:#?}");
    }
    let hits = index.query("create and run a new container", 5);
    assert_eq!(places(&hits)[0], "container_run.md#docker-container-run");
    assert_eq!(
        hits[0].snippet,
        "Create and run a new container from an image"
    );
    let hits = index.query("which flag runs a container detached", 5);
    assert_eq!(places(&hits)[0], "container_run.md#options");
    assert_eq!(
        hits[0].question.as_deref(),
        Some("Which flag runs a container detached?")
    );
    let hits = index.query("detached", 5);
    assert_eq!(hits[0].snippet, "Run it detached with -d.", "{hits:#?}");
}
