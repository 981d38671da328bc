//! Causes with checks: a section that explains a message can list its likely
//! causes in a fenced `causes` block, in TOML, each with an optional
//! condition over the facts the probes read:
//!
//! ````text
//! ```causes
//! [[cause]]
//! text = "The driver is older than the CUDA major torch was built for"
//! check = "torch.cuda > driver.cuda"
//! fix = "Upgrade the driver, or install a torch wheel built for an older CUDA"
//! confirm = "nvidia-smi | head -4"
//! ```
//! ````
//!
//! This module only parses: the block into `Cause`s, and each `check` into a
//! `Condition` by a small grammar of its own (nothing in a file is ever
//! executed). Which fact names exist is the probes' business (`lore check`
//! validates names against `probe::FACT_NAMES`); what a condition says about
//! a machine is `diagnose`'s.
//!
//! The grammar, loosest binding first:
//!
//! ```text
//! condition  := all ("or" all)*
//! all        := unary ("and" unary)*
//! unary      := "not" unary | "(" condition ")" | test | comparison
//! test       := ("file" | "package" | "lib" | "wheel-lib" | "apt") "(" STRING ")"
//!             | "present" "(" FACT ")"
//! comparison := operand OP operand
//! operand    := FACT | STRING | VERSION | "version" "(" STRING ")" | "major" "(" FACT ")"
//! OP         := "==" | "!=" | "<" | "<=" | ">" | ">=" | "contains"
//! FACT       := a name such as `torch.cuda`, `nvidia-wheel`, `env.CUDA_HOME`
//! VERSION    := digits and dots: `12`, `12.4`, `580.65.06`
//! STRING     := "…" or '…'
//! ```

use std::fmt;

use serde::Deserialize;

use super::{CodeBlock, Document, Section};

/// The fence info word that marks a causes block.
pub const FENCE: &str = "causes";

/// One likely cause of a message, as a section lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    /// What goes wrong, in words.
    pub text: String,
    pub check: Option<Check>,
    /// What to do when this cause holds.
    pub fix: Option<String>,
    /// A command a person can run to confirm it by hand.
    pub confirm: Option<String>,
    /// The document line of the cause's `[[cause]]` table.
    pub line: usize,
}

/// A cause's machine-checkable condition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// As written in the file.
    pub source: String,
    pub condition: Condition,
    /// The document line of `check = …`.
    pub line: usize,
}

/// A causes block: where it is, the causes it lists, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CauseBlock {
    /// Line of the opening fence.
    pub line: usize,
    /// The causes, in the order written. A cause whose check does not parse
    /// is kept without one (so it counts as unchecked), and its error is in
    /// `errors`.
    pub causes: Vec<Cause>,
    pub errors: Vec<CauseError>,
}

/// A problem in a causes block, at a document line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct CauseError {
    pub line: usize,
    pub message: String,
}

/// A condition over probe facts. Evaluation is three-valued (see `diagnose`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Condition {
    All(Vec<Condition>),
    Any(Vec<Condition>),
    Not(Box<Condition>),
    Compare {
        left: Operand,
        op: Op,
        right: Operand,
    },
    Test(Test),
}

/// One side of a comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operand {
    /// A probe fact by name (`torch.cuda`, `env.LD_LIBRARY_PATH`).
    Fact(String),
    /// `version("nvidia-cudnn-cu12")`: the installed version of a package.
    VersionOf(String),
    /// `major(gpu.capability)`: a fact's version, major number only.
    MajorOf(String),
    /// A quoted string or a bare version (`12.4`).
    Literal(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
}

/// A presence test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Test {
    /// `file("/usr/local/cuda/bin/nvcc")`: a path in the probed root (`*`
    /// matches within one path component).
    File(String),
    /// `package("flash-attn")`: a Python distribution is installed.
    Package(String),
    /// `lib("libcuda.so")`: a file of that name (`*` matches any run of
    /// characters: `libcupti.so*`) in a folder the dynamic loader searches
    /// by default or by /etc/ld.so.conf.
    Lib(String),
    /// `wheel-lib("libcupti.so.12")`: a file of that name (`*` as in `lib`)
    /// in an NVIDIA wheel's lib folder.
    WheelLib(String),
    /// `apt("cuda-nvcc-12-4")`: a dpkg package is installed.
    Apt(String),
    /// `present(gpu)`: the probes found a value for this fact.
    Present(String),
}

