//! Known base images as data: `assets/base-images.toml`, compiled in. Each
//! row names an image family (repositories and tag patterns) and what it
//! implies where the tag fixes it: the CUDA version, how torch is installed
//! and its version, where CUPTI is, whether nvcc is there, and the image it
//! is built on. Every row lists its sources; a fact no source gives is
//! "unknown", never a guess.
//!
//! The probes use a row to settle a question about a `FROM` they cannot
//! unpack, naming "image table: <id>" as the evidence. `lore check` runs
//! [`check`] over the table, so a bad edit is an error with its line, not a
//! wrong answer. The table is built in: like the probes themselves, users
//! cannot change what a probe concludes.

use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::Diagnostic;

/// Where the table lives in the source tree, for diagnostics.
pub const TABLE_PATH: &str = "assets/base-images.toml";

static TABLE_TEXT: &str = include_str!("../../assets/base-images.toml");

/// Longest tag matched against patterns (real tags are under 128 bytes; the
/// OCI limit is 128).
const MAX_TAG: usize = 256;

/// One row of the table, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImageRow {
    pub id: String,
    pub family: String,
    repos: Vec<String>,
    tags: Vec<Pattern>,
    versions: Vec<(String, Limit)>,
    built_on: String,
    cuda: String,
    torch: String,
    torch_version: String,
    cupti: String,
    nvcc: String,
    /// The `ENV`s the image's own Dockerfiles set, which a stage built on
    /// it starts with (`PATH`, `LD_LIBRARY_PATH` …), by name.
    pub env: Vec<(String, String)>,
    pub sources: Vec<String>,
    pub note: Option<String>,
    /// Line of the row's `[[image]]` header.
    pub line: usize,
}

/// How torch is installed in an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TorchIn {
    None,
    Pip,
    Conda,
    Source,
    Unknown,
}

/// A fact of a row as it applies to one image: known, known to be absent,
/// or unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Is(String),
    None,
    Unknown,
}

impl Value {
    fn of(text: String) -> Value {
        match text.as_str() {
            "none" => Value::None,
            "unknown" => Value::Unknown,
            _ => Value::Is(text),
        }
    }

    pub fn known(&self) -> Option<&str> {
        match self {
            Value::Is(v) => Some(v),
            _ => None,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Is(v) => f.write_str(v),
            Value::None => f.write_str("none"),
            Value::Unknown => f.write_str("unknown"),
        }
    }
}

/// What a row says about one image reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implied<'a> {
    pub row: &'a ImageRow,
    pub cuda: Value,
    pub torch: TorchIn,
    pub torch_version: Value,
    pub cupti: Value,
    /// `Some(true)` nvcc is there, `Some(false)` it is not, `None` unknown.
    pub nvcc: Option<bool>,
    /// The image this one is built on, if the table knows it.
    pub built_on: Option<String>,
}

impl Implied<'_> {
    /// The evidence a probe names: the table and the row.
    pub fn evidence(&self) -> String {
        format!("image table: {} ({})", self.row.id, self.row.family)
    }

    /// One line for `lore probe`.
    pub fn summary(&self) -> String {
        let torch = match (self.torch, &self.torch_version) {
            (TorchIn::None, _) => "no torch".to_string(),
            (how, Value::Is(v)) => format!("torch {v} ({})", torch_name(how)),
            (how, _) => format!("torch version unknown ({})", torch_name(how)),
        };
        let nvcc = match self.nvcc {
            Some(true) => "nvcc",
            Some(false) => "no nvcc",
            None => "nvcc unknown",
        };
        format!(
            "{}: CUDA {}; {torch}; CUPTI {}; {nvcc}",
            self.row.family, self.cuda, self.cupti
        )
    }
}

fn torch_name(how: TorchIn) -> &'static str {
    match how {
        TorchIn::None => "none",
        TorchIn::Pip => "pip",
        TorchIn::Conda => "conda",
        TorchIn::Source => "built from source",
        TorchIn::Unknown => "installed how is unknown",
    }
}

/// The built-in table's valid rows.
pub fn table() -> &'static [ImageRow] {
    static TABLE: OnceLock<Vec<ImageRow>> = OnceLock::new();
    TABLE.get_or_init(|| parse(TABLE_TEXT).0)
}

/// The problems of the built-in table, for `lore check`.
pub fn check() -> Vec<Diagnostic> {
    parse(TABLE_TEXT).1
}

/// The first row of the built-in table that matches `image` (as written in
/// a `FROM`, `ARG`s substituted).
pub fn lookup(image: &str) -> Option<Implied<'static>> {
    lookup_in(table(), image)
}

