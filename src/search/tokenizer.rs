//! Splitting knowledge text and queries into search terms, so that the
//! identifiers engineers paste are findable whole and in parts:
//! `libcupti.so.12` is one term and also `libcupti`, `so`, `12`;
//! `CUDA_LAUNCH_BLOCKING` is `cuda_launch_blocking` and `cuda`, `launch`,
//! `blocking`; `cudaMallocAsync` is `cudamallocasync` and `cuda`, `malloc`,
//! `async`.
//!
//! A *chunk* is a run of letters, digits and joining punctuation (`.` `-` `_`
//! `/` `:` `=` `+` `@` `'`) with the joiners trimmed from its ends. Each chunk
//! becomes a tree: the whole chunk, its pieces between strong joiners (`/` `:`
//! `=` `@` `+`), their pieces between `.` and `-`, and finally the *words*
//! between `_`, `'` and camel-case humps. Every distinct node is a term. Words
//! take consecutive positions; a larger node sits at the position of its first
//! word, so phrase queries over words work across identifiers and prose alike.
//!
//! Chinese, Japanese and Korean text has no spaces between words, so a run
//! of Han, Kana or Hangul characters is a chunk of its own, split into one
//! word per character: each character and each pair of neighbours
//! (bigram) is a term, and the run itself when short. A query of a few
//! such characters then finds them anywhere in a run, and a pair ranks
//! above the same characters apart.
//!
//! The same code tokenizes documents (through tantivy) and queries (directly),
//! so both sides always agree. It must not know about fields, scoring or
//! Markdown.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

use super::variable;

/// Terms longer than this are dropped: nothing useful is typed that long, and
/// a base64 blob should not bloat the index.
pub const MAX_TERM_BYTES: usize = 80;

/// One term of a text, with where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// Lower-cased term text.
    pub text: String,
    /// Byte range in the source text.
    pub from: usize,
    pub to: usize,
    /// Word position (see the module docs).
    pub position: usize,
    /// How many words this piece spans: 1 for a word, more for a compound.
    pub words: usize,
    /// True for the outermost piece of a chunk (the chunk itself; for a
    /// long path, its kept end).
    pub whole: bool,
    /// A long path's leading folders, and the whole path with them: indexed,
    /// at the position of the path's kept end, but not searched for (see
    /// `variable`).
    pub context: bool,
}

