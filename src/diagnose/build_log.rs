//! A pasted container build log: `docker build`, `docker compose build`,
//! `podman build`. Its failure happened inside the image being built, so the
//! files of the machine lore runs on say nothing about it: a host with a
//! toolkit would rule out "no nvcc" for a `RUN` that had none, and a host
//! without torch would rule out "a CPU build of torch" for an image that
//! installed one. This module recognises such a log, reads the command of its
//! failed step, and finds the Dockerfile in a folder that holds that step, so
//! `lore diagnose` (and the TUI's causes) check the build's Dockerfile, or
//! nothing, instead of the machine.
//!
//! Only text is read here, and a Dockerfile's bytes; nothing is run.

use std::path::{Path, PathBuf};

use crate::pasted::strip_ansi;
use crate::probe::{
    DockerfileSource, ProbeOptions, after_run_flags, read_dockerfile, run_commands,
};
use crate::search::query::{strip_leading_marker, strip_source_prefix};

/// What a build log says about its failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildLog {
    /// The failed step's command as the builder ran it (`pip install x`),
    /// when the log says: the shell (`/bin/sh -c`) and `RUN` flags are left
    /// out, whitespace runs are one space.
    pub step: Option<String>,
    /// Dockerfile names the log shows (`Dockerfile.gpu` from BuildKit's
    /// `Dockerfile.gpu:9` above the lines it quotes), relative ones only.
    pub files: Vec<String>,
}

/// Where the causes of a message are checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// What the user named with `--root` or `--dockerfile`. `line`: for a
    /// build log, the given Dockerfile's `RUN` that is its failed step, whose
    /// stage the Dockerfile's facts then describe.
    Given { line: Option<usize> },
    /// This machine: the message is not a build log.
    Machine,
    /// A build log whose failed step is the `RUN` at `line` of this
    /// Dockerfile: it is probed instead of the machine.
    Dockerfile {
        path: PathBuf,
        line: usize,
        step: String,
    },
    /// A build log with no Dockerfile here that holds its failed step:
    /// nothing is probed. `unmatched` lists the Dockerfiles found that do
    /// not hold it.
    Nothing {
        step: Option<String>,
        unmatched: Vec<PathBuf>,
    },
}

/// The Dockerfile names looked for in the folder, after those the log shows.
const USUAL_NAMES: [&str; 3] = ["Dockerfile", "Containerfile", "dockerfile"];
/// Lines of BuildKit's step output (`#12 3.402 …`, `#12 [4/6] RUN …`) that
/// make a paste a build log even without its closing error.
const MIN_STEP_LINES: usize = 2;
/// Kaniko's last error when a `RUN` fails.
const KANIKO_FAILED: &str = "error building stage: failed to execute command";
/// Characters of a step shown in a note.
const SHOWN_STEP: usize = 80;

/// The build log `message` is, if it is one.
pub fn read(message: &str) -> Option<BuildLog> {
    // Kaniko colours its log lines even in CI.
    let message = strip_ansi(message);
    // A log collected by CI or a container runtime has its prefixes on
    // every line (`2026-03-01T14:02:11Z 00O `, `trainer-1  | `): read the
    // builder's own lines.
    let lines: Vec<&str> = message
        .split(['\n', '\r'])
        .map(builder_line)
        .filter(|l| !l.is_empty())
        .collect();
    // The last failure is the build's: a log may hold earlier retries.
    let step = lines
        .iter()
        .rev()
        .find_map(|l| failed_step(l))
        .or_else(|| kaniko_step(&lines));
    let step_lines = lines.iter().filter(|l| is_step_line(l)).count();
    if step.is_none()
        && step_lines < MIN_STEP_LINES
        && !lines
            .iter()
            .any(|l| is_progress(l) || l.contains(KANIKO_FAILED))
    {
        return None;
    }
    let mut files: Vec<String> = Vec::new();
    for pair in lines.windows(2) {
        if pair[1].len() >= 4
            && pair[1].bytes().all(|b| b == b'-')
            && let Some(name) = snippet_file(pair[0])
            && !files.iter().any(|f| f == name)
        {
            files.push(name.to_string());
        }
    }
    Some(BuildLog {
        step: step.map(|s| squeeze(&s)),
        files,
    })
}

