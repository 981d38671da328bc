//! Hugo shortcodes on lines of their own (`{{< tabs >}}`, `{{< tab
//! name="Linux" >}}`, `{{% include "x.md" %}}`, `{{< /tabs >}}`): the
//! markup of Hugo doc sets (docs.docker.com and most Hugo sites), which
//! Hugo replaces when it builds the site. To Markdown they are text, so a
//! run of them read as one paragraph of prose. Lore has no Hugo to run them:
//! such a line is not prose, and a tab's name is kept as a small label so
//! the reader still sees which tab a block belongs to. A shortcode inside a
//! sentence stays as written, and code blocks are never looked at.

use super::CodeBlock;

/// A line holding only shortcodes (and spaces).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShortcodeLine {
    /// The file line (1-based).
    pub line: usize,
    /// The name of the tab the line opens (`{{< tab name="Linux" >}}`),
    /// shown in its place.
    pub label: Option<String>,
}

/// The shortcode lines of a file, in order: lines from `first_line` on (the
/// body, after front matter) outside `code_blocks`.
pub fn find(text: &str, first_line: usize, code_blocks: &[CodeBlock]) -> Vec<ShortcodeLine> {
    if !text.contains("{{<") && !text.contains("{{%") {
        return Vec::new();
    }
    let mut code: Vec<(usize, usize)> = code_blocks.iter().map(|b| (b.line, b.end_line)).collect();
    code.sort_unstable();
    let in_code = |n: usize| {
        let i = code.partition_point(|&(start, _)| start <= n);
        i > 0 && code[i - 1].1 >= n
    };
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .skip(first_line.saturating_sub(1))
        .filter(|&(n, _)| !in_code(n))
        .filter_map(|(line, text)| only_shortcodes(text).map(|label| ShortcodeLine { line, label }))
        .collect()
}

/// `Some` when `line` is one or more shortcodes and nothing else, with the
/// label of the last tab it opens.
fn only_shortcodes(line: &str) -> Option<Option<String>> {
    let mut rest = line.trim();
    if rest.is_empty() {
        return None;
    }
    let mut label = None;
    while !rest.is_empty() {
        let close = if rest.starts_with("{{<") {
            ">}}"
        } else if rest.starts_with("{{%") {
            "%}}"
        } else {
            return None;
        };
        let inner = &rest[3..];
        // `{{</* x */>}}` is how a Hugo page shows a shortcode as text.
        if inner.trim_start().starts_with("/*") {
            return None;
        }
        let end = inner.find(close)?;
        if let Some(name) = tab_label(&inner[..end]) {
            label = Some(name);
        }
        rest = inner[end + close.len()..].trim_start();
    }
    Some(label)
}

/// The name a `tab` shortcode gives its tab: its `name`, `title` or
/// `header` argument (Docker's docs, Docsy and others), or its first
/// positional one (`{{% tab "Linux" %}}`).
fn tab_label(inner: &str) -> Option<String> {
    let mut args = arguments(inner.trim());
    let (_, name) = args.next()?;
    if !name.eq_ignore_ascii_case("tab") {
        return None;
    }
    let mut positional = None;
    for (key, value) in args {
        match key {
            Some(k) if ["name", "title", "header"].contains(&k) => {
                return Some(value.to_string()).filter(|v| !v.trim().is_empty());
            }
            None if positional.is_none() => positional = Some(value),
            _ => {}
        }
    }
    positional
        .filter(|v| !v.trim().is_empty())
        .map(str::to_string)
}

/// A shortcode's words: `name`, `key="value"`, `key=value`, `"value"`.
fn arguments(mut s: &str) -> impl Iterator<Item = (Option<&str>, &str)> {
    std::iter::from_fn(move || {
        s = s.trim_start();
        if s.is_empty() {
            return None;
        }
        let key_end = s
            .find(|c: char| c == '=' || c.is_whitespace() || c == '"' || c == '`')
            .unwrap_or(s.len());
        let key = (s[key_end..].starts_with('=')).then(|| &s[..key_end]);
        if key.is_some() {
            s = &s[key_end + 1..];
        }
        let value = match s.chars().next() {
            Some(q @ ('"' | '`')) => {
                let body = &s[1..];
                let end = body.find(q).unwrap_or(body.len());
                s = body.get(end + 1..).unwrap_or("");
                &body[..end]
            }
            _ => {
                let end = s.find(char::is_whitespace).unwrap_or(s.len());
                let value = &s[..end];
                s = &s[end..];
                value
            }
        };
        Some((key, value))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_of_only_shortcodes_and_tab_names() {
        assert_eq!(only_shortcodes("{{< tabs >}}"), Some(None));
        assert_eq!(
            only_shortcodes("  {{< tab name=\"Linux\" >}}"),
            Some(Some("Linux".into()))
        );
        assert_eq!(
            only_shortcodes("{{< /tab >}} {{< tab name=\"Windows (WSL)\" >}}"),
            Some(Some("Windows (WSL)".into()))
        );
        assert_eq!(
            only_shortcodes("{{% tab \"macOS\" %}}"),
            Some(Some("macOS".into()))
        );
        assert_eq!(
            only_shortcodes("{{< tab header=`Debian` >}}"),
            Some(Some("Debian".into()))
        );
        assert_eq!(
            only_shortcodes("{{% include \"gpu-note.md\" %}}"),
            Some(None)
        );
        assert_eq!(only_shortcodes("{{< card title=\"x\" >}}"), Some(None));
        // Prose around a shortcode, an escaped one, an unclosed one.
        assert_eq!(only_shortcodes("See {{< link \"x\" >}} here"), None);
        assert_eq!(only_shortcodes("{{< tabs >}} then text"), None);
        assert_eq!(only_shortcodes("{{</* tabs */>}}"), None);
        assert_eq!(only_shortcodes("{{< tabs"), None);
        assert_eq!(only_shortcodes(""), None);
    }
}