/// The test functions, for messages and completions.
pub const TESTS: [&str; 6] = ["file", "package", "lib", "wheel-lib", "apt", "present"];
/// The comparison operators, for messages.
pub const OPERATORS: [&str; 7] = ["==", "!=", "<", "<=", ">", ">=", "contains"];

impl Op {
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
            Op::Contains => "contains",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Op::Eq => "is",
            Op::Ne => "is not",
            Op::Lt => "is below",
            Op::Le => "is at most",
            Op::Gt => "is above",
            Op::Ge => "is at least",
            Op::Contains => "contains",
        }
    }

    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "==" => Op::Eq,
            "!=" => Op::Ne,
            "<" => Op::Lt,
            "<=" => Op::Le,
            ">" => Op::Gt,
            ">=" => Op::Ge,
            "contains" => Op::Contains,
            _ => return None,
        })
    }
}

impl Condition {
    /// Every fact name the condition reads, in order of appearance.
    pub fn facts(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit_facts(&mut out);
        out
    }

    fn visit_facts<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Condition::All(parts) | Condition::Any(parts) => {
                for p in parts {
                    p.visit_facts(out);
                }
            }
            Condition::Not(inner) => inner.visit_facts(out),
            Condition::Compare { left, right, .. } => {
                for side in [left, right] {
                    if let Operand::Fact(name) | Operand::MajorOf(name) = side {
                        out.push(name);
                    }
                }
            }
            Condition::Test(Test::Present(name)) => out.push(name),
            Condition::Test(_) => {}
        }
    }

    /// The condition in words, for people: `torch.cuda is above
    /// driver.cuda and no wheel ships libcupti.so.12`.
    pub fn describe(&self) -> String {
        self.words(false)
    }

    fn words(&self, nested: bool) -> String {
        let joined = |parts: &[Condition], with: &str| {
            let text = parts
                .iter()
                .map(|p| p.words(true))
                .collect::<Vec<_>>()
                .join(with);
            if nested { format!("({text})") } else { text }
        };
        match self {
            Condition::All(parts) => joined(parts, " and "),
            Condition::Any(parts) => joined(parts, " or "),
            Condition::Not(inner) => match inner.as_ref() {
                Condition::Test(test) => test.words(false),
                Condition::Compare { left, op, right } => {
                    let op = match op {
                        Op::Eq => "is not",
                        Op::Ne => "is",
                        Op::Lt => "is at least",
                        Op::Le => "is above",
                        Op::Gt => "is at most",
                        Op::Ge => "is below",
                        Op::Contains => "does not contain",
                    };
                    format!("{left} {op} {right}")
                }
                other => format!("not {}", other.words(true)),
            },
            Condition::Compare { left, op, right } => format!("{left} {} {right}", op.words()),
            Condition::Test(test) => test.words(true),
        }
    }
}

impl Test {
    fn words(&self, holds: bool) -> String {
        let (yes, no) = match self {
            Test::File(p) => (format!("{p} exists"), format!("{p} does not exist")),
            Test::Package(p) => (
                format!("Python package {p} is installed"),
                format!("Python package {p} is not installed"),
            ),
            Test::Lib(l) => (
                format!("the loader's folders hold {l}"),
                format!("the loader's folders hold no {l}"),
            ),
            Test::WheelLib(l) => (
                format!("an NVIDIA wheel ships {l}"),
                format!("no NVIDIA wheel ships {l}"),
            ),
            Test::Apt(p) => (
                format!("apt package {p} is installed"),
                format!("apt package {p} is not installed"),
            ),
            Test::Present(f) => (format!("{f} is known"), format!("{f} is not found")),
        };
        if holds { yes } else { no }
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Fact(name) => f.write_str(name),
            Operand::VersionOf(p) => write!(f, "the version of {p}"),
            Operand::MajorOf(name) => write!(f, "the major of {name}"),
            Operand::Literal(v) if is_version(v) => f.write_str(v),
            Operand::Literal(v) => write!(f, "\"{v}\""),
        }
    }
}