/// Where to check the causes of `message`, given what the user asked to
/// probe and the folder to look for its Dockerfile in: the one lore runs in,
/// where `docker build .` usually runs (`Path::new("")` for the current
/// folder, so that the file is named as the user would type it).
pub fn place(message: &str, options: &ProbeOptions, dir: &Path) -> Place {
    if options.root.is_some() || options.dockerfile.is_some() {
        let step = read(message).and_then(|log| log.step);
        let line = match (&options.dockerfile, &step) {
            (Some(DockerfileSource::File(path)), Some(step)) => read_dockerfile(path)
                .ok()
                .and_then(|bytes| step_line(&bytes, step)),
            (Some(DockerfileSource::Stdin(bytes)), Some(step)) => step_line(bytes, step),
            _ => None,
        };
        return Place::Given { line };
    }
    let Some(log) = read(message) else {
        return Place::Machine;
    };
    let mut names: Vec<&str> = log.files.iter().map(String::as_str).collect();
    for usual in USUAL_NAMES {
        if !names.contains(&usual) {
            names.push(usual);
        }
    }
    let mut unmatched = Vec::new();
    for name in names {
        let path = dir.join(name);
        if !path.is_file() {
            continue;
        }
        let Some(step) = &log.step else {
            unmatched.push(path);
            continue;
        };
        let Ok(bytes) = read_dockerfile(&path) else {
            continue;
        };
        match step_line(&bytes, step) {
            Some(line) => {
                return Place::Dockerfile {
                    path,
                    line,
                    step: step.clone(),
                };
            }
            None => unmatched.push(path),
        }
    }
    Place::Nothing {
        step: log.step,
        unmatched,
    }
}

/// The line of the `RUN` in a Dockerfile's text whose command is `step`.
fn step_line(bytes: &[u8], step: &str) -> Option<usize> {
    run_commands(bytes)
        .into_iter()
        .find(|(_, command)| squeeze(command) == step)
        .map(|(line, _)| line)
}

impl Place {
    /// What to probe: `None` when nothing should be.
    pub fn options(&self, given: &ProbeOptions) -> Option<ProbeOptions> {
        match self {
            Place::Given { line } => Some(ProbeOptions {
                dockerfile_line: *line,
                ..given.clone()
            }),
            Place::Machine => Some(given.clone()),
            Place::Dockerfile { path, line, .. } => Some(ProbeOptions {
                root: None,
                dockerfile: Some(DockerfileSource::File(path.clone())),
                dockerfile_line: Some(*line),
            }),
            Place::Nothing { .. } => None,
        }
    }

    /// Why the place is not the machine, in a sentence; `None` when it is
    /// what the user asked for.
    pub fn note(&self) -> Option<String> {
        match self {
            Place::Given { .. } | Place::Machine => None,
            Place::Dockerfile { path, line, step } => Some(format!(
                "the message is a container build log: its failed step `{}` is line {line} of {}, so the causes are checked against that file, not this machine",
                shorten(step),
                path.display()
            )),
            Place::Nothing { step, unmatched } => {
                let mut note = "the message is a container build log, and this machine's files say nothing about the image it builds. Give the build's Dockerfile with `--dockerfile FILE`, or an unpacked image with `--root DIR` (`--root /` checks this machine anyway)".to_string();
                if let Some(step) = step
                    && !unmatched.is_empty()
                {
                    let names: Vec<String> =
                        unmatched.iter().map(|p| p.display().to_string()).collect();
                    note.push_str(&format!(
                        "; {} here does not hold its failed step `{}`",
                        names.join(", "),
                        shorten(step)
                    ));
                }
                Some(note)
            }
        }
    }

