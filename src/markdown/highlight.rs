//! Syntax highlighting of fenced code with syntect, using the grammars and
//! themes bat ships (through two-face), so nothing is copied by hand, plus
//! lore's own grammars from `assets/syntaxes/` (CUDA). `src/build.rs`
//! compiles the two into one syntax set at build time, so loading it costs
//! what loading bat's alone did, and a broken grammar fails the build.
//!
//! The syntax set takes a moment to load, so it is loaded once, lazily
//! (`Highlighter::global`), and the TUI calls `Highlighter::warm` on a worker
//! thread and renders plain code until `Highlighter::is_loaded`. An unknown
//! language is plain text, never an error. This module only colours text; it
//! never decides layout.
//!
//! Colouring takes tens of microseconds a line, so a 7 MB block takes
//! seconds. The TUI renders through `Highlighter::interactive`, which shares
//! the global one's grammars and memo but colours at most
//! `INTERACTIVE_LINES` lines in one render (smallest blocks first; a long
//! line counts by its bytes) and leaves the rest plain, for a worker to
//! `prepare` with the global one. A block with a line over
//! `LONGEST_COLOURED_LINE` bytes is never coloured.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;
use syntect::easy::HighlightLines;
use syntect::highlighting::FontStyle;
use syntect::parsing::{SyntaxReference, SyntaxSet};
use two_face::theme::EmbeddedLazyThemeSet;

use crate::theme::{Theme, ThemeKey};

/// Highlighted lines of one code block.
pub type HighlightedLines = super::Lines;

/// Blocks remembered before the memo starts over (the whole shipped corpus
/// has about 400).
const MEMO_LIMIT: usize = 2048;

/// Below this many lines of code still to colour (about a millisecond of
/// work), a document's blocks are coloured on one thread: starting another
/// would cost more than it saves.
const PARALLEL_FROM_LINES: usize = 40;

/// An interactive render colours at most this many lines of code (a few
/// milliseconds); blocks beyond are drawn plain until a worker has coloured
/// them.
pub const INTERACTIVE_LINES: usize = 1_000;

/// What colouring costs goes with bytes as much as lines: a block counts as
/// one line per this many bytes when that is more than its lines (a 1 MB
/// line of minified JSON is 10,000 lines' worth of work, not one).
const BYTES_PER_LINE: usize = 100;

/// A block with a line longer than this is never coloured, shown plain:
/// syntect takes seconds over a line of megabytes (a minified bundle, a
/// pasted log line). 20,000 is where VS Code stops tokenizing a line too.
pub const LONGEST_COLOURED_LINE: usize = 20_000;

/// The work of colouring `code`, in lines (see [`BYTES_PER_LINE`]).
fn cost(code: &str) -> usize {
    code.lines().count().max(code.len() / BYTES_PER_LINE)
}

/// False for a block holding a line too long to colour.
fn colourable(code: &str) -> bool {
    code.len() <= LONGEST_COLOURED_LINE
        || code.lines().all(|line| line.len() <= LONGEST_COLOURED_LINE)
}

/// Fence names the corpus and its readers use, and the grammar each means.
/// Anything else is looked up by grammar name or file extension.
pub const FENCE_ALIASES: &[(&str, &str)] = &[
    ("sh", BASH),
    ("bash", BASH),
    ("shell", BASH),
    ("zsh", BASH),
    ("console", BASH),
    ("shell-session", BASH),
    ("terminal", BASH),
    ("py", "Python"),
    ("python", "Python"),
    ("python3", "Python"),
    ("dockerfile", DOCKERFILE),
    ("docker", DOCKERFILE),
    ("containerfile", DOCKERFILE),
    ("c", "C"),
    ("h", "C"),
    ("c++", "C++"),
    ("cpp", "C++"),
    ("cxx", "C++"),
    ("cc", "C++"),
    ("hpp", "C++"),
    // lore's own grammar (assets/syntaxes/CUDA.sublime-syntax): C++ with
    // CUDA's qualifiers, built-ins and `<<<…>>>` launches.
    ("cu", CUDA),
    ("cuh", CUDA),
    ("cuda", CUDA),
    ("cmake", "CMake"),
    ("toml", "TOML"),
    ("yaml", "YAML"),
    ("yml", "YAML"),
    ("json", "JSON"),
    ("jsonc", "JSON"),
    ("make", "Makefile"),
    ("makefile", "Makefile"),
    ("mk", "Makefile"),
    ("diff", "Diff"),
    ("patch", "Diff"),
    ("ini", "INI"),
    ("cfg", "INI"),
    ("conf", "INI"),
];

