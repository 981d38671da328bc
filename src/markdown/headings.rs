//! The headings of a rendered document, kept compactly like its lines: their
//! anchors and titles end to end in one buffer, and 16 bytes each besides.
//! Two `String`s a heading took about 130 bytes, most of the memory of a
//! document made of little else.

/// Rendered headings, in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headings {
    /// Each heading's anchor then its title, end to end.
    text: String,
    entries: Vec<Entry>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    anchor_end: u32,
    title_end: u32,
    line: u32,
    level: u8,
}

/// One heading, borrowing from [`Headings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenderedHeading<'a> {
    pub anchor: &'a str,
    pub level: u8,
    pub title: &'a str,
    /// Rendered line of the heading's first line.
    pub line: usize,
}

impl Headings {
    /// Room for `headings` headings of `text` bytes of anchors and titles.
    pub fn with_capacity(headings: usize, text: usize) -> Headings {
        Headings {
            text: String::with_capacity(text),
            entries: Vec::with_capacity(headings),
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Appends a heading. Past 4 GiB of anchors and titles, or 4 billion
    /// lines (far beyond any document lore reads), its texts are left empty
    /// so that headings still match the document's sections one to one.
    pub fn push(&mut self, anchor: &str, level: u8, title: &str, line: usize) {
        let fits = self.text.len() + anchor.len() + title.len() <= u32::MAX as usize;
        if fits {
            self.text.push_str(anchor);
        }
        let anchor_end = self.text.len() as u32;
        if fits {
            self.text.push_str(title);
        }
        self.entries.push(Entry {
            anchor_end,
            title_end: self.text.len() as u32,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            level,
        });
    }

    pub fn get(&self, i: usize) -> Option<RenderedHeading<'_>> {
        (i < self.len()).then(|| self.heading(i))
    }

    /// Every heading, in order.
    pub fn iter(
        &self,
    ) -> impl DoubleEndedIterator<Item = RenderedHeading<'_>> + ExactSizeIterator + Clone {
        (0..self.len()).map(|i| self.heading(i))
    }

    /// Heading `i`, which must exist.
    fn heading(&self, i: usize) -> RenderedHeading<'_> {
        let entry = self.entries[i];
        let start = i
            .checked_sub(1)
            .map_or(0, |p| self.entries[p].title_end as usize);
        RenderedHeading {
            anchor: &self.text[start..entry.anchor_end as usize],
            level: entry.level,
            title: &self.text[entry.anchor_end as usize..entry.title_end as usize],
            line: entry.line as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_come_back_as_pushed() {
        let mut h = Headings::default();
        h.push("intro", 1, "Intro", 0);
        h.push("", 2, "", 4);
        h.push("why-é", 3, "Why é?", 9);
        assert_eq!(h.len(), 3);
        let all: Vec<RenderedHeading<'_>> = h.iter().collect();
        assert_eq!(
            all[0],
            RenderedHeading {
                anchor: "intro",
                level: 1,
                title: "Intro",
                line: 0
            }
        );
        assert_eq!((all[1].anchor, all[1].title, all[1].line), ("", "", 4));
        assert_eq!(
            (all[2].anchor, all[2].title, all[2].level),
            ("why-é", "Why é?", 3)
        );
        assert_eq!(h.iter().rposition(|x| x.line <= 5), Some(1));
        assert_eq!(h.get(3), None);
    }
}
