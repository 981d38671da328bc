//! HTML anchor tags, `<a name="attest"></a>` and `<a id="attest"></a>`: the
//! anchor scheme of docker's CLI reference (cli-docs-tool) and many
//! READMEs. On GitHub and docs.docker.com such a tag makes `#attest` a link
//! target beside the heading's own anchor, so lore reads it as one (see
//! `Section::aliases`). Only the simple form counts: an `<a>` opening tag
//! with a quoted or bare `name` or `id`; it reads no other HTML.

/// The anchors an HTML fragment's `<a name=…>` / `<a id=…>` tags declare,
/// in the order written (`name` before `id` within one tag).
pub fn anchors(html: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = find_open_a(rest) {
        let tag = &rest[at..];
        let end = tag.find('>').unwrap_or(tag.len());
        for (key, value) in attributes(&tag[2..end]) {
            if (key.eq_ignore_ascii_case("name") || key.eq_ignore_ascii_case("id"))
                && !value.is_empty()
                && !found.iter().any(|f| f == value)
            {
                found.push(value.to_string());
            }
        }
        rest = &tag[end..];
    }
    found
}

/// Whether `html` (one inline HTML event) is an anchor tag, opening
/// (`<a name="x">`, `<a id="x" />`) and so nothing a reader should see.
pub fn is_anchor_tag(html: &str) -> bool {
    let html = html.trim();
    find_open_a(html) == Some(0) && html.ends_with('>') && !anchors(html).is_empty()
}

/// Where the next `<a` opening tag starts (`<a` then a space or the end).
fn find_open_a(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(i) = text[from..].find('<') {
        let at = from + i;
        if bytes
            .get(at + 1)
            .is_some_and(|b| b.eq_ignore_ascii_case(&b'a'))
            && bytes
                .get(at + 2)
                .is_some_and(|b| b.is_ascii_whitespace() || *b == b'/' || *b == b'>')
        {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// `key="value"`, `key='value'` and `key=value` pairs of a tag's inside.
fn attributes(inside: &str) -> Vec<(&str, &str)> {
    let mut pairs = Vec::new();
    let mut rest = inside.trim_start();
    while !rest.is_empty() {
        let key_end = rest
            .find(|c: char| c == '=' || c.is_whitespace() || c == '/')
            .unwrap_or(rest.len());
        let key = &rest[..key_end];
        rest = rest[key_end..].trim_start();
        let Some(after) = rest.strip_prefix('=') else {
            // A bare attribute, or a `/` of `<a … />`.
            rest = rest.get(1..).unwrap_or("").trim_start();
            continue;
        };
        let after = after.trim_start();
        let (value, tail) = match after.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let body = &after[1..];
                let close = body.find(q).unwrap_or(body.len());
                (&body[..close], body.get(close + 1..).unwrap_or(""))
            }
            _ => {
                let end = after
                    .find(|c: char| c.is_whitespace() || c == '/')
                    .unwrap_or(after.len());
                (&after[..end], &after[end..])
            }
        };
        if !key.is_empty() {
            pairs.push((key, value.trim()));
        }
        rest = tail.trim_start();
    }
    pairs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_and_id_in_any_quoting() {
        assert_eq!(anchors(r#"<a name="attest">"#), ["attest"]);
        assert_eq!(anchors("<a id='why'></a>"), ["why"]);
        assert_eq!(anchors("<A NAME=bare>"), ["bare"]);
        assert_eq!(anchors(r#"<a name="quiet" />"#), ["quiet"]);
        assert_eq!(anchors(r#"<a class="x" name="n" id="i"></a>"#), ["n", "i"]);
        assert_eq!(
            anchors(r#"<a name="old"><!-- kept for deep links --></a>"#),
            ["old"]
        );
        assert!(anchors(r##"<a href="#x">x</a>"##).is_empty());
        assert!(anchors(r#"<abbr id="x">"#).is_empty());
        assert!(anchors(r#"<a name="">"#).is_empty());
        assert!(anchors("<a name=\"unclosed").len() == 1);
    }

    #[test]
    fn only_anchor_tags_are_anchor_tags() {
        assert!(is_anchor_tag(r#"<a name="attest">"#));
        assert!(is_anchor_tag(r#" <a id="x"/> "#));
        assert!(!is_anchor_tag("</a>"));
        assert!(!is_anchor_tag(r#"<a href="x">"#));
        assert!(!is_anchor_tag("<br>"));
    }
}
