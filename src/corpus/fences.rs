//! Fenced code blocks read line by line, for the scanners that cut or
//! blank Markdown text without parsing it (big documents' parts, MDX
//! components, a section's passages). A fence opens with three or more
//! backticks or tildes, indented any amount (as inside a list item or a
//! component); a backtick fence's info string holds no backtick
//! (CommonMark), so ```` ```code``` ```` at a line's start is inline code.
//! It closes at a line of at least as many of the same character and
//! nothing else but spaces.

/// An open fence: its character and how many of them opened it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    mark: char,
    run: usize,
}

impl Fence {
    /// The fence `line` opens, if it is an opening fence line.
    pub fn opened_by(line: &str) -> Option<Fence> {
        let line = line.trim();
        let mark = line.chars().next().filter(|&c| c == '`' || c == '~')?;
        let run = line.chars().take_while(|&c| c == mark).count();
        let info = &line[run * mark.len_utf8()..];
        (run >= 3 && !(mark == '`' && info.contains('`'))).then_some(Fence { mark, run })
    }

    /// Whether `line` closes this fence.
    pub fn closed_by(&self, line: &str) -> bool {
        let line = line.trim();
        line.chars().take_while(|&c| c == self.mark).count() >= self.run
            && line.chars().all(|c| c == self.mark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_closes_at_as_many_of_its_own_character_and_nothing_else() {
        let f = Fence::opened_by("  ````rust\r\n").unwrap();
        assert!(!f.closed_by("```"), "shorter run");
        assert!(!f.closed_by("~~~~"), "other character");
        assert!(!f.closed_by("```` trailing"), "text after the run");
        assert!(f.closed_by("    `````  \r\n"));
    }

    #[test]
    fn inline_code_and_short_runs_open_nothing() {
        assert_eq!(Fence::opened_by("```code``` in a sentence"), None);
        assert_eq!(Fence::opened_by("``not a fence"), None);
        assert_eq!(Fence::opened_by("text ```"), None);
        assert!(Fence::opened_by("~~~ info with ` backtick").is_some());
    }
}
