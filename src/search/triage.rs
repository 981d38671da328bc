//! Which lines of a pasted log say what went wrong. A build log is mostly
//! progress (`Get:1 …`, `#5 sha256:…`, `Downloading …`) and a few lines
//! that decide: apt's `E: …`, `CMake Error at …`, `nvcc fatal`, a Python
//! traceback's last `XxxError: …`. Many deciding lines carry no error word,
//! and some harmless lines carry one (NCCL's `NET/Plugin : dlerror=…` on
//! every healthy start), so a word list alone picks the wrong lines.
//!
//! Each line is classified by its shape, with the build-step prefixes
//! (`#12 3.4`, `Step 3/12 :`) taken off first:
//!
//! - **noise**: known-harmless output (package downloads and progress, apt
//!   fetches, BuildKit bookkeeping, image pulls, NCCL's plugin probing,
//!   CMake's feature tests): never searched;
//! - **failure**: a line in a form tools use to report a failure, with or
//!   without an error word;
//! - **wrapper**: the line a build tool adds around a failed step
//!   (`returned a non-zero code`, `did not complete successfully`): it
//!   names the command, not the cause;
//! - **hint**: any other line with an error word (`missing`, `invalid`…);
//! - **plain**: the rest.
//!
//! The lines searched are the failures and hints (the last ones where there
//! are many), weighted: the last failure (the step that broke the build)
//! counts fully, earlier failures less, hints and wrappers least. A log with
//! none of them is searched by its last lines.
//!
//! A paste may also be a question of several paragraphs, perhaps with a log
//! inside. A line a person wrote (first person, or a question: see
//! [`is_prose`]) makes the paste a question, and then every line in words
//! rather than in a log's shapes is the user's own and is searched in full:
//! the paragraph that names the subject must not be dropped for the one that
//! says "error". This module only reads text; it never touches the index.

use super::query::{self, PYTEST_ERROR_MARK, strip_markers};

/// At most this many lines of a log are searched.
pub const MAX_LINES: usize = 12;

/// Weight of the terms of the deciding line: the last failure.
pub const DECIDING_WEIGHT: f32 = 1.0;
/// Weight of an earlier failure line.
pub const FAILURE_WEIGHT: f32 = 0.7;
/// Weight of a hint or a build tool's wrapper line.
pub const HINT_WEIGHT: f32 = 0.5;
/// Weight of a line of a question in the user's own words.
pub const OWN_WORDS_WEIGHT: f32 = 1.0;

/// What one line of a log is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Noise,
    Failure,
    Wrapper,
    Hint,
    Plain,
    /// A line of a question, in the user's own words (see [`is_prose`]).
    OwnWords,
}

/// One line chosen to search for.
#[derive(Debug, Clone, PartialEq)]
pub struct Picked {
    /// The line as pasted, trimmed; for a CMake message, its header and
    /// body joined into one line, and for a pytest exception its `E   `
    /// lines.
    pub line: String,
    /// How much its terms count (see the `*_WEIGHT` constants).
    pub weight: f32,
}

/// The lines of `lines` worth searching for, in log order, each once.
pub fn pick(lines: &[&str]) -> Vec<Picked> {
    let question = is_question(lines);
    let mut kinds: Vec<LineKind> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if question && is_own_words(l) {
                LineKind::OwnWords
            } else if i > 0 && is_last_error_label(lines[i - 1]) && !l.trim().is_empty() {
                // NCCL's `Last error:` is followed by the detail that
                // decides (`Duplicate GPU detected : rank 1 and rank 0 both
                // on CUDA device 60`), a line without an error word.
                LineKind::Failure
            } else {
                classify(l)
            }
        })
        .collect();
    // A traceback's frames say where, not what, and the source and caret
    // lines indented under a frame (`raise ValueError(f"…")`) are code: none
    // of them is the message, even under a glog prefix (`E1127 … ] [0/0]
    // File "…"`) that marks every line an error. The first line back at the
    // margin after the frames is the exception, whatever its class is
    // called (`torch._dynamo.exc.Unsupported:`, Triton's `OutOfResources:`
    // end in no `Error` and hold no error word). A frame of `python -c`
    // shows no source line: the error follows it.
    let mut frames_at = None;
    for (i, line) in lines.iter().enumerate() {
        if is_frame(line) {
            frames_at = Some(indent(line));
            if kinds[i] != LineKind::OwnWords {
                kinds[i] = LineKind::Plain;
            }
        } else if let Some(at) = frames_at {
            if indent(line) > at {
                if kinds[i] != LineKind::OwnWords {
                    kinds[i] = LineKind::Noise;
                }
            } else if indent(line) < at {
                frames_at = None;
                if matches!(kinds[i], LineKind::Plain | LineKind::Hint) && is_exception_line(line) {
                    kinds[i] = LineKind::Failure;
                }
            }
        }
    }
    // Python's `warnings` prints `file.py:748: NumbaPerformanceWarning: …`
    // and, indented under it, the line of code that warned (`  warn(…)`):
    // code, not a message. A deprecation or performance warning says nothing
    // about why a program then failed: when an exception after it decides,
    // the warning is noise (alone, it is still what the user asks about).
    let last_failure = kinds.iter().rposition(|k| *k == LineKind::Failure);
    for i in 0..lines.len() {
        let Some(category) = python_warning(lines[i]) else {
            continue;
        };
        // A category alone on its line has its message below it, indented
        // by torch up to 2.7 (`    Found GPU0 … which is of cuda capability
        // 6.1.`): that is the message, not code.
        if let Some(k) = (i + 1..lines.len()).find(|&k| !lines[k].trim().is_empty())
            && indent(lines[k]) > indent(lines[i])
            && kinds[k] != LineKind::OwnWords
            && !is_bare_warning(lines[i])
        {
            kinds[k] = LineKind::Noise;
        }
        if is_incidental_warning(category)
            && kinds[i] != LineKind::OwnWords
            && last_failure.is_some_and(|d| d > i && is_exception_line(lines[d]))
        {
            kinds[i] = LineKind::Noise;
        }
    }
    // A CMake message is a header that says where and an indented body that
    // says what, in words with no error word in them: the two are searched
    // as one line, in the header's place.
    let mut joined: Vec<Option<String>> = vec![None; lines.len()];
    let mut i = 0;
    while i < lines.len() {
        if !is_cmake_header(lines[i]) {
            i += 1;
            continue;
        }
        let (end, body) = cmake_body(lines, i);
        if !body.is_empty() {
            let words: Vec<&str> = body
                .iter()
                .take(MAX_BODY_LINES)
                .map(String::as_str)
                .collect();
            let text = format!("{} {}", strip_markers(lines[i]), words.join(" "));
            join_block(&mut kinds, &mut joined, i..end, text);
        }
        i = end;
    }
    // pytest prints an exception's message with `E   ` before each of its
    // lines, and the line that decides is often not the first (`E
    // Outdated cuDNN installation found.`): the lines are searched as one,
    // in the first one's place.
    let mut i = 0;
    while i < lines.len() {
        let end = lines[i..]
            .iter()
            .position(|l| !is_pytest_error(l))
            .map_or(lines.len(), |n| i + n);
        if end > i + 1 && joined[i].is_none() {
            let words: Vec<String> = lines[i..end]
                .iter()
                .take(MAX_BODY_LINES)
                .map(|l| strip_markers(l))
                .filter(|l| !l.is_empty())
                .collect();
            kinds[i] = LineKind::Failure;
            join_block(&mut kinds, &mut joined, i..end, words.join(" "));
        }
        i = end.max(i + 1);
    }
    // Python prints an exception as `Name: message`. A message that starts
    // with a newline leaves the name alone on its line (`ValueError:`), and
    // the words that decide are the plain lines under it (numba's `Kernel
    // launch configuration was not specified.`): they are searched with the
    // name, in its place.
    // A warning whose message starts with a newline is printed the same
    // way (torch's `UserWarning:` above `… with CUDA capability sm_120 is
    // not compatible …`).
    for i in 0..lines.len() {
        let bare = match kinds[i] {
            LineKind::Failure => is_bare_exception(lines[i]) || is_bare_warning(lines[i]),
            LineKind::Hint => is_bare_warning(lines[i]),
            _ => false,
        };
        if joined[i].is_some() || !bare {
            continue;
        }
        let mut words = vec![strip_markers(lines[i])];
        let mut end = i + 1;
        // A warning's message is one paragraph: what follows a blank line
        // is the program going on (`Epoch 1/10`).
        let warning = is_bare_warning(lines[i]);
        for (k, line) in lines.iter().enumerate().skip(i + 1) {
            let text = strip_markers(line);
            if text.is_empty() {
                if warning && words.len() > 1 {
                    break;
                }
                continue;
            }
            if kinds[k] != LineKind::Plain || words.len() > MAX_BODY_LINES {
                break;
            }
            words.push(text);
            end = k + 1;
        }
        if words.len() > 1 {
            join_block(&mut kinds, &mut joined, i..end, words.join(" "));
        }
    }
    // The user's own words are all searched, and not counted against the
    // log's lines.
    let own: Vec<(usize, f32)> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| **k == LineKind::OwnWords)
        .map(|(i, _)| (i, OWN_WORDS_WEIGHT))
        .collect();
    let deciding = kinds.iter().rposition(|k| *k == LineKind::Failure);
    let mut chosen: Vec<(usize, f32)> = kinds
        .iter()
        .enumerate()
        .filter_map(|(i, k)| match k {
            LineKind::Failure if Some(i) == deciding => Some((i, DECIDING_WEIGHT)),
            LineKind::Failure => Some((i, FAILURE_WEIGHT)),
            LineKind::Wrapper | LineKind::Hint => Some((i, HINT_WEIGHT)),
            LineKind::Noise | LineKind::Plain | LineKind::OwnWords => None,
        })
        .collect();
    if chosen.is_empty() {
        // Nothing looks like a failure: the end of the output is where a
        // program says what it last did (below the question, if there is one).
        let weight = if own.is_empty() {
            DECIDING_WEIGHT
        } else {
            HINT_WEIGHT
        };
        chosen = kinds
            .iter()
            .enumerate()
            .filter(|(_, k)| !matches!(k, LineKind::Noise | LineKind::OwnWords))
            .map(|(i, _)| (i, weight))
            .collect();
        if chosen.is_empty() && own.is_empty() {
            // Every line is noise (two ranks' teardown warnings): what was
            // pasted is still what the user asks about.
            chosen = (0..lines.len())
                .filter(|&i| !lines[i].trim().is_empty())
                .map(|i| (i, weight))
                .collect();
        }
        let keep = chosen.len().saturating_sub(MAX_LINES);
        chosen.drain(..keep);
    } else if chosen.len() > MAX_LINES {
        // Keep the deciding line, then the strongest of the rest, the later
        // first; back in log order afterwards.
        let mut order: Vec<usize> = (0..chosen.len()).collect();
        order.sort_by(|&a, &b| {
            chosen[b]
                .1
                .total_cmp(&chosen[a].1)
                .then_with(|| chosen[b].0.cmp(&chosen[a].0))
        });
        order.truncate(MAX_LINES);
        order.sort_unstable();
        chosen = order.into_iter().map(|i| chosen[i]).collect();
    }
    chosen.extend(own);
    chosen.sort_by_key(|&(i, _)| i);
    let mut out: Vec<Picked> = Vec::new();
    for (i, weight) in chosen {
        let line = joined[i].as_deref().unwrap_or_else(|| lines[i].trim());
        match out.iter_mut().find(|p| p.line == line) {
            Some(seen) => seen.weight = seen.weight.max(weight),
            None => out.push(Picked {
                line: line.to_string(),
                weight,
            }),
        }
    }
    out
}