impl Piece {
    /// A word: the smallest piece, not split further (and not a path's
    /// leading folder).
    pub fn is_word(&self) -> bool {
        self.words == 1 && !self.context
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn is_strong_joiner(c: char) -> bool {
    matches!(c, '/' | ':' | '=' | '@' | '+')
}

fn is_joiner(c: char) -> bool {
    is_strong_joiner(c) || matches!(c, '.' | '-' | '\'')
}

/// Every term of `text`, in order of position (a compound before its parts).
/// The parts of a message that vary from run to run take no position or
/// share one (see `variable`).
pub fn pieces(text: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut position = 0;
    let chunks = chunks(text);
    let mut i = 0;
    while i < chunks.len() {
        let chunk = &chunks[i];
        if chunk.cjk {
            split_cjk_run(text, chunk.from, chunk.to, &mut position, &mut out);
            i += 1;
            continue;
        }
        let skip = noise_chunks(text, &chunks, i);
        if skip > 0 {
            i += skip;
            continue;
        }
        split_chunk(text, chunk.from, chunk.to, &mut position, &mut out);
        i += 1;
    }
    out
}

/// How many chunks from `chunks[i]` on are noise that takes no position:
/// a timestamp (with its `,123` milliseconds), a long hex address or
/// digest, a UUID, `line 235` of a traceback, `[rank0]` or glog's `[E1218`.
fn noise_chunks(text: &str, chunks: &[Chunk], i: usize) -> usize {
    let chunk = &chunks[i];
    let word = &text[chunk.from..chunk.to];
    let next = chunks.get(i + 1).filter(|n| !n.cjk);
    let between = |n: &Chunk| &text[chunk.to..n.from];
    let next_number = next.filter(|n| variable::is_number(&text[n.from..n.to]));
    // Cheap tests first: this runs for every chunk of the knowledge.
    let digit_first = word.starts_with(|c: char| c.is_ascii_digit());
    if digit_first && variable::is_timestamp(word) {
        // `10:03:55,123`: the milliseconds after a comma are the time's.
        let millis = next_number.is_some_and(|n| between(n) == ",");
        return 1 + usize::from(millis);
    }
    if (digit_first || word.len() >= 32)
        && (variable::is_hex_noise(word) || variable::is_uuid(word))
    {
        return 1;
    }
    // `line 235,` in a Python traceback.
    if word == "line"
        && let Some(n) = next_number
        && between(n).chars().all(|c| c == ' ')
        && text[n.to..]
            .chars()
            .next()
            .is_none_or(|c| c == ',' || c.is_whitespace())
    {
        return 2;
    }
    if !word.starts_with(['r', 'R', 'I', 'W', 'E', 'F']) {
        return 0;
    }
    let before = text[..chunk.from].chars().next_back();
    let after = text[chunk.to..].chars().next();
    usize::from(variable::is_bracketed_prefix(word, before, after))
}

/// A Han, Kana or Hangul character: scripts written without spaces
/// between words (Korean has spaces, but particles join the word before).
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF       // Hangul Jamo
        | 0x3005..=0x3007     // 々 〆 〇
        | 0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3130..=0x318F     // Hangul compatibility Jamo
        | 0x31F0..=0x31FF     // Katakana extensions
        | 0x3400..=0x4DBF     // Han extension A
        | 0x4E00..=0x9FFF     // Han
        | 0xAC00..=0xD7AF     // Hangul syllables
        | 0xF900..=0xFAFF     // Han compatibility
        | 0xFF66..=0xFF9F     // half-width Katakana
        | 0x20000..=0x3134F   // Han extensions B–G
    )
}

/// A chunk of text: a byte range, and whether it is a run of CJK
/// characters (see `is_cjk`) rather than letters, digits and joiners.
struct Chunk {
    from: usize,
    to: usize,
    cjk: bool,
}

/// The chunks of `text`, in order.
fn chunks(text: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    // The open chunk's start, and whether it is a CJK run.
    let mut start: Option<(usize, bool)> = None;
    for (i, c) in text.char_indices() {
        let cjk = c >= '\u{1100}' && is_cjk(c);
        let inside = cjk || is_word_char(c) || is_joiner(c);
        match start {
            Some((s, open_cjk)) if !inside || open_cjk != cjk => {
                push_chunk(text, s, i, open_cjk, &mut out);
                start = inside.then_some((i, cjk));
            }
            None if inside => start = Some((i, cjk)),
            _ => {}
        }
    }
    if let Some((s, cjk)) = start {
        push_chunk(text, s, text.len(), cjk, &mut out);
    }
    out
}

/// Keeps a CJK run as it is. Trims joiners from both ends of other chunks
/// (`--mount=type=cache` → `mount=type=cache`, `file.` → `file`) and keeps
/// them if a word character is left. Underscores stay: `__nv_bfloat16` and
/// `_GLIBCXX_USE_CXX11_ABI` are names as written (`split_chunk` also gives
/// them without).
fn push_chunk(text: &str, from: usize, to: usize, cjk: bool, out: &mut Vec<Chunk>) {
    if cjk {
        out.push(Chunk { from, to, cjk });
        return;
    }
    let slice = &text[from..to];
    let edge = is_joiner;
    let trimmed_start = slice.trim_start_matches(edge);
    let mut from = from + (slice.len() - trimmed_start.len());
    let trimmed = trimmed_start.trim_end_matches(edge);
    let to = from + trimmed.len();
    // A compiler's `-DNAME=VALUE` defines `NAME`: `-D_GLIBCXX_USE_CXX11_ABI=0`
    // is about `_GLIBCXX_USE_CXX11_ABI`, `-DCMAKE_CUDA_ARCHITECTURES=90`
    // about `CMAKE_CUDA_ARCHITECTURES`.
    if slice.len() - trimmed_start.len() == 1 && slice.starts_with('-') && is_define(trimmed) {
        from += 1;
    }
    if text[from..to].chars().any(|c| c.is_alphanumeric()) {
        out.push(Chunk { from, to, cjk });
    }
}