pub fn lookup_in<'a>(rows: &'a [ImageRow], image: &str) -> Option<Implied<'a>> {
    let (repo, tag) = split_reference(image)?;
    rows.iter().find_map(|row| {
        if !row.repos.contains(&repo) {
            return None;
        }
        let captures = if row.tags.is_empty() {
            Vec::new()
        } else {
            row.tags.iter().find_map(|p| p.matches(&tag))?
        };
        let get = |name: &str| {
            captures
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.as_str())
        };
        for (name, limit) in &row.versions {
            if !limit.admits(get(name)?) {
                return None;
            }
        }
        let filled = |template: &str| fill(template, &captures);
        Some(Implied {
            row,
            cuda: Value::of(filled(&row.cuda)),
            torch: match row.torch.as_str() {
                "none" => TorchIn::None,
                "pip" => TorchIn::Pip,
                "conda" => TorchIn::Conda,
                "source" => TorchIn::Source,
                _ => TorchIn::Unknown,
            },
            torch_version: Value::of(filled(&row.torch_version)),
            cupti: Value::of(filled(&row.cupti)),
            nvcc: match row.nvcc.as_str() {
                "yes" => Some(true),
                "no" => Some(false),
                _ => None,
            },
            built_on: (row.built_on != "unknown").then(|| filled(&row.built_on)),
        })
    })
}

/// `docker.io/library/ubuntu:22.04@sha256:…` → (`ubuntu`, `22.04`): the
/// repository without Docker Hub's implied parts, lower case, and the tag
/// (empty when none is written).
pub fn split_reference(image: &str) -> Option<(String, String)> {
    let image = image.split('@').next().unwrap_or(image);
    // The tag follows the last `:` after the last `/` (a registry port has
    // a `/` after it).
    let slash = image.rfind('/').map_or(0, |i| i + 1);
    let (repo, tag) = match image[slash..].find(':') {
        Some(colon) => (&image[..slash + colon], &image[slash + colon + 1..]),
        None => (image, ""),
    };
    if repo.is_empty() || tag.len() > MAX_TAG {
        return None;
    }
    Some((normalize_repo(repo), tag.to_string()))
}

fn normalize_repo(repo: &str) -> String {
    let mut repo = repo.to_ascii_lowercase();
    for prefix in ["docker.io/", "index.docker.io/", "registry-1.docker.io/"] {
        if let Some(rest) = repo.strip_prefix(prefix) {
            repo = rest.to_string();
        }
    }
    if let Some(rest) = repo.strip_prefix("library/") {
        repo = rest.to_string();
    }
    repo
}

fn fill(template: &str, captures: &[(String, String)]) -> String {
    let mut out = template.to_string();
    for (name, value) in captures {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

// ---- tag patterns ----------------------------------------------------------------------

/// A tag pattern: literal text and `{name}` captures.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Pattern(Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Capture(String),
}

impl Pattern {
    fn parse(text: &str) -> Result<Pattern, String> {
        let mut pieces = Vec::new();
        let mut rest = text;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('{') {
                let end = after
                    .find('}')
                    .ok_or_else(|| format!("`{{` without `}}` in tag pattern `{text}`"))?;
                let name = &after[..end];
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    return Err(format!(
                        "capture `{{{name}}}` in tag pattern `{text}`: names are lower-case letters and `_`"
                    ));
                }
                if matches!(pieces.last(), Some(Piece::Capture(_))) {
                    return Err(format!(
                        "tag pattern `{text}`: two captures in a row cannot be told apart"
                    ));
                }
                pieces.push(Piece::Capture(name.to_string()));
                rest = &after[end + 1..];
            } else {
                let end = rest.find('{').unwrap_or(rest.len());
                let literal = &rest[..end];
                if let Some(bad) = literal
                    .chars()
                    .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_')))
                {
                    return Err(format!(
                        "tag pattern `{text}`: `{bad}` cannot be in a tag (letters, digits, `.`, `-`, `_`)"
                    ));
                }
                pieces.push(Piece::Text(literal.to_string()));
                rest = &rest[end..];
            }
        }
        if pieces.is_empty() {
            return Err("an empty tag pattern: leave `tags` empty to match any tag".into());
        }
        Ok(Pattern(pieces))
    }

    fn captures(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|p| match p {
            Piece::Capture(name) => Some(name.as_str()),
            Piece::Text(_) => None,
        })
    }

    /// The captures if `tag` matches the whole pattern. A capture takes one
    /// or more characters, never a `-`, and the shortest run that lets the
    /// rest match; patterns are short, so trying each end is cheap.
    fn matches(&self, tag: &str) -> Option<Vec<(String, String)>> {
        let mut out = Vec::new();
        match_from(&self.0, tag, &mut out).then_some(out)
    }
}