/// True when some line of `lines` is a person's sentence or question
/// ([`is_prose`]): the paste is a question, perhaps with a log inside.
pub fn is_question(lines: &[&str]) -> bool {
    lines.iter().any(|l| is_prose(l))
}

/// True when one line of `lines` is a person's ([`is_prose`]) and every
/// line is the user's own: a question of several paragraphs with no log
/// inside, to be searched like a typed query.
pub fn is_all_question(lines: &[&str]) -> bool {
    is_question(lines) && lines.iter().all(|l| is_own_words(l))
}

/// Words a person uses about themselves, and a program's output does not.
const FIRST_PERSON: &[&str] = &[
    "i", "i'd", "i'll", "i'm", "i've", "me", "mine", "my", "myself",
];

/// Words a team uses about itself: a person's, unless the line also
/// addresses the reader, as programs' advice does (Open MPI's `We strongly
/// suggest that you run mpirun as a non-root user`, torch's `… indicate
/// that you have used mix of the legacy and new APIs … We suggest only
/// using the new API`). `please` is not such a word: users write "we get
/// this error, please help" too.
const FIRST_PERSON_PLURAL: &[&str] = &["our", "ours", "us", "we", "we'd", "we're", "we've"];

/// Words that address the reader: a program's advice.
const READER: &[&str] = &["you", "you'd", "you'll", "you're", "you've", "your"];

/// Words a question starts with.
const QUESTION_STARTS: &[&str] = &[
    "any", "anyone", "are", "can", "could", "did", "do", "does", "has", "have", "how", "is",
    "should", "what", "when", "where", "which", "who", "why", "will", "would",
];

/// A line a person wrote rather than a program printed: in words (see
/// [`is_in_words`]), and in the first person (`I`, `my`; `we` only in a
/// line that does not address the reader) or a question (it starts with
/// `how`, `why`, `does`… or ends with `?`).
pub fn is_prose(line: &str) -> bool {
    if !is_in_words(line) {
        return false;
    }
    let words: Vec<String> = line
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
                .replace('’', "'")
        })
        .collect();
    let first = words.first().map(String::as_str).unwrap_or("");
    let has = |set: &[&str]| words.iter().any(|w| set.contains(&w.as_str()));
    line.trim_end().ends_with('?')
        || QUESTION_STARTS.contains(&first)
        || has(FIRST_PERSON)
        || (has(FIRST_PERSON_PLURAL) && !has(READER))
}

/// A line in words rather than in one of a log's shapes: at least three
/// words, most of them plain (letters, perhaps ending in punctuation), not
/// indented (a traceback's frames are), not starting with a program's
/// prefix (`E:`, `RuntimeError:`, `error:`, a path, a number, a marker) and
/// not known-harmless output.
pub fn is_in_words(line: &str) -> bool {
    if line.starts_with([' ', '\t']) {
        return false;
    }
    let body = strip_markers(line);
    if body.len() != line.trim().len() || is_noise(&body) {
        // A build step's or progress marker was taken off: program output.
        return false;
    }
    let words: Vec<&str> = body.split_whitespace().collect();
    let Some(first) = words.first() else {
        return false;
    };
    if words.len() < 3
        || first.ends_with(':')
        || first.contains([
            '/', '\\', '.', '_', '[', '(', '#', '=', '<', '>', '"', '$', '|', '{', '`',
        ])
        || first.starts_with(|c: char| !c.is_alphabetic())
        || *first == "Traceback"
    {
        return false;
    }
    let plain = words
        .iter()
        .filter(|w| {
            let w = w.trim_start_matches(['(', '"', '\'', '‘', '“']);
            let w = w.trim_end_matches(['.', ',', '?', '!', ';', ':', ')', '"', '\'', '’', '”']);
            !w.is_empty()
                && w.chars()
                    .all(|c| c.is_alphabetic() || matches!(c, '\'' | '’' | '-'))
        })
        .count();
    plain * 10 >= words.len() * 6
}

/// A line of a question that is the user's own: a person's sentence, or a
/// line in words that is neither a failure's form nor an introduction to
/// what follows (`Environment:`, `Traceback (most recent call last):`).
fn is_own_words(line: &str) -> bool {
    is_prose(line)
        || (is_in_words(line)
            && !line.trim_end().ends_with(':')
            && matches!(classify(line), LineKind::Plain | LineKind::Hint))
}

/// Searches the lines of `block` as one line, `text`, in the place of its
/// first: the others are not searched on their own.
fn join_block(
    kinds: &mut [LineKind],
    joined: &mut [Option<String>],
    block: std::ops::Range<usize>,
    text: String,
) {
    joined[block.start] = Some(text);
    for kind in &mut kinds[block.start + 1..block.end] {
        *kind = LineKind::Noise;
    }
}

/// pytest's `E   ` line: a line of the exception a test failed with.
/// `Name: message` or `Name:` where the name is a Python class, perhaps
/// dotted (`triton.runtime.errors.OutOfResources: out of resource: …`).
fn is_exception_line(line: &str) -> bool {
    python_class(&strip_markers(line)).is_some()
}