/// Fence names that mean "not code": shown plain on purpose.
pub const PLAIN_FENCES: &[&str] = &["text", "plain", "plaintext", "txt", "output", "log"];

const BASH: &str = "Bourne Again Shell (bash)";
/// The Dockerfile grammar that also colours the shell in `RUN` lines.
const DOCKERFILE: &str = "Dockerfile (with bash)";
const CUDA: &str = "CUDA";

/// The grammars `src/build.rs` compiled: bat's and `assets/syntaxes/`.
static SYNTAXES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/syntaxes.bin"));

/// The grammars and colour themes, loaded once.
///
/// Highlighting does not depend on the width, and syntect is the slow part of
/// rendering (tens of microseconds a line for shell), so each block's result
/// is remembered: a resize or a second visit re-lays out without re-parsing.
pub struct Highlighter {
    shared: Arc<Shared>,
    /// Lines of code one `prepare` may colour; `None` for no limit. With a
    /// limit, `highlight` only returns what is remembered.
    budget: Option<usize>,
}

struct Shared {
    syntaxes: SyntaxSet,
    themes: EmbeddedLazyThemeSet,
    memo: Mutex<HashMap<MemoKey, Arc<HighlightedLines>>>,
}

#[derive(PartialEq, Eq, Hash)]
struct MemoKey {
    grammar: String,
    theme: ThemeKey,
    code: String,
}

impl MemoKey {
    fn new(code: &str, syntax: &SyntaxReference, theme: &Theme) -> MemoKey {
        MemoKey {
            grammar: syntax.name.clone(),
            theme: theme.key(),
            code: code.to_string(),
        }
    }
}

static GLOBAL: OnceLock<Highlighter> = OnceLock::new();
static INTERACTIVE: OnceLock<Highlighter> = OnceLock::new();

impl Highlighter {
    /// Loads the syntax set and theme set (not yet compiled: syntect compiles
    /// a grammar's regexes the first time it is used).
    pub fn load() -> Highlighter {
        Highlighter {
            shared: Arc::new(Shared {
                // Written by this build's own syntect (build.rs), so it
                // always reads back; a test loads it on every run.
                syntaxes: syntect::dumps::from_uncompressed_data(SYNTAXES)
                    .expect("the syntax set compiled by build.rs"),
                themes: two_face::theme::extra(),
                memo: Mutex::new(HashMap::new()),
            }),
            budget: None,
        }
    }