/// `DNAME` or `DNAME=VALUE` after a `-`: a macro definition (upper case,
/// digits and `_` before any `=`).
fn is_define(chunk: &str) -> bool {
    let name = chunk.split('=').next().unwrap_or("");
    name.len() > 2
        && name.starts_with('D')
        && name[1..].starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
        && name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// For a linker's `-lNAME` (`-lcudart`), where `NAME` starts (not in
/// nvcc's `-lineinfo`).
fn linked_name(text: &str, from: usize, to: usize) -> Option<usize> {
    let before = text[..from].strip_suffix('-')?;
    let word = &text[from..to];
    (!before.ends_with(|c: char| c == '-' || c.is_alphanumeric())
        && word != "lineinfo"
        && word.len() > 3
        && word.starts_with('l')
        && word[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        && word[1..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_'))
    .then_some(from + 1)
}

/// A run of CJK characters: one word per character, each character and
/// each pair of neighbours a term, and the run itself (if short enough)
/// at the position of its first character. Linear in the run's length.
fn split_cjk_run(text: &str, from: usize, to: usize, position: &mut usize, out: &mut Vec<Piece>) {
    let chars: Vec<(usize, usize)> = text[from..to]
        .char_indices()
        .map(|(i, c)| (from + i, from + i + c.len_utf8()))
        .collect();
    let count = chars.len();
    let base = *position;
    for (k, &(a, b)) in chars.iter().enumerate() {
        let position = base + k;
        if k == 0 && count > 2 && to - from <= MAX_TERM_BYTES {
            out.push(Piece {
                text: text[from..to].to_string(),
                from,
                to,
                position,
                words: count,
                whole: true,
                context: false,
            });
        }
        if let Some(&(_, next_end)) = chars.get(k + 1) {
            out.push(Piece {
                text: text[a..next_end].to_string(),
                from: a,
                to: next_end,
                position,
                words: 2,
                whole: count == 2,
                context: false,
            });
        }
        out.push(Piece {
            text: text[a..b].to_string(),
            from: a,
            to: b,
            position,
            words: 1,
            whole: count == 1,
            context: false,
        });
    }
    *position = base + count;
}

/// Splits `text[from..to]` at the characters `split` accepts, dropping empty
/// parts. Returns byte ranges.
fn split_range(
    text: &str,
    from: usize,
    to: usize,
    split: impl Fn(char) -> bool,
) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = from;
    for (i, c) in text[from..to].char_indices() {
        let i = from + i;
        if split(c) {
            if i > start {
                out.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if to > start {
        out.push((start, to));
    }
    out
}

/// Camel-case humps of an alphanumeric run: `cudaMallocAsync` → `cuda`,
/// `Malloc`, `Async`; `CUDAGraph` → `CUDA`, `Graph`. Digits stay attached
/// (`sm90`, `fp16`, `x86`).
fn humps(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    if is_binary_unit(&text[from..to]) {
        return vec![(from, to)];
    }
    let chars: Vec<(usize, char)> = text[from..to]
        .char_indices()
        .map(|(i, c)| (from + i, c))
        .collect();
    let mut out = Vec::new();
    let mut start = from;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let next = |n: usize| chars.get(k + n).map(|&(_, c)| c);
        if hump_before(chars[k - 1].1, c, next(1), next(2)) {
            out.push((start, i));
            start = i;
        }
    }
    out.push((start, to));
    out
}

/// A camel-case boundary before `c` (after `prev`, before `next` and
/// `after`): lower then upper case (`cudaMalloc`), or the last capital of
/// a run before lower case (`CUDAGraph`), but not before an acronym's
/// plural `s` (`GPUs`, `APIs` are one word each).
fn hump_before(prev: char, c: char, next: Option<char>, after: Option<char>) -> bool {
    (prev.is_lowercase() && c.is_uppercase())
        || (prev.is_uppercase()
            && c.is_uppercase()
            && next.is_some_and(char::is_lowercase)
            && !(next == Some('s') && after.is_none()))
}

/// `KiB`, `MiB`, `24GiB`…: a size, not two humps.
fn is_binary_unit(run: &str) -> bool {
    let b = run
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .as_bytes();
    b.len() == 3 && b"KMGTPE".contains(&b[0]) && b[1] == b'i' && b[2] == b'B'
}

/// The words of a chunk, in order: split at every joiner, `_`, `'` and hump.
fn words_of(text: &str, from: usize, to: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (a, b) in split_range(text, from, to, |c| is_joiner(c) || c == '_') {
        if text[a..b].chars().any(char::is_alphanumeric) {
            out.extend(humps(text, a, b));
        }
    }
    out
}

/// True when a run of ASCII letters and digits has a camel-case hump.
fn has_hump(bytes: &[u8]) -> bool {
    let at = |i: usize| bytes.get(i).map(|&b| char::from(b));
    !is_binary_unit(std::str::from_utf8(bytes).unwrap_or_default())
        && (1..bytes.len()).any(|i| {
            hump_before(
                char::from(bytes[i - 1]),
                char::from(bytes[i]),
                at(i + 1),
                at(i + 2),
            )
        })
}

fn split_chunk(text: &str, from: usize, to: usize, position: &mut usize, out: &mut Vec<Piece>) {
    // `foo.cu:12:5`, `cuda:0`: the numbers after the name vary.
    let to = match variable::without_line_numbers(&text[from..to]) {
        Some(kept) => from + kept.trim_end_matches(is_joiner).len(),
        None => to,
    };
    // Most chunks are plain words: one term, no tree to build.
    let slice = &text[from..to];
    let linked = linked_name(text, from, to);
    if slice.bytes().all(|b| b.is_ascii_alphanumeric())
        && !has_hump(slice.as_bytes())
        && library_name(slice).is_none()
        && linked.is_none()
    {
        if slice.len() <= MAX_TERM_BYTES {
            out.push(Piece {
                text: slice.to_ascii_lowercase(),
                from,
                to,
                position: *position,
                words: 1,
                whole: true,
                context: false,
            });
        }
        *position += 1;
        return;
    }
    let words = words_of(text, from, to);
    if words.is_empty() {
        return;
    }
    let base = *position;
    let first_piece = out.len();
    // A long path (`/opt/venv/lib/python3.12/site-packages/torch/x.py`, the
    // leading `/` trimmed off the chunk): where its kept end starts, and how
    // many words its leading folders have. Those share the position of the
    // kept end's first word, so what precedes the path stands next to its
    // end whatever folder the program ran in.
    let kept = text[..from]
        .ends_with('/')
        .then(|| variable::kept_path_start(&text[from..to]))
        .flatten()
        .map(|k| from + k);
    let skip = kept.map_or(0, |k| words.iter().filter(|&&(a, _)| a < k).count());
    // Position of the word starting at a byte offset.
    let word_at = |offset: usize| {
        let k = words
            .iter()
            .position(|&(a, _)| a >= offset)
            .unwrap_or(words.len() - 1);
        k.saturating_sub(skip)
    };
    // In the leading folders, or the whole path with them.
    let is_context = |a: usize| kept.is_some_and(|k| a < k);
    let mut seen: Vec<(usize, usize)> = Vec::new();
    // Pushes `text[a..b]` without the joiners at its ends (`a._b` splits
    // into `a` and `_b`) and, unless `underscores`, without its underscores
    // there either.
    let mut push = |a: usize, b: usize, whole: bool, underscores: bool, out: &mut Vec<Piece>| {
        let edge = |c: char| is_joiner(c) || (!underscores && c == '_');
        let slice = &text[a..b];
        let a = a + (slice.len() - slice.trim_start_matches(edge).len());
        let b = a + text[a..b].trim_end_matches(edge).len();
        if a >= b || seen.contains(&(a, b)) || b - a > MAX_TERM_BYTES {
            return;
        }
        seen.push((a, b));
        let first = word_at(a);
        let count = words.iter().filter(|&&(x, y)| x >= a && y <= b).count();
        let context = is_context(a);
        out.push(Piece {
            text: text[a..b].to_lowercase(),
            from: a,
            to: b,
            position: base + first,
            words: count.max(1),
            whole: whole && !context,
            context,
        });
    };
    // A name with underscores at an end (`__nv_bfloat16`, `_C`, `__init__`)
    // is a term as written and, as a part, without them (`nv_bfloat16`).
    let underscored = |a: usize, b: usize| {
        let slice = text[a..b].trim_matches(is_joiner);
        slice.starts_with('_') || slice.ends_with('_')
    };
    let whole_underscored = underscored(from, to);
    if words.len() > 1 || whole_underscored {
        push(from, to, true, true, out);
        push(from, to, false, false, out);
    }
    if let Some(k) = kept {
        push(k, to, true, true, out);
    }
    if words.len() > 1 {
        let strong = split_range(text, from, to, is_strong_joiner);
        for &(sa, sb) in &strong {
            if strong.len() > 1 {
                push(sa, sb, false, true, out);
                push(sa, sb, false, false, out);
            }
            let weak = split_range(text, sa, sb, |c| matches!(c, '.' | '-'));
            for &(wa, wb) in &weak {
                if weak.len() > 1 {
                    push(wa, wb, false, true, out);
                    push(wa, wb, false, false, out);
                }
                // An alphanumeric run with humps (`cudaMallocAsync`) is a
                // node of its own.
                for (ra, rb) in split_range(text, wa, wb, |c| c == '_' || c == '\'') {
                    if humps(text, ra, rb).len() > 1 {
                        push(ra, rb, false, false, out);
                    }
                }
            }
        }
    }
    for &(a, b) in &words {
        push(a, b, words.len() == 1 && !whole_underscored, false, out);
        // A shared library is also its library's name: `libcupti` → `cupti`,
        // `libcudnn` → `cudnn`, so the error about the file finds the text
        // about the library.
        // So is a library linked with `-lcudart`: `cudart`.
        let linked = linked.filter(|_| a == from).map(|start| &text[start..b]);
        if let Some(rest) = library_name(&text[a..b]).or(linked) {
            let from = b - rest.len();
            let position = base + word_at(a);
            out.push(Piece {
                text: rest.to_lowercase(),
                from,
                to: b,
                position,
                words: 1,
                whole: false,
                context: is_context(a),
            });
        }
    }
    // A path's leading folders after its kept end's pieces at their shared
    // position, so the first piece of a position is searched.
    out[first_piece..].sort_by_key(|p| (p.position, p.context, std::cmp::Reverse(p.to - p.from)));
    *position = base + words.len() - skip;
}

/// `cupti` for `libcupti`: the name after a `lib` prefix, when there is
/// one (at least three letters; not `library` or `libraries`).
fn library_name(word: &str) -> Option<&str> {
    let prefix = word.get(..3)?;
    let rest = &word[3..];
    (prefix.eq_ignore_ascii_case("lib")
        && rest.len() >= 3
        && rest.starts_with(|c: char| c.is_ascii_alphabetic())
        && !rest.to_ascii_lowercase().starts_with("rar"))
    .then_some(rest)
}

/// lore's tokenizer for tantivy text fields: [`pieces`] as a token stream,
/// with [`variable::NUMBER`] after each number.
#[derive(Clone, Default)]
pub struct LoreTokenizer {
    tokens: Vec<Token>,
}

/// The name the tokenizer is registered under in every index.
pub const TOKENIZER_NAME: &str = "lore";

impl Tokenizer for LoreTokenizer {
    type TokenStream<'a> = LoreTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> LoreTokenStream<'a> {
        self.tokens.clear();
        for p in pieces(text) {
            // A number is also any number (see `variable`).
            let number = p.is_word() && variable::is_number(&p.text);
            self.tokens.push(Token {
                offset_from: p.from,
                offset_to: p.to,
                position: p.position,
                text: p.text,
                position_length: p.words,
            });
            if number {
                let last = &self.tokens[self.tokens.len() - 1];
                self.tokens.push(Token {
                    text: variable::NUMBER.to_string(),
                    ..last.clone()
                });
            }
        }
        LoreTokenStream {
            tokens: &mut self.tokens,
            index: None,
        }
    }
}

pub struct LoreTokenStream<'a> {
    tokens: &'a mut Vec<Token>,
    index: Option<usize>,
}

impl TokenStream for LoreTokenStream<'_> {
    fn advance(&mut self) -> bool {
        let next = self.index.map_or(0, |i| i + 1);
        self.index = Some(next);
        next < self.tokens.len()
    }

    fn token(&self) -> &Token {
        &self.tokens[self.index.unwrap_or(0)]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.index.unwrap_or(0)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        pieces(text).into_iter().map(|p| p.text).collect()
    }

    fn words(text: &str) -> Vec<(String, usize)> {
        pieces(text)
            .into_iter()
            .filter(Piece::is_word)
            .map(|p| (p.text, p.position))
            .collect()
    }

    #[test]
    fn shared_library_names_whole_and_in_parts() {
        assert_eq!(
            terms("ImportError: libcupti.so.12: cannot"),
            vec![
                "importerror",
                "import",
                "error",
                "libcupti.so.12",
                "libcupti",
                "cupti",
                "so",
                "12",
                "cannot"
            ]
        );
    }

    #[test]
    fn apt_package_names() {
        assert_eq!(
            terms("cuda-cupti-12-4"),
            vec!["cuda-cupti-12-4", "cuda", "cupti", "12", "4"]
        );
    }

    #[test]
    fn environment_variables_and_arch_names() {
        assert_eq!(
            terms("CUDA_LAUNCH_BLOCKING=1"),
            vec![
                "cuda_launch_blocking=1",
                "cuda_launch_blocking",
                "cuda",
                "launch",
                "blocking",
                "1"
            ]
        );
        assert_eq!(
            terms("TORCH_CUDA_ARCH_LIST"),
            vec!["torch_cuda_arch_list", "torch", "cuda", "arch", "list"]
        );
        assert_eq!(terms("sm_90"), vec!["sm_90", "sm", "90"]);
        assert_eq!(terms("sm_90a,"), vec!["sm_90a", "sm", "90a"]);
    }

    #[test]
    fn flags_lose_their_dashes_but_keep_their_parts() {
        assert_eq!(
            terms("RUN --mount=type=cache,target=/root/.cache/pip pip install"),
            vec![
                "run",
                "mount=type=cache",
                "mount",
                "type",
                "cache",
                "target=/root/.cache/pip",
                "target",
                "root",
                "cache",
                "pip",
                "pip",
                "install"
            ]
        );
    }

    #[test]
    fn library_files_also_name_their_library() {
        assert_eq!(terms("libcudnn"), vec!["libcudnn", "cudnn"]);
        assert_eq!(terms("library lib libc"), vec!["library", "lib", "libc"]);
        let cupti = pieces("libcupti.so.12")
            .into_iter()
            .find(|p| p.text == "cupti")
            .unwrap();
        assert_eq!((cupti.from, cupti.to, cupti.position), (3, 8, 0));
    }

    #[test]
    fn camel_case_and_acronyms() {
        assert_eq!(
            terms("cudaMallocAsync"),
            vec!["cudamallocasync", "cuda", "malloc", "async"]
        );
        assert_eq!(terms("CUDAGraph"), vec!["cudagraph", "cuda", "graph"]);
        assert_eq!(terms("fp16 x86_64"), vec!["fp16", "x86_64", "x86", "64"]);
        // An acronym's plural and a binary unit are one word each.
        assert_eq!(
            terms("GPUs APIs 24GiB MiB"),
            vec!["gpus", "apis", "24gib", "mib"]
        );
    }

    #[test]
    fn dotted_python_names_keep_their_private_parts() {
        let t = terms("torch.cuda.memory._record_memory_history(max_entries=1)");
        assert_eq!(t[0], "torch.cuda.memory._record_memory_history");
        assert!(t.contains(&"record_memory_history".to_string()), "{t:?}");
        assert_eq!(
            terms("__shfl_down_sync"),
            vec!["__shfl_down_sync", "shfl_down_sync", "shfl", "down", "sync"]
        );
        assert!(t.contains(&"record".to_string()));
        assert!(t.contains(&"max_entries=1".to_string()));
    }

    /// `__nv_bfloat16`, `_GLIBCXX_USE_CXX11_ABI`, `torch._C` and `_C.so`
    /// were reduced to common words (`nv`, `c`, `so`) and a name without its
    /// underscores: they are terms as written, and without them.
    #[test]
    fn names_with_underscores_at_an_end_are_kept_whole() {
        let has = |text: &str, wanted: &[&str]| {
            let t = terms(text);
            for w in wanted {
                assert!(t.contains(&w.to_string()), "{text}: no {w} in {t:?}");
            }
        };
        has(
            "__nv_bfloat16",
            &["__nv_bfloat16", "nv_bfloat16", "nv", "bfloat16"],
        );
        // A compiler's `-DNAME=VALUE` defines NAME; a linker's `-lNAME`
        // links libNAME.
        has(
            "-D_GLIBCXX_USE_CXX11_ABI=0",
            &[
                "_glibcxx_use_cxx11_abi=0",
                "_glibcxx_use_cxx11_abi",
                "glibcxx_use_cxx11_abi",
                "abi",
            ],
        );
        has(
            "-DCMAKE_CUDA_ARCHITECTURES=90",
            &["cmake_cuda_architectures", "cmake"],
        );
        has("ld: cannot find -lcudart", &["lcudart", "cudart"]);
        assert_eq!(terms("nvcc -lineinfo"), vec!["nvcc", "lineinfo"]);
        assert_eq!(
            terms("non-linear --lower"),
            vec!["non-linear", "non", "linear", "lower"]
        );
        has(
            "_GLIBCXX_USE_CXX11_ABI",
            &["_glibcxx_use_cxx11_abi", "glibcxx_use_cxx11_abi"],
        );
        has("from torch._C import *", &["torch._c", "_c", "c", "torch"]);
        has("_C.so", &["_c.so", "c.so", "_c", "so"]);
        has("c10::Half", &["c10::half", "c10", "half"]);
        has("__init__", &["__init__", "init"]);
        let whole: Vec<String> = pieces("__nv_bfloat16 x")
            .into_iter()
            .filter(|p| p.whole)
            .map(|p| p.text)
            .collect();
        assert_eq!(whole, vec!["__nv_bfloat16", "x"]);
    }

    /// What changes between two runs of the same program takes no place
    /// (timestamps, addresses, `[rank0]`, glog's `[E1218`, line numbers,
    /// device indices, `line 284`), and a long path's leading folders share
    /// its kept end's place: the words of the two lines stand the same.
    #[test]
    fn values_that_change_between_runs_do_not_move_the_words() {
        assert_eq!(
            words(
                "[rank3]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] Watchdog at 0x7f3a2c1b9e40 on cuda:1 at 2024-11-22T10:03:55Z"
            ),
            words(
                "[rank0]:[E0305 01:02:03.000000001 ProcessGroupNCCL.cpp:1709] Watchdog at 0x55d0c0ffee00 on cuda:0 at 2025-01-02T00:00:00Z"
            ),
        );
        let usr = words(
            "File \"/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py\", line 284, in _lazy_init",
        );
        let venv = words(
            "File \"/opt/venv/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 319, in _lazy_init",
        );
        assert_eq!(usr, venv);
        assert_eq!(usr[0], ("file".to_string(), 0));
        assert_eq!(usr[1], ("torch".to_string(), 1));
        // The leading folders are still indexed, at the kept end's place.
        let usr_folder = pieces("/usr/local/lib/python3.10/dist-packages/torch/x.py")
            .into_iter()
            .find(|p| p.text == "usr")
            .unwrap();
        assert!(usr_folder.context && usr_folder.position == 0);
        // Short paths and URLs are left as they are.
        assert_eq!(words("/usr/local/cuda")[0], ("usr".to_string(), 0));
        assert_eq!(
            words("see https://pytorch.org/docs/stable/notes/cuda.html")[1].0,
            "https"
        );
    }

    /// A number is also the placeholder `#` at its place, so word pairs
    /// around it match the same words around any other number.
    #[test]
    fn numbers_are_also_any_number_in_the_index() {
        let mut tokenizer = LoreTokenizer::default();
        let mut stream = tokenizer.token_stream("allocate 2.00 GiB");
        let mut seen = Vec::new();
        while let Some(token) = stream.next() {
            seen.push((token.text.clone(), token.position));
        }
        assert_eq!(
            seen,
            vec![
                ("allocate".to_string(), 0),
                ("2.00".to_string(), 1),
                ("2".to_string(), 1),
                ("#".to_string(), 1),
                ("00".to_string(), 2),
                ("#".to_string(), 2),
                ("gib".to_string(), 3),
            ]
        );
    }

    #[test]
    fn words_have_consecutive_positions_across_identifiers() {
        assert_eq!(
            words("open libcupti.so.12 now"),
            vec![
                ("open".into(), 0),
                ("libcupti".into(), 1),
                ("cupti".into(), 1),
                ("so".into(), 2),
                ("12".into(), 3),
                ("now".into(), 4)
            ]
        );
        let whole = pieces("x libcupti.so.12")
            .into_iter()
            .find(|p| p.text == "libcupti.so.12")
            .unwrap();
        assert_eq!((whole.position, whole.words, whole.whole), (1, 3, true));
    }

    #[test]
    fn punctuation_and_sentence_ends_are_separators() {
        assert_eq!(
            terms("(see `nvcc`), then... done. 'sm_91'"),
            vec!["see", "nvcc", "then", "done", "sm_91", "sm", "91"]
        );
        assert_eq!(terms("--- ... :: =="), Vec::<String>::new());
        assert_eq!(
            terms("C++ c10::Error"),
            vec!["c", "c10::error", "c10", "error"]
        );
    }

    #[test]
    fn offsets_point_into_the_source() {
        let text = "Größe of `libcupti.so`";
        for p in pieces(text) {
            assert_eq!(text[p.from..p.to].to_lowercase(), p.text);
        }
        assert_eq!(terms("Größe"), vec!["größe"]);
    }

    #[test]
    fn very_long_terms_are_dropped_but_their_words_stay() {
        let long = format!("{}.so", "a".repeat(100));
        assert_eq!(terms(&long), vec!["so"]);
    }

    /// Text written without spaces is searchable inside a run: every
    /// character and pair of neighbours is a term, one word per character.
    #[test]
    fn cjk_runs_are_split_into_characters_and_pairs() {
        assert_eq!(
            terms("日本語"),
            vec!["日本語", "日本", "日", "本語", "本", "語"]
        );
        assert_eq!(terms("版"), vec!["版"]);
        assert_eq!(terms("한국"), vec!["한국", "한", "국"]);
        // A run next to Latin letters is a chunk of its own.
        assert_eq!(
            terms("PyTorchのビルド"),
            vec![
                "pytorch",
                "py",
                "torch",
                "のビルド",
                "のビ",
                "の",
                "ビル",
                "ビ",
                "ルド",
                "ル",
                "ド"
            ]
        );
        assert_eq!(
            words("CUDA版を使う"),
            vec![
                ("cuda".into(), 0),
                ("版".into(), 1),
                ("を".into(), 2),
                ("使".into(), 3),
                ("う".into(), 4)
            ]
        );
        // A long run keeps its characters and pairs, not the whole.
        let long = "漢".repeat(40);
        let p = pieces(&long);
        assert!(p.iter().all(|p| p.words <= 2), "no 120-byte term");
        assert_eq!(p.iter().filter(|p| p.is_word()).count(), 40);
        let text = "見出し：日本語のテキスト。";
        for p in pieces(text) {
            assert_eq!(&text[p.from..p.to], p.text);
        }
    }

    #[test]
    fn the_tantivy_stream_matches_pieces() {
        let mut tokenizer = LoreTokenizer::default();
        let mut stream = tokenizer.token_stream("sm_90 ok");
        let mut seen = Vec::new();
        while let Some(token) = stream.next() {
            seen.push((token.text.clone(), token.position));
        }
        assert_eq!(
            seen,
            vec![
                ("sm_90".to_string(), 0),
                ("sm".to_string(), 0),
                ("90".to_string(), 1),
                ("#".to_string(), 1),
                ("ok".to_string(), 2)
            ]
        );
    }
}