/// The class of `Name: message` or `Name:` where the name is a Python
/// class, perhaps dotted: `Unsupported` for `torch._dynamo.exc.Unsupported:
/// …`.
fn python_class(text: &str) -> Option<&str> {
    let (name, _) = text.split_once(':')?;
    let class = name.rsplit('.').next().unwrap_or(name);
    (!name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && class.starts_with(|c: char| c.is_ascii_uppercase()))
    .then_some(class)
}

/// The category of a warning as Python's `warnings` module prints it:
/// `/x/dispatcher.py:748: NumbaPerformanceWarning: Grid size 1 …` gives
/// `NumbaPerformanceWarning`; `FutureWarning: …` alone on a line too.
fn python_warning(line: &str) -> Option<&str> {
    let body = unmarked(line).trim_start();
    let rest = match body.split_once(": ") {
        Some((place, rest))
            if place.rsplit_once(':').is_some_and(|(file, number)| {
                !file.is_empty() && !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit())
            }) =>
        {
            rest
        }
        _ => body,
    };
    python_class(rest).filter(|class| class.len() > "Warning".len() && class.ends_with("Warning"))
}

/// A warning category that never explains a failure: deprecations (torch's
/// `FutureWarning` for `torch.cuda.amp`, numba's `NumbaDeprecationWarning`)
/// and performance advice (`NumbaPerformanceWarning`).
fn is_incidental_warning(category: &str) -> bool {
    category == "FutureWarning"
        || category.ends_with("DeprecationWarning")
        || category.ends_with("PerformanceWarning")
}

/// A Python exception's name alone on its line (`ValueError:`,
/// `numba.core.errors.TypingError:`): its message is on the lines below.
fn is_bare_exception(line: &str) -> bool {
    let body = strip_markers(line);
    body.strip_suffix(':')
        .is_some_and(|name| !name.contains(':'))
        && is_exception_line(line)
        && is_failure(&body, &body.to_lowercase())
}

/// A warning's category alone on its line, perhaps after the place that
/// warned (`…/torch/cuda/__init__.py:235: UserWarning:`): its message is on
/// the lines below.
fn is_bare_warning(line: &str) -> bool {
    strip_markers(line).trim_end().ends_with(':') && python_warning(line).is_some()
}

fn is_pytest_error(line: &str) -> bool {
    line.starts_with(PYTEST_ERROR_MARK)
}

/// At most this many lines of a CMake message's body (or of a pytest
/// exception) are searched.
const MAX_BODY_LINES: usize = 8;

/// `CMake Error at CMakeLists.txt:2 (project):`, `CMake Warning (dev) at
/// …:`, `CMake Error:`: the header of a message whose body follows,
/// indented.
fn is_cmake_header(line: &str) -> bool {
    // The cheap test first: `strip_markers` copies the line.
    if !line.contains("CMake ") {
        return false;
    }
    let body = strip_markers(line);
    (body.starts_with("CMake Error")
        || body.starts_with("CMake Warning")
        || body.starts_with("CMake Deprecation Warning"))
        && body.trim_end().ends_with(':')
}

/// The body under the CMake header at `header`: the lines indented below
/// where the header's text starts (under a BuildKit step's `#12 3.402 `
/// too), blank lines inside included; its end (one past its last line) and
/// the text of its lines that are not blank.
fn cmake_body(lines: &[&str], header: usize) -> (usize, Vec<String>) {
    let at = lines[header].find("CMake").unwrap_or(0);
    let (mut end, mut text) = (header + 1, Vec::new());
    for (k, line) in lines.iter().enumerate().skip(header + 1) {
        // Blank, or blank after a BuildKit step's prefix (`#9 4.211`).
        if line.trim_end().len() <= at || strip_markers(line).is_empty() {
            continue;
        }
        let Some(rest) = line.get(at..).filter(|r| r.starts_with([' ', '\t'])) else {
            break;
        };
        text.push(rest.trim().to_string());
        end = k + 1;
    }
    (end, text)
}

/// What a compute-sanitizer (or cuda-memcheck) line is. Each of its lines
/// starts with `========= `; a report starts right after it (`Invalid
/// __global__ write of size 4 bytes`, `Uninitialized __global__ memory
/// read …`, `Program hit cudaErrorInvalidValue …`), in words that need not
/// hold an error word, and its details are indented further (`at k()+0x60
/// in a.cu:2`, `Address 0x…`, host frames).
fn sanitizer_kind(line: &str) -> Option<LineKind> {
    // Under `docker build` each line has BuildKit's `#12 3.402 ` first.
    let rest = unmarked(line).trim_start().strip_prefix("=========")?;
    if rest.starts_with('=') {
        // A rule of `=` signs (pytest's `==== 1 failed ====`), not this.
        return None;
    }
    let text = rest.trim();
    Some(
        if text.is_empty() || text == "COMPUTE-SANITIZER" || text == "CUDA-MEMCHECK" {
            LineKind::Noise
        } else if rest.starts_with("  ") {
            LineKind::Plain
        } else if text.starts_with("ERROR SUMMARY") || text.starts_with("LEAK SUMMARY") {
            LineKind::Wrapper
        } else {
            LineKind::Failure
        },
    )
}

/// How many spaces or tabs `line` starts with after its markers: under
/// torchrun's `[rank0]:` or BuildKit's `#12 3.402 `, a traceback's
/// indentation follows the prefix.
fn indent(line: &str) -> usize {
    let rest = unmarked(line);
    rest.len() - rest.trim_start_matches([' ', '\t']).len()
}

/// `line` after its leading markers (a glog prefix too), with the spaces
/// that follow the last.
fn unmarked(line: &str) -> &str {
    let mut rest = line;
    loop {
        let trimmed = rest.trim_start();
        let after = query::strip_leading_marker(trimmed);
        if after.len() < trimmed.len() {
            rest = after;
        } else if let Some(after) = after_glog_prefix(trimmed) {
            rest = after;
        } else {
            return rest;
        }
    }
}

/// What a glog / absl line says after its prefix (`E1127 06:05:09.480000
/// 983 fake_tensor.py:2908] `) and torch.compile's frame and compile ids
/// (`[0/0] `), keeping its own indentation: torch logs a whole traceback
/// that way, a line at a time.
fn after_glog_prefix(line: &str) -> Option<&str> {
    glog_severity(line)?;
    let (_, rest) = line.split_once("] ")?;
    let ids = rest
        .strip_prefix('[')
        .and_then(|r| r.split_once("] "))
        .filter(|(id, _)| {
            id.contains('/')
                && id
                    .chars()
                    .all(|c| c.is_ascii_digit() || c == '/' || c == '_')
        });
    Some(ids.map_or(rest, |(_, after)| after))
}

/// A Python traceback's frame: `  File "/x/y.py", line 12, in f`.
/// NCCL's `Last error:` line (PyTorch prints it under a failed collective),
/// which says that the next line is the detail.
fn is_last_error_label(line: &str) -> bool {
    // The cheap test first: most lines of a log are not this one, and
    // `strip_markers` copies the line.
    line.contains("Last error:") && strip_markers(line).trim_end().ends_with("Last error:")
}

fn is_frame(line: &str) -> bool {
    unmarked(line)
        .trim_start()
        .strip_prefix("File \"")
        .is_some_and(|rest| rest.contains("\", line "))
}

/// What `line` is; see the module documentation.
pub fn classify(line: &str) -> LineKind {
    // The classic builder's `Step 3/12 : RUN …` only says which step runs.
    if let Some(rest) = line.trim_start().strip_prefix("Step ")
        && rest.split_once(' ').is_some_and(|(n, _)| {
            n.contains('/') && n.chars().all(|c| c.is_ascii_digit() || c == '/')
        })
    {
        return LineKind::Noise;
    }
    if let Some(kind) = sanitizer_kind(line) {
        return kind;
    }
    let body = strip_markers(line);
    let body = body.trim();
    if body.is_empty() || is_noise(body) {
        return LineKind::Noise;
    }
    // The line of code Python prints under a warning, also when the
    // warning's own line was not copied with it.
    if body.starts_with("warnings.warn(") || body.starts_with("warn(") {
        return LineKind::Noise;
    }
    let lower = body.to_lowercase();
    if is_wrapper(&lower) {
        return LineKind::Wrapper;
    }
    if is_failure(body, &lower) {
        return LineKind::Failure;
    }
    if glog_severity(body) == Some('W') || lower.contains("level=warn") {
        return LineKind::Hint;
    }
    if ERROR_WORDS.iter().any(|w| lower.contains(w)) {
        return LineKind::Hint;
    }
    LineKind::Plain
}

