//! Small pieces of state shared by several screens: a one-line text box and a
//! list cursor that keeps the selection on screen. Pure data, no drawing.

/// A one-line text box: the library filter, the search box, find.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    pub text: String,
}

/// Long inputs are cut here: a pasted log line is enough to search by, and a
/// bound keeps every keystroke cheap.
pub const MAX_INPUT_CHARS: usize = 512;

impl TextInput {
    pub fn push(&mut self, c: char) {
        if c.is_control()
            || crate::text::needs_escape(c)
            || self.text.chars().count() >= MAX_INPUT_CHARS
        {
            return;
        }
        self.text.push(c);
    }

    /// Inserts pasted text: line breaks and tabs become spaces, other control
    /// characters (and bidirectional overrides) are dropped.
    pub fn paste(&mut self, text: &str) {
        for c in text.chars() {
            match c {
                '\n' | '\r' | '\t' => {
                    if !self.text.is_empty() && !self.text.ends_with(' ') {
                        self.push(' ');
                    }
                }
                c => self.push(c),
            }
        }
    }

    pub fn delete_char(&mut self) {
        self.text.pop();
    }

    /// Deletes back to the start of the previous word, like a shell's Ctrl-W.
    pub fn delete_word(&mut self) {
        let trimmed = self.text.trim_end_matches(' ');
        let cut = trimmed.rfind(' ').map_or(0, |i| i + 1);
        self.text.truncate(cut);
    }

    pub fn clear(&mut self) {
        self.text.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
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
        let mut input = TextInput {
            text: "libcupti so  ".into(),
        };
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
