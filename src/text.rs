//! Making file text safe for a terminal. Text from knowledge files and trees is
//! untrusted: an ESC byte in a Markdown file must never become an escape
//! sequence on the user's screen (OSC 52 could write their clipboard, OSC 8
//! could disguise a link). Every path from file text to the terminal goes
//! through `sanitize` (or `inline` for a name printed within one line).
//!
//! Bidirectional overrides, embeddings and isolates (U+202A–U+202E,
//! U+2066–U+2069) are shown too: in a terminal that lays out bidirectional
//! text they make a line display in another order than it reads, so a
//! command could look different from what a copy of it runs ("Trojan
//! Source", CVE-2021-42574).
//!
//! Invisible characters follow one rule: every format character (Unicode
//! category Cf: zero-width space, non-joiner and joiner, word joiner, the
//! byte-order mark, the directional marks U+200E, U+200F and U+061C, soft
//! hyphen, tag characters…), the line and paragraph separators U+2028 and
//! U+2029, and code points Unicode has not assigned are shown as
//! `<U+XXXX>`. Terminals and tmux disagree on how wide they are (tmux draws
//! a joined emoji as its parts, a terminal as one glyph), so passing them on
//! leaves stale cells and broken borders, and in plain output they hide
//! text a reader cannot see. A joiner inside an emoji sequence is shown the
//! same way: the parts stay readable.
//!
//! An escape is drawn as one unit: wrapping and truncating never split it
//! (`units`).

use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};
use unicode_segmentation::{GraphemeIndices, UnicodeSegmentation};
use unicode_width::UnicodeWidthStr;

/// Replaces control characters with visible caret notation (`^[` for ESC,
/// `^?` for DEL, `<U+0085>` style for C1 controls, bidirectional overrides
/// and invisible format characters) and expands tabs to spaces. Newlines
/// are kept.
pub fn sanitize(text: &str) -> String {
    escape(text, Layout::Keep)
}

/// File text printed within one line, where every character must be seen:
/// a file name, a path, an id. Like `sanitize`, but a newline is `^J` and a
/// tab `^I`, so a name can never start a line of its own (a file called
/// `x\nforged.md:1: error: …` cannot forge a line of `lore check`).
pub fn inline(text: &str) -> String {
    escape(text, Layout::Escape)
}

/// File text for a single line of output (a title, a label, a table cell):
/// sanitized, with every run of whitespace, line breaks included, folded to
/// one space.
pub fn one_line(text: &str) -> String {
    sanitize(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// True for characters `sanitize` changes.
pub fn needs_escape(ch: char) -> bool {
    (ch < ' ' && ch != '\n') || ch == '\u{7f}' || is_c1(ch) || is_hidden(ch)
}

/// The characters of `text` that `sanitize` shows escaped, in order: those
/// `needs_escape` names, except a zero-width joiner or non-joiner that
/// spells a word (see `joins_letters`). Tabs are included.
pub fn escaped_chars(text: &str) -> impl Iterator<Item = char> + '_ {
    in_context(text)
        .filter(|c| !c.spelled && needs_escape(c.ch))
        .map(|c| c.ch)
}

/// A character of a text with what `sanitize` and `for_clipboard` need to
/// know about its place: the next character, and whether it is a joiner
/// that spells a word (see `joins_letters`).
#[derive(Clone, Copy)]
struct InContext {
    ch: char,
    next: Option<char>,
    spelled: bool,
}

fn in_context(text: &str) -> impl Iterator<Item = InContext> + '_ {
    let mut before = None;
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        let ch = chars.next()?;
        let next = chars.peek().copied();
        let spelled = is_joiner(ch) && joins_letters(before, next);
        before = Some(ch);
        Some(InContext { ch, next, spelled })
    })
}

/// What kind of character `needs_escape` found, in a user's words.
pub fn describe(ch: char) -> &'static str {
    if ch < ' ' || ch == '\u{7f}' || is_c1(ch) {
        "control character"
    } else if is_bidi_override(ch) {
        "bidirectional override"
    } else {
        "invisible format character"
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// Newlines kept, tabs expanded: text that keeps its lines.
    Keep,
    /// Newlines and tabs escaped too: one line.
    Escape,
}

