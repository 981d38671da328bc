//! The commands the shipped decision trees' outcomes give are ones a user can
//! paste and run, whatever the trees contain now or later:
//!
//! - every shell snippet passes `bash -n`;
//! - every Dockerfile snippet parses as a Dockerfile (known instructions with
//!   the arguments they need, exec forms as JSON arrays, heredocs closed,
//!   `FROM` first where a stage starts), and the shell of its `RUN` lines
//!   passes `bash -n` too;
//! - no command holds a `<placeholder>`: the shell reads `<driver>` as a
//!   redirection from a file called `driver`;
//! - an answer that says the user compiles CUDA code leads to outcomes that
//!   install what compiling needs (a devel image or a toolkit, or `nvcc`
//!   with the runtime headers), not the runtime libraries alone.

use std::io::Write;
use std::process::{Command, Stdio};

use lore::corpus::Corpus;
use lore::decide::{self, DecisionTree, Node, Outcome};
use lore::sources::{BUILTIN_KNOWLEDGE, BUILTIN_TREES, SourceSet};

fn shipped() -> Vec<DecisionTree> {
    let corpus = Corpus::load(&SourceSet {
        builtin: Some(&BUILTIN_KNOWLEDGE),
        overlays: vec![],
    });
    let trees = decide::load(
        &SourceSet {
            builtin: Some(&BUILTIN_TREES),
            overlays: vec![],
        },
        &corpus,
    )
    .trees;
    assert!(!trees.is_empty());
    trees
}

fn outcomes(tree: &DecisionTree) -> impl Iterator<Item = &Outcome> {
    tree.nodes.iter().filter_map(|n| match n {
        Node::Outcome(o) => Some(o),
        Node::Question(_) => None,
    })
}

/// `bash -n` on `script`: the syntax error bash reports, if any.
fn bash_syntax(script: &str) -> Result<(), String> {
    let mut child = Command::new("bash")
        .arg("-n")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("bash runs");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

const INSTRUCTIONS: &[&str] = &[
    "ADD",
    "ARG",
    "CMD",
    "COPY",
    "ENTRYPOINT",
    "ENV",
    "EXPOSE",
    "FROM",
    "HEALTHCHECK",
    "LABEL",
    "MAINTAINER",
    "ONBUILD",
    "RUN",
    "SHELL",
    "STOPSIGNAL",
    "USER",
    "VOLUME",
    "WORKDIR",
];

/// One instruction of a Dockerfile: its keyword, its arguments with
/// continuation lines joined (kept as `\` + newline, which the shell reads
/// the same way), its heredoc bodies and its first line.
struct Instruction {
    keyword: String,
    args: String,
    heredocs: Vec<String>,
    line: usize,
}

/// Reads `text` as BuildKit does: parser directives, comments, `\`
/// continuations (comment lines inside them dropped), heredocs. Errors name
/// the snippet's line.
fn dockerfile(text: &str) -> Result<Vec<Instruction>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    // Parser directives (`# syntax=…`) only count at the very top.
    while i < lines.len() && lines[i].starts_with("# ") && lines[i].contains('=') {
        i += 1;
    }
    while i < lines.len() {
        let line = lines[i].trim_start();
        let start = i + 1;
        i += 1;
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut logical = line.to_string();
        while logical.trim_end().ends_with('\\') {
            let Some(next) = lines.get(i) else {
                return Err(format!("line {start}: a `\\` continues past the end"));
            };
            i += 1;
            if next.trim_start().starts_with('#') {
                continue;
            }
            logical.push('\n');
            logical.push_str(next);
        }
        let (keyword, args) = logical
            .split_once(char::is_whitespace)
            .unwrap_or((&logical, ""));
        let keyword = keyword.to_ascii_uppercase();
        if !INSTRUCTIONS.contains(&keyword.as_str()) {
            return Err(format!("line {start}: unknown instruction `{keyword}`"));
        }
        // Heredocs: `<<EOF`, `<<-EOF`, `<<"EOF"`, each body up to its word.
        let mut heredocs = Vec::new();
        for (at, _) in args.match_indices("<<") {
            let word = args[at + 2..].trim_start_matches('-');
            let word: String = word
                .trim_start_matches(['"', '\''])
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if word.is_empty() {
                continue;
            }
            let mut body = String::new();
            loop {
                let Some(next) = lines.get(i) else {
                    return Err(format!("line {start}: heredoc `{word}` is never closed"));
                };
                i += 1;
                if next.trim() == word {
                    break;
                }
                body.push_str(next);
                body.push('\n');
            }
            heredocs.push(body);
        }
        out.push(Instruction {
            keyword,
            args: args.trim().to_string(),
            heredocs,
            line: start,
        });
    }
    Ok(out)
}

