//! MDX pages (`.mdx`: Docusaurus, Nextra, Mintlify): Markdown with what a
//! site's build runs added. Lore has no JavaScript to run, so that is
//! markup, not prose, handled the way HTML comments and Hugo shortcode lines
//! are (see `comments`, `shortcodes`):
//! - top-level `import … from '…'` / `export …` blocks (ESM, up to the next
//!   blank line, as MDX reads them): hidden;
//! - `{/* … */}` comments, inline or over several lines: hidden;
//! - lines holding only component tags (`<Tabs>`, `<TabItem value="pip"
//!   label="pip">`, `</Tabs>`, `<Note />`, a tag whose attributes run over
//!   several lines): dropped, so the text between them reads as ordinary
//!   paragraphs; a `label` or `title` attribute is kept as a label, as a
//!   Hugo tab keeps its name.
//!
//! The page's text is blanked there, byte for byte (line ends stay), before
//! it is parsed: every offset and line number still points into the file.
//! A labelled tag's line keeps a placeholder word, which is listed as a
//! shortcode line so the renderer shows the label in its place and search
//! skips it. Text inside code fences is never touched; lower-case tags are
//! HTML, read as lore reads HTML in any page.

use super::ShortcodeLine;
use super::fences::Fence;

/// Whether `rel` names an MDX page.
pub fn is_mdx(rel: &str) -> bool {
    rel.rsplit_once('.')
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("mdx"))
}

/// What `clean` gives: the text with MDX markup blanked, and the lines of
/// labelled tags (sorted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleaned {
    pub text: String,
    pub labels: Vec<ShortcodeLine>,
}

/// The word a labelled tag's line keeps: plain text that starts no Markdown
/// block, never shown or indexed.
const PLACEHOLDER: &[u8] = b"tab";