fn escape(text: &str, layout: Layout) -> String {
    let keep = layout == Layout::Keep;
    if !text
        .chars()
        .any(|c| needs_escape(c) || (!keep && c == '\n'))
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut column = 0usize;
    for InContext { ch, spelled, .. } in in_context(text) {
        match ch {
            c if spelled => {
                out.push(c);
                continue;
            }
            '\n' if keep => {
                out.push('\n');
                column = 0;
                continue;
            }
            '\t' if keep => {
                let spaces = 4 - column % 4;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
                continue;
            }
            c if (c as u32) < 0x20 => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
                column += 2;
                continue;
            }
            '\u{7f}' => {
                out.push_str("^?");
                column += 2;
                continue;
            }
            c if is_c1(c) || is_hidden(c) => {
                let shown = format!("<U+{:04X}>", c as u32);
                column += shown.len();
                out.push_str(&shown);
                continue;
            }
            c => out.push(c),
        }
        column += 1;
    }
    out
}

/// Text for the clipboard: what a user sees and would type. Control
/// characters other than tab and newline, bidirectional overrides and
/// invisible format characters are left out (a copied `ESC [201~` would end
/// a bracketed paste early and run the rest as typed); CRLF line ends become
/// LF. Returns the text and how many characters were left out.
pub fn for_clipboard(text: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut removed = 0;
    for InContext { ch, next, spelled } in in_context(text) {
        match ch {
            '\n' | '\t' => out.push(ch),
            '\r' if next == Some('\n') => {}
            c if spelled => out.push(c),
            c if needs_escape(c) => removed += 1,
            c => out.push(c),
        }
    }
    (out, removed)
}

/// Zero-width non-joiner and joiner: format characters, but part of how
/// Persian, Arabic and the Indic scripts are spelled (`می‌خواهم`).
fn is_joiner(ch: char) -> bool {
    matches!(ch, '\u{200c}' | '\u{200d}')
}

/// Whether a joiner between `before` and `after` belongs to a word: it
/// follows a letter or combining mark outside ASCII and ends the word or
/// joins another such letter (Malayalam ends words with virama + ZWNJ).
/// Anywhere else (inside an English word or a command, between emoji, at
/// the start of a word) it is shown escaped, so it can hide nothing.
fn joins_letters(before: Option<char>, after: Option<char>) -> bool {
    let letter = |c: char| {
        !c.is_ascii()
            && (c.is_alphabetic()
                || matches!(
                    c.general_category(),
                    GeneralCategory::NonspacingMark | GeneralCategory::SpacingMark
                ))
    };
    before.is_some_and(letter) && after.is_none_or(|c| c.is_whitespace() || letter(c))
}

fn is_c1(ch: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&ch)
}

/// Embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI,
/// RLI, FSI, PDI).
fn is_bidi_override(ch: char) -> bool {
    ('\u{202a}'..='\u{202e}').contains(&ch) || ('\u{2066}'..='\u{2069}').contains(&ch)
}

/// Characters that change layout without being seen: every format
/// character (bidirectional overrides included), the line and paragraph
/// separators, and code points Unicode has not assigned (U+2065, U+FFFF),
/// whose width no terminal knows.
fn is_hidden(ch: char) -> bool {
    if ch < '\u{ad}' {
        return false;
    }
    matches!(ch, '\u{2028}' | '\u{2029}')
        || matches!(
            ch.general_category(),
            GeneralCategory::Format | GeneralCategory::Unassigned
        )
}

/// Cuts sanitized `text` to `width` columns by taking out its middle
/// (`cuda/10-docker…optimization.md`): both ends of a path or a message say
/// the most (a file's number and folder, a message's last words). An
/// escape is kept whole or left out whole.
pub fn fit_middle(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let units: Vec<&str> = units(text).collect();
    let room = width - 1;
    // The start gets the odd column: it says which file or which message.
    let (head_room, tail_room) = (room - room / 2, room / 2);
    let mut head = 0;
    let mut used = 0;
    while head < units.len() && used + units[head].width() <= head_room {
        used += units[head].width();
        head += 1;
    }
    let mut tail = units.len();
    let mut used = 0;
    while tail > head && used + units[tail - 1].width() <= tail_room {
        used += units[tail - 1].width();
        tail -= 1;
    }
    format!("{}…{}", units[..head].concat(), units[tail..].concat())
}