/// Digits and dots, starting and ending with a digit: `12`, `12.4`, `580.65.06`.
pub fn is_version(s: &str) -> bool {
    !s.is_empty()
        && s.starts_with(|c: char| c.is_ascii_digit())
        && s.ends_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_digit() || c == '.')
        && !s.contains("..")
}

// ---- the block ------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBlock {
    #[serde(default)]
    cause: Vec<toml::Spanned<RawCause>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCause {
    text: String,
    check: Option<toml::Spanned<String>>,
    fix: Option<String>,
    confirm: Option<String>,
}

/// The causes blocks of a document, in order.
pub fn blocks(doc: &Document) -> Vec<CauseBlock> {
    doc.code_blocks
        .iter()
        .filter(|b| is_causes(b))
        .map(parse_code_block)
        .collect()
}

/// The causes blocks inside one section's own text (not its subsections').
pub fn section_blocks(doc: &Document, section: &Section) -> Vec<CauseBlock> {
    doc.code_blocks
        .iter()
        .filter(|b| is_causes(b) && b.line > section.line && b.line <= section.own_end_line)
        .map(parse_code_block)
        .collect()
}

/// Whether a code block is a causes block.
pub fn is_causes(block: &CodeBlock) -> bool {
    block.lang.as_deref() == Some(FENCE)
}

/// Parses a fenced causes block.
pub fn parse_code_block(block: &CodeBlock) -> CauseBlock {
    parse_block(&block.code, block.line + 1, block.line)
}

/// Parses the text of a causes block whose first line is document line
/// `first_line`; `fence_line` is the opening fence's.
pub fn parse_block(code: &str, first_line: usize, fence_line: usize) -> CauseBlock {
    let line_at = |offset: usize| first_line + code[..offset.min(code.len())].matches('\n').count();
    let mut block = CauseBlock {
        line: fence_line,
        causes: Vec::new(),
        errors: Vec::new(),
    };
    let raw: RawBlock = match toml::from_str(code) {
        Ok(raw) => raw,
        Err(err) => {
            let line = err.span().map_or(fence_line, |s| line_at(s.start));
            block.errors.push(CauseError {
                line,
                message: format!("causes block: {}", one_line(err.message())),
            });
            return block;
        }
    };
    if raw.cause.is_empty() {
        block.errors.push(CauseError {
            line: fence_line,
            message: "causes block lists no [[cause]]".into(),
        });
    }
    for spanned in raw.cause {
        let line = line_at(spanned.span().start);
        let raw = spanned.into_inner();
        if raw.text.trim().is_empty() {
            block.errors.push(CauseError {
                line,
                message: "a cause's `text` is empty".into(),
            });
        }
        let check = raw.check.and_then(|c| {
            let check_line = line_at(c.span().start);
            let source = c.into_inner();
            match parse_condition(&source) {
                Ok(condition) => Some(Check {
                    source,
                    condition,
                    line: check_line,
                }),
                Err(err) => {
                    block.errors.push(CauseError {
                        line: check_line,
                        message: format!("check `{}`: {err}", one_line(&source)),
                    });
                    None
                }
            }
        });
        let nonempty = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        block.causes.push(Cause {
            text: raw.text,
            check,
            fix: nonempty(raw.fix),
            confirm: nonempty(raw.confirm),
            line,
        });
    }
    block
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---- the condition grammar --------------------------------------------------------

/// Why a condition does not parse, at a character column (1-based).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("column {column}: {message}")]
pub struct ConditionError {
    pub column: usize,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Str(String),
    Version(String),
    Op(String),
    Open,
    Close,
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Token::Word(w) | Token::Version(w) | Token::Op(w) => write!(f, "`{w}`"),
            Token::Str(s) => write!(f, "\"{s}\""),
            Token::Open => f.write_str("`(`"),
            Token::Close => f.write_str("`)`"),
        }
    }
}

