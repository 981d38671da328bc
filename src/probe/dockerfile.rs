//! Static reading of a Dockerfile: its stages and what each starts `FROM`
//! (for `nvidia/cuda` images the CUDA version, flavour and distribution), the
//! `pip` / `conda` / `apt-get` installs and build commands of each stage's
//! `RUN`s, `COPY --from` between stages, and the `ENV` settings that matter
//! to CUDA (`LD_LIBRARY_PATH`, `TORCH_CUDA_ARCH_LIST`), each with its line.
//!
//! The syntax handled is the one BuildKit reads: parser directives at the
//! top (`# escape=` changes the line-continuation character), comments,
//! continuation lines (comment lines inside them are dropped), heredocs
//! (`RUN <<EOF` … `EOF`, `<<-`, quoted words, several per instruction), and
//! `ARG`s declared before the first `FROM` substituted into `FROM`. Shell is
//! not executed or expanded: commands are split on `&&`, `||`, `;` and `|`
//! and read word by word. A file with binary bytes, or longer than
//! `MAX_LINES`, is read up to that point with a note naming the line, and
//! marked incomplete so nothing is concluded about its final stage.

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::{Fact, Note};

/// Bytes of a Dockerfile read, at most.
const MAX_BYTES: u64 = 4 * 1024 * 1024;
/// Lines read, at most: real Dockerfiles have tens to a few hundred.
pub const MAX_LINES: usize = 5_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dockerfile {
    pub path: String,
    pub stages: Vec<Stage>,
    /// False when reading stopped early (binary bytes, too many lines): the
    /// last stage read may not be the final stage.
    pub complete: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Stage {
    pub index: usize,
    pub name: Option<String>,
    /// The image as written, `ARG`s substituted.
    pub image: String,
    pub line: usize,
    pub base: Base,
    pub installs: Vec<Install>,
    pub copies: Vec<CopyFrom>,
    pub env: Vec<EnvSetting>,
    /// Commands that compile (`nvcc`, `cmake`, `python setup.py`, `pip
    /// install .` …), with their lines.
    pub builds: Vec<(String, usize)>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Base {
    /// `nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04`
    NvidiaCuda {
        version: String,
        flavor: Flavor,
        distro: String,
    },
    /// `FROM builder`: an earlier stage, by index.
    Stage {
        index: usize,
    },
    /// A plain distribution or language image: `ubuntu:22.04`, `python:3.11-slim`.
    Distro {
        name: String,
        tag: String,
    },
    Scratch,
    /// Anything else; nothing is assumed about it.
    Other,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavor {
    Base,
    Runtime,
    Devel,
    CudnnRuntime,
    CudnnDevel,
}

impl Flavor {
    pub fn is_devel(self) -> bool {
        matches!(self, Flavor::Devel | Flavor::CudnnDevel)
    }

    pub fn name(self) -> &'static str {
        match self {
            Flavor::Base => "base",
            Flavor::Runtime => "runtime",
            Flavor::Devel => "devel",
            Flavor::CudnnRuntime => "cudnn-runtime",
            Flavor::CudnnDevel => "cudnn-devel",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstallTool {
    Pip,
    Conda,
    Apt,
}

impl InstallTool {
    fn name(self) -> &'static str {
        match self {
            InstallTool::Pip => "pip",
            InstallTool::Conda => "conda",
            InstallTool::Apt => "apt-get",
        }
    }
}

/// One install command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Install {
    pub tool: InstallTool,
    /// As written: `torch==2.5.1`, `cuda-cupti-12-4`, `.`.
    pub packages: Vec<String>,
    pub line: usize,
}

impl Install {
    /// Whether one of the packages is `name` (any version pin or extras).
    pub fn has(&self, name: &str) -> bool {
        self.packages.iter().any(|p| package_name(p) == name)
    }

    /// A local folder (`pip install .`, `-e ./x`): a build from source.
    pub fn has_local(&self) -> bool {
        self.packages
            .iter()
            .any(|p| p.starts_with('.') || p.starts_with('/'))
    }
}

/// `torch==2.5.1`, `torch[extra]>=2`, `"torch"`, `pytorch=2.5.1` → `torch` /
/// `pytorch`, lower case.
pub fn package_name(spec: &str) -> String {
    let spec = spec.trim_matches(|c| c == '"' || c == '\'');
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.'))
        .unwrap_or(spec.len());
    spec[..end].to_ascii_lowercase().replace('_', "-")
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CopyFrom {
    /// As written after `--from=`.
    pub from: String,
    /// The stage it names, if it names one.
    pub stage: Option<usize>,
    /// The rest of the instruction (sources and destination).
    pub args: String,
    pub line: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvSetting {
    pub name: String,
    pub value: String,
    pub line: usize,
}

/// The ENV names reported.
const ENV_THAT_MATTERS: [&str; 2] = ["LD_LIBRARY_PATH", "TORCH_CUDA_ARCH_LIST"];

/// Reads a Dockerfile from disk (a regular file, up to `MAX_BYTES`).
pub fn read(path: &Path) -> Result<Vec<u8>, String> {
    use std::io::Read;
    // The open file is checked, not the path: a FIFO swapped in after a
    // look at the path would block the open (and `lore`) forever.
    let file = crate::datafile::open_read(path).map_err(|e| e.to_string())?;
    let mut data = Vec::new();
    file.take(MAX_BYTES)
        .read_to_end(&mut data)
        .map_err(|e| e.to_string())?;
    Ok(data)
}

impl Dockerfile {
    /// The last stage, if the whole file was read.
    pub fn final_stage(&self) -> Option<&Stage> {
        if self.complete {
            self.stages.last()
        } else {
            None
        }
    }

    /// The image a stage ultimately starts from, following `FROM <stage>`.
    pub fn root_base<'a>(&'a self, stage: &'a Stage) -> (&'a Stage, &'a Base) {
        let mut current = stage;
        for _ in 0..self.stages.len() {
            match &current.base {
                Base::Stage { index } if *index < current.index => {
                    current = &self.stages[*index];
                }
                _ => break,
            }
        }
        (current, &current.base)
    }

    /// A stage and every stage it copies from or builds on, transitively:
    /// what can end up in its files.
    pub fn feeding<'a>(&'a self, stage: &'a Stage) -> Vec<&'a Stage> {
        let mut out: Vec<&Stage> = vec![stage];
        let mut i = 0;
        while i < out.len() {
            let s = out[i];
            let mut more: Vec<usize> = s.copies.iter().filter_map(|c| c.stage).collect();
            if let Base::Stage { index } = s.base {
                more.push(index);
            }
            for index in more {
                if let Some(next) = self.stages.get(index)
                    && !out.iter().any(|o| o.index == index)
                {
                    out.push(next);
                }
            }
            i += 1;
        }
        out
    }

    fn at(&self, line: usize) -> String {
        format!("{}:{line}", self.path)
    }

    pub fn facts(&self) -> Vec<Fact> {
        let mut out = Vec::new();
        for s in &self.stages {
            let name = stage_label(s);
            out.push(Fact {
                fact: "dockerfile.stage",
                value: format!("{name}: {} ({})", s.image, describe_base(self, &s.base)),
                evidence: vec![self.at(s.line)],
            });
            for i in &s.installs {
                out.push(Fact {
                    fact: "dockerfile.install",
                    value: format!("{name}: {} {}", i.tool.name(), i.packages.join(" ")),
                    evidence: vec![self.at(i.line)],
                });
            }
            for c in &s.copies {
                out.push(Fact {
                    fact: "dockerfile.copy-from",
                    value: format!("{name} from {}: {}", c.from, c.args),
                    evidence: vec![self.at(c.line)],
                });
            }
            for e in &s.env {
                out.push(Fact {
                    fact: "dockerfile.env",
                    value: format!("{name}: {}={}", e.name, e.value),
                    evidence: vec![self.at(e.line)],
                });
            }
            for (what, line) in &s.builds {
                out.push(Fact {
                    fact: "dockerfile.build",
                    value: format!("{name}: {what}"),
                    evidence: vec![self.at(*line)],
                });
            }
        }
        if let Some(last) = self.final_stage() {
            let (from, base) = self.root_base(last);
            let mut evidence = vec![self.at(last.line)];
            if from.index != last.index {
                evidence.push(self.at(from.line));
            }
            out.push(Fact {
                fact: "dockerfile.final-stage",
                value: format!("{}: {}", stage_label(last), describe_base(self, base)),
                evidence,
            });
        }
        out
    }
}

fn stage_label(s: &Stage) -> String {
    match &s.name {
        Some(name) => format!("stage {} ({name})", s.index),
        None => format!("stage {}", s.index),
    }
}

fn describe_base(file: &Dockerfile, base: &Base) -> String {
    match base {
        Base::NvidiaCuda {
            version,
            flavor,
            distro,
        } => format!("nvidia/cuda {}, CUDA {version}, {distro}", flavor.name()),
        Base::Stage { index } => match file.stages.get(*index) {
            Some(s) => format!("built on {}", stage_label(s)),
            None => format!("built on stage {index}"),
        },
        Base::Distro { name, tag } if tag.is_empty() => format!("{name} image"),
        Base::Distro { name, tag } => format!("{name} {tag} image"),
        Base::Scratch => "empty image".into(),
        Base::Other => "an image lore does not classify".into(),
    }
}

// ---- reading lines into instructions -------------------------------------------

/// One instruction: its keyword, its text split over the physical lines it
/// came from, and the bodies of its heredocs.
#[derive(Debug)]
struct Instruction {
    keyword: String,
    line: usize,
    /// (line, text) of the instruction's own lines, continuation characters
    /// removed; the keyword is cut from the first.
    parts: Vec<(usize, String)>,
    heredocs: Vec<Heredoc>,
}

#[derive(Debug)]
struct Heredoc {
    /// The command in front of `<<WORD` (empty for `RUN <<EOF`).
    command: String,
    lines: Vec<(usize, String)>,
}

impl Instruction {
    fn text(&self) -> String {
        self.parts
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Parses Dockerfile bytes. `path` names the file in evidence and notes.
pub fn parse_dockerfile(path: &str, bytes: &[u8]) -> (Dockerfile, Vec<Note>) {
    let mut notes = Vec::new();
    let mut complete = true;
    // Only the part before the first binary byte is read.
    let mut usable = bytes;
    let bad_at = bytes
        .iter()
        .position(|&b| b == 0)
        .or_else(|| std::str::from_utf8(bytes).err().map(|e| e.valid_up_to()));
    if let Some(at) = bad_at {
        let line_start = bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
        let line = bytes[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        notes.push(Note {
            path: path.to_string(),
            line: Some(line),
            message: format!(
                "binary data (byte 0x{:02x} at column {}): not Dockerfile text; read up to the line before",
                bytes[at],
                at - line_start + 1
            ),
        });
        usable = &bytes[..line_start];
        complete = false;
    }
    let text = String::from_utf8_lossy(usable);
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.len() > MAX_LINES {
        notes.push(Note {
            path: path.to_string(),
            line: Some(MAX_LINES + 1),
            message: format!(
                "more than {MAX_LINES} lines: not plausibly a Dockerfile; read the first {MAX_LINES}"
            ),
        });
        lines.truncate(MAX_LINES);
        complete = false;
    }
    let instructions = instructions(&lines);
    let mut file = Dockerfile {
        path: path.to_string(),
        stages: Vec::new(),
        complete,
    };
    let mut global_args: HashMap<String, String> = HashMap::new();
    for ins in &instructions {
        match ins.keyword.as_str() {
            "ARG" if file.stages.is_empty() => {
                for word in ins.text().split_whitespace() {
                    let (name, value) = word.split_once('=').unwrap_or((word, ""));
                    global_args.insert(name.to_string(), unquote(value).to_string());
                }
            }
            "FROM" => {
                let stage = from(&file, ins, &global_args);
                file.stages.push(stage);
            }
            _ => {}
        }
        let Some(stage) = file.stages.last_mut() else {
            continue;
        };
        match ins.keyword.as_str() {
            "RUN" => run(stage, ins),
            "COPY" | "ADD" => {
                let text = ins.text();
                let mut from = None;
                let mut rest = Vec::new();
                for word in text.split_whitespace() {
                    if let Some(value) = word.strip_prefix("--from=") {
                        from = Some(unquote(value).to_string());
                    } else if !word.starts_with("--") {
                        rest.push(word);
                    }
                }
                if let Some(from) = from {
                    stage.copies.push(CopyFrom {
                        stage: None,
                        from,
                        args: rest.join(" "),
                        line: ins.line,
                    });
                }
            }
            "ENV" => env(stage, ins),
            _ => {}
        }
    }
    // COPY --from may name a stage by name or index; only earlier stages count.
    let names: Vec<(usize, Option<String>)> = file
        .stages
        .iter()
        .map(|s| (s.index, s.name.clone()))
        .collect();
    for stage in &mut file.stages {
        for copy in &mut stage.copies {
            copy.stage = names
                .iter()
                .find(|(i, name)| {
                    *i < stage.index
                        && (name
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(&copy.from))
                            || copy.from == i.to_string())
                })
                .map(|(i, _)| *i);
        }
    }
    (file, notes)
}

/// Groups physical lines into instructions.
fn instructions(lines: &[&str]) -> Vec<Instruction> {
    let mut escape = '\\';
    let mut i = 0;
    // Parser directives: `# name=value` lines at the very top.
    while i < lines.len() {
        let Some(rest) = lines[i].trim().strip_prefix('#') else {
            break;
        };
        let Some((name, value)) = rest.split_once('=') else {
            break;
        };
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || name.contains(' ') {
            break;
        }
        if name == "escape" && value.trim() == "`" {
            escape = '`';
        }
        i += 1;
    }
    let mut out = Vec::new();
    while i < lines.len() {
        let first = lines[i].trim();
        if first.is_empty() || first.starts_with('#') {
            i += 1;
            continue;
        }
        let start = i;
        let mut parts: Vec<(usize, String)> = Vec::new();
        loop {
            let raw = lines[i].trim_end();
            i += 1;
            match raw.strip_suffix(escape) {
                Some(cut) => {
                    parts.push((i, cut.to_string()));
                    // Comment and blank lines inside a continuation are dropped.
                    while i < lines.len() {
                        let t = lines[i].trim();
                        if t.starts_with('#') || t.is_empty() {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    if i >= lines.len() {
                        break;
                    }
                }
                None => {
                    parts.push((i, raw.to_string()));
                    break;
                }
            }
        }
        let (keyword, rest) = split_keyword(&parts[0].1);
        parts[0].1 = rest;
        let mut ins = Instruction {
            keyword,
            line: start + 1,
            parts,
            heredocs: Vec::new(),
        };
        if matches!(ins.keyword.as_str(), "RUN" | "COPY" | "ADD") {
            for (command, word, strip_tabs) in heredoc_markers(&ins.text()) {
                let mut body = Vec::new();
                while i < lines.len() {
                    let line = lines[i];
                    i += 1;
                    let check = if strip_tabs {
                        line.trim_start_matches('\t')
                    } else {
                        line
                    };
                    if check.trim_end() == word {
                        break;
                    }
                    body.push((i, line.to_string()));
                }
                ins.heredocs.push(Heredoc {
                    command,
                    lines: body,
                });
            }
        }
        out.push(ins);
    }
    out
}

fn split_keyword(line: &str) -> (String, String) {
    let line = line.trim_start();
    let end = line.find(char::is_whitespace).unwrap_or(line.len());
    (line[..end].to_ascii_uppercase(), line[end..].to_string())
}

/// The heredocs an instruction opens, in order: (command before the marker,
/// terminating word, whether `<<-` strips leading tabs).
fn heredoc_markers(text: &str) -> Vec<(String, String, bool)> {
    let mut out = Vec::new();
    let mut rest = text;
    let mut before = String::new();
    while let Some(at) = rest.find("<<") {
        let command_part = &rest[..at];
        before.push_str(command_part);
        let mut after = &rest[at + 2..];
        let strip_tabs = after.starts_with('-');
        if strip_tabs {
            after = &after[1..];
        }
        let quote = after.chars().next().filter(|c| *c == '"' || *c == '\'');
        let body = quote.map_or(after, |q| &after[q.len_utf8()..]);
        let end = body
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(body.len());
        let word = &body[..end];
        if word.is_empty() {
            // `<<` not followed by a word (a shell here-string `<<<`, say).
            before.push_str("<<");
            rest = &rest[at + 2..];
            continue;
        }
        let consumed = quote.map_or(0, char::len_utf8) * 2 + end;
        let command = before
            .rsplit(['&', ';', '|'])
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        out.push((command, word.to_string(), strip_tabs));
        before.clear();
        rest = after.get(consumed.min(after.len())..).unwrap_or("");
    }
    out
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    s.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .or_else(|| s.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')))
        .unwrap_or(s)
}

/// `$NAME`, `${NAME}`, `${NAME:-default}` replaced from `args`.
fn substitute(text: &str, args: &HashMap<String, String>) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(inner) = after.strip_prefix('{')
            && let Some(end) = inner.find('}')
        {
            let expr = &inner[..end];
            let (name, default) = match expr.split_once(":-") {
                Some((n, d)) => (n, d),
                None => (expr, ""),
            };
            match args.get(name).filter(|v| !v.is_empty()) {
                Some(v) => out.push_str(v),
                None => out.push_str(default),
            }
            rest = &inner[end + 1..];
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            if end == 0 {
                out.push('$');
            } else {
                out.push_str(args.get(&after[..end]).map_or("", String::as_str));
            }
            rest = &after[end..];
        }
    }
    out.push_str(rest);
    out
}

fn from(file: &Dockerfile, ins: &Instruction, args: &HashMap<String, String>) -> Stage {
    let text = substitute(&ins.text(), args);
    let words: Vec<&str> = text
        .split_whitespace()
        .filter(|w| !w.starts_with("--"))
        .collect();
    let image = words.first().copied().unwrap_or("").to_string();
    let name = match words.get(1..3) {
        Some([as_, name]) if as_.eq_ignore_ascii_case("as") => Some(name.to_string()),
        _ => None,
    };
    let earlier = file.stages.iter().find(|s| {
        s.name
            .as_deref()
            .is_some_and(|n| n.eq_ignore_ascii_case(&image))
    });
    let base = match earlier {
        Some(s) => Base::Stage { index: s.index },
        None => classify(&image),
    };
    Stage {
        index: file.stages.len(),
        name,
        image,
        line: ins.line,
        base,
        installs: Vec::new(),
        copies: Vec::new(),
        env: Vec::new(),
        builds: Vec::new(),
    }
}

/// What an image reference is: `nvidia/cuda:TAG` (any registry), a plain
/// distribution or language image, or something else.
pub fn classify(image: &str) -> Base {
    let image = image.split('@').next().unwrap_or(image);
    if image == "scratch" {
        return Base::Scratch;
    }
    // The tag follows the last `:` after the last `/` (a registry port has a
    // `/` after it).
    let slash = image.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match image[slash..].find(':') {
        Some(colon) => (&image[..slash + colon], &image[slash + colon + 1..]),
        None => (image, ""),
    };
    let repo = repo
        .trim_start_matches("docker.io/")
        .trim_start_matches("library/");
    if repo == "nvidia/cuda" || repo.ends_with("/nvidia/cuda") {
        return nvidia_cuda(tag).unwrap_or(Base::Other);
    }
    const DISTROS: [&str; 14] = [
        "ubuntu",
        "debian",
        "python",
        "alpine",
        "centos",
        "rockylinux",
        "almalinux",
        "fedora",
        "amazonlinux",
        "busybox",
        "redhat/ubi8",
        "redhat/ubi9",
        "opensuse/leap",
        "oraclelinux",
    ];
    if DISTROS.contains(&repo) {
        return Base::Distro {
            name: repo.to_string(),
            tag: tag.to_string(),
        };
    }
    Base::Other
}

/// `12.4.1-cudnn-devel-ubuntu22.04`, `12.1.0-runtime-ubi8`,
/// `11.8.0-cudnn8-devel-ubuntu22.04`.
fn nvidia_cuda(tag: &str) -> Option<Base> {
    let mut parts = tag.split('-');
    let version = parts.next()?;
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let mut cudnn = false;
    let mut kind = None;
    let mut distro = Vec::new();
    for part in parts {
        match part {
            p if p.starts_with("cudnn") => cudnn = true,
            "base" | "runtime" | "devel" => kind = Some(part),
            p => distro.push(p),
        }
    }
    let flavor = match (kind?, cudnn) {
        ("devel", false) => Flavor::Devel,
        ("devel", true) => Flavor::CudnnDevel,
        ("runtime", false) => Flavor::Runtime,
        ("runtime", true) => Flavor::CudnnRuntime,
        _ => Flavor::Base,
    };
    Some(Base::NvidiaCuda {
        version: version.to_string(),
        flavor,
        distro: distro.join("-"),
    })
}

fn env(stage: &mut Stage, ins: &Instruction) {
    let text = ins.text();
    let text = text.trim();
    let first = text.split_whitespace().next().unwrap_or("");
    let pairs: Vec<(String, String)> = if first.contains('=') {
        shell_words(text)
            .into_iter()
            .filter_map(|w| {
                w.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
            })
            .collect()
    } else {
        // Legacy `ENV NAME value with spaces`.
        let value = text[first.len()..].trim();
        vec![(first.to_string(), unquote(value).to_string())]
    };
    for (name, value) in pairs {
        if ENV_THAT_MATTERS.contains(&name.as_str()) {
            stage.env.push(EnvSetting {
                name,
                value,
                line: ins.line,
            });
        }
    }
}

/// Words of a shell-ish string with quotes removed (no expansion).
fn shell_words(text: &str) -> Vec<String> {
    words(&[(0, text.to_string())])
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w, _) => Some(w),
            Token::Op => None,
        })
        .collect()
}

#[derive(Debug)]
enum Token {
    Word(String, usize),
    /// `&&`, `||`, `;`, `|`, `&`, `(`, `)`: the end of a simple command.
    Op,
}

/// Splits (line, text) parts into words and command separators. Quotes
/// group; a backslash escapes the next character. A part's end is a word
/// break (the continuation joined the lines with whitespace).
fn words(parts: &[(usize, String)]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut word_line = 0;
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for (line, text) in parts {
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(q) = quote {
                if c == q {
                    quote = None;
                } else {
                    word.push(c);
                }
                continue;
            }
            match c {
                '\'' | '"' => {
                    quote = Some(c);
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                }
                '\\' => {
                    if let Some(next) = chars.next() {
                        word.push(next);
                    }
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                }
                c if c.is_whitespace() => {
                    if in_word {
                        out.push(Token::Word(std::mem::take(&mut word), word_line));
                        in_word = false;
                    }
                }
                '&' | '|' | ';' | '(' | ')' => {
                    if in_word {
                        out.push(Token::Word(std::mem::take(&mut word), word_line));
                        in_word = false;
                    }
                    if matches!(chars.peek(), Some('&' | '|')) {
                        chars.next();
                    }
                    out.push(Token::Op);
                }
                c => {
                    if !in_word {
                        in_word = true;
                        word_line = *line;
                    }
                    word.push(c);
                }
            }
        }
        if in_word && quote.is_none() {
            out.push(Token::Word(std::mem::take(&mut word), word_line));
            in_word = false;
        }
    }
    if in_word {
        out.push(Token::Word(word, word_line));
    }
    out
}

/// Simple commands: lists of (word, line).
fn commands(tokens: Vec<Token>) -> Vec<Vec<(String, usize)>> {
    let mut out = vec![Vec::new()];
    for token in tokens {
        match token {
            Token::Word(w, line) => out.last_mut().unwrap_or(&mut Vec::new()).push((w, line)),
            Token::Op => out.push(Vec::new()),
        }
    }
    out.retain(|c| !c.is_empty());
    out
}

fn run(stage: &mut Stage, ins: &Instruction) {
    let mut cmds = commands(words(&ins.parts));
    for heredoc in &ins.heredocs {
        // A heredoc is shell when it is the RUN itself or fed to a shell;
        // `python3 <<EOF` is Python, not commands.
        let shell = heredoc.command.is_empty()
            || ["sh", "bash", "/bin/sh", "/bin/bash"]
                .iter()
                .any(|s| heredoc.command.split_whitespace().next() == Some(s));
        if shell {
            for line in &heredoc.lines {
                cmds.extend(commands(words(std::slice::from_ref(line))));
            }
        }
    }
    for cmd in cmds {
        command(stage, &cmd);
    }
}

/// Options of pip, conda and apt-get install that take a value in the next
/// word.
const PIP_VALUE_OPTIONS: [&str; 22] = [
    "-r",
    "--requirement",
    "-c",
    "--constraint",
    "-i",
    "--index-url",
    "--extra-index-url",
    "-f",
    "--find-links",
    "-t",
    "--target",
    "--prefix",
    "--root",
    "--platform",
    "--python-version",
    "--implementation",
    "--abi",
    "--cache-dir",
    "--src",
    "--upgrade-strategy",
    "--trusted-host",
    "--config-settings",
];
const CONDA_VALUE_OPTIONS: [&str; 7] = [
    "-c",
    "--channel",
    "-n",
    "--name",
    "-p",
    "--prefix",
    "--file",
];
const APT_VALUE_OPTIONS: [&str; 4] = ["-o", "-t", "--target-release", "--option"];

fn command(stage: &mut Stage, cmd: &[(String, usize)]) {
    // Skip `VAR=value`, `sudo`, `env`, `time`, `exec` in front.
    let mut start = 0;
    while let Some((w, _)) = cmd.get(start) {
        let assignment = w.contains('=') && !w.starts_with('-') && !w.starts_with('=');
        if assignment || matches!(w.as_str(), "sudo" | "env" | "time" | "exec" | "command") {
            start += 1;
        } else {
            break;
        }
    }
    let cmd = &cmd[start..];
    let Some((program, line)) = cmd.first() else {
        return;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let word = |i: usize| cmd.get(i).map(|(w, _)| w.as_str());
    // Where the install arguments start, and which tool.
    let install = if is_pip(program) && word(1) == Some("install") {
        Some((InstallTool::Pip, 2))
    } else if program.starts_with("python") && word(1) == Some("-m") && word(2) == Some("pip") {
        (word(3) == Some("install")).then_some((InstallTool::Pip, 4))
    } else if program == "uv" && word(1) == Some("pip") && word(2) == Some("install") {
        Some((InstallTool::Pip, 3))
    } else if matches!(program, "conda" | "mamba" | "micromamba")
        && matches!(word(1), Some("install" | "create"))
    {
        Some((InstallTool::Conda, 2))
    } else if matches!(program, "apt-get" | "apt") && word(1) == Some("install") {
        Some((InstallTool::Apt, 2))
    } else {
        None
    };
    if let Some((tool, from)) = install {
        let value_options: &[&str] = match tool {
            InstallTool::Pip => &PIP_VALUE_OPTIONS,
            InstallTool::Conda => &CONDA_VALUE_OPTIONS,
            InstallTool::Apt => &APT_VALUE_OPTIONS,
        };
        let mut packages = Vec::new();
        let mut first_line = None;
        let mut i = from;
        while let Some((w, l)) = cmd.get(i) {
            i += 1;
            if tool == InstallTool::Pip && (w == "-e" || w == "--editable") {
                if let Some((path, l)) = cmd.get(i) {
                    packages.push(path.clone());
                    first_line.get_or_insert(*l);
                    i += 1;
                }
            } else if value_options.contains(&w.as_str()) {
                i += 1;
            } else if w.starts_with('-') || w.starts_with('$') && w.len() == 1 {
                continue;
            } else {
                packages.push(w.clone());
                first_line.get_or_insert(*l);
            }
        }
        if !packages.is_empty() {
            let local = tool == InstallTool::Pip
                && packages
                    .iter()
                    .any(|p| p.starts_with('.') || p.starts_with('/'));
            if local {
                stage
                    .builds
                    .push((format!("pip install {}", packages.join(" ")), *line));
            }
            stage.installs.push(Install {
                tool,
                packages,
                line: first_line.unwrap_or(*line),
            });
        }
        return;
    }
    let build = match program {
        "nvcc" | "cmake" | "make" | "ninja" => Some(program.to_string()),
        p if p.starts_with("python") && word(1) == Some("setup.py") => Some(
            format!("python setup.py {}", word(2).unwrap_or(""))
                .trim()
                .to_string(),
        ),
        _ => None,
    };
    if let Some(build) = build {
        stage.builds.push((build, *line));
    }
}

fn is_pip(program: &str) -> bool {
    program == "pip"
        || program
            .strip_prefix("pip")
            .is_some_and(|v| v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Dockerfile, Vec<Note>) {
        parse_dockerfile("Dockerfile", text.as_bytes())
    }

    #[test]
    fn tags_classify() {
        assert_eq!(
            classify("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04"),
            Base::NvidiaCuda {
                version: "12.4.1".into(),
                flavor: Flavor::CudnnDevel,
                distro: "ubuntu22.04".into()
            }
        );
        assert_eq!(
            classify("docker.io/nvidia/cuda:12.1.0-runtime-ubi8@sha256:abc"),
            Base::NvidiaCuda {
                version: "12.1.0".into(),
                flavor: Flavor::Runtime,
                distro: "ubi8".into()
            }
        );
        assert!(matches!(
            classify("nvcr.io/nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"),
            Base::NvidiaCuda {
                flavor: Flavor::CudnnRuntime,
                ..
            }
        ));
        assert!(matches!(
            classify("nvidia/cuda:12.4.1-base-ubuntu22.04"),
            Base::NvidiaCuda {
                flavor: Flavor::Base,
                ..
            }
        ));
        assert_eq!(
            classify("python:3.11-slim-bookworm"),
            Base::Distro {
                name: "python".into(),
                tag: "3.11-slim-bookworm".into()
            }
        );
        assert_eq!(classify("localhost:5000/company/base:1"), Base::Other);
        assert_eq!(
            classify("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel"),
            Base::Other
        );
    }

    #[test]
    fn continuations_comments_and_lines() {
        let (file, notes) = parse(
            "# syntax=docker/dockerfile:1\n\
             ARG CUDA=12.4.1\n\
             FROM nvidia/cuda:${CUDA}-devel-ubuntu22.04 AS builder\n\
             RUN apt-get update \\\n\
             # a comment inside\n\
             \x20&& apt-get install -y --no-install-recommends \\\n\
             \x20     git cuda-cupti-dev-12-4 \\\n\
             \x20&& rm -rf /var/lib/apt/lists/*\n\
             RUN pip install --index-url https://download.pytorch.org/whl/cu124 torch==2.5.1 numpy\n\
             FROM builder AS final\n\
             ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64 OTHER=1\n\
             COPY --from=builder /opt/venv /opt/venv\n",
        );
        assert!(notes.is_empty(), "{notes:?}");
        assert_eq!(file.stages.len(), 2);
        let s0 = &file.stages[0];
        assert_eq!(s0.image, "nvidia/cuda:12.4.1-devel-ubuntu22.04");
        assert_eq!(s0.line, 3);
        assert_eq!(s0.installs[0].tool, InstallTool::Apt);
        assert_eq!(s0.installs[0].packages, ["git", "cuda-cupti-dev-12-4"]);
        assert_eq!(s0.installs[0].line, 7);
        assert_eq!(s0.installs[1].packages, ["torch==2.5.1", "numpy"]);
        assert!(s0.installs[1].has("torch"));
        assert_eq!(s0.installs[1].line, 9);
        let s1 = &file.stages[1];
        assert_eq!(s1.base, Base::Stage { index: 0 });
        assert_eq!(s1.env[0].name, "LD_LIBRARY_PATH");
        assert_eq!(s1.env[0].line, 11);
        assert_eq!(s1.copies[0].stage, Some(0));
        let (_, base) = file.root_base(file.final_stage().unwrap());
        assert!(matches!(
            base,
            Base::NvidiaCuda {
                flavor: Flavor::Devel,
                ..
            }
        ));
    }

    #[test]
    fn heredocs_are_shell_unless_fed_to_another_program() {
        let (file, notes) = parse(
            "FROM ubuntu:22.04\n\
             RUN <<EOF\n\
             apt-get update\n\
             apt-get install -y python3-pip\n\
             pip3 install torch\n\
             EOF\n\
             RUN python3 <<'PY'\n\
             import os; os.system('pip install evil')\n\
             PY\n\
             RUN <<-EOT bash\n\
             \tnvcc -o x x.cu\n\
             \tEOT\n\
             ENV TORCH_CUDA_ARCH_LIST=\"8.0 8.6\"\n",
        );
        assert!(notes.is_empty(), "{notes:?}");
        let s = &file.stages[0];
        let installs: Vec<(InstallTool, usize)> =
            s.installs.iter().map(|i| (i.tool, i.line)).collect();
        assert_eq!(installs, [(InstallTool::Apt, 4), (InstallTool::Pip, 5)]);
        assert_eq!(s.builds, [("nvcc".to_string(), 11)]);
        assert_eq!(s.env[0].value, "8.0 8.6");
        assert_eq!(s.env[0].line, 13);
    }

    #[test]
    fn escape_directive_changes_the_continuation() {
        let (file, _) =
            parse("# escape=`\nFROM ubuntu:22.04\nRUN apt-get install -y `\n    cuda-cupti-12-4\n");
        assert_eq!(file.stages[0].installs[0].packages, ["cuda-cupti-12-4"]);
        assert_eq!(file.stages[0].installs[0].line, 4);
    }

    #[test]
    fn binary_bytes_stop_reading_with_the_line() {
        let (file, notes) = parse_dockerfile(
            "Dockerfile",
            b"FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN echo\n\x7fELF\x00\x01\n",
        );
        assert_eq!(file.stages.len(), 1);
        assert!(!file.complete);
        assert!(file.final_stage().is_none());
        assert_eq!(notes.len(), 1);
        assert_eq!(notes[0].line, Some(3));
        assert!(
            notes[0]
                .message
                .starts_with("binary data (byte 0x00 at column 5)")
        );
    }
}