/// Opening minus closing brackets on an ESM line, outside quoted strings:
/// `export const config = {` opens one.
fn bracket_balance(line: &str) -> i64 {
    let mut depth = 0;
    let mut quote = None;
    let mut escaped = false;
    for c in line.chars() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' | '`' => quote = Some(c),
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => depth -= 1,
            _ => {}
        }
    }
    depth
}

/// A tag longer than this is not one (a stray `<` in prose).
const MAX_TAG_BYTES: usize = 4096;

/// `text` with the MDX markup of its body (from `body_offset`, after front
/// matter) blanked.
pub fn clean(text: &str, body_offset: usize) -> Cleaned {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut labels = Vec::new();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .filter(|&s| s <= text.len())
        .collect();
    let code = code_lines(text, &starts);
    let line_of = |pos: usize| starts.partition_point(|&s| s <= pos) - 1;
    let line_end = |line: usize| starts.get(line + 1).copied().unwrap_or(text.len());
    let mut esm = false;
    let mut depth = 0i64;
    let mut pos = body_offset.min(text.len());
    while pos < text.len() {
        let line = line_of(pos);
        if code[line] {
            esm = false;
            pos = line_end(line);
            continue;
        }
        if pos == starts[line] {
            let body = text[pos..line_end(line)].trim_end_matches(['\n', '\r']);
            if esm || starts_esm(body) {
                // The block ends at a blank line once its brackets are
                // closed: an object literal may hold blank lines.
                depth += bracket_balance(body);
                esm = !body.trim().is_empty() || depth > 0;
                if esm {
                    blank(&mut out, pos, line_end(line));
                } else {
                    depth = 0;
                }
                pos = line_end(line);
                continue;
            }
            let indent = body.len() - body.trim_start().len();
            if let Some((len, label)) = tag_run(&text[pos + indent..]) {
                let end = pos + indent + len;
                // Not into a fence: a tag is not closed by code.
                if (line..=line_of(end.saturating_sub(1).max(pos))).all(|l| !code[l]) {
                    blank(&mut out, pos, end);
                    // At the tag's indent, so a list item it sits in goes on.
                    let at = pos + indent;
                    if let Some(label) = label
                        && at + PLACEHOLDER.len() <= end
                    {
                        out[at..at + PLACEHOLDER.len()].copy_from_slice(PLACEHOLDER);
                        labels.push(ShortcodeLine {
                            line: line + 1,
                            label: Some(label),
                        });
                    }
                    pos = end;
                    continue;
                }
            }
        }
        // `{/* … */}` comments from here to the end of the line.
        let end = line_end(line);
        match comment_in(&text[pos..end]) {
            Some(at) => {
                let start = pos + at;
                let close = text[start..]
                    .find("*/}")
                    .map_or(text.len(), |i| start + i + 3);
                blank(&mut out, start, close);
                pos = close;
            }
            None => pos = end,
        }
    }
    // Only whole ASCII runs were replaced by spaces, and line ends kept.
    let text = String::from_utf8(out).unwrap_or_else(|_| text.to_string());
    Cleaned { text, labels }
}

/// Spaces in place of `out[from..to]`, line ends kept.
fn blank(out: &mut [u8], from: usize, to: usize) {
    for b in &mut out[from..to] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
}

/// For each line, whether it belongs to a code fence (its fence lines
/// included). Fences may be indented any amount, as inside a component.
fn code_lines(text: &str, starts: &[usize]) -> Vec<bool> {
    let mut code = vec![false; starts.len() + 1];
    let mut open: Option<Fence> = None;
    for (i, line) in text.split('\n').enumerate() {
        match open {
            Some(fence) => {
                code[i] = true;
                if fence.closed_by(line) {
                    open = None;
                }
            }
            None => {
                open = Fence::opened_by(line);
                code[i] = open.is_some();
            }
        }
    }
    code
}

/// Whether a line starts an ESM block: `import` or `export` at the margin,
/// followed by what only JavaScript puts there.
fn starts_esm(line: &str) -> bool {
    if let Some(rest) = line.strip_prefix("import") {
        if !rest.starts_with([' ', '{', '"', '\'']) {
            return false;
        }
        let rest = rest.trim_start();
        return rest.starts_with(['{', '*', '"', '\''])
            || rest.contains(" from ")
            || rest.ends_with(" from");
    }
    if let Some(rest) = line.strip_prefix("export ") {
        let word = rest
            .trim_start()
            .split([' ', '(', '{'])
            .next()
            .unwrap_or("");
        return rest.trim_start().starts_with(['{', '*'])
            || [
                "const",
                "let",
                "var",
                "function",
                "default",
                "class",
                "async",
                "type",
                "interface",
            ]
            .contains(&word);
    }
    false
}

/// Where `{/*` starts in `s`, outside a code span.
fn comment_in(s: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find("{/*") {
        let at = from + i;
        if s[..at].matches('`').count().is_multiple_of(2) {
            return Some(at);
        }
        from = at + 3;
    }
    None
}

/// When `s` starts with one or more component tags and nothing else up to a
/// line end: the length through that line end, and the `label` or `title`
/// of the last opening tag that has one.
fn tag_run(s: &str) -> Option<(usize, Option<String>)> {
    let bytes = s.as_bytes();
    let mut i = 0;
    let mut label = None;
    let mut tags = 0;
    loop {
        while i < bytes.len() && (bytes[i] == b' ' || bytes[i] == b'\t') {
            i += 1;
        }
        match bytes.get(i) {
            None => break,
            Some(b'\n') => {
                i += 1;
                break;
            }
            Some(b'\r') if bytes.get(i + 1) == Some(&b'\n') => {
                i += 2;
                break;
            }
            Some(b'<') => {
                let (len, found) = tag(&s[i..])?;
                if found.is_some() {
                    label = found;
                }
                i += len;
                tags += 1;
            }
            Some(_) => return None,
        }
    }
    (tags > 0).then_some((i, label))
}

/// One component tag at the start of `s` (`<Name …>`, `</Name>`, `<Name
/// />`, a fragment `<>` / `</>`): its length and its `label` or `title`.
fn tag(s: &str) -> Option<(usize, Option<String>)> {
    let bytes = s.as_bytes();
    let mut i = 1;
    let closing = bytes.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    let name_start = i;
    while i < bytes.len()
        && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'.' | b'_' | b'-' | b':'))
    {
        i += 1;
    }
    let name = &s[name_start..i];
    // Components start with a capital (`<Tabs>`); `<div>` is HTML.
    if !name.is_empty() && !name.as_bytes()[0].is_ascii_uppercase() {
        return None;
    }
    let mut label = None;
    loop {
        if i >= bytes.len().min(MAX_TAG_BYTES) {
            return None;
        }
        match bytes[i] {
            b'>' => return Some((i + 1, label.filter(|_| !closing))),
            b'/' if bytes.get(i + 1) == Some(&b'>') => {
                return Some((i + 2, label.filter(|_| !closing)));
            }
            b if b.is_ascii_whitespace() => i += 1,
            b'{' => i += braces(&s[i..])?,
            _ if name.is_empty() || closing => return None,
            _ => {
                let key_start = i;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(bytes[i], b'=' | b'>' | b'/' | b'{' | b'"' | b'\'')
                {
                    i += 1;
                }
                if i == key_start {
                    return None;
                }
                let key = &s[key_start..i];
                if bytes.get(i) != Some(&b'=') {
                    continue;
                }
                i += 1;
                match bytes.get(i) {
                    Some(&q @ (b'"' | b'\'')) => {
                        let end = s[i + 1..].find(q as char)? + i + 1;
                        let value = &s[i + 1..end];
                        if (key == "label" || key == "title") && !value.trim().is_empty() {
                            label = Some(value.trim().to_string());
                        }
                        i = end + 1;
                    }
                    Some(b'{') => i += braces(&s[i..])?,
                    _ => return None,
                }
            }
        }
    }
}

/// The length of the `{…}` expression at the start of `s`, nested braces
/// and quoted strings inside it skipped.
fn braces(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote = None;
    for (i, c) in s.char_indices().take_while(|&(i, _)| i < MAX_TAG_BYTES) {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cleaned(text: &str) -> String {
        clean(text, 0)
            .text
            .lines()
            .map(str::trim_end)
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn esm_blocks_run_to_the_blank_line() {
        let text = "import Tabs from '@theme/Tabs';\nimport {\n  A,\n} from './a';\n\nexport const meta = {\n  x: 1,\n};\n\n# Title\n\nimport torch in prose stays\n";
        assert_eq!(
            cleaned(text),
            "\n\n\n\n\n\n\n\n\n# Title\n\nimport torch in prose stays"
        );
        assert_eq!(clean(text, 0).text.len(), text.len());
    }

    /// An `export` of an object with a blank line inside (a Next.js page
    /// `config`) runs to its closing brace, as MDX reads the JavaScript
    /// until it is complete.
    #[test]
    fn an_esm_object_with_a_blank_line_inside_is_hidden_whole() {
        let text = "export const config = {\n  runtime: 'edge',\n\n  region: 'us-{east}',\n};\n\n# Title\n";
        assert_eq!(cleaned(text), "\n\n\n\n\n\n# Title");
    }

    /// A labelled tab inside a list item keeps its placeholder at the tag's
    /// indent, so the item's text below stays in the item.
    #[test]
    fn a_labelled_tab_in_a_list_item_keeps_the_items_indent() {
        let text = "1. Step one:\n\n   <Tabs>\n   <TabItem value=\"x\" label=\"Linux\">\n\n   Run apt install foo.\n\n   </TabItem>\n   </Tabs>\n";
        let c = clean(text, 0);
        let lines: Vec<&str> = c.text.lines().map(str::trim_end).collect();
        assert_eq!(lines[3], "   tab");
        assert_eq!(lines[5], "   Run apt install foo.");
    }

    #[test]
    fn component_tag_lines_are_dropped_and_labels_kept() {
        let text = "<Tabs groupId=\"os\" values={[{label: 'a', value: 'b'}]}>\n  <TabItem value=\"pip\" label=\"pip\">\n\nRun it.\n\n  </TabItem>\n</Tabs>\n<Note />\n<TabItem\n  value=\"conda\"\n  label=\"Conda\"\n>\n<div>\nSee <Foo> here\n";
        let c = clean(text, 0);
        assert_eq!(
            c.text.lines().map(str::trim_end).collect::<Vec<_>>(),
            [
                "",
                "  tab",
                "",
                "Run it.",
                "",
                "",
                "",
                "",
                "tab",
                "",
                "",
                "",
                "<div>",
                "See <Foo> here"
            ]
        );
        let labels: Vec<_> = c
            .labels
            .iter()
            .map(|l| (l.line, l.label.clone().unwrap()))
            .collect();
        assert_eq!(labels, [(2, "pip".to_string()), (9, "Conda".to_string())]);
    }

    #[test]
    fn comments_are_hidden_but_code_is_never_touched() {
        let text = "a {/* note */} b\n{/* one\ntwo */}\n```jsx\n<Tabs>\n{/* kept */}\nimport x from 'y'\n```\n`{/* kept */}` c\n";
        assert_eq!(
            cleaned(text),
            "a              b\n\n\n```jsx\n<Tabs>\n{/* kept */}\nimport x from 'y'\n```\n`{/* kept */}` c"
        );
    }

    #[test]
    fn front_matter_is_left_alone() {
        let text = "---\ntitle: x\n<Tabs>\n---\n<Tabs>\n";
        let body = text.rfind("<Tabs>").unwrap();
        assert_eq!(
            clean(text, body).text,
            "---\ntitle: x\n<Tabs>\n---\n      \n"
        );
    }
}