/// Longest condition accepted, in characters: a check is a line or two.
const MAX_CONDITION: usize = 2_000;
/// Deepest nesting of parentheses and `not`s accepted.
const MAX_DEPTH: usize = 32;

fn tokenize(text: &str) -> Result<Vec<(usize, Token)>, ConditionError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let is_word = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-');
    let is_op = |c: char| "=!<>~&|^%*/+:;,?@#$`\\".contains(c);
    while i < chars.len() {
        let c = chars[i];
        let column = i + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c == '(' {
            out.push((column, Token::Open));
            i += 1;
        } else if c == ')' {
            out.push((column, Token::Close));
            i += 1;
        } else if c == '"' || c == '\'' {
            let start = i + 1;
            let Some(len) = chars[start..].iter().position(|&d| d == c) else {
                return Err(ConditionError {
                    column,
                    message: format!("string not closed: add a {c}"),
                });
            };
            out.push((
                column,
                Token::Str(chars[start..start + len].iter().collect()),
            ));
            i = start + len + 1;
        } else if is_word(c) {
            let start = i;
            while i < chars.len() && is_word(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let token = if word.starts_with(|d: char| d.is_ascii_digit()) {
                if !is_version(&word) {
                    return Err(ConditionError {
                        column,
                        message: format!(
                            "`{word}` is neither a version (digits and dots) nor a fact name; quote it to compare text"
                        ),
                    });
                }
                Token::Version(word)
            } else {
                Token::Word(word)
            };
            out.push((column, token));
        } else if is_op(c) {
            let start = i;
            while i < chars.len() && is_op(chars[i]) {
                i += 1;
            }
            out.push((column, Token::Op(chars[start..i].iter().collect())));
        } else {
            return Err(ConditionError {
                column,
                message: format!("unexpected character {c:?}"),
            });
        }
    }
    Ok(out)
}

/// Parses a check condition.
pub fn parse_condition(text: &str) -> Result<Condition, ConditionError> {
    if text.chars().count() > MAX_CONDITION {
        return Err(ConditionError {
            column: 1,
            message: format!("longer than {MAX_CONDITION} characters"),
        });
    }
    let tokens = tokenize(text)?;
    let end = text.chars().count() + 1;
    let mut parser = Parser {
        tokens,
        at: 0,
        end,
        depth: 0,
    };
    if parser.tokens.is_empty() {
        return Err(ConditionError {
            column: 1,
            message: "the condition is empty".into(),
        });
    }
    let condition = parser.or()?;
    if let Some((column, token)) = parser.tokens.get(parser.at) {
        let message = match token {
            Token::Close => "`)` without a matching `(`".to_string(),
            Token::Word(w) if w == "AND" || w == "OR" || w == "NOT" => {
                format!("write `{}` in lower case", w.to_lowercase())
            }
            _ => format!("expected `and`, `or` or the end, found {token}"),
        };
        return Err(ConditionError {
            column: *column,
            message,
        });
    }
    Ok(condition)
}

