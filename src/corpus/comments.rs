//! HTML comments (`<!-- … -->`) in Markdown: every viewer hides them
//! (GitHub, Hugo, MkDocs), and public doc sets are full of them: generator
//! markers (`<!---MARKER_GEN_START-->`), licence headers, notes to editors.
//! This module only finds where they are; the renderer leaves them out and
//! search leaves them out of what it indexes. Which text is a comment at all
//! (an HTML block or inline HTML, never code) is the parser's call.

use std::ops::Range;

const OPEN: &str = "<!--";
const CLOSE: &str = "-->";

/// Byte ranges of the comments in `html` (text the parser gave as HTML), in
/// order. A comment runs from `<!--` to the next `-->`; `<!-->` and `<!--->`
/// are empty comments (CommonMark 0.31); one never closed runs to the end,
/// as a browser reads it.
pub fn comments(html: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = html[from..].find(OPEN) {
        let start = from + at;
        let inner = start + OPEN.len();
        let end = if html[inner..].starts_with('>') {
            inner + 1
        } else if html[inner..].starts_with("->") {
            inner + 2
        } else {
            html[inner..]
                .find(CLOSE)
                .map_or(html.len(), |i| inner + i + CLOSE.len())
        };
        out.push(start..end);
        from = end;
    }
    out
}

/// True when `html` (one inline HTML piece) is a comment.
pub fn is_comment(html: &str) -> bool {
    html.starts_with(OPEN)
}

/// The lines of an HTML block as a reader sees them, each with its index in
/// the block: comments taken out, and a line left blank by that dropped. A
/// line that was blank to begin with (inside `<pre>`) stays.
pub fn visible_lines(html: &str) -> Vec<(usize, String)> {
    let ranges = comments(html);
    if ranges.is_empty() {
        return html.lines().map(str::to_string).enumerate().collect();
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut next = ranges.iter().peekable();
    for (i, line) in html.split_inclusive('\n').enumerate() {
        let end = start + line.len();
        let mut shown = String::new();
        let mut had_comment = false;
        let mut at = start;
        while at < end {
            // Skip the comments that end before this point.
            while next.peek().is_some_and(|r| r.end <= at) {
                next.next();
            }
            match next.peek() {
                Some(r) if r.start < end => {
                    had_comment = true;
                    shown.push_str(&html[at..r.start.max(at)]);
                    at = r.end.min(end).max(at);
                    if r.end > end {
                        break;
                    }
                }
                _ => {
                    shown.push_str(&html[at..end]);
                    at = end;
                }
            }
        }
        let shown = shown.trim_end_matches(['\n', '\r']).to_string();
        if !(had_comment && shown.trim().is_empty()) {
            out.push((i, shown));
        }
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(html: &str) -> Vec<&str> {
        comments(html).into_iter().map(|r| &html[r]).collect()
    }

    #[test]
    fn comments_run_to_the_next_close() {
        assert_eq!(
            found("a <!-- x --> b <!---MARKER_GEN_START--> c"),
            ["<!-- x -->", "<!---MARKER_GEN_START-->"]
        );
        assert_eq!(found("<!--> <!---> t"), ["<!-->", "<!--->"]);
        assert_eq!(found("<div>\n<!-- open"), ["<!-- open"]);
        assert_eq!(found("<b>no comment</b>"), Vec::<&str>::new());
    }

    #[test]
    fn lines_emptied_by_a_comment_go_and_others_stay() {
        let html = "<!-- licence\nheader -->\n<div>kept <!-- x -->here</div>\n\n<!-- a --> tail\n";
        assert_eq!(
            visible_lines(html),
            [
                (2, "<div>kept here</div>".to_string()),
                (3, String::new()),
                (4, " tail".to_string()),
            ]
        );
        assert!(visible_lines("<!---MARKER_GEN_START-->\n").is_empty());
    }
}