fn match_from(pieces: &[Piece], tag: &str, out: &mut Vec<(String, String)>) -> bool {
    let Some((first, rest)) = pieces.split_first() else {
        return tag.is_empty();
    };
    match first {
        Piece::Text(text) => tag
            .strip_prefix(text.as_str())
            .is_some_and(|after| match_from(rest, after, out)),
        Piece::Capture(name) => {
            let limit = tag.find('-').unwrap_or(tag.len());
            for end in 1..=limit {
                if !tag.is_char_boundary(end) {
                    continue;
                }
                out.push((name.clone(), tag[..end].to_string()));
                if match_from(rest, &tag[end..], out) {
                    return true;
                }
                out.pop();
            }
            false
        }
    }
}

// ---- version limits -----------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, Eq)]
struct Limit {
    below: bool,
    version: Vec<u64>,
}

impl Limit {
    fn parse(text: &str) -> Result<Limit, String> {
        let (below, number) = if let Some(n) = text.strip_prefix(">=") {
            (false, n)
        } else if let Some(n) = text.strip_prefix('<') {
            (true, n)
        } else {
            return Err(format!("version limit `{text}`: write `<X.Y` or `>=X.Y`"));
        };
        let version = numbers(number.trim());
        if version.is_empty() || number.trim().split('.').count() != version.len() {
            return Err(format!(
                "version limit `{text}`: `{number}` is not X.Y or X.Y.Z"
            ));
        }
        Ok(Limit { below, version })
    }

    fn admits(&self, version: &str) -> bool {
        let v = numbers(version);
        if v.is_empty() {
            return false;
        }
        let ordering = compare(&v, &self.version);
        if self.below {
            ordering.is_lt()
        } else {
            ordering.is_ge()
        }
    }
}

/// The leading dotted numbers of a version: `2.4.0.dev20240514` → [2, 4, 0].
fn numbers(version: &str) -> Vec<u64> {
    let mut out = Vec::new();
    for part in version.split('.') {
        match part.parse::<u64>() {
            Ok(n) if !part.is_empty() => out.push(n),
            _ => break,
        }
    }
    out
}

fn compare(a: &[u64], b: &[u64]) -> std::cmp::Ordering {
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (
            a.get(i).copied().unwrap_or(0),
            b.get(i).copied().unwrap_or(0),
        );
        if x != y {
            return x.cmp(&y);
        }
    }
    std::cmp::Ordering::Equal
}

// ---- reading and checking the table --------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    #[serde(default)]
    image: Vec<Spanned<RawRow>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    id: String,
    family: String,
    repos: Vec<String>,
    tags: Vec<String>,
    #[serde(default)]
    versions: BTreeMap<String, String>,
    built_on: String,
    cuda: String,
    torch: String,
    torch_version: String,
    cupti: String,
    nvcc: String,
    #[serde(default)]
    env: BTreeMap<String, String>,
    sources: Vec<String>,
    note: Option<String>,
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// Reads a table: its valid rows, and a diagnostic per problem. A row with
/// a problem is left out; the others stay.
pub fn parse(text: &str) -> (Vec<ImageRow>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let raw: RawTable = match toml::from_str(text) {
        Ok(raw) => raw,
        Err(err) => {
            let line = err.span().map_or(1, |s| line_of(text, s.start));
            diagnostics.push(Diagnostic::error(
                TABLE_PATH,
                Some(line),
                err.message().to_string(),
            ));
            return (Vec::new(), diagnostics);
        }
    };
    let mut rows = Vec::new();
    let mut ids = HashSet::new();
    for spanned in raw.image {
        let line = line_of(text, spanned.span().start);
        let raw = spanned.into_inner();
        let mut problems = Vec::new();
        match check_row(&raw) {
            Ok(row) => {
                if !ids.insert(row.id.clone()) {
                    problems.push(format!("image row `{}` is listed twice", row.id));
                } else {
                    rows.push(ImageRow { line, ..row });
                }
            }
            Err(found) => problems = found,
        }
        for problem in problems {
            diagnostics.push(Diagnostic::error(TABLE_PATH, Some(line), problem));
        }
    }
    (rows, diagnostics)
}