struct Parser {
    tokens: Vec<(usize, Token)>,
    at: usize,
    /// Column just past the end, for "found the end" errors.
    end: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.at).map(|(_, t)| t)
    }

    fn column(&self) -> usize {
        self.tokens.get(self.at).map_or(self.end, |(c, _)| *c)
    }

    fn error(&self, message: impl Into<String>) -> ConditionError {
        ConditionError {
            column: self.column(),
            message: message.into(),
        }
    }

    fn found(&self) -> String {
        match self.peek() {
            Some(t) => t.to_string(),
            None => "the end".to_string(),
        }
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.tokens.get(self.at).map(|(_, t)| t.clone());
        self.at += 1;
        t
    }

    fn keyword(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Token::Word(w)) if w == word)
    }

    fn or(&mut self) -> Result<Condition, ConditionError> {
        let mut parts = vec![self.and()?];
        while self.keyword("or") {
            self.at += 1;
            parts.push(self.and()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Condition::Any(parts)
        })
    }

    fn and(&mut self) -> Result<Condition, ConditionError> {
        let mut parts = vec![self.unary()?];
        while self.keyword("and") {
            self.at += 1;
            parts.push(self.unary()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Condition::All(parts)
        })
    }

    fn deeper(&mut self) -> Result<(), ConditionError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("nested more than {MAX_DEPTH} deep")));
        }
        Ok(())
    }

    fn unary(&mut self) -> Result<Condition, ConditionError> {
        if self.keyword("not") {
            self.at += 1;
            self.deeper()?;
            let inner = self.unary()?;
            self.depth -= 1;
            return Ok(Condition::Not(Box::new(inner)));
        }
        if self.peek() == Some(&Token::Open) {
            self.at += 1;
            self.deeper()?;
            let inner = self.or()?;
            self.depth -= 1;
            if self.peek() != Some(&Token::Close) {
                return Err(self.error(format!("expected `)`, found {}", self.found())));
            }
            self.at += 1;
            return Ok(inner);
        }
        // A test: a word followed by `(`.
        if let Some(Token::Word(name)) = self.peek()
            && matches!(self.tokens.get(self.at + 1), Some((_, Token::Open)))
            && name != "version"
            && name != "major"
        {
            return self.test();
        }
        self.comparison()
    }

    /// `NAME ( ARGUMENT )`, the name already seen.
    fn call(&mut self) -> Result<(String, usize, Token), ConditionError> {
        let name = match self.next() {
            Some(Token::Word(w)) => w,
            _ => unreachable!("call() follows a word"),
        };
        self.at += 1; // `(`
        let column = self.column();
        let Some(arg) = self.next() else {
            return Err(ConditionError {
                column,
                message: format!("`{name}(` is not closed"),
            });
        };
        if self.peek() != Some(&Token::Close) {
            return Err(self.error(format!(
                "`{name}` takes one argument: expected `)`, found {}",
                self.found()
            )));
        }
        self.at += 1;
        Ok((name, column, arg))
    }

    fn test(&mut self) -> Result<Condition, ConditionError> {
        let (name, column, arg) = self.call()?;
        let err = |message: String| ConditionError { column, message };
        if name == "present" {
            return match arg {
                Token::Word(fact) => Ok(Condition::Test(Test::Present(fact))),
                other => Err(err(format!("`present` takes a fact name, found {other}"))),
            };
        }
        let text = match arg {
            Token::Str(s) if !s.trim().is_empty() => s,
            other => {
                return Err(err(format!("`{name}` takes a quoted name, found {other}")));
            }
        };
        let test = match name.as_str() {
            "file" => {
                if !text.starts_with('/') {
                    return Err(err(format!(
                        "file(\"{text}\"): give an absolute path inside the probed root"
                    )));
                }
                if text.split('/').any(|c| c == "..") {
                    return Err(err(format!(
                        "file(\"{text}\"): `..` is not allowed: the path stays inside the root"
                    )));
                }
                Test::File(text)
            }
            "package" => Test::Package(text),
            "lib" => Test::Lib(text),
            "wheel-lib" => Test::WheelLib(text),
            "apt" => Test::Apt(text),
            _ => {
                return Err(ConditionError {
                    column: column.saturating_sub(name.chars().count() + 1).max(1),
                    message: format!(
                        "unknown test `{name}`; use {} or version(…) in a comparison",
                        TESTS.join(", ")
                    ),
                });
            }
        };
        Ok(Condition::Test(test))
    }

    fn operand(&mut self) -> Result<Operand, ConditionError> {
        match self.peek() {
            Some(Token::Word(w))
                if w == "version"
                    && matches!(self.tokens.get(self.at + 1), Some((_, Token::Open))) =>
            {
                let (_, column, arg) = self.call()?;
                match arg {
                    Token::Str(s) if !s.trim().is_empty() => Ok(Operand::VersionOf(s)),
                    other => Err(ConditionError {
                        column,
                        message: format!("`version` takes a quoted package name, found {other}"),
                    }),
                }
            }
            Some(Token::Word(w))
                if w == "major"
                    && matches!(self.tokens.get(self.at + 1), Some((_, Token::Open))) =>
            {
                let (_, column, arg) = self.call()?;
                match arg {
                    Token::Word(fact) => Ok(Operand::MajorOf(fact)),
                    other => Err(ConditionError {
                        column,
                        message: format!("`major` takes a fact name, found {other}"),
                    }),
                }
            }
            Some(Token::Word(w)) if matches!(w.as_str(), "and" | "or" | "not" | "contains") => {
                Err(self.error(format!(
                    "expected a fact, a string or a version, found `{w}`"
                )))
            }
            Some(Token::Word(_)) => match self.next() {
                Some(Token::Word(w)) => Ok(Operand::Fact(w)),
                _ => unreachable!(),
            },
            Some(Token::Str(_)) | Some(Token::Version(_)) => match self.next() {
                Some(Token::Str(s)) | Some(Token::Version(s)) => Ok(Operand::Literal(s)),
                _ => unreachable!(),
            },
            _ => Err(self.error(format!(
                "expected a fact, a string or a version, found {}",
                self.found()
            ))),
        }
    }

    fn comparison(&mut self) -> Result<Condition, ConditionError> {
        let left = self.operand()?;
        let op = match self.peek() {
            Some(Token::Op(s)) | Some(Token::Word(s)) if Op::parse(s).is_some() => {
                Op::parse(s).unwrap_or(Op::Eq)
            }
            Some(Token::Op(s)) => {
                let hint = match s.as_str() {
                    "=" => " (write `==`)",
                    "&&" => " (write `and`)",
                    "||" => " (write `or`)",
                    "!" => " (write `not`)",
                    _ => "",
                };
                return Err(self.error(format!(
                    "unknown operator `{s}`{hint}; use one of {}",
                    OPERATORS.join(" ")
                )));
            }
            Some(Token::Word(w)) if matches!(w.as_str(), "in" | "is" | "matches" | "like") => {
                return Err(self.error(format!(
                    "unknown operator `{w}`; use one of {}",
                    OPERATORS.join(" ")
                )));
            }
            _ => {
                let what = match &left {
                    Operand::Fact(name) => format!(
                        "`{name}` alone is not a condition: compare it ({}) or test it with present({name})",
                        OPERATORS.join(" ")
                    ),
                    _ => format!(
                        "expected an operator ({}), found {}",
                        OPERATORS.join(" "),
                        self.found()
                    ),
                };
                return Err(self.error(what));
            }
        };
        self.at += 1;
        let right = self.operand()?;
        if matches!(left, Operand::Literal(_)) && matches!(right, Operand::Literal(_)) {
            return Err(self.error("compares two constants: one side must be a fact"));
        }
        if op == Op::Contains && matches!(right, Operand::VersionOf(_) | Operand::MajorOf(_)) {
            return Err(self.error("`contains` takes text on its right"));
        }
        Ok(Condition::Compare { left, op, right })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fact(s: &str) -> Operand {
        Operand::Fact(s.into())
    }

    #[test]
    fn comparisons_tests_and_precedence() {
        let c = parse_condition(
            "torch.cuda > driver.cuda or not wheel-lib(\"libcupti.so.12\") and env.X contains '/usr'",
        )
        .unwrap();
        assert_eq!(
            c,
            Condition::Any(vec![
                Condition::Compare {
                    left: fact("torch.cuda"),
                    op: Op::Gt,
                    right: fact("driver.cuda")
                },
                Condition::All(vec![
                    Condition::Not(Box::new(Condition::Test(Test::WheelLib(
                        "libcupti.so.12".into()
                    )))),
                    Condition::Compare {
                        left: fact("env.X"),
                        op: Op::Contains,
                        right: Operand::Literal("/usr".into())
                    },
                ]),
            ])
        );
        assert_eq!(c.facts(), vec!["torch.cuda", "driver.cuda", "env.X"]);
    }

    #[test]
    fn parentheses_and_version_of() {
        let c =
            parse_condition("(gcc >= 13) and version(\"nvidia-cudnn-cu12\") < major(torch.cuda)")
                .unwrap();
        let Condition::All(parts) = c else {
            panic!("not an and")
        };
        assert_eq!(
            parts[1],
            Condition::Compare {
                left: Operand::VersionOf("nvidia-cudnn-cu12".into()),
                op: Op::Lt,
                right: Operand::MajorOf("torch.cuda".into())
            }
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        let cases = [
            ("torch.cuda = 12", 12, "unknown operator `=` (write `==`)"),
            ("torch.cuda =~ 12", 12, "unknown operator `=~`"),
            ("torch.cuda", 11, "alone is not a condition"),
            ("(torch.cuda > 12", 17, "expected `)`"),
            ("torch.cuda > 12)", 16, "without a matching"),
            ("exists(\"/x\")", 1, "unknown test `exists`"),
            ("file(\"x\")", 6, "absolute path"),
            ("file(\"/a/../b\")", 6, "`..` is not allowed"),
            ("'a' == \"b\"", 11, "two constants"),
            ("torch.cuda > 12a", 14, "neither a version"),
            ("torch.cuda > \"12", 14, "string not closed"),
            ("", 1, "empty"),
            ("torch.cuda > 12 AND gcc > 9", 17, "lower case"),
        ];
        for (text, column, message) in cases {
            let err = parse_condition(text).unwrap_err();
            assert_eq!(err.column, column, "{text}: {err}");
            assert!(err.message.contains(message), "{text}: {err}");
        }
    }

    #[test]
    fn deep_nesting_is_refused_not_a_stack_overflow() {
        let text = format!("{}gcc > 1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(parse_condition(&text).is_err());
        let text = format!("{}gcc > 1", "not ".repeat(400));
        assert!(
            parse_condition(&text)
                .unwrap_err()
                .message
                .contains("nested")
        );
    }

    #[test]
    fn describe_reads_as_words() {
        let c = parse_condition(
            "torch.cuda > driver.cuda and not file(\"/usr/local/cuda/bin/nvcc\") and not gcc <= 12",
        )
        .unwrap();
        assert_eq!(
            c.describe(),
            "torch.cuda is above driver.cuda and /usr/local/cuda/bin/nvcc does not exist and gcc is above 12"
        );
    }

    #[test]
    fn a_block_with_lines_and_errors() {
        let code = "[[cause]]\ntext = \"one\"\ncheck = \"gcc > 12\"\nfix = \"f\"\n\n[[cause]]\ntext = \"two\"\ncheck = \"gcc = 12\"\n";
        let block = parse_block(code, 11, 10);
        assert_eq!(block.causes.len(), 2);
        assert_eq!(block.causes[0].line, 11);
        assert_eq!(block.causes[0].check.as_ref().unwrap().line, 13);
        assert!(block.causes[1].check.is_none());
        assert_eq!(block.errors.len(), 1);
        assert_eq!(block.errors[0].line, 18);
        assert!(block.errors[0].message.contains("write `==`"));
    }

    #[test]
    fn a_block_with_bad_toml_or_unknown_keys() {
        let block = parse_block("[[cause]]\ntext = \"x\"\nchek = \"gcc > 1\"\n", 5, 4);
        assert_eq!(block.errors.len(), 1, "{:?}", block.errors);
        assert!(block.errors[0].message.contains("chek"));
        assert_eq!(block.errors[0].line, 7);
        let block = parse_block("[[cause]\n", 5, 4);
        assert_eq!(block.errors[0].line, 5);
        let block = parse_block("", 5, 4);
        assert!(block.errors[0].message.contains("no [[cause]]"));
    }
}