    /// The shared highlighter, loading it on first use (on the calling thread).
    pub fn global() -> &'static Highlighter {
        GLOBAL.get_or_init(Highlighter::load)
    }

    /// The global highlighter for a render that must not keep the user
    /// waiting: see [`with_budget`](Self::with_budget).
    pub fn interactive() -> &'static Highlighter {
        INTERACTIVE.get_or_init(|| Highlighter::global().with_budget(INTERACTIVE_LINES))
    }

    /// This highlighter (same grammars, same memo), colouring at most
    /// `lines` lines of code in one `prepare`, smallest blocks first; the
    /// blocks left over are drawn plain until another highlighter has
    /// coloured them. `highlight` then only returns remembered blocks.
    pub fn with_budget(&self, lines: usize) -> Highlighter {
        Highlighter {
            shared: Arc::clone(&self.shared),
            budget: Some(lines),
        }
    }

    /// True if `prepare` would leave some of `doc`'s blocks uncoloured: the
    /// render shows them plain, and `Highlighter::global().prepare(doc, …)`
    /// on a worker colours them.
    pub fn leaves_plain(&self, doc: &crate::corpus::Document, theme: &Theme) -> bool {
        self.budget.is_some()
            && theme.syntax_theme().is_some()
            && doc.code_blocks.iter().any(|block| {
                block
                    .lang
                    .as_deref()
                    .is_some_and(|lang| !self.is_remembered(&block.code, lang, theme))
            })
    }

    /// True once `global()` has finished loading: the TUI highlights from then on.
    pub fn is_loaded() -> bool {
        GLOBAL.get().is_some()
    }

    /// Loads the shared highlighter; call it from a worker thread at start-up.
    pub fn warm() {
        Highlighter::global();
    }

    /// The grammar for a fence's language, `None` for plain text or an
    /// unknown language.
    pub fn syntax(&self, lang: &str) -> Option<&SyntaxReference> {
        let lang = lang.trim();
        if lang.is_empty() {
            return None;
        }
        let lower = lang.to_ascii_lowercase();
        if PLAIN_FENCES.contains(&lower.as_str()) {
            return None;
        }
        let syntax = match FENCE_ALIASES.iter().find(|(alias, _)| *alias == lower) {
            Some((_, name)) => self.shared.syntaxes.find_syntax_by_name(name),
            None => self
                .shared
                .syntaxes
                .find_syntax_by_token(lang)
                .or_else(|| self.shared.syntaxes.find_syntax_by_token(&lower)),
        }?;
        (syntax.name != "Plain Text").then_some(syntax)
    }

    /// The grammar's name for a fence language (`None` = shown plain).
    pub fn grammar_name(&self, lang: &str) -> Option<&str> {
        self.syntax(lang).map(|s| s.name.as_str())
    }

    /// Colours `code` line by line under `theme`. Control characters are made
    /// visible and tabs expanded first, so the spans are safe to print. `None`
    /// when the language is unknown, the theme is plain, or the grammar fails:
    /// the caller shows the code plain. With a budget (`with_budget`), only a
    /// block already remembered is returned.
    pub fn highlight(
        &self,
        code: &str,
        lang: &str,
        theme: &Theme,
    ) -> Option<Arc<HighlightedLines>> {
        let theme_name = theme.syntax_theme()?;
        let syntax = self.syntax(lang)?;
        if !colourable(code) {
            return None;
        }
        let key = MemoKey::new(code, syntax, theme);
        if let Some(lines) = self.memo().get(&key) {
            return Some(Arc::clone(lines));
        }
        if self.budget.is_some() {
            return None;
        }
        let lines = Arc::new(self.highlight_uncached(code, syntax, theme_name, theme)?);
        let mut memo = self.memo();
        if memo.len() >= MEMO_LIMIT {
            memo.clear();
        }
        memo.insert(key, Arc::clone(&lines));
        Some(lines)
    }

    /// Highlights every code block of `doc` not yet remembered, so that
    /// rendering it only lays out. The blocks are shared out between the
    /// cores when there are enough lines to pay for starting a thread: the
    /// first render of a long document with many shell blocks then waits for
    /// the slowest core, not the sum. The TUI also calls this on a worker
    /// thread, ahead of the reader.
    pub fn prepare(&self, doc: &crate::corpus::Document, theme: &Theme) {
        if theme.syntax_theme().is_none() {
            return;
        }
        let mut pending: Vec<(&str, &str)> = doc
            .code_blocks
            .iter()
            .filter_map(|block| Some((&*block.code, block.lang.as_deref()?)))
            .filter(|(code, lang)| !self.is_remembered(code, lang, theme))
            .collect();
        if let Some(budget) = self.budget {
            // The smallest blocks first, as many as the budget allows.
            pending.sort_by_key(|(code, _)| code.len());
            let mut left = budget;
            pending.retain(|(code, _)| {
                let cost = cost(code);
                let fits = cost <= left;
                if fits {
                    left -= cost;
                }
                fits
            });
        }
        let lines: usize = pending.iter().map(|(code, _)| cost(code)).sum();
        let threads = crate::cores::available().min(pending.len());
        if threads < 2 || lines < PARALLEL_FROM_LINES {
            for (code, lang) in pending {
                self.colour(code, lang, theme);
            }
            return;
        }
        // Longest blocks first, each to the least loaded share.
        pending.sort_by_key(|(code, _)| std::cmp::Reverse(code.len()));
        let mut shares: Vec<(usize, Vec<(&str, &str)>)> = vec![(0, Vec::new()); threads];
        for block in pending {
            if let Some(share) = shares.iter_mut().min_by_key(|(load, _)| *load) {
                share.0 += block.0.len();
                share.1.push(block);
            }
        }
        let highlight_all = |share: Vec<(&str, &str)>| {
            for (code, lang) in share {
                self.colour(code, lang, theme);
            }
        };
        let mut shares = shares.into_iter().map(|(_, share)| share);
        let mine = shares.next().unwrap_or_default();
        std::thread::scope(|scope| {
            for share in shares {
                scope.spawn(move || highlight_all(share));
            }
            highlight_all(mine);
        });
    }

    /// Colours one block and remembers it, budget or not (`prepare` has
    /// already kept within the budget).
    fn colour(&self, code: &str, lang: &str, theme: &Theme) {
        let (Some(theme_name), Some(syntax)) = (theme.syntax_theme(), self.syntax(lang)) else {
            return;
        };
        if !colourable(code) {
            return;
        }
        let key = MemoKey::new(code, syntax, theme);
        if self.memo().contains_key(&key) {
            return;
        }
        if let Some(lines) = self.highlight_uncached(code, syntax, theme_name, theme) {
            let mut memo = self.memo();
            if memo.len() >= MEMO_LIMIT {
                memo.clear();
            }
            memo.insert(key, Arc::new(lines));
        }
    }

    fn is_remembered(&self, code: &str, lang: &str, theme: &Theme) -> bool {
        let Some(syntax) = self.syntax(lang) else {
            return true;
        };
        // Never coloured, so nothing is left to do for it.
        if !colourable(code) {
            return true;
        }
        self.memo().contains_key(&MemoKey::new(code, syntax, theme))
    }

    /// How many blocks' highlighting is remembered.
    pub fn remembered(&self) -> usize {
        self.memo().len()
    }

    /// Forgets remembered highlighting (to measure, or to free memory).
    pub fn clear_memo(&self) {
        self.memo().clear();
    }

    fn memo(&self) -> std::sync::MutexGuard<'_, HashMap<MemoKey, Arc<HighlightedLines>>> {
        // A panic elsewhere cannot leave the map half-updated; keep using it.
        self.shared
            .memo
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn highlight_uncached(
        &self,
        code: &str,
        syntax: &SyntaxReference,
        theme_name: two_face::theme::EmbeddedThemeName,
        theme: &Theme,
    ) -> Option<HighlightedLines> {
        // Line by line: `lines` understands CRLF, which sanitize would show
        // as `^M`. One line at a time, not a sanitized copy of the block.
        let mut lines = HighlightLines::new(syntax, self.shared.themes.get(theme_name));
        let mut out = HighlightedLines::with_capacity(code.lines().count(), code.len());
        let mut line = String::new();
        for raw in code.lines() {
            line.clear();
            line.push_str(&crate::text::sanitize(raw));
            line.push('\n');
            let regions = lines.highlight_line(&line, &self.shared.syntaxes).ok()?;
            out.push(regions.into_iter().map(|(style, text)| {
                Span::styled(text.trim_end_matches(['\n', '\r']), convert(style, theme))
            }));
        }
        Some(out)
    }
}