/// Words that mark a line as maybe saying what went wrong.
const ERROR_WORDS: &[&str] = &[
    "error",
    "fatal",
    "failed",
    "failure",
    "exception",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "not found",
    "no such",
    "undefined",
    "unable",
    "denied",
    "killed",
    "abort",
    "assert",
    "segmentation",
    "timeout",
    "timed out",
    "mismatch",
    "unsupported",
    "not supported",
    "invalid",
    "unrecognized",
    "missing",
    "warning",
    "traceback",
    "conflict",
    "refused",
];

/// Line starts (after build-step markers) of output that is known to be
/// harmless, whatever words follow.
const NOISE_STARTS: &[&str] = &[
    // pip
    "Collecting ",
    "Downloading ",
    "Using cached ",
    "Requirement already satisfied",
    "Obtaining ",
    "Looking in indexes",
    "Looking in links",
    "Installing collected packages",
    "Attempting uninstall",
    "Found existing installation",
    "Uninstalling ",
    "Successfully uninstalled",
    "Stored in directory",
    "Created wheel for",
    "Building wheel for",
    "Preparing metadata",
    "Getting requirements to build",
    "Installing build dependencies",
    "Downloading and Extracting",
    // apt and dpkg
    "Get:",
    "Hit:",
    "Ign:",
    "Fetched ",
    "Reading package lists",
    "Building dependency tree",
    "Reading state information",
    "Selecting previously unselected",
    "Preparing to unpack",
    "Unpacking ",
    "Setting up ",
    "Processing triggers",
    "(Reading database",
    "debconf: ",
    "update-alternatives: ",
    // BuildKit bookkeeping
    "sha256:",
    "DONE ",
    "CACHED",
    "resolve ",
    "transferring ",
    "extracting sha256",
    "exporting ",
    "writing image",
    "naming to",
    "load build definition",
    "load .dockerignore",
    "load metadata",
    "[internal]",
    "[auth]",
    // the classic builder and image pulls
    "---> ",
    "Running in ",
    "Removing intermediate container",
    "Sending build context",
    "Successfully built",
    "Successfully tagged",
    "Digest: sha256",
    "Status: Downloaded",
    "Status: Image is up to date",
    "Pull complete",
    "Already exists",
    "Waiting",
    "Verifying Checksum",
    "Download complete",
    // CMake's feature probes fail on purpose.
    "-- Looking for ",
    "-- Performing Test ",
    "-- Check for working",
    "-- Detecting ",
    "-- Check if compiler",
];

/// The lines printed around an error, the same for every error of a kind:
/// Python's around a traceback's frames, PyTorch's after any CUDA error.
const TRACEBACK_SCAFFOLDING: &[&str] = &[
    "Traceback (most recent call last)",
    "During handling of the above exception, another exception occurred",
    "The above exception was the direct cause of the following exception",
    "CUDA kernel errors might be asynchronously reported at some other API call",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions",
];

/// Harmless lines recognised by a word inside them.
fn is_noise(body: &str) -> bool {
    if NOISE_STARTS.iter().any(|s| body.starts_with(s)) {
        return true;
    }
    // `3a4b5c6d7e8f: Pulling fs layer` and `latest: Pulling from nvidia/cuda`.
    if body.contains(": Pulling ")
        || body.ends_with(": Waiting")
        || body.ends_with(": Download complete")
        || body.ends_with(": Pull complete")
        || body.ends_with(": Already exists")
        || body.ends_with(": Verifying Checksum")
    {
        return true;
    }
    // NCCL probing for optional plugins and InfiniBand on every start; the
    // messages carry `dlerror`, `Failed` and `cannot open` but are normal.
    if body.contains("NCCL INFO")
        && (body.contains("NET/Plugin")
            || body.contains("libnccl-net")
            || body.contains("libibverbs")
            || body.contains("No plugin found")
            || body.contains("NET/IB : No device found")
            || body.contains("Using network Socket"))
    {
        return true;
    }
    if body.contains("Failed to open libibverbs.so") || body.contains("libnccl-net.so") {
        return true;
    }
    // torch.distributed's teardown warning, printed at the exit of every
    // process that set up a process group and died before destroying it:
    // after an error it is a consequence, never the cause.
    if body.contains("destroy_process_group() was not called before program exit") {
        return true;
    }
    // What is printed around every error: the words of `Traceback (most
    // recent call last):` stand side by side in every section that quotes a
    // traceback, so searching them made a few long sections the top hits
    // for any pasted traceback, whatever its error.
    if TRACEBACK_SCAFFOLDING.iter().any(|s| body.starts_with(s)) {
        return true;
    }
    // Progress bars: pip's `━━━━` and tqdm's `|█████|`, `45%|`.
    if body.contains('━') || body.contains("█") || body.contains('▕') {
        return true;
    }
    false
}

/// The line a build tool adds when a step fails.
fn is_wrapper(lower: &str) -> bool {
    lower.contains("returned a non-zero code")
        || lower.contains("did not complete successfully")
        || lower.starts_with("error: failed to solve")
        || lower.starts_with("error: failed to build")
        || lower.contains("executor failed running")
        || lower.starts_with("make: ***")
        || lower.starts_with("make[")
        || lower.starts_with("ninja: build stopped")
        || lower.starts_with("error: subprocess-exited-with-error")
        || lower.starts_with("note: this error originates from a subprocess")
        || is_launcher_summary(lower)
}

/// What a launcher prints after a child process it started failed: it names
/// the child, not the cause, which the child printed above. torchrun's
/// `ChildFailedError` block and its `failed (exitcode: 1) local_rank: 0 …
/// of binary: …` line; Python's `subprocess.CalledProcessError: Command
/// '['ninja', '-v']' returned non-zero exit status 1.` around a build.
fn is_launcher_summary(lower: &str) -> bool {
    lower.contains("childfailederror")
        || (lower.contains("failed (exitcode:") && lower.contains("of binary:"))
        || lower.contains("returned non-zero exit status")
        || is_lost_peer(lower)
}

/// A rank's collective failing because another rank died first (gloo's
/// `Connection closed by peer [127.0.0.1]:4790`, `Read error …: Connection
/// reset by peer`): the dead rank's own error is the cause.
fn is_lost_peer(lower: &str) -> bool {
    lower.contains("connection closed by peer") || lower.contains("connection reset by peer")
}

/// A line in one of the forms tools report failures in.
fn is_failure(body: &str, lower: &str) -> bool {
    // apt: `E: Unable to locate package`, `W: GPG error: …`, `Err:3 http://…`.
    if body.starts_with("E: ") || body.starts_with("W: GPG error") {
        return true;
    }
    if let Some(rest) = body.strip_prefix("Err:")
        && rest.starts_with(|c: char| c.is_ascii_digit())
    {
        return true;
    }
    // pip's `ERROR: …`, BuildKit's `ERROR: …`, CMake, nvcc, the linker,
    // compilers' `file: fatal error:` and `error:` anywhere.
    if body.starts_with("ERROR:")
        || body.starts_with("ERROR ")
        || body.starts_with("FATAL")
        || body.starts_with("CMake Error")
        || lower.starts_with("nvcc fatal")
        || lower.starts_with("fatal:")
        || lower.contains("error:")
        || lower.contains("ld: cannot find")
        || lower.contains("undefined reference to")
        || lower.contains("segmentation fault")
        || lower.starts_with("killed")
        || body.contains("NCCL WARN")
        || lower.contains("cuda error")
        || lower.contains("out of memory")
    {
        return true;
    }
    // glog and absl logging (TensorFlow, JAX and XLA, PaddlePaddle, many C++
    // servers) mark a line's severity with its first letter, and an error's
    // message need not hold any error word: `E1027 15:11:27.184481 3266602
    // cuda_dnn.cc:456] Loaded runtime CuDNN library: …`. Go programs' logfmt
    // (the Docker daemon, containerd, ollama) says `level=error`.
    if matches!(glog_severity(body), Some('E' | 'F'))
        || lower.contains("level=error")
        || lower.contains("level=fatal")
    {
        return true;
    }
    // A Python exception line: `RuntimeError: …`, `torch.OutOfMemoryError`,
    // `subprocess.CalledProcessError: …`, also alone on its line.
    let head = body.split([':', ' ']).next().unwrap_or("");
    let name = head.rsplit('.').next().unwrap_or(head);
    (name.ends_with("Error") || name.ends_with("Exception") || name == "KeyboardInterrupt")
        && name.len() > 5
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.starts_with(|c: char| c.is_ascii_uppercase())
}

