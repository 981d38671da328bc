//! `--dockerfile -`: the Dockerfile read from standard input, as `docker
//! build -f -` reads it. Users pipe one out of git (`git show
//! main:Dockerfile | lore probe --dockerfile -`), from a heredoc or over SSH.
//! The facts are those of the same file given by path, with `<stdin>` where
//! the evidence names the file; stdin that is empty, not UTF-8 or a terminal
//! is a usage error (exit 2), never a hang.

mod common;
#[path = "common/pty.rs"]
mod pty;

use std::fs;

use common::{home, lore};
use serde_json::Value;

/// A multi-stage build as a team keeps it: a builder stage that installs
/// torch from the cu126 index and builds a wheel, a runtime stage that
/// copies it.
const MULTI_STAGE: &str = "\
# syntax=docker/dockerfile:1
FROM nvidia/cuda:12.6.3-cudnn-devel-ubuntu22.04 AS build
RUN apt-get update && apt-get install -y python3-pip
RUN pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cu126
COPY . /src
RUN cd /src && pip wheel --no-deps -w /wheels .

FROM nvidia/cuda:12.6.3-cudnn-runtime-ubuntu22.04
COPY --from=build /wheels /wheels
ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64
RUN pip install torch==2.6.0 --index-url https://download.pytorch.org/whl/cu126 && pip install /wheels/*.whl
";

fn run(args: &[&str], stdin: Option<&[u8]>) -> (i32, String, String) {
    let home = home();
    let mut cmd = lore(&home);
    cmd.args(args);
    if let Some(bytes) = stdin {
        cmd.write_stdin(bytes.to_vec());
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn json(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn a_multi_stage_dockerfile_piped_from_git_show_gives_the_facts_of_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Dockerfile");
    fs::write(&path, MULTI_STAGE).unwrap();
    let file = path.display().to_string();

    let (code, by_path, err) = run(&["probe", "--dockerfile", &file, "--json"], None);
    assert_eq!(code, 0, "{err}");
    let (code, by_stdin, err) = run(
        &["probe", "--dockerfile", "-", "--json"],
        Some(MULTI_STAGE.as_bytes()),
    );
    assert_eq!(code, 0, "{err}");
    let (by_path, by_stdin) = (json(&by_path), json(&by_stdin));
    assert_eq!(
        by_stdin["probed"], "the Dockerfile from stdin",
        "{by_stdin}"
    );
    // Same facts, the evidence naming `<stdin>` where it named the file.
    let named = |v: &Value, name: &str| {
        serde_json::to_string(&v["facts"])
            .unwrap()
            .replace(name, "FILE")
    };
    assert_eq!(named(&by_stdin, "<stdin>"), named(&by_path, &file));
    let torch = common::facts(&by_stdin, "dockerfile.torch");
    assert!(!torch.is_empty(), "{by_stdin}");
    assert!(
        torch.iter().any(|(v, _)| v.contains("a CUDA build")),
        "{torch:?}"
    );
    assert!(
        torch
            .iter()
            .flat_map(|(_, e)| e)
            .any(|e| e.starts_with("<stdin>:4")),
        "{torch:?}"
    );

    // As text too: the header says where the file came from.
    let (code, text, _) = run(
        &["probe", "--dockerfile", "-"],
        Some(MULTI_STAGE.as_bytes()),
    );
    assert_eq!(code, 0);
    assert!(
        text.starts_with("Probed the Dockerfile from stdin:"),
        "{text}"
    );
    assert!(text.contains("<stdin>:8"), "{text}");
}

#[test]
fn decide_probe_reads_a_dockerfile_from_a_heredoc() {
    let (code, out, err) = run(
        &[
            "decide",
            "need-cupti",
            "--probe",
            "--dockerfile",
            "-",
            "--json",
        ],
        Some(MULTI_STAGE.as_bytes()),
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Dockerfile");
    fs::write(&path, MULTI_STAGE).unwrap();
    let file = path.display().to_string();
    let (code_file, out_file, _) = run(
        &[
            "decide",
            "need-cupti",
            "--probe",
            "--dockerfile",
            &file,
            "--json",
        ],
        None,
    );
    assert_eq!(code, code_file, "{err}");
    assert_eq!(
        out.replace("<stdin>", "FILE")
            .replace("the Dockerfile from stdin", "the Dockerfile FILE"),
        out_file.replace(&file, "FILE")
    );
    assert!(out.contains("<stdin>:"), "{out}");
}

#[test]
fn diagnose_reads_the_dockerfile_from_stdin_but_not_the_query_too() {
    let (code, out, err) = run(
        &[
            "diagnose",
            "--dockerfile",
            "-",
            "--json",
            "ImportError: libcupti.so.12: cannot open shared object file",
        ],
        Some(MULTI_STAGE.as_bytes()),
    );
    assert!(code == 0 || code == 1, "{code} {err}");
    assert_eq!(json(&out)["probed"], "the Dockerfile from stdin", "{out}");

    let (code, _, err) = run(
        &["diagnose", "--dockerfile", "-", "-"],
        Some(MULTI_STAGE.as_bytes()),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("stdin"), "{err}");
}

#[test]
fn empty_or_non_utf8_stdin_is_a_usage_error() {
    let (code, out, err) = run(&["probe", "--dockerfile", "-"], Some(b""));
    assert_eq!(code, 2, "{out}");
    assert!(
        err.contains("--dockerfile -: standard input is empty"),
        "{err}"
    );

    // Latin-1, as an old editor saves a comment with an accent.
    let latin1 = b"FROM ubuntu:22.04\n# caf\xe9\nRUN pip install torch\n";
    let (code, _, err) = run(&["probe", "--dockerfile", "-"], Some(latin1));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not UTF-8"), "{err}");
    assert!(err.contains("line 2"), "{err}");
}

#[test]
fn the_tui_refuses_a_dockerfile_on_stdin() {
    let (code, _, err) = run(&["--dockerfile", "-"], Some(MULTI_STAGE.as_bytes()));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--dockerfile -"), "{err}");
    assert!(err.contains("terminal UI"), "{err}");
}

/// `lore probe --dockerfile -` typed at a prompt with nothing piped in
/// would wait for a Dockerfile typed by hand; it says what to do instead.
#[test]
fn a_terminal_on_stdin_is_refused_not_waited_on() {
    let home = home();
    let mut term = pty::Pty::spawn(&home, &["probe", "--dockerfile", "-"], 100, 20);
    let status = term.wait_exit();
    assert_eq!(status.exit_code(), 2, "{}", term.screen());
    let screen = term.screen();
    assert!(screen.contains("standard input is a terminal"), "{screen}");
}
