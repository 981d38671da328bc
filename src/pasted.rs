//! Text as users hand it over: a log piped on stdin, or a paste into the
//! terminal. Two things real input carries that search must not see:
//!
//! - the encoding of a saved file. Windows PowerShell 5 writes UTF-16 with a
//!   byte-order mark for `>` and `Out-File`, so a log saved there and piped
//!   to `lore search -` on WSL arrives as UTF-16; read as UTF-8 it is every
//!   other byte a NUL. [`decode`] reads UTF-8, and UTF-16 when a byte-order
//!   mark says so.
//! - terminal colour codes. Coloured output copied or saved whole (`docker
//!   build` with a TTY, pytest, cmake) holds `ESC [1;31m` and the like;
//!   [`strip_ansi`] drops whole escape sequences, so neither the search nor
//!   the `searched:` line shows `[1m[31m`.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
const BEL: char = '\u{7}';

/// The text of `bytes`: UTF-16 (little or big endian) when they start with
/// its byte-order mark, else UTF-8 with a leading byte-order mark dropped.
/// Bytes that are not valid become U+FFFD, never an error: a log with one
/// bad byte is still searched.
pub fn decode(bytes: &[u8]) -> String {
    let utf16 = |rest: &[u8], from: fn([u8; 2]) -> u16| {
        let units = rest.chunks(2).map(|pair| match *pair {
            [a, b] => from([a, b]),
            _ => 0xFFFD,
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    };
    match bytes {
        [0xFF, 0xFE, rest @ ..] => utf16(rest, u16::from_le_bytes),
        [0xFE, 0xFF, rest @ ..] => utf16(rest, u16::from_be_bytes),
        [0xEF, 0xBB, 0xBF, rest @ ..] => String::from_utf8_lossy(rest).into_owned(),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// `text` without terminal escape sequences: CSI (`ESC [` … final byte,
/// colours and cursor moves), OSC (`ESC ]` … BEL or `ESC \`, titles and
/// hyperlinks) and the other escapes (`ESC ( B`, `ESC =`). Everything else, newlines and
/// other control characters included, is kept.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains(ESC) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != ESC {
            out.push(c);
            continue;
        }
        match chars.next() {
            // Parameters and intermediates, then one final byte in @..~.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // Up to BEL or ST (`ESC \`).
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == BEL {
                        break;
                    }
                    if c == ESC && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Intermediates (`ESC ( B` picks a character set), then a final byte.
            Some(c) if (' '..='/').contains(&c) => {
                for c in chars.by_ref() {
                    if !(' '..='/').contains(&c) {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A log saved by Windows PowerShell 5 (`docker build . > build.log`):
    /// UTF-16 LE with a byte-order mark and CRLF line ends.
    #[test]
    fn a_powershell_log_in_utf16_reads_as_its_text() {
        let text = "Step 1/3 : FROM nvidia/cuda\r\nImportError: libcupti.so.12: cannot open\r\n";
        let mut le = vec![0xFF, 0xFE];
        le.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
        assert_eq!(decode(&le), text);
        let mut be = vec![0xFE, 0xFF];
        be.extend(text.encode_utf16().flat_map(u16::to_be_bytes));
        assert_eq!(decode(&be), text);
        // An odd byte at the end (a cut file) is one replacement character.
        le.push(b'x');
        assert!(decode(&le).ends_with("open\r\n\u{FFFD}"));
    }

    #[test]
    fn utf8_keeps_its_text_and_loses_its_bom() {
        assert_eq!(decode("héllo".as_bytes()), "héllo");
        assert_eq!(decode(b"\xEF\xBB\xBFFROM x"), "FROM x");
        assert_eq!(decode(b"a\xFFb"), "a\u{FFFD}b");
    }

    /// Coloured output saved whole: pytest's and cmake's SGR codes, a
    /// hyperlink (OSC 8) and a window title, with the line ends kept.
    #[test]
    fn colour_codes_and_hyperlinks_are_dropped_whole() {
        let coloured = "step 1\r\n\x1b[1m\x1b[31mImportError\x1b[0m: libcupti.so.12\n\
                        \x1b]8;;https://x.example\x1b\\link\x1b]8;;\x1b\\ \x1b]0;title\x07end\x1b(B";
        assert_eq!(
            strip_ansi(coloured),
            "step 1\r\nImportError: libcupti.so.12\nlink end"
        );
        assert!(matches!(strip_ansi("plain\ttext"), Cow::Borrowed(_)));
    }
}