/// The severity letter of a glog / absl log line
/// (`E1027 15:11:27.184481 3266602 file.cc:456] message`): `I`, `W`, `E` or
/// `F`, when the line has that prefix.
fn glog_severity(body: &str) -> Option<char> {
    let severity = body.chars().next().filter(|c| "IWEF".contains(*c))?;
    let (date, rest) = body[1..].split_once(' ')?;
    if date.len() != 4 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (time, rest) = rest.trim_start().split_once(' ')?;
    let t = time.as_bytes();
    if t.len() < 8 || t[2] != b':' || t[5] != b':' {
        return None;
    }
    // The thread id, then `file:line]`.
    let (thread, rest) = rest.trim_start().split_once(' ')?;
    let (place, _) = rest.split_once(']')?;
    (thread.bytes().all(|b| b.is_ascii_digit()) && place.contains(':')).then_some(severity)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(log: &str) -> Vec<(LineKind, &str)> {
        log.lines().map(|l| (classify(l), l)).collect()
    }

    #[test]
    fn failure_lines_without_an_error_word_are_failures() {
        for line in [
            "#7 2.113 E: Conflicting values set for option Signed-By regarding source https://developer.download.nvidia.com/",
            "W: GPG error: https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64  InRelease: The following signatures couldn't be verified",
            "Err:5 https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64  InRelease",
            "CMake Error at CMakeLists.txt:12 (project):",
            "nvcc fatal   : Unsupported gpu architecture 'compute_35'",
            "/usr/bin/ld: cannot find -lcudart",
            "ERROR: Could not find a version that satisfies the requirement torch==9.9",
            "RuntimeError: CUDA error: no kernel image is available for execution on the device",
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
            "KeyboardInterrupt",
            "node1:1234:1300 [0] NCCL WARN Call to connect returned Connection timed out",
        ] {
            assert_eq!(classify(line), LineKind::Failure, "{line}");
        }
    }

    #[test]
    fn harmless_lines_are_noise_even_with_error_words() {
        for line in [
            "node1:1234:1234 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation",
            "node1:1234:1234 [0] NCCL INFO Failed to open libibverbs.so[.1]",
            "#5 sha256:3b8a2f0c 12.58MB / 29.54MB 0.4s",
            "#5 DONE 0.1s",
            "#9 CACHED",
            "Step 4/9 : RUN apt-get update",
            " ---> Running in 4f0c2b1e9a77",
            "latest: Pulling from nvidia/cuda",
            "Get:1 http://archive.ubuntu.com/ubuntu jammy InRelease [270 kB]",
            "Hit:2 http://security.ubuntu.com/ubuntu jammy-security InRelease",
            "  Downloading torch-2.5.1-cp310-cp310-manylinux1_x86_64.whl (906.4 MB)",
            "     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ 906.4/906.4 MB 5.1 MB/s eta 0:00:00",
            "Collecting error-reporting-helpers==1.0",
            "-- Performing Test CMAKE_HAVE_LIBC_PTHREAD - Failed",
            "-- Looking for pthread_create in pthreads - not found",
            "Traceback (most recent call last):",
            "During handling of the above exception, another exception occurred:",
            "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
        ] {
            assert_eq!(classify(line), LineKind::Noise, "{line}");
        }
    }

    /// The source line a traceback prints under a frame is code, however
    /// many error words it holds; a frame of `python -c` has none, and the
    /// error follows it.
    #[test]
    fn a_frames_source_line_is_not_searched() {
        let lines = [
            "  File \"/x/torch/cuda/memory.py\", line 191, in set_fraction",
            "    raise ValueError(f\"Invalid fraction value: {fraction}\")",
            "ValueError: Invalid fraction value: 1.5. Allowed range: 0~1",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0].line.starts_with("ValueError"));
        let lines = [
            "Traceback (most recent call last):",
            "  File \"<string>\", line 1, in <module>",
            "RuntimeError: mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0].line.starts_with("RuntimeError"));
    }

    /// A traceback ends in its exception, back at the margin after the
    /// frames, and the class need not end in `Error`: the line decides over
    /// the hints printed before the traceback.
    #[test]
    fn the_line_after_a_tracebacks_frames_is_its_exception_whatever_its_class() {
        for exception in [
            "torch.fx.experimental.symbolic_shapes.GuardOnDataDependentSymNode: Could not guard on data-dependent expression u0 > 3 (unhinted: u0 > 3).",
            "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 262144, Hardware limit: 232448.",
            "torch._dynamo.exc.Unsupported: Data-dependent branching",
        ] {
            let lines = [
                "W1127 05:27:06.513000 451 torch/_dynamo/convert_frame.py:1743] some earlier warning",
                "Traceback (most recent call last):",
                "  File \"/w/train.py\", line 7, in <module>",
                "    out = model(x)",
                "          ^^^^^^^^",
                "  File \"/v/torch/fx/experimental/symbolic_shapes.py\", line 7862, in _evaluate_expr",
                "    raise self._make_data_dependent_error(",
                exception,
                "",
                "consider using data-dependent friendly APIs",
            ];
            let picked = pick(&lines);
            assert_eq!(
                picked
                    .iter()
                    .max_by(|a, b| a.weight.total_cmp(&b.weight))
                    .map(|p| p.line.as_str()),
                Some(exception),
                "{picked:?}"
            );
        }
        // Prose at the margin after frames is not taken for an exception.
        assert!(!is_exception_line(
            "during the build, something went wrong: see above"
        ));
    }

    /// torch.compile logs the traceback of a failed fake-tensor call through
    /// its logger, a glog line per traceback line: the prefix marks each
    /// one an error, but its frames, source and caret lines are still not
    /// the message.
    #[test]
    fn a_traceback_logged_a_line_at_a_time_through_glog_is_read_as_a_traceback() {
        let p = "E1127 06:05:09.480000 983 torch/_subclasses/fake_tensor.py:2908] [0/0]";
        let lines = [
            format!("{p} failed while attempting to run meta for aten.mm.default"),
            format!("{p} Traceback (most recent call last):"),
            format!(
                "{p}   File \"/v/torch/_subclasses/fake_tensor.py\", line 2904, in _dispatch_impl"
            ),
            format!("{p}     r = func(*args, **kwargs)"),
            format!("{p}         ^^^^^^^^^^^^^^^^^^^^^"),
            format!("{p}   File \"/v/torch/_prims_common/__init__.py\", line 1640, in _check_with"),
            format!("{p}     raise error_type(message_evaluated)"),
            format!(
                "{p} RuntimeError: a and b must have same reduction dim, but got [2, 3] X [4, 5]."
            ),
            "torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call"
                .to_string(),
        ];
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let picked = pick(&lines);
        assert!(
            picked.iter().all(|p| !p.line.contains("File \"")
                && !p.line.contains("^^^")
                && !p.line.contains("raise ")),
            "{picked:?}"
        );
        assert!(
            picked.iter().any(|p| p.line.ends_with("X [4, 5].")),
            "{picked:?}"
        );
    }

    /// Under torchrun the rank that fails first prints the cause; the
    /// others' collectives then fail on the lost connection, often later
    /// in the output. The cause decides.
    #[test]
    fn a_ranks_error_decides_over_its_peers_lost_connections() {
        let lines = [
            "[rank1]: RuntimeError: [1]: params[0] in this process with sizes [5, 4] appears not to match sizes of the same param in process 0.",
            "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:547] Connection closed by peer [127.0.0.1]:4790",
            "[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:538] Read error [127.0.0.1]:6787: Connection reset by peer",
        ];
        let picked = pick(&lines);
        let first = picked
            .iter()
            .max_by(|a, b| a.weight.total_cmp(&b.weight))
            .map(|p| p.line.as_str());
        assert_eq!(first, Some(lines[0]), "{picked:?}");
    }

    /// Every torchrun failure ends with ProcessGroupNCCL's teardown
    /// warning; the error above it decides. Pasted alone (here from two
    /// ranks), the warnings are still searched.
    #[test]
    fn the_process_group_teardown_warning_does_not_compete_with_the_error() {
        let warning = "[rank0]:[W1127 02:37:15.864806279 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources. For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())";
        let lines = [
            "[rank0]: Traceback (most recent call last):",
            "[rank0]:   File \"/v/torch/distributed/distributed_c10d.py\", line 1711, in init_process_group",
            "[rank0]:     raise ValueError(\"trying to initialize the default process group twice!\")",
            "[rank0]: ValueError: trying to initialize the default process group twice!",
            warning,
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(
            picked[0].line.ends_with("process group twice!"),
            "{picked:?}"
        );
        let other = warning.replace("rank0", "rank1");
        let picked = pick(&[warning, other.as_str()]);
        assert_eq!(picked.len(), 2, "{picked:?}");
    }

    /// Pattern: a deprecation or performance warning printed by Python's
    /// `warnings` module, with the code line that warned indented under it,
    /// above a traceback. The exception decides; the warning, and its code
    /// line, are not searched. Alone, the warning is what is asked about.
    #[test]
    fn a_deprecation_or_performance_warning_above_an_exception_is_not_searched() {
        let perf = "/venv/lib/python3.12/site-packages/numba_cuda/numba/cuda/dispatcher.py:700: NumbaPerformanceWarning: Grid size 2 will likely result in GPU under-utilization due to low occupancy.";
        let lines = [
            perf,
            "  warn(errors.NumbaPerformanceWarning(msg))",
            "Traceback (most recent call last):",
            "  File \"/work/k.py\", line 12, in <module>",
            "    kernel[2, 32](out)",
            "  File \"/venv/lib/python3.12/site-packages/numpy/__init__.py\", line 700, in __getattr__",
            "    raise AttributeError(\"no such attribute\")",
            "AttributeError: module 'numpy' has no attribute 'in1d'",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0].line.starts_with("AttributeError:"), "{picked:?}");

        let future = "/work/train.py:40: FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.";
        let lines = [
            future,
            "  scaler = torch.cuda.amp.GradScaler()",
            "Traceback (most recent call last):",
            "  File \"/work/train.py\", line 52, in <module>",
            "    scaler.step(opt)",
            "ValueError: Attempting to unscale FP16 gradients.",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0].line.starts_with("ValueError:"), "{picked:?}");

        // Alone, the warning is searched, and its code line is not.
        let picked = pick(&[future, "  scaler = torch.cuda.amp.GradScaler()"]);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert_eq!(picked[0].line, future, "{picked:?}");
    }

    /// A `UserWarning` above an exception may be its cause (torch's `CUDA
    /// initialization: …` before `Found no NVIDIA driver`): it stays.
    #[test]
    fn a_user_warning_above_an_exception_is_still_searched() {
        let warning = "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:180: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040).";
        let lines = [
            warning,
            "  return torch._C._cuda_getDeviceCount() > 0",
            "Traceback (most recent call last):",
            "  File \"/work/run.py\", line 3, in <module>",
            "    torch.zeros(1).cuda()",
            "RuntimeError: Found no NVIDIA driver on your system.",
        ];
        let picked = pick(&lines);
        let searched: Vec<&str> = picked.iter().map(|p| p.line.as_str()).collect();
        assert_eq!(searched, [warning, lines[5]], "{picked:?}");
    }

    /// An exception whose message starts with a newline prints its name
    /// alone (`ValueError:`); the plain lines under it are its message, and
    /// are searched with it (numba-cuda's missing launch configuration).
    #[test]
    fn an_exception_with_its_message_below_its_name_is_searched_whole() {
        let lines = [
            "Traceback (most recent call last):",
            "  File \"<string>\", line 9, in <module>",
            "  File \"/v/numba_cuda/numba/cuda/dispatcher.py\", line 1826, in __call__",
            "    raise ValueError(missing_launch_config_msg)",
            "ValueError: ",
            "Kernel launch configuration was not specified. Use the syntax:",
            "",
            "kernel_function[blockspergrid, threadsperblock](arg0, arg1, ..., argn)",
            "",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(
            picked[0]
                .line
                .starts_with("ValueError: Kernel launch configuration was not specified."),
            "{picked:?}"
        );
        // A message on the name's own line is searched as it is, and a
        // warning after it is not taken for its message.
        let lines = [
            "ValueError: Number of devices 1 must be >= the product of mesh_shape (2,)",
            "[W1127 05:27:20.092163041 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called",
        ];
        let picked = pick(&lines);
        assert!(picked.iter().any(|p| p.line == lines[0]), "{picked:?}");
    }

    /// torch warns with a message that starts with a newline, so Python
    /// prints the category alone (`…/torch/cuda/__init__.py:235:
    /// UserWarning:`, or `UserWarning:` as users copy it) and the words that
    /// say what is wrong under it (`… with CUDA capability sm_120 is not
    /// compatible …`): they are searched with it, in its place.
    #[test]
    fn a_warning_with_its_message_below_its_category_is_searched_whole() {
        let message = [
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
        ];
        for header in [
            "UserWarning:",
            "/opt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py:235: UserWarning: ",
        ] {
            let lines = [header, message[0], message[1], "", "  warnings.warn("];
            let picked = pick(&lines);
            assert_eq!(picked.len(), 1, "{picked:?}");
            assert!(
                picked[0].line.contains("sm_120 is not compatible"),
                "{picked:?}"
            );
            assert!(picked[0].line.contains("sm_50 sm_60"), "{picked:?}");
        }
    }

    /// torch up to 2.7 indents the message under a bare `UserWarning:`
    /// (its old-GPU warning); the indented lines are the message, not the
    /// code line Python prints under a warning. The message ends at the
    /// blank line: the training output after it is not searched with it.
    #[test]
    fn an_indented_warning_message_is_searched_and_ends_at_a_blank_line() {
        let lines = [
            "UserWarning:",
            "    Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1.",
            "    PyTorch no longer supports this GPU because it is too old.",
            "    The minimum cuda capability supported by this library is 7.5.",
            "",
            "  warnings.warn(",
            "Epoch 1/10",
            "loading checkpoint from /data/ckpt.pt",
        ];
        let picked = pick(&lines);
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(
            picked[0].line.contains("which is of cuda capability 6.1.")
                && picked[0]
                    .line
                    .ends_with("supported by this library is 7.5."),
            "{picked:?}"
        );
    }

    /// The line of code Python prints under a warning (`  warnings.warn(`)
    /// is code even when the warning's own line was not copied: the
    /// message lines above it are what is searched.
    #[test]
    fn the_warn_call_under_a_copied_warning_is_not_searched() {
        let lines = [
            "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.",
            "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.",
            "",
            "  warnings.warn(",
        ];
        let picked = pick(&lines);
        let searched: Vec<&str> = picked.iter().map(|p| p.line.as_str()).collect();
        assert_eq!(searched, [lines[0], lines[1]], "{picked:?}");
    }

    /// torchrun prefixes each line of a rank's output with `[rankN]:`, and
    /// BuildKit each line of a step with `#12 3.402 `: the traceback's
    /// indentation comes after the prefix, and its source lines are still
    /// code.
    #[test]
    fn a_frames_source_line_under_a_prefix_is_not_searched() {
        let ranks = [
            "[rank1]: Traceback (most recent call last):",
            "[rank1]:   File \"/w/train.py\", line 40, in <module>",
            "[rank1]:     dist.init_process_group(\"nccl\", device_id=dev)",
            "[rank1]:   File \"/v/torch/distributed/c10d_logger.py\", line 81, in wrapper",
            "[rank1]:     return func(*args, **kwargs)",
            "[rank1]:   File \"/v/torch/distributed/distributed_c10d.py\", line 1710, in init_process_group",
            "[rank1]:     raise ValueError(\"trying to initialize the default process group twice!\")",
            "[rank1]: ValueError: trying to initialize the default process group twice!",
        ];
        let buildkit = [
            "#9 2.113 Traceback (most recent call last):",
            "#9 2.113   File \"/opt/setup.py\", line 12, in <module>",
            "#9 2.113     raise RuntimeError(\"CUDA_HOME is not set: cannot build the extension\")",
            "#9 2.114 OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.",
        ];
        for lines in [&ranks[..], &buildkit[..]] {
            let picked = pick(lines);
            assert_eq!(picked.len(), 1, "{picked:?}");
            let last = strip_markers(lines[lines.len() - 1]);
            assert_eq!(picked[0].line, lines[lines.len() - 1].trim(), "{last}");
        }
    }

    #[test]
    fn build_wrappers_and_hints() {
        assert_eq!(
            classify(
                "ERROR: failed to solve: process \"/bin/sh -c apt-get update\" did not complete successfully: exit code: 100"
            ),
            LineKind::Wrapper
        );
        assert_eq!(
            classify(
                "The command '/bin/sh -c pip install -r requirements.txt' returned a non-zero code: 1"
            ),
            LineKind::Wrapper
        );
        assert_eq!(
            classify("warning: the flag is deprecated and missing soon"),
            LineKind::Hint
        );
        assert_eq!(classify("Compiling main.cu"), LineKind::Plain);
    }

    #[test]
    fn the_last_failure_decides_and_noise_is_left_out() {
        let log = "\
node1:1234:1234 [0] NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory
node1:1234:1234 [0] NCCL INFO Failed to open libibverbs.so[.1]
node1:1234:1300 [0] NCCL WARN Call to connect returned Connection timed out
[rank0]: torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error
[rank0]: Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.
";
        let picked = pick(&log.lines().collect::<Vec<_>>());
        let lines: Vec<&str> = picked.iter().map(|p| p.line.as_str()).collect();
        assert!(
            !lines
                .iter()
                .any(|l| l.contains("libibverbs") || l.contains("dlerror")),
            "{lines:?}"
        );
        assert!(lines[0].contains("NCCL WARN"), "{lines:?}");
        let deciding = picked.iter().find(|p| p.weight == DECIDING_WEIGHT).unwrap();
        assert!(
            deciding.line.contains("DistBackendError"),
            "{picked:?} {:?}",
            kinds(log)
        );
    }

    #[test]
    fn an_apt_log_keeps_its_e_line_and_the_wrapper_counts_less() {
        let log = "\
#7 [2/5] RUN apt-get update
#7 0.412 Get:1 http://archive.ubuntu.com/ubuntu jammy InRelease [270 kB]
#7 1.020 Reading package lists...
#7 2.113 E: Conflicting values set for option Signed-By regarding source https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2204/x86_64/ /: /usr/share/keyrings/cuda-archive-keyring.gpg !=
#7 2.114 E: The list of sources could not be read.
#7 ERROR: process \"/bin/sh -c apt-get update\" did not complete successfully: exit code: 100
";
        let picked = pick(&log.lines().collect::<Vec<_>>());
        assert_eq!(picked.len(), 3, "{picked:?}");
        assert!(picked[0].line.contains("Conflicting values"));
        assert_eq!(picked[0].weight, FAILURE_WEIGHT);
        assert_eq!(picked[1].weight, DECIDING_WEIGHT);
        assert_eq!(picked[2].weight, HINT_WEIGHT);
    }

    /// glog / absl output (XLA under JAX, TensorFlow): the error's message
    /// holds no error word, and the shell line above it names an env var
    /// with one. The `E` lines must decide, not the command.
    #[test]
    fn glog_error_lines_decide_over_the_command_that_ran() {
        let log = "\
$ XLA_FLAGS=--xla_dump_to=/tmp/dump TF_CPP_MAX_VLOG_LEVEL=0 python run_error_model.py
I0311 08:02:14.551020   91733 service.cc:152] XLA service initialized for platform CUDA
W0311 08:02:14.600112   91733 gpu_helpers.cc:77] Slow path taken for device 0
E0311 08:02:15.010203   91733 cuda_dnn.cc:512] Loaded runtime CuDNN library: 9.2.0 but source was compiled with: 9.5.1.
F0311 08:02:15.010999   91733 stream_executor.cc:88] Check failed: dnn != nullptr
";
        let picked = pick(&log.lines().collect::<Vec<_>>());
        let lines: Vec<&str> = picked.iter().map(|p| p.line.as_str()).collect();
        assert!(
            lines
                .iter()
                .any(|l| l.contains("Loaded runtime CuDNN library")),
            "{picked:?}"
        );
        let last = picked.last().expect("lines picked");
        assert!(last.line.starts_with("F0311"), "{picked:?}");
        assert_eq!(last.weight, DECIDING_WEIGHT);
        assert!(!lines.iter().any(|l| l.contains("XLA service initialized")));
        // A `W` line counts as a hint, an `I` line not at all.
        assert!(
            picked
                .iter()
                .any(|p| p.line.starts_with("W0311") && p.weight == HINT_WEIGHT)
        );
    }

    /// Go programs' logfmt (the Docker daemon, containerd, ollama):
    /// `level=error` marks the failure, whatever its words.
    #[test]
    fn logfmt_error_lines_are_failures() {
        let log = "\
time=\"2025-01-02T03:04:05Z\" level=info msg=\"starting runner\" gpus=2
time=\"2025-01-02T03:04:06Z\" level=warn msg=\"fallback to CPU\" reason=\"no libcuda\"
time=\"2025-01-02T03:04:06Z\" level=error msg=\"runner exited\" code=3 library=/usr/lib/libcuda.so.1
time=\"2025-01-02T03:04:07Z\" level=info msg=\"shutting down\"
";
        assert_eq!(classify(log.lines().nth(2).unwrap()), LineKind::Failure);
        assert_eq!(classify(log.lines().nth(1).unwrap()), LineKind::Hint);
        let picked = pick(&log.lines().collect::<Vec<_>>());
        assert!(
            picked
                .iter()
                .any(|p| p.line.contains("runner exited") && p.weight == DECIDING_WEIGHT),
            "{picked:?}"
        );
        assert!(
            !picked.iter().any(|p| p.line.contains("shutting down")),
            "{picked:?}"
        );
    }

    #[test]
    fn a_log_without_failures_is_searched_by_its_last_lines() {
        let lines: Vec<String> = (0..40).map(|i| format!("step {i} compiled")).collect();
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let picked = pick(&lines);
        assert_eq!(picked.len(), MAX_LINES);
        assert_eq!(picked.last().unwrap().line, "step 39 compiled");
    }

    /// A question of several paragraphs: the paragraph naming the subject
    /// (the image, the profiler) has no error word, and the log-line picker
    /// once kept only the one saying "error". Every paragraph is the
    /// user's and is searched in full.
    #[test]
    fn a_question_of_several_paragraphs_keeps_every_paragraph() {
        let lines = [
            "We build our training image from nvidia/cuda:12.4.1-runtime-ubuntu22.04 and install torch with pip.",
            "Profiling worked on my laptop, but inside the container the profiler fails with an error about a missing library.",
            "Which package should the Dockerfile install?",
        ];
        assert!(is_all_question(&lines));
        let picked = pick(&lines);
        let kept: Vec<&str> = picked.iter().map(|p| p.line.as_str()).collect();
        assert_eq!(kept, lines, "{picked:?}");
        assert!(picked.iter().all(|p| p.weight == OWN_WORDS_WEIGHT));
    }

    /// A question with a traceback inside: the user's sentence is searched
    /// in full, and the traceback is triaged as any log.
    #[test]
    fn a_question_with_a_log_inside_keeps_the_question_and_the_failure() {
        let lines = [
            "Importing torch in our slim runtime stage fails, what did I leave out of the COPY?",
            "Traceback (most recent call last):",
            "  File \"<string>\", line 1, in <module>",
            "    from torch._C import *  # noqa: F403",
            "ImportError: libcupti.so.12: cannot open shared object file: No such file or directory",
        ];
        assert!(is_question(&lines) && !is_all_question(&lines));
        let picked = pick(&lines);
        assert_eq!(picked[0].line, lines[0]);
        assert_eq!(picked[0].weight, OWN_WORDS_WEIGHT);
        let last = picked.last().unwrap();
        assert!(last.line.starts_with("ImportError") && last.weight == DECIDING_WEIGHT);
        assert!(
            !picked.iter().any(|p| p.line.contains("File \"")),
            "{picked:?}"
        );
    }

    /// Program output in sentences is not a person's: messages address
    /// the reader (`you`, `please`) but do not say `I` or ask.
    #[test]
    fn messages_are_not_taken_for_questions() {
        for line in [
            "RuntimeError: CUDA error: device-side assert triggered",
            "ERROR: Could not find a version that satisfies the requirement torch==9.9",
            "torch 2.5.1 requires nvidia-cuda-cupti-cu12, which is not installed.",
            "If you suspect the watchdog is not actually stuck and a longer timeout would help, you can either increase the timeout.",
            "Traceback (most recent call last):",
            "  File \"/x.py\", line 3, in <module>",
            "#8 5.713 nvcc fatal   : Unsupported gpu architecture 'compute_35'",
            "E: The list of sources could not be read.",
            // A program's advice says "we" to the reader.
            "We strongly recommend that you run this tool as an ordinary user.",
            "You mixed the old and new settings; we suggest setting the flag through the new one only.",
        ] {
            assert!(!is_prose(line), "{line}");
        }
        for line in [
            "How do I make the profiler work inside the container?",
            "I get this error when running on two GPUs",
            "does torch 2.5 still support compute capability 3.5",
            "We see this error on our cluster after the driver update",
            "We get this error after the upgrade, please help",
        ] {
            assert!(is_prose(line), "{line}");
        }
    }

    #[test]
    fn many_failures_keep_the_deciding_one() {
        let mut lines: Vec<String> = (0..50)
            .map(|i| format!("src/f{i}.cu(3): error: identifier \"x{i}\" is undefined"))
            .collect();
        lines.push("make: *** [Makefile:12: all] Error 2".to_string());
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let picked = pick(&lines);
        assert_eq!(picked.len(), MAX_LINES);
        assert!(
            picked
                .iter()
                .any(|p| p.line.contains("x49") && p.weight == DECIDING_WEIGHT)
        );
    }

    /// torchrun's output when a rank fails: each rank's traceback under a
    /// `[rankN]:` prefix, NCCL's `Last error:` and its detail, then the
    /// launcher's `ChildFailedError` summary, which only names the child.
    #[test]
    fn a_launchers_summary_is_a_wrapper_and_the_ranks_error_decides() {
        let log = "\
[rank1]: Traceback (most recent call last):
[rank1]:   File \"/work/train.py\", line 12, in <module>
[rank1]:     dist.all_reduce(t)
[rank1]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.9
[rank1]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library.
[rank1]: Last error:
[rank1]: Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1a000
E0412 09:30:01.112000 2211 torch/distributed/elastic/multiprocessing/api.py:900] failed (exitcode: 1) local_rank: 0 (pid: 2230) of binary: /home/me/venv/bin/python3
Traceback (most recent call last):
  File \"/home/me/venv/bin/torchrun\", line 8, in <module>
    sys.exit(main())
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
  error_file: <N/A>
