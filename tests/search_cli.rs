//! `lore search` and `lore index` as a user runs them: output shape, JSON,
//! exit codes, stdin, colour, the cache under LORE_HOME, concurrent runs.

mod common;

use std::io::Write;
use std::process::Stdio;

use common::{home, lore};

const CUPTI_ERROR: &str = "ImportError: libcupti.so.12: cannot open shared object file";

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The `path:line  heading` lines of plain output.
fn hit_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| !l.starts_with(' ')).collect()
}

#[test]
fn a_pasted_cupti_error_lists_the_cupti_sections_first() {
    let home = home();
    let out = lore(&home).args(["search", CUPTI_ERROR]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = stdout_of(&out);
    assert!(!stdout.contains('\u{1b}'), "no colour off a terminal");
    let hits = hit_lines(&stdout);
    assert_eq!(hits.len(), 10, "{stdout}");
    for line in &hits[..3] {
        assert!(line.contains("CUPTI"), "{line}\n{stdout}");
    }
    // `path:line  Title › Section`, then an indented snippet.
    let first = hits[0];
    let (location, heading) = first
        .split_once("  ")
        .expect("two spaces after the location");
    let (path, line) = location.rsplit_once(':').unwrap();
    assert!(path.ends_with(".md"), "{path}");
    assert!(line.parse::<usize>().unwrap() >= 1);
    assert!(heading.contains(" › "), "{heading}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(
        lines[1].starts_with("    ") && lines[1].contains("libcupti.so.12"),
        "{}",
        lines[1]
    );
}

#[test]
fn json_output_has_the_documented_fields() {
    let home = home();
    let out = lore(&home)
        .args(["search", "--json", "--limit", "3", "TORCH_CUDA_ARCH_LIST"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let hits = hits.as_array().expect("an array");
    assert_eq!(hits.len(), 3);
    for hit in hits {
        for key in ["path", "anchor", "title", "heading", "kind", "snippet"] {
            assert!(hit[key].is_string(), "{key} in {hit}");
        }
        assert!(hit["line"].as_u64().unwrap() >= 1);
        assert!(hit["score"].as_f64().unwrap() > 0.0);
        assert!(["knowledge", "drop", "index"].contains(&hit["kind"].as_str().unwrap()));
        for range in hit["highlights"].as_array().unwrap() {
            let snippet = hit["snippet"].as_str().unwrap();
            let end = range[1].as_u64().unwrap() as usize;
            assert!(end <= snippet.len());
        }
    }
}

#[test]
fn flags_go_before_or_after_the_query_and_dashes_after_two_dashes() {
    let home = home();
    let out = lore(&home)
        .args(["search", "cupti", "--json", "-n", "2"])
        .output()
        .unwrap();
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(hits.as_array().unwrap().len(), 2);
    let out = lore(&home)
        .args(["search", "-n", "1", "--", "--mount=type=cache"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stdout_of(&out).contains("--mount=type=cache"),
        "{}",
        stdout_of(&out)
    );
}

/// No match: exit 1 and nothing on stdout, like grep; a person who ran it
/// by hand is told so on stderr (it used to print nothing at all). JSON
/// gives `[]` and no message.
#[test]
fn no_match_exits_1_like_grep() {
    let home = home();
    let out = lore(&home).args(["search", "qqqqxzzzv"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "lore: no section matches this query; try other words, or `lore list` to browse\n"
    );
    let out = lore(&home)
        .args(["search", "--json", "qqqqxzzzv"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_of(&out).trim(), "[]");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_dash_reads_a_pasted_log_from_stdin() {
    let home = home();
    let mut log = String::new();
    for i in 0..50 {
        log.push_str(&format!("#7 {i}.5 Reading package lists... {i}%\n"));
    }
    log.push_str("#7 12.9 E: Unable to locate package cuda-toolkit-12-4\n");
    let out = lore(&home)
        .args(["search", "--limit", "3", "-"])
        .write_stdin(log)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = stdout_of(&out);
    assert!(
        hit_lines(&stdout)
            .iter()
            .any(|l| l.starts_with("cuda/23-cuda-installation-methods-comparison.md:")),
        "{stdout}"
    );
}

#[test]
fn kind_and_limit_flags() {
    let home = home();
    let out = lore(&home)
        .args(["search", "--json", "--kind", "drop", "-n", "4", "cupti"])
        .output()
        .unwrap();
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hits = hits.as_array().unwrap();
    assert_eq!(hits.len(), 4);
    assert!(hits.iter().all(|h| h["kind"] == "drop"), "{hits:?}");
    lore(&home)
        .args(["search", "--kind", "nonsense", "cupti"])
        .assert()
        .code(2);
}

#[test]
fn colour_only_when_asked() {
    let home = home();
    let out = lore(&home)
        .args(["search", "--color", "always", "-n", "1", "CUPTI"])
        .output()
        .unwrap();
    let stdout = stdout_of(&out);
    assert!(
        stdout.contains("\u{1b}[1;31m"),
        "matches are marked: {stdout:?}"
    );
    assert!(
        stdout.contains("\u{1b}[35m"),
        "the path is coloured: {stdout:?}"
    );
    let out = lore(&home)
        .args(["search", "--color", "always", "-n", "1", "CUPTI"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        stdout_of(&out).contains('\u{1b}'),
        "--color always beats NO_COLOR"
    );
    let out = lore(&home)
        .args(["search", "-n", "1", "CUPTI"])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(!stdout_of(&out).contains('\u{1b}'));
}

#[test]
fn lore_index_builds_once_then_reports_up_to_date() {
    let home = home();
    let first = lore(&home).arg("index").output().unwrap();
    assert_eq!(first.status.code(), Some(0));
    let first = stdout_of(&first);
    for label in ["documents", "sections", "bytes", "build time", "location"] {
        assert!(first.contains(label), "{label} in {first}");
    }
    assert!(first.contains(" s\n"), "a build time in seconds: {first}");
    assert!(
        first.contains(&home.path().join("cache").display().to_string()),
        "the cache lives under LORE_HOME: {first}"
    );
    let second = stdout_of(&lore(&home).arg("index").output().unwrap());
    assert!(second.contains("up to date"), "{second}");
    let rebuilt = stdout_of(&lore(&home).args(["index", "--rebuild"]).output().unwrap());
    assert!(!rebuilt.contains("up to date"), "{rebuilt}");
}

#[test]
fn an_edited_overlay_file_is_searched_as_it_is_now() {
    let home = home();
    let notes = tempfile::tempdir().unwrap();
    let file = notes.path().join("note.md");
    std::fs::write(&file, "# Note\n\naardvark\n").unwrap();
    let search = |word: &str| {
        lore(&home)
            .args(["--no-builtin", "--knowledge"])
            .arg(notes.path())
            .args(["search", word])
            .output()
            .unwrap()
    };
    assert_eq!(search("aardvark").status.code(), Some(0));
    std::fs::write(&file, "# Note\n\nplatypus instead\n").unwrap();
    assert_eq!(search("platypus").status.code(), Some(0));
    assert_eq!(search("aardvark").status.code(), Some(1));
}

#[test]
fn several_processes_on_a_cold_cache_all_answer() {
    let home = home();
    let children: Vec<_> = (0..3)
        .map(|_| {
            let mut cmd = std::process::Command::new(assert_cmd::cargo::cargo_bin!("lore"));
            cmd.env("LORE_HOME", home.path())
                .env_remove("LORE_KNOWLEDGE")
                .args(["search", "-n", "3", CUPTI_ERROR])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = cmd.spawn().unwrap();
            child.stdin.take().unwrap().flush().unwrap();
            child
        })
        .collect();
    let outputs: Vec<_> = children
        .into_iter()
        .map(|c| c.wait_with_output().unwrap())
        .collect();
    for out in &outputs {
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.stdout, outputs[0].stdout);
    }
}

/// Once an overlay has been still for a while, a search records what it saw
/// and later searches check that record (a stat per file, no walk). An edit
/// that keeps the file's size, a new file and a removed one must all still
/// show at once.
#[test]
fn a_settled_overlay_is_checked_from_its_record_and_still_sees_changes() {
    use std::time::{Duration, SystemTime};
    let home = home();
    let notes = tempfile::tempdir().unwrap();
    let root = notes.path();
    std::fs::create_dir(root.join("sub")).unwrap();
    std::fs::write(root.join("sub/a.md"), "# A\n\naardvark\n").unwrap();
    std::fs::write(root.join("b.md"), "# B\n\nbadger\n").unwrap();
    let settle = |ago: u64| {
        let when = SystemTime::now() - Duration::from_secs(ago);
        for path in [root.join("sub/a.md"), root.join("b.md")] {
            if path.exists() {
                let file = std::fs::File::options().append(true).open(&path).unwrap();
                file.set_modified(when).unwrap();
            }
        }
        for dir in [root.join("sub"), root.to_path_buf()] {
            std::fs::File::open(&dir)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
    };
    let search = |word: &str| {
        let out = lore(&home)
            .args(["--no-builtin", "--knowledge"])
            .arg(root)
            .args(["search", word])
            .output()
            .unwrap();
        (out.status.code(), stdout_of(&out))
    };
    let records = || {
        std::fs::read_dir(home.path().join("cache/search"))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .contains("-sources-")
            })
            .count()
    };
    settle(3600);
    assert_eq!(search("aardvark").0, Some(0));
    assert_eq!(records(), 1, "a settled overlay gets a record");
    assert_eq!(search("badger").0, Some(0), "answered through the record");

    std::fs::write(root.join("sub/a.md"), "# A\n\nplatypus\n").unwrap();
    assert_eq!(
        search("platypus").0,
        Some(0),
        "an in-place edit of the same size"
    );
    assert_eq!(search("aardvark").0, Some(1));

    settle(1800);
    assert_eq!(search("platypus").0, Some(0));
    std::fs::write(root.join("sub/c.md"), "# C\n\ncapybara\n").unwrap();
    let (code, out) = search("capybara");
    assert_eq!(code, Some(0));
    assert!(out.starts_with("sub/c.md:"), "{out}");

    settle(900);
    assert_eq!(search("badger").0, Some(0));
    std::fs::remove_file(root.join("b.md")).unwrap();
    assert_eq!(search("badger").0, Some(1), "a removed file");
}

#[test]
fn json_hits_carry_confidence_and_the_searched_log_lines() {
    let home = home();
    let log = "\
node1:1234:1234 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory
node1:1234:1234 [0] NCCL INFO Failed to open libibverbs.so[.1]
node1:1234:1300 [0] NCCL WARN Call to connect returned Connection timed out, retrying
[rank0]:[E ProcessGroupNCCL.cpp:616] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600035 milliseconds before timing out.
";
    let out = lore(&home)
        .args(["search", "--json", "--limit", "3", "-"])
        .write_stdin(log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hits = hits.as_array().expect("--json is still an array of hits");
    assert_eq!(hits.len(), 3);
    let searched: Vec<&str> = hits[0]["searched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    assert_eq!(searched.len(), 2, "{searched:?}");
    assert!(searched[0].contains("NCCL WARN") && searched[1].contains("Watchdog"));
    assert!(
        !hits[0]["path"].as_str().unwrap().contains("cupti"),
        "NCCL's harmless plugin lines no longer pull CUPTI sections up: {hits:?}"
    );
    assert!(hits[0]["confident"].as_bool().unwrap());
    assert!(hits[0]["confidence"].as_f64().unwrap() > 0.45);
}

#[test]
fn a_query_the_knowledge_cannot_answer_is_called_weak() {
    let home = home();
    let out = lore(&home)
        .args([
            "search",
            "npm ERR! code ERESOLVE unable to resolve dependency tree",
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the closest hits are still listed"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no section answers this confidently; closest:"),
        "{stderr}"
    );
    let out = lore(&home).args(["search", CUPTI_ERROR]).output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("confidently"));
    let out = lore(&home)
        .args([
            "search",
            "--json",
            "npm ERR! code ERESOLVE unable to resolve dependency tree",
        ])
        .output()
        .unwrap();
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(hits[0]["confident"], serde_json::Value::Bool(false));
}

#[test]
fn a_10_mb_paste_is_searched_by_its_last_megabyte() {
    let home = home();
    let mut log = Vec::new();
    let mut i = 0;
    while log.len() < 10 << 20 {
        log.extend_from_slice(
            format!("Get:{i} http://archive.ubuntu.com/ubuntu jammy/main amd64 pkg-{i} [1 kB]\n")
                .as_bytes(),
        );
        i += 1;
    }
    log.extend_from_slice(b"\xff\xfe not UTF-8 \xc3\n");
    log.extend_from_slice(b"E: Unable to locate package cuda-toolkit-12-4\n");
    let out = lore(&home)
        .args(["search", "--limit", "3", "-"])
        .write_stdin(log)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("searching its last MB"), "{stderr}");
    assert!(
        hit_lines(&stdout_of(&out))
            .iter()
            .any(|l| l.starts_with("cuda/23-cuda-installation-methods-comparison.md:")),
        "{}",
        stdout_of(&out)
    );
}

/// Chinese, Japanese and Korean are written without spaces: a few
/// characters from the middle of a run find the section, best first, and
/// English words around them still work.
#[test]
fn cjk_characters_are_found_inside_a_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("ja.md"),
        "# ビルドのメモ\n\n## キャッシュ\n\nこれはDockerのビルドキャッシュを使う方法です。\n\n## 別の話\n\n関係のない文章。\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("zh.md"),
        "# 笔记\n\n## 安装\n\n使用预编译的二进制文件安装驱动程序。\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ko.md"),
        "# 메모\n\n## 설치\n\n드라이버를 설치하는 방법입니다.\n",
    )
    .unwrap();
    let home = home();
    let first_hit = |query: &str| {
        let out = lore(&home)
            .args(["search", "--no-builtin", "--knowledge"])
            .arg(dir.path())
            .arg(query)
            .output()
            .unwrap();
        let stdout = stdout_of(&out);
        assert_eq!(out.status.code(), Some(0), "{query}: {stdout}");
        hit_lines(&stdout)[0].to_string()
    };
    assert!(first_hit("キャッシュ").starts_with("ja.md:3"), "katakana");
    assert!(first_hit("二进制").starts_with("zh.md:3"), "han");
    assert!(first_hit("드라이버").starts_with("ko.md:3"), "hangul");
    assert!(first_hit("Docker ビルド").starts_with("ja.md:3"), "mixed");
    assert!(first_hit("驱").starts_with("zh.md:3"), "one character");
}

/// GNOME Terminal and other VTE terminals, and tmux's paste, send a carriage
/// return for each line break; a log saved on Windows ends its lines in
/// CRLF. `lore search -` triages such a log line by line, as it does one
/// with line feeds, and finds the same sections.
/// A build log whose failing line is a missing architecture, as BuildKit
/// prints it.
const ARCH_LOG: [&str; 5] = [
    "#8 [4/6] RUN python setup.py build_ext",
    "#8 1.402 running build_ext",
    "#8 3.118 building 'my_ext' extension",
    "#8 5.713 nvcc fatal   : Unsupported gpu architecture 'compute_35'",
    "#8 ERROR: process \"/bin/sh -c python setup.py build_ext\" did not complete successfully: exit code: 1",
];

/// `lore search --json -` of `bytes`: the lines searched and the first hits.
fn searched_and_hits(home: &tempfile::TempDir, bytes: Vec<u8>) -> (Vec<String>, Vec<String>) {
    let out = lore(home)
        .args(["search", "--json", "--limit", "5", "-"])
        .write_stdin(bytes)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hits = hits.as_array().unwrap().clone();
    let searched: Vec<String> = hits[0]["searched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap().to_string())
        .collect();
    let places: Vec<String> = hits
        .iter()
        .map(|h| format!("{}#{}", h["path"], h["anchor"]))
        .collect();
    (searched, places)
}

#[test]
fn a_log_with_carriage_returns_for_line_breaks_is_triaged_by_line() {
    let home = home();
    let (lf_searched, lf_hits) = searched_and_hits(&home, ARCH_LOG.join("\n").into_bytes());
    assert_eq!(lf_searched.len(), 2, "{lf_searched:?}");
    assert!(lf_searched[0].contains("Unsupported gpu architecture"));
    for newline in ["\r", "\r\n"] {
        let (searched, hits) = searched_and_hits(&home, ARCH_LOG.join(newline).into_bytes());
        assert_eq!(searched, lf_searched, "lines ended by {newline:?}");
        assert_eq!(hits, lf_hits, "lines ended by {newline:?}");
    }
}

/// Windows PowerShell 5 saves `docker build . > build.log` as UTF-16 with a
/// byte-order mark; piped to `lore search -` on WSL it was read as UTF-8,
/// every other byte a NUL, and an unrelated section came first. Coloured
/// output saved whole (a TTY's `docker build`, pytest) holds SGR codes,
/// which were echoed in the `searched` lines. Both read as the plain log.
#[test]
fn a_utf16_or_coloured_log_reads_as_the_plain_log() {
    let home = home();
    let plain = ARCH_LOG.join("\r\n");
    let (want_searched, want_hits) = searched_and_hits(&home, plain.clone().into_bytes());
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(plain.encode_utf16().flat_map(u16::to_le_bytes));
    let coloured = plain
        .replace("nvcc fatal", "\x1b[1m\x1b[31mnvcc fatal\x1b[0m")
        .replace("#8 ERROR", "\x1b[31m#8 ERROR\x1b[0m");
    for (what, bytes) in [("UTF-16", utf16), ("coloured", coloured.into_bytes())] {
        let (searched, hits) = searched_and_hits(&home, bytes);
        assert_eq!(searched, want_searched, "{what}");
        assert_eq!(hits, want_hits, "{what}");
    }
}

/// Issue #25: `confidence` is the estimated probability that the hit answers
/// the query. Every hit's is a number from 0 to 1; a message the knowledge
/// quotes (a `libcupti` import error, `no kernel image is available`) is
/// answered confidently and gets no notice, while an npm error and a CSS
/// question, which no section answers, get `no section answers this
/// confidently` and a first hit that is not `confident`.
#[test]
fn json_confidence_is_a_probability_and_the_notice_follows_it() {
    let home = home();
    let json = |query: &str| -> Vec<serde_json::Value> {
        let out = lore(&home)
            .args(["search", "--json", "--limit", "5", query])
            .output()
            .unwrap();
        let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        hits.as_array().expect("an array of hits").clone()
    };
    let notice = |query: &str| {
        let out = lore(&home).args(["search", query]).output().unwrap();
        String::from_utf8_lossy(&out.stderr).contains("no section answers this confidently")
    };
    let quoted = [
        CUPTI_ERROR,
        "RuntimeError: CUDA error: no kernel image is available for execution on the device",
    ];
    let unanswered = [
        "npm ERR! code ERESOLVE unable to resolve dependency tree",
        "how do I center a div in css",
    ];
    for query in quoted.iter().chain(&unanswered) {
        let hits = json(query);
        assert!(!hits.is_empty(), "{query}");
        for hit in &hits {
            let p = hit["confidence"].as_f64().expect("a number");
            assert!((0.0..=1.0).contains(&p), "{query}: {p}");
            assert_eq!(
                hit["confident"].as_bool(),
                Some(p >= f64::from(lore::search::confidence::THRESHOLD)),
                "{query}"
            );
        }
    }
    for query in quoted {
        assert_eq!(json(query)[0]["confident"].as_bool(), Some(true), "{query}");
        assert!(!notice(query), "{query}");
    }
    for query in unanswered {
        assert_eq!(
            json(query)[0]["confident"].as_bool(),
            Some(false),
            "{query}"
        );
        assert!(notice(query), "{query}");
    }
}

/// A hit found through one of its section's questions says which, under
/// its snippet (`matched the section's question: …`), and `--json` gives
/// it as `question` (null for a hit found by its text).
#[test]
fn a_hit_found_through_a_section_question_says_which() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("gpu.md"),
        "# GPU memory\n\n## Finding which process holds the GPU\n\n<!-- questions\n- What program is hogging my graphics card after a crash?\n- Why does `nvidia-smi` list no processes inside a container?\n-->\n\nInside a container `nvidia-smi` cannot map host PIDs to processes.\n\n## Pinned memory\n\nPinned host memory speeds up copies to the device.\n",
    )
    .unwrap();
    let home = home();
    let search = |args: &[&str]| {
        let out = lore(&home)
            .args(["search", "--no-builtin", "--knowledge"])
            .arg(dir.path())
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stdout_of(&out));
        stdout_of(&out)
    };
    let plain = search(&["program hogging the graphics card"]);
    let lines: Vec<&str> = plain.lines().collect();
    assert!(lines[0].starts_with("gpu.md:3  "), "{plain}");
    assert_eq!(
        lines[2],
        "    matched the section's question: What program is hogging my graphics card after a crash?",
        "{plain}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&search(&["--json", "program hogging the graphics card"])).unwrap();
    assert_eq!(
        json[0]["question"],
        "What program is hogging my graphics card after a crash?"
    );
    let json: serde_json::Value =
        serde_json::from_str(&search(&["--json", "pinned host memory"])).unwrap();
    assert!(json[0]["question"].is_null(), "{json}");
}
