//! Making file text safe for a terminal. Text from knowledge files and trees is
//! untrusted: an ESC byte in a Markdown file must never become an escape
//! sequence on the user's screen (OSC 52 could write their clipboard, OSC 8
//! could disguise a link). Every path from file text to the terminal goes
//! through `sanitize`.
//!
//! Bidirectional overrides, embeddings and isolates (U+202A–U+202E,
//! U+2066–U+2069) are shown too: in a terminal that lays out bidirectional
//! text they make a line display in another order than it reads, so a
//! command could look different from what a copy of it runs ("Trojan
//! Source", CVE-2021-42574). The marks U+200E and U+200F only nudge
//! neutral characters and stay.

/// Replaces control characters with visible caret notation (`^[` for ESC,
/// `^?` for DEL, `<U+0085>` style for C1 controls and bidirectional
/// overrides) and expands tabs to spaces. Newlines are kept.
pub fn sanitize(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut column = 0usize;
    for ch in text.chars() {
        match ch {
            '\n' => {
                out.push('\n');
                column = 0;
                continue;
            }
            '\t' => {
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
            c if is_c1(c) || is_bidi_override(c) => {
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
    (ch < ' ' && ch != '\n') || ch == '\u{7f}' || is_c1(ch) || is_bidi_override(ch)
}

fn is_c1(ch: char) -> bool {
    ('\u{80}'..='\u{9f}').contains(&ch)
}

/// Embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI,
/// RLI, FSI, PDI).
fn is_bidi_override(ch: char) -> bool {
    ('\u{202a}'..='\u{202e}').contains(&ch) || ('\u{2066}'..='\u{2069}').contains(&ch)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_become_visible() {
        let evil = "a\x1b]52;c;ZXZpbA==\x07b\x1b[31mred\u{9b}2J";
        let safe = sanitize(evil);
        assert!(!safe.chars().any(needs_escape), "{safe:?}");
        assert_eq!(safe, "a^[]52;c;ZXZpbA==^Gb^[[31mred<U+009B>2J");
    }

    #[test]
    fn bidi_overrides_are_shown_and_marks_stay() {
        // Reads as a harmless comment in a bidi-aware terminal, runs `rm`.
        let tricky = "echo ok # \u{202e}\u{2066}fr- mr\u{2069}\u{2066}";
        let safe = sanitize(tricky);
        assert!(!safe.chars().any(needs_escape), "{safe:?}");
        assert_eq!(safe, "echo ok # <U+202E><U+2066>fr- mr<U+2069><U+2066>");
        assert_eq!(sanitize("a\u{200f}b\u{200e}c"), "a\u{200f}b\u{200e}c");
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