/// The words of an instruction's arguments after its `--flag=…` options.
fn words_after_flags(args: &str) -> Vec<&str> {
    args.split_whitespace()
        .skip_while(|w| w.starts_with("--"))
        .filter(|w| *w != "\\")
        .collect()
}

/// Checks one Dockerfile snippet; its `RUN` shell goes through `bash -n`.
fn check_dockerfile(text: &str) -> Result<(), String> {
    let instructions = dockerfile(text)?;
    let Some(first) = instructions.first() else {
        return Err("no instruction".into());
    };
    // A snippet with a stage must start as a Dockerfile does; one without
    // (`RUN …` to add to your stage) is a fragment.
    let has_from = instructions.iter().any(|i| i.keyword == "FROM");
    if has_from && first.keyword != "FROM" && first.keyword != "ARG" {
        return Err(format!(
            "line {}: `{}` before the first FROM",
            first.line, first.keyword
        ));
    }
    for ins in &instructions {
        let at = ins.line;
        let words = words_after_flags(&ins.args);
        if ins.args.is_empty() {
            return Err(format!("line {at}: `{}` without arguments", ins.keyword));
        }
        let json = ins.args.starts_with('[');
        if json {
            serde_json::from_str::<Vec<String>>(&ins.args)
                .map_err(|e| format!("line {at}: exec form is not a JSON array of strings: {e}"))?;
        }
        match ins.keyword.as_str() {
            "FROM" => {
                let ok = match words.as_slice() {
                    [_] => true,
                    [_, as_, _] => as_.eq_ignore_ascii_case("as"),
                    _ => false,
                };
                if !ok {
                    return Err(format!(
                        "line {at}: FROM takes `image [AS name]`: {}",
                        ins.args
                    ));
                }
            }
            "COPY" | "ADD" if ins.heredocs.is_empty() && !json && words.len() < 2 => {
                return Err(format!(
                    "line {at}: {} needs a source and a destination",
                    ins.keyword
                ));
            }
            "ENV" => {
                let first = words.first().copied().unwrap_or("");
                let key = first.split('=').next().unwrap_or("");
                let valid_key = key.chars().enumerate().all(|(n, c)| {
                    c == '_' || c.is_ascii_alphabetic() || (n > 0 && c.is_ascii_digit())
                });
                if key.is_empty() || !valid_key || (!first.contains('=') && words.len() < 2) {
                    return Err(format!("line {at}: ENV takes KEY=value: {}", ins.args));
                }
            }
            "ARG" if words.len() != 1 => {
                return Err(format!(
                    "line {at}: ARG takes one NAME[=default]: {}",
                    ins.args
                ));
            }
            "WORKDIR" | "USER" if words.len() != 1 => {
                return Err(format!("line {at}: {} takes one argument", ins.keyword));
            }
            "SHELL" if !json => return Err(format!("line {at}: SHELL takes a JSON array")),
            "RUN" if !json => {
                let no_command = ins.args.split_whitespace().all(|w| w.starts_with("--"));
                if no_command {
                    return Err(format!("line {at}: RUN with flags but no command"));
                }
                // The command after the `--mount=…` flags, continuations kept.
                let mut command = ins.args.as_str();
                while let Some(rest) = command.strip_prefix("--") {
                    command = rest
                        .split_once(char::is_whitespace)
                        .map_or("", |(_, r)| r)
                        .trim_start_matches(['\\', '\n', ' ']);
                }
                bash_syntax(&format!("{command}\n")).map_err(|e| format!("line {at}: RUN: {e}"))?;
                // `RUN <<EOF` runs its body as a script; a body fed to
                // another program (`python3 <<EOF`) is not shell.
                if command.trim_start().starts_with("<<") {
                    for body in &ins.heredocs {
                        bash_syntax(body).map_err(|e| format!("line {at}: heredoc: {e}"))?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A `<word>` left in a command outside a comment: a placeholder the shell
/// would read as a redirection.
fn placeholder(code: &str) -> Option<String> {
    for line in code.lines() {
        let line = line.trim_start();
        if line.starts_with('#') {
            continue;
        }
        let command = line.split(" #").next().unwrap_or(line);
        let bytes = command.as_bytes();
        for (at, _) in command.match_indices('<') {
            if (at > 0 && bytes[at - 1] == b'<') || bytes.get(at + 1) == Some(&b'<') {
                continue;
            }
            let rest = &command[at + 1..];
            let word: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect();
            if !word.is_empty()
                && word.starts_with(|c: char| c.is_ascii_alphabetic())
                && rest[word.len()..].starts_with('>')
            {
                return Some(format!("<{word}>"));
            }
        }
    }
    None
}

#[test]
fn every_outcome_command_is_valid_shell_or_dockerfile() {
    let mut problems = Vec::new();
    let mut checked = 0;
    for tree in shipped() {
        for outcome in outcomes(&tree) {
            for action in &outcome.actions {
                let at = format!("{} › {} › {:?}", tree.id, outcome.id, action.label);
                let result = match action.lang.as_str() {
                    "bash" | "sh" | "shell" => bash_syntax(&action.code),
                    "dockerfile" => check_dockerfile(&action.code),
                    // Python is run by an interpreter the reader picks; the
                    // shell checks do not apply.
                    "python" => Ok(()),
                    other => Err(format!("no syntax check for `{other}`: add one here")),
                };
                if let Err(e) = result {
                    problems.push(format!("{at}: {e}"));
                }
                if action.lang != "python"
                    && let Some(p) = placeholder(&action.code)
                {
                    problems.push(format!("{at}: `{p}` is a redirection to the shell"));
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "only {checked} commands found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The checks themselves catch what they are for.
#[test]
fn the_checks_reject_broken_snippets() {
    assert!(bash_syntax("if true; then echo\n").is_err());
    assert!(bash_syntax("echo 'open\n").is_err());
    assert!(bash_syntax("apt-get update && \\\n  apt-get install -y x\n").is_ok());
    for broken in [
        "FORM ubuntu:22.04\n",
        "RUN apt-get install -y x \\\n",
        "COPY onlyone\n",
        "FROM a b c d\n",
        "ENV\n",
        "CMD [\"python\", oops]\n",
        "RUN <<EOF\necho never closed\n",
        "RUN --mount=type=cache,target=/x if then\n",
        "RUN apt-get update \\\n && apt-get install -y x y\\\n && fi\n",
        "USER app\nFROM ubuntu:22.04\n",
    ] {
        assert!(check_dockerfile(broken).is_err(), "accepted:\n{broken}");
    }
    let good = "# syntax=docker/dockerfile:1\nARG V=1\nFROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS builder\n\
                # a comment\nRUN --mount=type=cache,target=/root/.cache/pip \\\n    pip install x \\\n \
                # inside\n && echo done\nCOPY --from=builder /a /b\nENV PATH=/x:$PATH\n\
                CMD [\"python\", \"-c\", \"print(1)\"]\nRUN <<EOF\nset -e\necho hi\nEOF\n";
    check_dockerfile(good).unwrap();
    assert_eq!(
        placeholder("sh cuda_12.4.1_<driver>_linux.run").as_deref(),
        Some("<driver>")
    );
    assert_eq!(placeholder("cat <<EOF\nx\nEOF"), None);
    assert_eq!(placeholder("# see <pkg> here"), None);
    assert_eq!(placeholder("diff <(a) <(b)"), None);
}

/// What an outcome's commands must hold to compile CUDA code: a devel image
/// or a whole toolkit; or `nvcc` as a component together with the CUDA
/// runtime headers (`cuda-cudart-dev`), which it cannot compile without.
fn installs_a_compiler(outcome: &Outcome) -> Result<(), String> {
    let code: String = outcome
        .actions
        .iter()
        .map(|a| a.code.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let whole =
        code.contains("-devel-") || code.contains("cuda-toolkit") || code.contains("--toolkit");
    if whole {
        return Ok(());
    }
    if code.contains("cuda-nvcc") {
        if code.contains("cuda-cudart-dev") {
            return Ok(());
        }
        return Err("installs nvcc without the CUDA runtime headers (cuda-cudart-dev)".into());
    }
    Err("installs no compiler: no devel image, toolkit or cuda-nvcc".into())
}

/// "To compile CUDA code, or to run code linked against the system CUDA
/// libraries" led to an outcome that installed `cuda-cudart-12-4` only.
#[test]
fn answers_that_compile_cuda_lead_to_outcomes_that_install_a_compiler() {
    let says_compile = |label: &str| {
        let label = label.to_lowercase();
        label.contains("compil") && (label.contains("cuda") || label.contains("extension"))
    };
    let mut problems = Vec::new();
    let mut paths = 0;
    for tree in shipped() {
        for test in &tree.tests {
            let compiles = test.answers.iter().any(|(question, option)| {
                tree.nodes.iter().any(|n| match n {
                    Node::Question(q) if &q.id == question => q
                        .options
                        .iter()
                        .any(|o| &o.id == option && says_compile(&o.label)),
                    _ => false,
                })
            });
            if !compiles {
                continue;
            }
            paths += 1;
            let Some(Node::Outcome(outcome)) = tree.node(&test.expect) else {
                continue;
            };
            if let Err(e) = installs_a_compiler(outcome) {
                problems.push(format!("{} › {}: {e}", tree.id, outcome.id));
            }
        }
    }
    assert!(paths >= 5, "only {paths} paths say they compile CUDA code");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