    /// `note` in a few words, for the TUI's status line.
    pub fn brief(&self) -> Option<String> {
        match self {
            Place::Given { .. } | Place::Machine => None,
            Place::Dockerfile { path, line, .. } => Some(format!(
                "a build log: checked against {}:{line}, not this machine",
                path.display()
            )),
            Place::Nothing { .. } => Some(
                "a build log: nothing probed, this machine is not its image; start lore with --dockerfile FILE"
                    .to_string(),
            ),
        }
    }

    /// Which later queries the facts probed for this place may judge.
    pub fn scope(&self) -> Scope {
        match self {
            Place::Given { .. } => Scope::Any,
            Place::Machine => Scope::NotBuildLog,
            Place::Dockerfile { step, .. } => Scope::BuildLog(Some(step.clone())),
            Place::Nothing { step, .. } => Scope::BuildLog(step.clone()),
        }
    }
}

/// The queries one probe run's facts apply to (the TUI keeps them across
/// searches): what the user named applies to all; the machine's to every
/// message that is not a build log; a build log's to the logs of the same
/// failed step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Any,
    NotBuildLog,
    BuildLog(Option<String>),
}

impl Scope {
    pub fn applies(&self, message: &str) -> bool {
        match self {
            Scope::Any => true,
            Scope::NotBuildLog => read(message).is_none(),
            Scope::BuildLog(step) => read(message).is_some_and(|log| log.step == *step),
        }
    }
}

/// The command of a failed step in one line of a build log: BuildKit's
/// `ERROR: failed to solve: process "/bin/sh -c CMD" did not complete
/// successfully` (and Docker 20.10's `executor failed running [/bin/sh -c
/// CMD]`), the classic builder's `The command '/bin/sh -c CMD' returned a
/// non-zero code`, Podman's and Buildah's `building at STEP "RUN CMD"`.
fn failed_step(line: &str) -> Option<String> {
    if let Some(at) = line.find("process \"")
        && line.contains("did not complete successfully")
    {
        let quoted = go_unquote(&line[at + "process ".len()..])?;
        return Some(without_shell(&quoted).to_string());
    }
    if let Some(at) = line.find("executor failed running [") {
        let rest = &line[at + "executor failed running [".len()..];
        let end = rest.rfind("]: ")?;
        return Some(without_shell(&rest[..end]).to_string());
    }
    if let Some(rest) = line.strip_prefix("The command '") {
        let end = rest.rfind("' returned a non-zero code")?;
        return Some(without_shell(&rest[..end]).to_string());
    }
    if let Some(at) = line.find("building at STEP \"") {
        let quoted = go_unquote(&line[at + "building at STEP ".len()..])?;
        let (keyword, rest) = quoted.trim_start().split_once(char::is_whitespace)?;
        if !keyword.eq_ignore_ascii_case("RUN") {
            return None;
        }
        return Some(after_run_flags(rest).to_string());
    }
    None
}

/// A line as the builder printed it: trimmed, without the prefixes the
/// program that collected it added (`search::query::strip_source_prefix`).
fn builder_line(line: &str) -> &str {
    let mut line = line.trim();
    loop {
        let rest = strip_source_prefix(line).trim();
        if rest.len() == line.len() {
            return line;
        }
        line = rest;
    }
}

/// The failed step of a Kaniko log (GoogleContainerTools/kaniko v1.0.0 to
/// v1.24.0, the GitLab CI builder without a Docker daemon): the build ends
/// with `error building image: error building stage: failed to execute
/// command: waiting for process to exit: exit status 1`, which names no
/// command, so the step is the last one Kaniko logged running before it,
/// `Running: [/bin/sh -c CMD]`.
fn kaniko_step(lines: &[&str]) -> Option<String> {
    let failed = lines.iter().rposition(|l| l.contains(KANIKO_FAILED))?;
    lines[..failed].iter().rev().find_map(|l| kaniko_running(l))
}

