//! Small pieces of state shared by several screens: a one-line text box and a
//! list cursor that keeps the selection on screen. Pure data, no drawing.

/// A one-line text box: the library filter, the search box, find.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    pub text: String,
    /// Byte offset of the cursor in `text`, on a character boundary.
    pub cursor: usize,
    /// True when the last paste was cut to fit the bound.
    pub cut: bool,
    /// The most bytes `text` may hold (`MAX_INPUT_BYTES` unless set).
    limit: Option<usize>,
    /// Keep line breaks from pastes (the search box, which triages logs).
    multiline: bool,
}

/// Text boxes are cut here by default: a title filter or a find needs no more,
/// and a bound keeps every keystroke cheap.
pub const MAX_INPUT_BYTES: usize = 2048;

impl TextInput {
    /// A box that keeps pasted line breaks and holds up to `limit` bytes:
    /// the search box, where a pasted log is triaged line by line.
    pub fn multiline(limit: usize) -> TextInput {
        TextInput {
            limit: Some(limit),
            multiline: true,
            ..TextInput::default()
        }
    }

    fn limit(&self) -> usize {
        self.limit.unwrap_or(MAX_INPUT_BYTES)
    }

    /// Types `c` at the cursor.
    pub fn push(&mut self, c: char) {
        if c.is_control()
            || crate::text::needs_escape(c)
            || self.text.len() + c.len_utf8() > self.limit()
        {
            return;
        }
        self.insert(&c.to_string());
    }

    fn insert(&mut self, text: &str) {
        self.cursor = self.cursor.min(self.text.len());
        self.text.insert_str(self.cursor, text);
        self.cursor += text.len();
    }

    /// Inserts pasted text at the cursor: tabs (and, in a one-line box, line
    /// breaks) become spaces; in a multi-line box CR, CRLF and LF each end a
    /// line; other control characters (and bidirectional
    /// overrides) are dropped. What does not fit is cut: from a long paste,
    /// its end is kept (where a log says what failed) and `cut` is set.
    pub fn paste(&mut self, text: &str) {
        let mut clean = String::with_capacity(text.len().min(self.limit()));
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            match c {
                // GNOME Terminal and other VTE terminals, and tmux's paste,
                // send a carriage return for each line break: CR, CRLF and
                // LF all end a line.
                '\r' if self.multiline => {
                    if chars.peek() != Some(&'\n') {
                        clean.push('\n');
                    }
                }
                '\n' if self.multiline => clean.push('\n'),
                '\n' | '\r' | '\t' => {
                    if !clean.is_empty() && !clean.ends_with(' ') {
                        clean.push(' ');
                    }
                }
                c if c.is_control() || crate::text::needs_escape(c) => {}
                c => clean.push(c),
            }
        }
        let room = self.limit().saturating_sub(self.text.len());
        self.cut = clean.len() > room;
        if self.cut {
            let mut start = clean.len() - room;
            while !clean.is_char_boundary(start) {
                start += 1;
            }
            clean.drain(..start);
        }
        self.insert(&clean);
    }

    /// Deletes the character before the cursor.
    pub fn delete_char(&mut self) {
        self.cursor = self.cursor.min(self.text.len());
        if let Some((at, _)) = self.text[..self.cursor].char_indices().next_back() {
            self.text.replace_range(at..self.cursor, "");
            self.cursor = at;
        }
    }

    /// Deletes back to the start of the previous word, like a shell's Ctrl-W.
    pub fn delete_word(&mut self) {
        self.cursor = self.cursor.min(self.text.len());
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches([' ', '\n']);
        let cut = trimmed.rfind([' ', '\n']).map_or(0, |i| i + 1);
        self.text.replace_range(cut..self.cursor, "");
        self.cursor = cut;
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.cut = false;
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn left(&mut self) {
        self.cursor = self.cursor.min(self.text.len());
        if let Some((at, _)) = self.text[..self.cursor].char_indices().next_back() {
            self.cursor = at;
        }
    }

    pub fn right(&mut self) {
        self.cursor = self.cursor.min(self.text.len());
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    pub fn home(&mut self) {
        self.cursor = 0;
    }

    pub fn end(&mut self) {
        self.cursor = self.text.len();
    }
}

/// The selected row of a list and the first row shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cursor {
    pub selected: usize,
    pub offset: usize,
}

impl Cursor {
    /// Moves by `delta` rows within `len`, then scrolls so the selection is
    /// within a window of `height` rows.
    pub fn move_by(&mut self, delta: isize, len: usize, height: usize) {
        if len == 0 {
            *self = Cursor::default();
            return;
        }
        let target = self.selected as isize + delta;
        self.selected = target.clamp(0, len as isize - 1) as usize;
        self.reveal(len, height);
    }

    pub fn select(&mut self, index: usize, len: usize, height: usize) {
        self.selected = index.min(len.saturating_sub(1));
        self.reveal(len, height);
    }

    /// Keeps the selection visible and the window full where possible.
    pub fn reveal(&mut self, len: usize, height: usize) {
        let height = height.max(1);
        self.selected = self.selected.min(len.saturating_sub(1));
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        self.offset = self.offset.min(len.saturating_sub(height));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctrl_w_deletes_the_last_word() {
        let mut input = TextInput::default();
        input.paste("libcupti so  ");
        input.delete_word();
        assert_eq!(input.text, "libcupti ");
        input.delete_word();
        assert_eq!(input.text, "");
    }

    #[test]
    fn pasted_lines_become_one_line() {
        let mut input = TextInput::default();
        input.paste("ImportError:\r\n\tlibcupti.so.12\x1b[0m\u{202e}");
        assert_eq!(input.text, "ImportError: libcupti.so.12[0m");
    }

    #[test]
    fn typing_and_deleting_happen_at_the_cursor() {
        let mut input = TextInput::default();
        input.paste("libcupti.so");
        input.home();
        input.right();
        input.right();
        input.right();
        input.push('X');
        assert_eq!(input.text, "libXcupti.so");
        input.delete_char();
        input.delete_char();
        assert_eq!(input.text, "licupti.so");
        input.end();
        input.left();
        input.push('é');
        input.right();
        input.push('!');
        assert_eq!((input.text.as_str(), input.cursor), ("licupti.séo!", 13));
    }

    #[test]
    fn a_multiline_box_keeps_lines_and_the_end_of_a_long_paste() {
        let mut input = TextInput::multiline(16);
        input.paste("first line\r\nE: the error\n");
        assert!(input.cut);
        assert_eq!(input.text, "ne\nE: the error\n");
        let mut one_line = TextInput::default();
        one_line.paste(&"x".repeat(10_000));
        assert_eq!(one_line.text.len(), MAX_INPUT_BYTES);
    }

    #[test]
    fn the_cursor_keeps_the_selection_in_view() {
        let mut c = Cursor::default();
        c.move_by(7, 10, 3);
        assert_eq!((c.selected, c.offset), (7, 5));
        c.move_by(-6, 10, 3);
        assert_eq!((c.selected, c.offset), (1, 1));
        c.move_by(100, 10, 3);
        assert_eq!((c.selected, c.offset), (9, 7));
        c.reveal(4, 3);
        assert_eq!((c.selected, c.offset), (3, 1));
        c.move_by(1, 0, 3);
        assert_eq!(c, Cursor::default());
    }
}