/// The pieces a line of sanitized text can be cut between: grapheme
/// clusters, except that an escape `sanitize` wrote (`^[`, `^?`,
/// `<U+200D>`) is one piece, so wrapping or truncating never leaves half of
/// one (a stray `^` at a line end and `[` on the next). The same characters
/// typed in a file (`[^[:space:]]`) are kept together too, which costs
/// nothing.
pub fn units(text: &str) -> Units<'_> {
    Units {
        text,
        graphemes: text.grapheme_indices(true),
    }
}

/// Iterator of `units`.
pub struct Units<'a> {
    text: &'a str,
    graphemes: GraphemeIndices<'a>,
}

impl<'a> Iterator for Units<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let (at, grapheme) = self.graphemes.next()?;
        let len = escape_len(&self.text[at..]);
        if len <= grapheme.len() {
            return Some(grapheme);
        }
        // Escapes are ASCII, one grapheme per byte: skip the rest of it.
        for _ in 1..len {
            self.graphemes.next();
        }
        Some(&self.text[at..at + len])
    }
}

/// Length in bytes of the escape `text` starts with, or 0.
fn escape_len(text: &str) -> usize {
    let bytes = text.as_bytes();
    match bytes {
        [b'^', b'@'..=b'_' | b'?', ..] => 2,
        [b'<', b'U', b'+', rest @ ..] => {
            let digits = rest.iter().take_while(|b| b.is_ascii_hexdigit()).count();
            if (4..=6).contains(&digits) && rest.get(digits) == Some(&b'>') {
                3 + digits + 1
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// Cuts `text` to `width` columns from the left (`…/tail.md`), for paths whose
/// end says the most.
pub fn fit_left(text: &str, width: usize) -> String {
    if UnicodeWidthStr::width(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let units: Vec<&str> = units(text).collect();
    let mut start = units.len();
    let mut used = 0;
    while start > 0 {
        let w = UnicodeWidthStr::width(units[start - 1]);
        if used + w > width - 1 {
            break;
        }
        used += w;
        start -= 1;
    }
    format!("…{}", units[start..].concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fitting_in_the_middle_keeps_both_ends() {
        let path = "cuda/10-docker-multistage-ml-optimization.md";
        let fitted = fit_middle(path, 26);
        assert_eq!(fitted, "cuda/10-docke…imization.md");
        assert_eq!(fitted.width(), 26);
        assert_eq!(fit_middle(path, 100), path);
        assert_eq!(fit_middle(path, 0), "");
        assert_eq!(fit_middle(path, 1), "…");
        // Wide characters and escapes are never split.
        let wide = fit_middle("日本語のテキスト", 7);
        assert!(wide.width() <= 7, "{wide}");
        assert_eq!(fit_middle("a^[b^[c^[d", 6), "a^[…d");
    }

    #[test]
    fn escape_sequences_become_visible() {
        let evil = "a\x1b]52;c;ZXZpbA==\x07b\x1b[31mred\u{9b}2J";
        let safe = sanitize(evil);
        assert!(!safe.chars().any(needs_escape), "{safe:?}");
        assert_eq!(safe, "a^[]52;c;ZXZpbA==^Gb^[[31mred<U+009B>2J");
    }

    #[test]
    fn bidi_overrides_are_shown() {
        // Reads as a harmless comment in a bidi-aware terminal, runs `rm`.
        let tricky = "echo ok # \u{202e}\u{2066}fr- mr\u{2069}\u{2066}";
        let safe = sanitize(tricky);
        assert!(!safe.chars().any(needs_escape), "{safe:?}");
        assert_eq!(safe, "echo ok # <U+202E><U+2066>fr- mr<U+2069><U+2066>");
    }

    #[test]
    fn invisible_and_separator_characters_are_shown() {
        let cases = [
            ("a\u{200b}b", "a<U+200B>b"),
            ("a\u{200c}b", "a<U+200C>b"),
            ("👩\u{200d}💻", "👩<U+200D>💻"),
            ("line\u{2028}sep", "line<U+2028>sep"),
            ("para\u{2029}sep", "para<U+2029>sep"),
            ("x\u{feff}y", "x<U+FEFF>y"),
            ("x\u{2060}y", "x<U+2060>y"),
            ("x\u{061c}y", "x<U+061C>y"),
            ("a\u{200f}b\u{200e}c", "a<U+200F>b<U+200E>c"),
            ("soft\u{ad}hyphen", "soft<U+00AD>hyphen"),
            ("tag\u{e0041}", "tag<U+E0041>"),
            ("unassigned\u{2065}\u{ffff}", "unassigned<U+2065><U+FFFF>"),
        ];
        for (raw, shown) in cases {
            assert_eq!(sanitize(raw), shown, "{raw:?}");
            assert_eq!(
                describe(raw.chars().find(|&c| needs_escape(c)).unwrap()),
                "invisible format character"
            );
        }
        // Visible non-ASCII text, no-break spaces and variation selectors stay.
        for kept in ["naïve café", "漢字", "a\u{a0}b", "❤\u{fe0f}", "x\u{2007}y"] {
            assert_eq!(sanitize(kept), kept);
        }
        // Joiners that spell a word stay (Persian, Malayalam, Devanagari),
        // in the text, the clipboard and `lore check`; elsewhere they are
        // escaped.
        for spelled in [
            "\u{645}\u{6cc}\u{200c}\u{62e}\u{648}\u{627}\u{647}\u{645}",
            "\u{d28}\u{d3f}\u{d7c}\u{200d}\u{d26}\u{d47}\u{d36}",
            "\u{915}\u{94d}\u{200d}\u{937}",
        ] {
            assert_eq!(sanitize(spelled), spelled);
            assert_eq!(for_clipboard(spelled), (spelled.to_string(), 0));
            assert_eq!(escaped_chars(spelled).count(), 0, "{spelled:?}");
        }
        assert_eq!(
            sanitize("\u{d24}\u{d4d}\u{200c} x"),
            "\u{d24}\u{d4d}\u{200c} x"
        );
        for (raw, shown) in [
            ("\u{200c}\u{645}", "<U+200C>\u{645}"),
            ("\u{645} \u{200c}\u{645}", "\u{645} <U+200C>\u{645}"),
            ("\u{645}\u{200c}a", "\u{645}<U+200C>a"),
            ("a\u{200c}\u{645}", "a<U+200C>\u{645}"),
        ] {
            assert_eq!(sanitize(raw), shown);
            assert_eq!(escaped_chars(raw).collect::<String>(), "\u{200c}");
        }
    }

    #[test]
    fn inline_escapes_line_breaks_and_tabs() {
        assert_eq!(
            inline("evil\nforged.md:1: error: x\t\x1b"),
            "evil^Jforged.md:1: error: x^I^["
        );
        assert_eq!(inline("plain/path.md"), "plain/path.md");
    }

    #[test]
    fn clipboard_text_keeps_what_is_seen() {
        let (text, removed) =
            for_clipboard("printf 'x \x1b[201~ y'\r\n\tz\u{202e}\u{200b}\u{9b}\u{7f}");
        assert_eq!(text, "printf 'x [201~ y'\n\tz");
        assert_eq!(removed, 5);
        assert_eq!(
            for_clipboard("pip install torch\n"),
            ("pip install torch\n".to_string(), 0)
        );
    }

    #[test]
    fn escapes_are_single_units() {
        let units: Vec<&str> = units("a^[b<U+2066>c<U+10FFFF>é<U+12>^").collect();
        assert_eq!(
            units,
            [
                "a",
                "^[",
                "b",
                "<U+2066>",
                "c",
                "<U+10FFFF>",
                "é",
                "<",
                "U",
                "+",
                "1",
                "2",
                ">",
                "^"
            ]
        );
    }

    #[test]
    fn one_line_folds_breaks_and_escapes() {
        assert_eq!(one_line("  a\n b\t\x1bc  "), "a b ^[c");
    }

    #[test]
    fn tabs_expand_and_newlines_stay() {
        assert_eq!(sanitize("a\tb\n\tc"), "a   b\n    c");
        assert_eq!(sanitize("plain"), "plain");
    }
}