/// The command of Kaniko's `Running: [ARGS]` line in each of its log
/// formats (logrus): `INFO[0012] Running: […]` (the default, coloured),
/// `time="…" level=info msg="Running: […]"` (`--log-format text`, the
/// message Go-quoted) and `{"level":"info","msg":"Running: […]",…}`
/// (`--log-format json`).
fn kaniko_running(line: &str) -> Option<String> {
    const RUNNING: &str = "Running: [";
    let message = if let Some(at) = line.find("msg=\"Running: [") {
        go_unquote(&line[at + "msg=".len()..])?
    } else if let Some(at) = line.find("\"msg\":\"Running: [") {
        let quoted = &line[at + "\"msg\":".len()..];
        serde_json::Deserializer::from_str(quoted)
            .into_iter::<String>()
            .next()?
            .ok()?
    } else {
        let at = line.find(RUNNING)?;
        // Only a log line's own message: `INFO[0012] ` or nothing before it.
        let before = line[..at].trim_end();
        if !(before.is_empty() || before.ends_with(']')) {
            return None;
        }
        line[at..].trim_end().to_string()
    };
    let args = message.strip_prefix(RUNNING)?.strip_suffix(']')?;
    Some(without_shell(args).to_string())
}

/// A line of BuildKit's plain output (`#12 3.402 …`, `#12 [4/6] RUN …`) or
/// the classic builder's `Step 3/12 : …`: one whose step marker the search
/// takes off too.
fn is_step_line(line: &str) -> bool {
    (line.starts_with('#') || line.starts_with("Step "))
        && strip_leading_marker(line).len() < line.len()
}

/// BuildKit's terminal progress: `=> ERROR [4/6] RUN …`.
fn is_progress(line: &str) -> bool {
    line.strip_prefix("=> ")
        .map(|rest| rest.strip_prefix("ERROR ").unwrap_or(rest))
        .is_some_and(|rest| rest.starts_with('[') && rest.contains("] RUN "))
}

/// `Dockerfile.gpu` from `Dockerfile.gpu:9`, the line BuildKit prints above
/// the Dockerfile lines it quotes; a relative name only.
fn snippet_file(line: &str) -> Option<&str> {
    let (name, number) = line.rsplit_once(':')?;
    if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let path = Path::new(name);
    let plain = !name.is_empty()
        && !name.contains(char::is_whitespace)
        && path.is_relative()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    plain.then_some(name)
}

/// The text of a Go-quoted string at the start of `text` (`"a \"b\""` →
/// `a "b"`), as BuildKit and Podman quote a command; `None` when it does
/// not close.
fn go_unquote(text: &str) -> Option<String> {
    let mut chars = text.strip_prefix('"')?.chars();
    let mut out = String::new();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'u' => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                'x' => {
                    let hex: String = chars.by_ref().take(2).collect();
                    out.push(char::from(u8::from_str_radix(&hex, 16).ok()?));
                }
                other => out.push(other),
            },
            _ => out.push(c),
        }
    }
    None
}

/// `pip install x` from `/bin/sh -c pip install x` (or `/bin/bash -o
/// pipefail -c …`, a `SHELL` instruction's): the shell a shell-form `RUN`
/// runs in is not the Dockerfile's text.
fn without_shell(command: &str) -> &str {
    let first = command.split_whitespace().next().unwrap_or("");
    let program = first.rsplit('/').next().unwrap_or(first);
    if !matches!(program, "sh" | "bash" | "dash" | "zsh" | "ash") {
        return command;
    }
    match command.find(" -c ") {
        Some(at) => &command[at + " -c ".len()..],
        None => command,
    }
}