fn check_row(raw: &RawRow) -> Result<ImageRow, Vec<String>> {
    let mut problems = Vec::new();
    let id = &raw.id;
    let mut bad = |message: String| problems.push(format!("image row `{id}`: {message}"));
    let kebab = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '.';
    if id.is_empty() || !id.chars().all(kebab) {
        bad("the id must be lower-case letters, digits, `.` and `-`".into());
    }
    if raw.family.trim().is_empty() {
        bad("`family` is empty".into());
    }
    if raw.repos.is_empty() {
        bad("no `repos`".into());
    }
    for repo in &raw.repos {
        if repo.is_empty()
            || repo.contains(['@', ' '])
            || repo[repo.rfind('/').map_or(0, |i| i + 1)..].contains(':')
        {
            bad(format!(
                "repository `{repo}` must be a name without a tag or digest"
            ));
        }
    }
    let mut tags = Vec::new();
    for tag in &raw.tags {
        match Pattern::parse(tag) {
            Ok(p) => tags.push(p),
            Err(e) => bad(e),
        }
    }
    // A name a value uses must be captured by every pattern, or the value
    // would keep a literal `{name}`.
    let captured: Option<HashSet<&str>> = tags
        .iter()
        .map(|p| p.captures().collect::<HashSet<&str>>())
        .reduce(|a, b| a.intersection(&b).copied().collect());
    let captured = captured.unwrap_or_default();
    for (field, value) in [
        ("built_on", &raw.built_on),
        ("cuda", &raw.cuda),
        ("torch_version", &raw.torch_version),
        ("cupti", &raw.cupti),
    ] {
        if value.trim().is_empty() {
            bad(format!(
                "`{field}` is empty: write \"unknown\" if no source says"
            ));
        }
        for name in placeholders(value) {
            if !captured.contains(name.as_str()) {
                bad(format!(
                    "`{field}` uses `{{{name}}}`, which not every tag pattern captures"
                ));
            }
        }
    }
    let mut versions = Vec::new();
    for (name, limit) in &raw.versions {
        if !captured.contains(name.as_str()) {
            bad(format!(
                "`versions` limits `{name}`, which not every tag pattern captures"
            ));
        }
        match Limit::parse(limit) {
            Ok(l) => versions.push((name.clone(), l)),
            Err(e) => bad(e),
        }
    }
    if !matches!(
        raw.torch.as_str(),
        "none" | "pip" | "conda" | "source" | "unknown"
    ) {
        bad(format!(
            "`torch = \"{}\"`: write none, pip, conda, source or unknown",
            raw.torch
        ));
    }
    if !matches!(raw.nvcc.as_str(), "yes" | "no" | "unknown") {
        bad(format!(
            "`nvcc = \"{}\"`: write yes, no or unknown",
            raw.nvcc
        ));
    }
    if raw.torch == "none" && raw.torch_version != "none" {
        bad("`torch_version` must be \"none\" when `torch` is".into());
    }
    for (name, value) in &raw.env {
        let shaped = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !shaped {
            bad(format!(
                "`env` name `{name}` is not a variable name (letters, digits, `_`)"
            ));
        }
        if value.trim().is_empty() || value.contains(['$', '`']) {
            bad(format!(
                "`env.{name}` must be the value the image sets, with nothing left to expand"
            ));
        }
    }
    if raw.sources.is_empty() {
        bad("no `sources`: every fact needs one".into());
    }
    for source in &raw.sources {
        if !source.starts_with("https://") || source.contains(char::is_whitespace) {
            bad(format!("source `{source}` is not an https address"));
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(ImageRow {
        id: raw.id.clone(),
        family: raw.family.clone(),
        repos: raw.repos.iter().map(|r| normalize_repo(r)).collect(),
        tags,
        versions,
        built_on: raw.built_on.clone(),
        cuda: raw.cuda.clone(),
        torch: raw.torch.clone(),
        torch_version: raw.torch_version.clone(),
        cupti: raw.cupti.clone(),
        nvcc: raw.nvcc.clone(),
        env: raw
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        sources: raw.sources.clone(),
        note: raw.note.clone(),
        line: 0,
    })
}

/// The `{name}`s of a value.
fn placeholders(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = value;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let Some(end) = after.find('}') else { break };
        let name = &after[..end];
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
            out.push(name.to_string());
        }
        rest = &after[end + 1..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_table_is_valid() {
        assert_eq!(check(), Vec::<Diagnostic>::new());
        assert!(table().len() >= 15);
    }

    #[test]
    fn patterns_capture_between_dashes_and_limits_compare_versions() {
        let p = Pattern::parse("{torch}-cuda{cuda}-cudnn{cudnn}-runtime").unwrap();
        assert_eq!(
            p.matches("2.4.0.dev20240514-cuda12.1-cudnn8-runtime"),
            Some(vec![
                ("torch".into(), "2.4.0.dev20240514".into()),
                ("cuda".into(), "12.1".into()),
                ("cudnn".into(), "8".into()),
            ])
        );
        assert_eq!(p.matches("2.5.1-cuda12.4-cudnn9-devel"), None);
        let below = Limit::parse("<2.5").unwrap();
        assert!(below.admits("2.4.1") && below.admits("2.4.0.dev20240514"));
        assert!(!below.admits("2.5.0") && !below.admits("2.10.0") && !below.admits("latest"));
        assert!(Limit::parse("<=2.5").is_err());
    }

    #[test]
    fn lookup_fills_the_row_from_the_tag() {
        let hit = lookup("docker.io/pytorch/pytorch:2.1.0-cuda11.8-cudnn8-runtime").unwrap();
        assert_eq!(hit.row.id, "pytorch-runtime-conda");
        assert_eq!(hit.cuda, Value::Is("11.8".into()));
        assert_eq!(hit.torch, TorchIn::Conda);
        assert_eq!(hit.torch_version, Value::Is("2.1.0".into()));
        assert_eq!(hit.nvcc, Some(false));
        let hit = lookup("pytorch/pytorch:2.5.1-cuda12.4-cudnn9-devel").unwrap();
        assert_eq!(hit.row.id, "pytorch-devel");
        assert_eq!(hit.torch, TorchIn::Unknown);
        assert_eq!(hit.built_on.as_deref(), Some("nvidia/cuda:12.4-devel"));
        let hit = lookup("nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04").unwrap();
        assert_eq!(hit.row.id, "nvidia-cuda-devel-ubuntu");
        let hit = lookup("nvcr.io/nvidia/cuda:12.1.0-devel-ubi8").unwrap();
        assert_eq!(
            (hit.row.id.as_str(), hit.cupti),
            ("nvidia-cuda-devel", Value::Unknown)
        );
        assert_eq!(
            lookup("nvcr.io/nvidia/pytorch:25.12-py3").unwrap().cuda,
            Value::Is("13.1.0".into())
        );
        assert_eq!(
            lookup("nvcr.io/nvidia/pytorch:24.05-py3").unwrap().cuda,
            Value::Unknown
        );
        assert_eq!(
            lookup("continuumio/miniconda3").unwrap().row.id,
            "miniconda"
        );
        assert_eq!(lookup("pytorch/pytorch:latest"), None);
        assert_eq!(lookup("ubuntu:22.04"), None);
    }

    #[test]
    fn each_mistake_in_a_row_is_an_error_with_its_line() {
        let text = r#"
[[image]]
id = "ok"
family = "ok"
repos = ["a/b"]
tags = []
built_on = "unknown"
cuda = "none"
torch = "none"
torch_version = "none"
cupti = "none"
nvcc = "no"
sources = ["https://example.org"]

[[image]]
id = "Bad"
family = "x"
repos = ["a/b:1"]
tags = ["{v}-{w}x{"]
versions = { v = "~1" }
built_on = "{v}"
cuda = "{cuda}"
torch = "wheel"
torch_version = "1"
cupti = ""
nvcc = "maybe"
env = { "1PATH" = "/x", LD_LIBRARY_PATH = "/opt/lib:$LD_LIBRARY_PATH" }
sources = ["http://example.org"]
"#;
        let (rows, diagnostics) = parse(text);
        assert_eq!(rows.len(), 1);
        let messages: Vec<String> = diagnostics.iter().map(|d| d.message.clone()).collect();
        assert!(
            diagnostics.iter().all(|d| d.line == Some(15)),
            "{diagnostics:?}"
        );
        for expected in [
            "the id must be",
            "repository `a/b:1`",
            "`{` without `}`",
            "`cuda` uses `{cuda}`",
            "`cupti` is empty",
            "version limit `~1`",
            "`torch = \"wheel\"`",
            "`nvcc = \"maybe\"`",
            "source `http://example.org`",
            "`env` name `1PATH`",
            "`env.LD_LIBRARY_PATH` must be the value the image sets",
        ] {
            assert!(
                messages.iter().any(|m| m.contains(expected)),
                "{expected}: {messages:?}"
            );
        }
    }
}