";
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(
            classify(lines[lines.len() - 4]),
            LineKind::Wrapper,
            "{}",
            lines[lines.len() - 4]
        );
        let picked = pick(&lines);
        let weight = |needle: &str| {
            picked
                .iter()
                .find(|p| p.line.contains(needle))
                .map(|p| p.weight)
        };
        assert_eq!(weight("Duplicate GPU detected"), Some(DECIDING_WEIGHT));
        assert_eq!(weight("DistBackendError"), Some(FAILURE_WEIGHT));
        assert_eq!(weight("ChildFailedError"), Some(HINT_WEIGHT));
        assert_eq!(weight("of binary:"), Some(HINT_WEIGHT));
    }

    /// A build run through Python's subprocess ends in `CalledProcessError`,
    /// which names the command (ninja), not the compiler error above it.
    #[test]
    fn a_called_process_error_is_a_wrapper() {
        let log = "\
nvcc fatal   : Unsupported gpu architecture 'compute_35'
ninja: build stopped: subcommand failed.
subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.";
        let lines: Vec<&str> = log.lines().collect();
        assert_eq!(classify(lines[2]), LineKind::Wrapper);
        let picked = pick(&lines);
        assert!(
            picked
                .iter()
                .any(|p| p.line.starts_with("nvcc fatal") && p.weight == DECIDING_WEIGHT),
            "{picked:?}"
        );
    }

    /// CMake says where in its header and what in an indented body with no
    /// error word; searched apart, only the header (`CMake Error at
    /// CMakeLists.txt:2 (project):`) and `Configuring incomplete` were
    /// left, which every CMake failure shares.
    #[test]
    fn a_cmake_message_is_searched_with_its_body() {
        let log = "\
-- The CUDA compiler identification is unknown
CMake Error at CMakeLists.txt:4 (project):
  The CMAKE_CUDA_COMPILER:

    /opt/cuda-12.9/bin/nvcc

  is not a full path to an existing compiler tool.

Call Stack (most recent call first):
  CMakeLists.txt:4 (project)

-- Configuring incomplete, errors occurred!";
        let lines: Vec<&str> = log.lines().collect();
        let picked = pick(&lines);
        let message = picked
            .iter()
            .find(|p| p.line.starts_with("CMake Error at"))
            .unwrap_or_else(|| panic!("{picked:?}"));
        assert_eq!(
            message.line,
            "CMake Error at CMakeLists.txt:4 (project): The CMAKE_CUDA_COMPILER: \
             /opt/cuda-12.9/bin/nvcc is not a full path to an existing compiler tool."
        );
        assert_eq!(message.weight, DECIDING_WEIGHT);
        // The body is searched once, inside the message, and the call stack
        // below it is not part of it.
        assert!(
            !picked
                .iter()
                .any(|p| p.line.starts_with("is not a full path"))
        );
        assert!(!message.line.contains("Call Stack"));
    }

    /// Under BuildKit each line carries the step's `#12 3.402 ` prefix; the
    /// body's indentation follows it.
    #[test]
    fn a_cmake_message_under_a_buildkit_step_keeps_its_body() {
        let log = "\
#9 4.211 CMake Error at /usr/share/cmake-3.28/Modules/Internal/CMakeCUDAArchitecturesValidate.cmake:7 (message):
#9 4.211   CMAKE_CUDA_ARCHITECTURES:
#9 4.211
#9 4.211     sm_86
#9 4.211
#9 4.211   is not one of the following:
#9 4.212 -- Configuring incomplete, errors occurred!";
        let lines: Vec<&str> = log.lines().collect();
        let picked = pick(&lines);
        assert!(
            picked.iter().any(|p| p.line.ends_with(
                "(message): CMAKE_CUDA_ARCHITECTURES: sm_86 is not one of the following:"
            )),
            "{picked:?}"
        );
    }

    /// compute-sanitizer prefixes every line with `========= `; a report's
    /// first line (`Uninitialized __global__ memory read …`) has no error
    /// word and decides, its indented details do not.
    #[test]
    fn a_sanitizer_report_line_is_a_failure_and_its_details_are_not() {
        for (line, kind) in [
            ("========= COMPUTE-SANITIZER", LineKind::Noise),
            (
                "========= Invalid __global__ write of size 4 bytes",
                LineKind::Failure,
            ),
            (
                "========= Uninitialized __global__ memory read of size 4 bytes",
                LineKind::Failure,
            ),
            (
                "=========     at scale(float *)+0x70 in kernels.cu:12",
                LineKind::Plain,
            ),
            (
                "=========     Address 0x7f3c1a800010 is out of bounds",
                LineKind::Plain,
            ),
            (
                "=========         Host Frame: [0x2ef045] in libcuda.so.1",
                LineKind::Plain,
            ),
            ("========= ", LineKind::Noise),
            ("========= ERROR SUMMARY: 32 errors", LineKind::Wrapper),
            (
                "=================== 2 failed in 0.31s ===================",
                LineKind::Hint,
            ),
        ] {
            assert_eq!(classify(line), kind, "{line}");
            // The same line inside `docker build`, under BuildKit's prefix.
            let built = format!("#14 7.031 {line}");
            assert_eq!(classify(&built), kind, "{built}");
        }
    }

    /// pytest reports a failed test's exception with `E   ` before each of
    /// its lines. The line that says what is wrong (`Outdated cuDNN
    /// installation found.`) is often a later one, so the lines are
    /// searched together.
    #[test]
    fn a_pytest_exception_is_searched_whole() {
        let log = "\
    def backends():
>       raise RuntimeError(f\"Unable to initialize backend '{platform}': {err}\")
E   RuntimeError: Unable to initialize backend 'cuda': FAILED_PRECONDITION
E   Outdated cuDNN installation found.
E   Minimum supported: 9100

tests/test_gpu.py:31: RuntimeError";
        let lines: Vec<&str> = log.lines().collect();
        let picked = pick(&lines);
        let message = picked
            .iter()
            .find(|p| {
                p.line
                    .starts_with("RuntimeError: Unable to initialize backend")
            })
            .unwrap_or_else(|| panic!("{picked:?}"));
        assert!(
            message
                .line
                .contains("Outdated cuDNN installation found. Minimum supported: 9100"),
            "{message:?}"
        );
    }
}