/// Whitespace runs as one space, trimmed: a Dockerfile's continuation lines
/// and the builder's joined command compare alike.
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn shorten(step: &str) -> String {
    if step.chars().count() <= SHOWN_STEP {
        return step.to_string();
    }
    let cut: String = step.chars().take(SHOWN_STEP - 1).collect();
    format!("{}…", cut.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// BuildKit's plain output (`docker build --progress=plain`, or any
    /// build whose output is not a terminal) of a failed shell-form `RUN`
    /// with a cache mount.
    const BUILDKIT: &str = "#7 [3/4] RUN --mount=type=cache,target=/root/.cache/pip pip install  flash-attn --no-build-isolation\n\
         #7 2.114 Collecting flash-attn\n\
         #7 5.870       OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n\
         #7 ERROR: process \"/bin/sh -c pip install  flash-attn --no-build-isolation\" did not complete successfully: exit code: 1\n\
         ------\n \
         > [3/4] RUN --mount=type=cache,target=/root/.cache/pip pip install  flash-attn --no-build-isolation:\n\
         ------\n\
         Dockerfile.cuda:6\n\
         --------------------\n   \
         5 |     \n   \
         6 | >>> RUN --mount=type=cache,target=/root/.cache/pip pip install  flash-attn --no-build-isolation\n\
         --------------------\n\
         ERROR: failed to solve: process \"/bin/sh -c pip install  flash-attn --no-build-isolation\" did not complete successfully: exit code: 1\n";

    #[test]
    fn buildkit_failed_step_and_dockerfile_name() {
        let log = read(BUILDKIT).unwrap();
        assert_eq!(
            log.step.as_deref(),
            Some("pip install flash-attn --no-build-isolation")
        );
        assert_eq!(log.files, vec!["Dockerfile.cuda".to_string()]);
    }

    /// The same log pasted from a VTE terminal or tmux: CR for each newline.
    #[test]
    fn carriage_return_pastes_read_alike() {
        let pasted = BUILDKIT.replace('\n', "\r");
        assert_eq!(read(&pasted), read(BUILDKIT));
    }

    #[test]
    fn older_builders_and_podman_name_the_step() {
        for (line, step) in [
            (
                "ERROR: failed to solve: executor failed running [/bin/sh -c apt-get update && apt-get install -y cuda-toolkit-12-4]: exit code: 100",
                "apt-get update && apt-get install -y cuda-toolkit-12-4",
            ),
            (
                "The command '/bin/sh -c python -c \"import torch\"' returned a non-zero code: 1",
                "python -c \"import torch\"",
            ),
            (
                "Error: building at STEP \"RUN --mount=type=cache,target=/root/.cache pip install -r requirements.txt\": while running runtime: exit status 1",
                "pip install -r requirements.txt",
            ),
            // A `SHELL ["/bin/bash", "-o", "pipefail", "-c"]` stage, and a
            // quote inside the command, escaped the way Go quotes it.
            (
                "ERROR: failed to build: failed to solve: process \"/bin/bash -o pipefail -c echo \\\"sm_90\\\" | tee arch.txt\" did not complete successfully: exit code: 1",
                "echo \"sm_90\" | tee arch.txt",
            ),
            // The exec form runs no shell.
            (
                "ERROR: failed to solve: process \"python3 setup.py bdist_wheel\" did not complete successfully: exit code: 1",
                "python3 setup.py bdist_wheel",
            ),
        ] {
            assert_eq!(read(line).unwrap().step.as_deref(), Some(step), "{line}");
        }
    }

    /// Kaniko's log (GitLab CI builds images with it): its last error
    /// names no command, the `Running: […]` line before it does, in each
    /// of Kaniko's log formats, coloured as it prints them in CI.
    #[test]
    fn kaniko_logs_name_the_step_they_were_running() {
        let tail = "Collecting flash-attn\n      OSError: CUDA_HOME environment variable is not set.\n\
                    error building image: error building stage: failed to execute command: waiting for process to exit: exit status 1\n";
        let step = "pip install flash-attn --no-build-isolation";
        for running in [
            "\x1b[36mINFO\x1b[0m[0012] Running: [/bin/sh -c pip install flash-attn --no-build-isolation] ",
            "INFO[0012] Running: [/bin/bash -o pipefail -c pip install   flash-attn --no-build-isolation]",
            "time=\"2026-03-01T14:02:11Z\" level=info msg=\"Running: [/bin/sh -c pip install flash-attn --no-build-isolation]\"",
            "{\"level\":\"info\",\"msg\":\"Running: [/bin/sh -c pip install flash-attn --no-build-isolation]\",\"time\":\"2026-03-01T14:02:11Z\"}",
        ] {
            let log = format!(
                "INFO[0010] Running: [/bin/sh -c apt-get update]\nINFO[0011] RUN pip install flash-attn --no-build-isolation\n{running}\n{tail}"
            );
            let read = read(&log).unwrap();
            assert_eq!(read.step.as_deref(), Some(step), "{running}");
        }
        // Quotes inside the command, as logrus quotes them in text format.
        let quoted = "time=\"…\" level=info msg=\"Running: [/bin/sh -c python -c \\\"import torch\\\"]\"\n\
                      error building image: error building stage: failed to execute command: waiting for process to exit: exit status 1";
        assert_eq!(
            read(quoted).unwrap().step.as_deref(),
            Some("python -c \"import torch\"")
        );
        // Without Kaniko's last error it is not a build log; text that only
        // mentions "Running: [" is no step.
        assert_eq!(
            read("INFO[0012] Running: [/bin/sh -c make]\nmake: *** [all] Error 1"),
            None
        );
        assert_eq!(
            read("echo Running: [x]\nerror building image: error building stage: failed to execute command: exit status 2").unwrap().step,
            None
        );
    }

    /// The same log from CI: GitLab's raw job log (a timestamp and the
    /// stream before each line), `gh run view --log` (job, step and a
    /// timestamp), Docker Compose (the container's name). The classic
    /// builder's `The command '…'` line and BuildKit's Dockerfile name were
    /// lost behind the prefixes.
    #[test]
    fn logs_collected_by_ci_read_as_the_builders_own() {
        let gitlab: String = BUILDKIT
            .lines()
            .enumerate()
            .map(|(i, l)| format!("2026-03-01T14:02:11.{i:06}Z 00O {l}\n"))
            .collect();
        assert_eq!(read(&gitlab), read(BUILDKIT));
        let gh: String = BUILDKIT
            .lines()
            .map(|l| format!("build\tBuild image\t2026-03-01T14:02:11.5300000Z {l}\n"))
            .collect();
        assert_eq!(read(&gh), read(BUILDKIT));
        let classic = "Step 4/5 : RUN python -c \"import torch\"\n\
                       The command '/bin/sh -c python -c \"import torch\"' returned a non-zero code: 1\n";
        let stamped: String = classic
            .lines()
            .map(|l| format!("2026-03-01T14:02:11.530120Z 01E {l}\n"))
            .collect();
        assert_eq!(
            read(&stamped).unwrap().step.as_deref(),
            Some("python -c \"import torch\"")
        );
    }

    /// A paste of only the failing step's output still reads as a build
    /// log, without a step to match; a traceback or a CMake log does not.
    #[test]
    fn step_output_alone_is_a_build_log_and_other_logs_are_not() {
        let partial = "#9 41.20   File \"/usr/local/lib/python3.10/dist-packages/torch/utils/cpp_extension.py\", line 2416\n\
                       #9 41.20 OSError: CUDA_HOME environment variable is not set.";
        assert_eq!(
            read(partial),
            Some(BuildLog {
                step: None,
                files: Vec::new()
            })
        );
        for other in [
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: CUDA error: no kernel image is available",
            "CMake Error at CMakeLists.txt:12 (project):\n  No CMAKE_CUDA_COMPILER could be found.",
            "#include <cuda_runtime.h>\n#define N 10",
        ] {
            assert_eq!(read(other), None, "{other}");
        }
    }

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        dir
    }

    /// The step is matched across a continuation line, with its flags and
    /// the extra spaces the builder keeps, in the file the log names.
    #[test]
    fn the_dockerfile_holding_the_failed_step_is_probed() {
        let dir = folder(&[
            (
                "Dockerfile",
                "FROM ubuntu:22.04\nRUN pip install flash-attn\n",
            ),
            (
                "Dockerfile.cuda",
                "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN apt-get update\n\n\
                 RUN --mount=type=cache,target=/root/.cache/pip \\\n    pip install  flash-attn \\\n    --no-build-isolation\n",
            ),
        ]);
        let place = place(BUILDKIT, &ProbeOptions::default(), dir.path());
        assert_eq!(
            place,
            Place::Dockerfile {
                path: dir.path().join("Dockerfile.cuda"),
                line: 4,
                step: "pip install flash-attn --no-build-isolation".into()
            }
        );
        let options = place.options(&ProbeOptions::default()).unwrap();
        assert_eq!(options.root, None);
        assert_eq!(
            options.dockerfile,
            Some(DockerfileSource::File(dir.path().join("Dockerfile.cuda")))
        );
        assert!(place.note().unwrap().contains("line 4 of "));
        // In the current folder the file is named as the user types it.
        let here = Place::Dockerfile {
            path: Path::new("").join("Dockerfile.cuda"),
            line: 4,
            step: "pip install flash-attn".into(),
        };
        assert!(here.note().unwrap().contains("line 4 of Dockerfile.cuda,"));
    }

    /// A Dockerfile that does not hold the step is not probed, and the note
    /// says so; with none, nothing is probed either.
    #[test]
    fn no_dockerfile_here_with_the_step_probes_nothing() {
        let dir = folder(&[("Dockerfile", "FROM ubuntu:22.04\nRUN pip install vllm\n")]);
        let place = place(BUILDKIT, &ProbeOptions::default(), dir.path());
        assert_eq!(
            place,
            Place::Nothing {
                step: Some("pip install flash-attn --no-build-isolation".into()),
                unmatched: vec![dir.path().join("Dockerfile")]
            }
        );
        assert_eq!(place.options(&ProbeOptions::default()), None);
        let note = place.note().unwrap();
        assert!(note.contains("Give the build's Dockerfile"), "{note}");
        assert!(
            note.contains("Dockerfile here does not hold its failed step"),
            "{note}"
        );
        let empty = folder(&[]);
        assert!(matches!(
            super::place(BUILDKIT, &ProbeOptions::default(), empty.path()),
            Place::Nothing { unmatched, .. } if unmatched.is_empty()
        ));
    }

    /// `--root` or `--dockerfile` is what the user asked for, build log or
    /// not; a message that is not a build log is checked on the machine.
    #[test]
    fn named_places_and_other_messages_keep_their_probes() {
        let dir = folder(&[]);
        let root = ProbeOptions {
            root: Some(PathBuf::from("/")),
            dockerfile: None,
            dockerfile_line: None,
        };
        assert_eq!(
            place(BUILDKIT, &root, dir.path()),
            Place::Given { line: None }
        );
        assert_eq!(
            place(
                "RuntimeError: CUDA error: no kernel image is available",
                &ProbeOptions::default(),
                dir.path()
            ),
            Place::Machine
        );
    }

    #[test]
    fn scopes_keep_facts_to_the_queries_they_were_probed_for() {
        let machine = Scope::NotBuildLog;
        assert!(machine.applies("ImportError: libcudart.so.12"));
        assert!(!machine.applies(BUILDKIT));
        let build = Scope::BuildLog(Some("pip install flash-attn --no-build-isolation".into()));
        assert!(build.applies(BUILDKIT));
        assert!(!build.applies("ImportError: libcudart.so.12"));
        assert!(!build.applies(
            "ERROR: failed to solve: process \"/bin/sh -c pip install vllm\" did not complete successfully: exit code: 1"
        ));
        assert!(Scope::Any.applies(BUILDKIT));
    }
}