/// A syntect style as a ratatui style: foreground and font style only. The
/// theme's background is left out so code sits on the terminal's own.
fn convert(style: syntect::highlighting::Style, theme: &Theme) -> Style {
    let mut out = theme.code_block.fg(theme.code_color(style.foreground));
    if style.font_style.contains(FontStyle::BOLD) {
        out = out.add_modifier(Modifier::BOLD);
    }
    if style.font_style.contains(FontStyle::ITALIC) {
        out = out.add_modifier(Modifier::ITALIC);
    }
    if style.font_style.contains(FontStyle::UNDERLINE) {
        out = out.add_modifier(Modifier::UNDERLINED);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::config::ThemeName;

    /// A small program in each grammar, enough to produce several colours.
    fn sample(grammar: &str) -> &'static str {
        match grammar {
            BASH => {
                "# build\nexport CUDA_HOME=/usr/local/cuda\nif [ -d \"$CUDA_HOME\" ]; then echo ok; fi\n"
            }
            "Python" => "import torch\n\ndef f(x):\n    return x * 2  # double\n",
            DOCKERFILE => {
                "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04 AS build\nRUN apt-get update && echo \"hi\"\n"
            }
            "C" => "#include <stdio.h>\nint main(void) { return 0; }\n",
            "C++" => "#include <vector>\ntemplate <typename T> class A { public: int x = 1; };\n",
            CUDA => "__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\nk<<<1, 32>>>(x);\n",
            "CMake" => {
                "cmake_minimum_required(VERSION 3.18)\nset(CMAKE_CUDA_ARCHITECTURES \"80;86\")\n"
            }
            "TOML" => "[package]\nname = \"lore\" # the name\nversion = 1\n",
            "YAML" => "services:\n  app:\n    image: \"x\" # comment\n    replicas: 2\n",
            "JSON" => "{\"a\": 1, \"b\": [true, null, \"s\"]}\n",
            "Makefile" => "CC := gcc\nall: main.o\n\t$(CC) -o app main.o\n",
            "Diff" => "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n",
            "INI" => "[section]\nkey = value ; comment\n",
            other => panic!("no sample for {other}"),
        }
    }

    #[test]
    fn every_fence_alias_highlights() {
        let highlighter = Highlighter::global();
        let theme = Theme::for_name(ThemeName::Dark);
        for (alias, grammar) in FENCE_ALIASES {
            assert_eq!(
                highlighter.grammar_name(alias),
                Some(*grammar),
                "fence `{alias}`"
            );
            let lines = highlighter
                .highlight(sample(grammar), alias, &theme)
                .unwrap_or_else(|| panic!("`{alias}` is not highlighted"));
            let colours: HashSet<_> = lines.iter().flatten().map(|s| s.style.fg).collect();
            assert!(
                colours.len() >= 2,
                "`{alias}` ({grammar}) came out in one colour: {lines:?}"
            );
        }
    }

    #[test]
    fn a_block_is_highlighted_once_per_theme() {
        let highlighter = Highlighter::load();
        let dark = Theme::for_name(ThemeName::Dark);
        let light = Theme::for_name(ThemeName::Light);
        let first = highlighter.highlight("ls -l\n", "sh", &dark).unwrap();
        let again = highlighter.highlight("ls -l\n", "bash", &dark).unwrap();
        assert!(Arc::ptr_eq(&first, &again));
        let other = highlighter.highlight("ls -l\n", "sh", &light).unwrap();
        assert!(!Arc::ptr_eq(&first, &other));
        highlighter.clear_memo();
        let fresh = highlighter.highlight("ls -l\n", "sh", &dark).unwrap();
        assert!(!Arc::ptr_eq(&first, &fresh));
        assert_eq!(first, fresh);
    }

    #[test]
    fn prepare_remembers_every_block_a_document_highlights() {
        let highlighter = Highlighter::load();
        let doc = crate::corpus::Document::parse(crate::sources::SourceFile {
            rel: "a.md".into(),
            origin: crate::sources::Origin::Builtin,
            text: "```bash\nls\n```\n\n```text\nplain\n```\n\n```py\nx = 1\n```\n".into(),
            stamp: None,
        });
        highlighter.prepare(&doc, &Theme::for_name(ThemeName::Dark));
        assert_eq!(highlighter.remembered(), 2, "bash and python, not text");
        highlighter.prepare(&doc, &Theme::plain());
        assert_eq!(highlighter.remembered(), 2, "nothing to colour under plain");
    }

    fn doc_with(text: String) -> crate::corpus::Document {
        crate::corpus::Document::parse(crate::sources::SourceFile {
            rel: "a.md".into(),
            origin: crate::sources::Origin::Builtin,
            text,
            stamp: None,
        })
    }

    /// A minified JSON blob pasted into a fence: one line of a megabyte took
    /// the TUI seconds to colour while keys waited, because the interactive
    /// budget counted it as one line. It is never coloured now, so nothing
    /// is left for a worker either, and `highlight` returns at once.
    #[test]
    fn a_megabyte_line_of_minified_json_is_shown_plain() {
        let highlighter = Highlighter::load();
        let theme = Theme::for_name(ThemeName::Dark);
        let blob = format!("{{\"k\": [{}0]}}", "1, ".repeat(350_000));
        let doc = doc_with(format!("# C\n\n```json\n{blob}\n```\n"));
        let interactive = highlighter.with_budget(INTERACTIVE_LINES);
        interactive.prepare(&doc, &theme);
        assert_eq!(highlighter.remembered(), 0);
        assert!(!interactive.leaves_plain(&doc, &theme));
        assert!(highlighter.highlight(&blob, "json", &theme).is_none());
        // A line just under the limit is still coloured.
        let short = format!("[{}0]", "1, ".repeat(6_000));
        assert!(highlighter.highlight(&short, "json", &theme).is_some());
    }

    /// Many long lines, each under the limit: few lines, but too many bytes
    /// for one keystroke. The interactive render leaves the block for a
    /// worker instead of colouring 300 KB between two keys.
    #[test]
    fn a_block_with_many_bytes_on_few_lines_goes_to_the_worker() {
        let highlighter = Highlighter::load();
        let theme = Theme::for_name(ThemeName::Dark);
        let line = format!("echo {}\n", "x".repeat(1_000));
        let doc = doc_with(format!("# C\n\n```bash\n{}```\n", line.repeat(300)));
        let interactive = highlighter.with_budget(INTERACTIVE_LINES);
        interactive.prepare(&doc, &theme);
        assert_eq!(highlighter.remembered(), 0, "300 lines but 300 KB");
        assert!(interactive.leaves_plain(&doc, &theme));
        highlighter.prepare(&doc, &theme);
        assert_eq!(highlighter.remembered(), 1, "the worker colours it");
        assert!(!interactive.leaves_plain(&doc, &theme));
    }

    /// Enough code to be shared out between threads: every block ends up
    /// remembered, coloured exactly as one thread colours it.
    #[test]
    fn a_long_document_is_prepared_in_parallel_with_the_same_colours() {
        let mut text = String::new();
        for i in 0..6 {
            text.push_str(&format!("## Step {i}\n\n```bash\n"));
            for j in 0..(10 + i * 7) {
                text.push_str(&format!("export A{j}=\"$HOME/{i}\" # step {i}\n"));
            }
            text.push_str("```\n\n```dockerfile\nFROM ubuntu:22.04\nRUN echo hi\n```\n\n");
        }
        let doc = crate::corpus::Document::parse(crate::sources::SourceFile {
            rel: "long.md".into(),
            origin: crate::sources::Origin::Builtin,
            text,
            stamp: None,
        });
        let theme = Theme::for_name(ThemeName::Dark);
        let parallel = Highlighter::load();
        parallel.prepare(&doc, &theme);
        assert_eq!(
            parallel.remembered(),
            7,
            "six bash blocks and one Dockerfile"
        );
        let serial = Highlighter::load();
        for block in &doc.code_blocks {
            let lang = block.lang.as_deref().unwrap();
            let remembered = parallel.highlight(&block.code, lang, &theme).unwrap();
            let fresh = serial.highlight(&block.code, lang, &theme).unwrap();
            assert_eq!(remembered, fresh);
        }
        assert_eq!(parallel.remembered(), 7, "prepare left nothing to do");
    }

    /// `code` parsed by the grammar for fence `lang`, one line at a time
    /// with its newline as highlighting does: each piece of text with the
    /// scopes it is in, innermost last.
    fn scopes(lang: &str, code: &str) -> Vec<(String, String)> {
        use syntect::parsing::{ParseState, ScopeStack};
        let highlighter = Highlighter::global();
        let syntaxes = &highlighter.shared.syntaxes;
        let mut state = ParseState::new(highlighter.syntax(lang).unwrap());
        let mut stack = ScopeStack::new();
        let mut out = Vec::new();
        let mut piece = |text: &str, stack: &ScopeStack| {
            let names: Vec<String> = stack.as_slice().iter().map(|s| s.build_string()).collect();
            out.push((text.to_string(), names.join(" ")));
        };
        for line in code.lines() {
            let line = format!("{line}\n");
            let mut at = 0;
            for (i, op) in state.parse_line(&line, syntaxes).unwrap() {
                if i > at {
                    piece(&line[at..i], &stack);
                    at = i;
                }
                stack.apply(&op).unwrap();
            }
            piece(&line[at..], &stack);
        }
        out
    }

    /// The scopes of the first piece of `code` that is `text`.
    fn scope_of<'a>(pieces: &'a [(String, String)], text: &str) -> &'a str {
        pieces
            .iter()
            .find(|(piece, _)| piece.trim() == text)
            .map(|(_, scopes)| scopes.as_str())
            .unwrap_or_else(|| panic!("no piece `{text}` in {pieces:#?}"))
    }

    const KERNEL: &str = "// scale in place\n\
        __global__ void scale(int* __restrict__ x, int n) {\n\
        \x20 __shared__ int tile[256];\n\
        \x20 int i = blockIdx.x * blockDim.x + threadIdx.x;\n\
        \x20 if (i < n) { x[i] = x[i] << 1; __syncthreads(); }\n\
        \x20 return;\n\
        }\n\
        scale<<<(n + 255) / 256, 256>>>(x, n);\n";

    /// CUDA's words are CUDA's wherever C++ puts them (top level, function
    /// bodies, blocks), a launch is one, and C++ is still C++ around them.
    #[test]
    fn the_cuda_grammar_scopes_cuda_words_inside_cpp() {
        assert_eq!(Highlighter::global().grammar_name("cuda"), Some(CUDA));
        let pieces = scopes("cuda", KERNEL);
        for (text, scope) in [
            ("__global__", "storage.modifier.cuda"),
            ("__restrict__", "storage.modifier.cuda"),
            ("__shared__", "storage.modifier.cuda"),
            ("blockIdx", "variable.language.cuda"),
            ("threadIdx", "variable.language.cuda"),
            ("__syncthreads", "support.function.cuda"),
            ("<<<", "punctuation.section.kernel-launch.begin.cuda"),
            (">>>", "punctuation.section.kernel-launch.end.cuda"),
            ("int", "storage.type"),
            ("return", "keyword.control"),
            ("<<", "keyword.operator"),
            ("scale in place", "comment.line"),
        ] {
            let scopes = scope_of(&pieces, text);
            assert!(scopes.contains(scope), "`{text}`: {scopes}");
            assert!(
                scopes.starts_with("source.cuda source.c++"),
                "`{text}`: {scopes}"
            );
        }
        // Under the C++ grammar none of it is anything.
        let cpp = scopes("cpp", KERNEL);
        assert!(!scope_of(&cpp, "__global__").contains("cuda"));
    }

    /// `>>>` outside a launch is three template brackets closing: C++'s,
    /// and what follows is still read as C++.
    #[test]
    fn nested_templates_are_not_a_launch() {
        let pieces = scopes(
            "cu",
            "std::vector<std::vector<std::vector<int>>> v;\nint after = 1;\n",
        );
        assert!(
            pieces.iter().all(|(_, s)| !s.contains("kernel-launch")),
            "{pieces:#?}"
        );
        assert!(scope_of(&pieces, "int").contains("storage.type"));
        let after: Vec<_> = pieces.iter().filter(|(t, _)| t.trim() == "int").collect();
        assert_eq!(after.len(), 2, "{pieces:#?}");
        assert!(after[1].1.contains("storage.type"), "{pieces:#?}");
        // Nor is a `<<<` that nothing closes.
        let pieces = scopes("cu", "a <<< b;\nint c = 1;\n");
        assert!(
            pieces.iter().all(|(_, s)| !s.contains("kernel-launch")),
            "{pieces:#?}"
        );
    }

    /// A kernel declared at the margin is a function being defined, as in
    /// C++ without the qualifier, attributes and all; commented-out code
    /// at the margin never keeps its comment from ending.
    #[test]
    fn a_kernel_at_the_margin_is_a_definition() {
        let pieces = scopes(
            "cuda",
            "__global__ void __launch_bounds__(256) add(float* x) { x[0] = 1; }\n\
             /*\n__global__ void old(\n*/\nint after(int y) { return y; }\n",
        );
        for name in ["add", "after"] {
            let scopes = scope_of(&pieces, name);
            assert!(
                scopes.contains("entity.name.function"),
                "`{name}`: {scopes}"
            );
            assert!(!scopes.contains("comment"), "`{name}`: {scopes}");
        }
        assert!(scope_of(&pieces, "x").contains("variable.parameter"));
        assert!(scope_of(&pieces, "__launch_bounds__").contains("storage.modifier.cuda"));
    }

    /// What a reader sees: under both themes, `__global__` and the launch
    /// brackets are coloured unlike plain names and operators, and C++
    /// keywords, types and comments keep their colours.
    #[test]
    fn cuda_keywords_and_launches_stand_out_in_colour() {
        let highlighter = Highlighter::global();
        for name in [ThemeName::Dark, ThemeName::Light] {
            let theme = Theme::for_name(name).with_truecolor(true);
            let lines = highlighter.highlight(KERNEL, "cuda", &theme).unwrap();
            let style = |line: usize, text: &str| {
                let spans = lines.line(line).spans;
                let mut col = 0;
                let full: String = spans.iter().map(|s| s.content.as_ref()).collect();
                let at = full
                    .find(text)
                    .unwrap_or_else(|| panic!("no `{text}` in {full}"));
                for span in &spans {
                    if (col..col + span.content.len()).contains(&at) {
                        return span.style.fg;
                    }
                    col += span.content.len();
                }
                panic!("`{text}` not in a span of {full}")
            };
            let plain_name = style(3, "i =");
            let operator = style(3, "* blockDim");
            let global = style(1, "__global__");
            assert_ne!(global, plain_name, "{name:?}: `__global__`");
            for (line, text) in [(7, "<<<"), (7, ">>>")] {
                let fg = style(line, text);
                assert_ne!(fg, plain_name, "{name:?}: `{text}`");
                assert_ne!(fg, operator, "{name:?}: `{text}`");
                assert_ne!(fg, style(4, "<< 1"), "{name:?}: `{text}` vs `<<`");
            }
            assert_ne!(style(3, "threadIdx"), plain_name, "{name:?}: threadIdx");
            for (line, text) in [(2, "int"), (5, "return"), (0, "// scale")] {
                assert_ne!(style(line, text), plain_name, "{name:?}: `{text}`");
            }
        }
    }

    /// The shipped knowledge fences its device code `cuda` and the rest of
    /// its C++ `cpp`; under the CUDA grammar every one of those blocks
    /// parses to its end, and the ones with device code get CUDA's colours.
    #[test]
    fn shipped_cpp_and_cuda_blocks_read_as_cuda() {
        use crate::sources::SourceSet;
        let corpus = crate::corpus::Corpus::load(&SourceSet::builtin_knowledge());
        let mut device_code = 0;
        for block in corpus
            .documents
            .iter()
            .flat_map(|d| &d.code_blocks)
            .filter(|b| matches!(b.lang.as_deref(), Some("cpp" | "cuda")))
        {
            let pieces = scopes("cuda", &block.code);
            let text: String = pieces.iter().map(|(t, _)| t.as_str()).collect();
            assert_eq!(text.lines().count(), block.code.lines().count());
            let cuda_word = |scopes: &str| {
                scopes
                    .split(' ')
                    .any(|scope| scope != "source.cuda" && scope.ends_with(".cuda"))
            };
            let has_cuda = pieces.iter().any(|(_, s)| cuda_word(s));
            if block.lang.as_deref() == Some("cuda") {
                assert!(
                    has_cuda,
                    "a `cuda` block without CUDA's colours:\n{}",
                    block.code
                );
            }
            device_code += usize::from(has_cuda);
        }
        assert!(device_code >= 14, "{device_code} blocks with CUDA words");
    }

    #[test]
    fn capitalised_and_extension_names_work() {
        let highlighter = Highlighter::global();
        assert_eq!(highlighter.grammar_name("Dockerfile"), Some(DOCKERFILE));
        assert_eq!(highlighter.grammar_name("C++"), Some("C++"));
        assert_eq!(highlighter.grammar_name("rs"), Some("Rust"));
        assert_eq!(highlighter.grammar_name("Python"), Some("Python"));
        // lore's own grammar, by name and by its file extensions.
        assert_eq!(highlighter.grammar_name("CUDA"), Some(CUDA));
        assert_eq!(highlighter.grammar_name("CUH"), Some(CUDA));
    }

    #[test]
    fn unknown_and_plain_languages_are_plain() {
        let highlighter = Highlighter::global();
        let theme = Theme::for_name(ThemeName::Dark);
        for lang in ["", "text", "plain", "TXT", "no-such-language", "output"] {
            assert_eq!(highlighter.grammar_name(lang), None, "{lang}");
            assert!(highlighter.highlight("x = 1\n", lang, &theme).is_none());
        }
        assert!(
            highlighter
                .highlight("x = 1\n", "python", &Theme::plain())
                .is_none()
        );
    }

    #[test]
    fn control_characters_in_code_are_made_visible() {
        let highlighter = Highlighter::global();
        let theme = Theme::for_name(ThemeName::Dark);
        let lines = highlighter
            .highlight("echo \"\x1b]52;c;ZXZpbA==\x07\"\n\tx=1\n", "bash", &theme)
            .unwrap();
        let text: Vec<String> = lines
            .iter()
            .map(|l| l.iter().map(|s| s.content.as_ref()).collect())
            .collect();
        assert_eq!(text, vec!["echo \"^[]52;c;ZXZpbA==^G\"", "    x=1"]);
    }
}
