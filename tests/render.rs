//! The Markdown renderer: the showcase document as text at three widths and
//! as styles, the maps the reader relies on, and properties over random input.

mod common;

use std::fmt::Write as _;

use lore::config::ThemeName;
use lore::corpus::{Corpus, Document, LinkTarget};
use lore::markdown::{
    Highlighter, RenderCache, RenderOptions, Rendered, display_width, render, to_ansi,
};
use lore::sources::{Origin, SourceFile, SourceSet};
use lore::theme::Theme;
use proptest::prelude::*;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

fn document(path: &str, text: &str) -> Document {
    Document::parse(SourceFile {
        rel: path.to_string(),
        origin: Origin::Builtin,
        text: text.to_string(),
        stamp: None,
    })
}

fn showcase() -> Document {
    let text = std::fs::read_to_string(common::fixture("render/showcase.md")).unwrap();
    document("notes/showcase.md", &text)
}

fn plain(doc: &Document, width: u16) -> Rendered {
    render(
        doc,
        &RenderOptions {
            width,
            theme: &Theme::plain(),
            highlighter: None,
            wrap_code: true,
        },
    )
}

fn coloured(doc: &Document, width: u16) -> Rendered {
    render(
        doc,
        &RenderOptions {
            width,
            theme: &Theme::for_name(ThemeName::Dark),
            highlighter: Some(Highlighter::global()),
            wrap_code: true,
        },
    )
}

fn text_of(line: &Line<'_>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

fn text(rendered: &Rendered) -> String {
    to_ansi(rendered.lines.iter(), false)
}

/// Styles spelled out: `{LightCyan+BOLD:Title}`; unstyled text as is.
fn styles(rendered: &Rendered) -> String {
    let mut out = String::new();
    for line in rendered.lines.iter() {
        for span in &line.spans {
            if span.style == Style::new() {
                out.push_str(&span.content);
            } else {
                let _ = write!(out, "{{{}:{}}}", describe(span.style), span.content);
            }
        }
        out.push('\n');
    }
    out
}

fn describe(style: Style) -> String {
    let colour = |c: Color| match c {
        Color::Indexed(i) => format!("#{i}"),
        other => format!("{other:?}"),
    };
    let mut parts = Vec::new();
    if let Some(fg) = style.fg {
        parts.push(colour(fg));
    }
    if let Some(bg) = style.bg {
        parts.push(format!("on {}", colour(bg)));
    }
    for (flag, name) in [
        (Modifier::BOLD, "BOLD"),
        (Modifier::ITALIC, "ITALIC"),
        (Modifier::UNDERLINED, "UNDERLINED"),
        (Modifier::CROSSED_OUT, "CROSSED_OUT"),
        (Modifier::DIM, "DIM"),
        (Modifier::REVERSED, "REVERSED"),
    ] {
        if style.add_modifier.contains(flag) {
            parts.push(name.to_string());
        }
    }
    parts.join("+")
}

#[test]
fn showcase_text_at_20_columns() {
    insta::assert_snapshot!(text(&plain(&showcase(), 20)));
}

#[test]
fn showcase_text_at_80_columns() {
    insta::assert_snapshot!(text(&plain(&showcase(), 80)));
}

#[test]
fn showcase_text_at_200_columns() {
    insta::assert_snapshot!(text(&plain(&showcase(), 200)));
}

#[test]
fn showcase_styles_dark() {
    insta::assert_snapshot!(styles(&coloured(&showcase(), 80)));
}

#[test]
fn showcase_styles_light() {
    let rendered = render(
        &showcase(),
        &RenderOptions {
            width: 80,
            theme: &Theme::for_name(ThemeName::Light),
            highlighter: Some(Highlighter::global()),
            wrap_code: true,
        },
    );
    insta::assert_snapshot!(styles(&rendered));
}

#[test]
fn colours_never_change_the_text() {
    let doc = showcase();
    for width in [20, 80, 200] {
        assert_eq!(text(&plain(&doc, width)), text(&coloured(&doc, width)));
    }
}

#[test]
fn front_matter_is_never_shown() {
    let all = text(&plain(&showcase(), 80));
    assert!(!all.contains("never shown"));
    assert!(all.starts_with("Showcase: every construct lore renders\n"));
}

#[test]
fn headings_map_to_their_lines_and_anchors() {
    let doc = showcase();
    let rendered = plain(&doc, 80);
    assert_eq!(rendered.headings.len(), doc.sections.len());
    for (heading, section) in rendered.headings.iter().zip(&doc.sections) {
        assert_eq!(heading.anchor, section.anchor);
        assert_eq!(heading.level, section.level);
        assert_eq!(rendered.source_lines[heading.line] as usize, section.line);
        assert!(
            text_of(&rendered.lines.line(heading.line))
                .contains(heading.title.split(' ').next().unwrap()),
            "{heading:?}"
        );
    }
    let anchors: Vec<&str> = rendered.headings.iter().map(|h| h.anchor).collect();
    assert!(anchors.contains(&"custom-id"));
    assert!(anchors.contains(&"lists") && anchors.contains(&"lists-1"));
    let code = rendered.line_for_anchor("code").unwrap();
    assert_eq!(text_of(&rendered.lines.line(code)), "Code");
    assert_eq!(rendered.line_for_anchor("#code"), Some(code));
    assert_eq!(rendered.line_for_anchor("nope"), None);
}

#[test]
fn a_section_range_stops_at_the_next_heading_of_its_level() {
    let doc = showcase();
    let rendered = plain(&doc, 80);
    let range = rendered.section_range("tables");
    let lines: Vec<String> = rendered
        .lines
        .range(range.clone())
        .map(|l| text_of(&l))
        .collect();
    assert_eq!(lines[0], "Tables");
    // Its subsection comes along, the next level-2 heading does not.
    assert!(lines.iter().any(|l| l == "▸ Footnotes and HTML"));
    assert!(!lines.iter().any(|l| l == "Custom anchor"));
    assert_ne!(lines.last().map(String::as_str), Some(""));
    assert_eq!(rendered.section_range("missing"), 0..0);
}

#[test]
fn source_lines_follow_the_file() {
    let doc = showcase();
    let rendered = plain(&doc, 40);
    assert_eq!(rendered.source_lines.len(), rendered.lines.len());
    assert!(rendered.source_lines.windows(2).all(|w| w[0] <= w[1]));
    // Front matter is 4 lines, so the title is on file line 5.
    assert_eq!(rendered.source_lines[0], 5);
    let file_lines: Vec<&str> = doc.text.lines().collect();
    let fence = file_lines.iter().position(|l| *l == "```python").unwrap() + 1;
    let at = rendered.line_for_source_line(fence + 2);
    assert!(text_of(&rendered.lines.line(at)).starts_with("print(torch.cuda.is_available())"));
    // A blank file line lands on the next block; past the end, the last line.
    let blank = file_lines.iter().position(|l| l.is_empty()).unwrap() + 1;
    assert!(rendered.source_lines[rendered.line_for_source_line(blank)] as usize > blank);
    assert_eq!(
        rendered.line_for_source_line(100_000),
        rendered.lines.len() - 1
    );
}

#[test]
fn links_know_their_columns_and_targets() {
    let doc = showcase();
    let rendered = plain(&doc, 80);
    let piece = |text: &str| {
        rendered
            .links
            .iter()
            .find(|l| l.text == text)
            .unwrap_or_else(|| panic!("no link {text}"))
    };
    let cupti = piece("the CUPTI deep dive");
    assert_eq!(
        cupti.target,
        LinkTarget::Internal {
            path: "cuda/20-cupti-deep-dive-arr-coc.md".into(),
            anchor: Some("what-is-cupti".into())
        }
    );
    let tables = piece("tables");
    assert_eq!(
        tables.target,
        LinkTarget::Internal {
            path: "notes/showcase.md".into(),
            anchor: Some("tables".into())
        }
    );
    let line = text_of(&rendered.lines.line(tables.line));
    let shown: String = columns(&line, tables.start_col, tables.end_col);
    assert_eq!(shown, "→tables (#tables)");
    let web = piece("NVIDIA");
    assert!(matches!(web.target, LinkTarget::External(_)));
    assert_eq!(web.dest, "https://developer.nvidia.com/cuda-zone");
    // A bare URL in prose is a link too (GitHub's autolinks), its text the
    // destination.
    let bare = "https://developer.nvidia.com/cuda-toolkit-archive/12.4.1/installers";
    let autolink = piece(bare);
    assert_eq!(autolink.target, LinkTarget::External(bare.into()));
    assert_eq!(autolink.dest, "");
    // A footnote reference is a link to its note, shown as `[label]`.
    let note = piece("source");
    assert_eq!(
        note.target,
        LinkTarget::Internal {
            path: "notes/showcase.md".into(),
            anchor: Some("fn:source".into())
        }
    );
    assert_eq!(note.dest, "");
    let line = text_of(&rendered.lines.line(note.line));
    assert_eq!(columns(&line, note.start_col, note.end_col), "[source]");
    // Every piece's columns hold part of its text or its target.
    for link in &rendered.links {
        let line = text_of(&rendered.lines.line(link.line));
        let shown = columns(&line, link.start_col, link.end_col);
        let whole = format!("→{} ({})", link.text, link.dest);
        assert!(
            whole.contains(shown.trim())
                || format!("{} ({})", link.text, link.dest).contains(shown.trim())
                || shown == format!("[{}]", link.text),
            "{shown:?} is not part of {whole:?}"
        );
        assert_eq!(
            rendered.link_at(link.line, link.start_col).map(|l| l.index),
            Some(link.index)
        );
    }
    // Link indexes are positions in Document::links.
    for link in &rendered.links {
        assert_eq!(doc.links[link.index].text, link.text);
    }
}

/// The reader takes link `i` of a rendering to be `Document::links[i]`:
/// with every kind of link in one paragraph, footnote references among
/// them, the two lists stay in step, and each reference leads to the line
/// showing its note.
#[test]
fn footnote_references_are_links_in_step_with_the_document() {
    let doc = document(
        "notes/feet.md",
        "# Feet\n\nSee [guide](other.md#x)[^a], then https://example.org/a[^B] and \
         <https://example.org/b>, a [ref][r][^c] and [^none].\n\n\
         ## Notes\n\n[^a]: First note.\n[^b]: Second note, with [a link](#feet).\n\n\
         [^c]:\n    - a list in a note\n\n[r]: https://example.org/r\n",
    );
    let rendered = plain(&doc, 60);
    let mut indexes: Vec<usize> = rendered.links.iter().map(|l| l.index).collect();
    indexes.dedup();
    assert_eq!(indexes, (0..doc.links.len()).collect::<Vec<_>>());
    let kinds: Vec<(&str, Option<&str>)> = rendered
        .links
        .iter()
        .map(|l| {
            let anchor = match &l.target {
                LinkTarget::Internal { anchor, .. } => anchor.as_deref(),
                _ => None,
            };
            (l.text.as_str(), anchor)
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("guide", Some("x")),
            ("a", Some("fn:a")),
            ("https://example.org/a", None),
            ("B", Some("fn:b")),
            ("https://example.org/b", None),
            ("ref", None),
            ("c", Some("fn:c")),
            ("a link", Some("feet")),
        ]
    );
    for link in &rendered.links {
        let parsed = &doc.links[link.index];
        assert_eq!((&parsed.text, &parsed.target), (&link.text, &link.target));
    }
    // `[^none]` has no note: shown as written, not a link.
    assert!(text(&rendered).contains("[^none]"));
    for (label, first) in [
        ("a", "[a] First note."),
        ("b", "[b] Second note"),
        ("c", "[c]"),
    ] {
        let line = rendered
            .line_for_anchor(&format!("fn:{label}"))
            .unwrap_or_else(|| panic!("no note {label}"));
        let shown = text_of(&rendered.lines.line(line));
        assert!(
            shown.starts_with(first),
            "note {label} at {line}: {shown:?}"
        );
    }
    // Headings come first, and their anchors are untouched.
    assert_eq!(
        rendered.line_for_anchor("notes"),
        rendered
            .headings
            .iter()
            .find(|h| h.anchor == "notes")
            .map(|h| h.line)
    );
    assert_eq!(rendered.line_for_anchor("fn:none"), None);
}

/// A link that wraps onto thousands of lines (a 100 KB URL in a hostile
/// file) got one piece per line, each a copy of its text and target: 2 GB
/// and 20 s for `lore show` at width 10. Its pieces stop at
/// `MAX_LINK_PIECES` lines; the text is still all shown.
#[test]
fn a_huge_link_is_shown_whole_but_mapped_on_its_first_lines_only() {
    let url = format!("https://example.org/{}", "b".repeat(100_000));
    let doc = document(
        "long.md",
        &format!("# Long\n\n<{url}>\n\n[x]({url})\n\n[short](#long)\n"),
    );
    let rendered = plain(&doc, 10);
    assert!(rendered.lines.len() > 20_000, "{}", rendered.lines.len());
    let shown: String = rendered.lines.iter().map(|l| text_of(&l)).collect();
    assert_eq!(shown.matches('b').count(), 2 * 100_000);
    for index in 0..2 {
        let pieces = rendered.links.iter().filter(|l| l.index == index).count();
        assert_eq!(pieces, lore::markdown::MAX_LINK_PIECES, "link {index}");
    }
    // Links after it are mapped as usual.
    let short = rendered.links.iter().find(|l| l.index == 2).unwrap();
    assert_eq!(short.text, "short");
}

/// The text between two display columns.
fn columns(line: &str, start: usize, end: usize) -> String {
    let mut col = 0;
    let mut out = String::new();
    for ch in line.chars() {
        let w = display_width(ch.encode_utf8(&mut [0; 4]));
        if col >= start && col < end {
            out.push(ch);
        }
        col += w;
    }
    out
}

#[test]
fn code_blocks_keep_language_lines_and_raw_text() {
    let doc = showcase();
    let rendered = plain(&doc, 80);
    let langs: Vec<Option<&str>> = rendered
        .code_blocks
        .iter()
        .map(|c| c.lang.as_deref())
        .collect();
    assert_eq!(
        langs,
        vec![
            Some("bash"),
            Some("Dockerfile"),
            Some("python"),
            Some("cu"),
            Some("cmake"),
            Some("no-such-language"),
            None,
            None
        ]
    );
    let bash = &rendered.code_blocks[0];
    assert!(
        bash.raw.contains("\t# a tab"),
        "raw keeps the tab for copying"
    );
    assert!(text_of(&rendered.lines.line(bash.first_line)).starts_with("┌─ bash "));
    assert!(text_of(&rendered.lines.line(bash.last_line)).starts_with("└─"));
    let body: Vec<String> = rendered
        .lines
        .range(bash.first_line + 1..bash.last_line)
        .map(|l| text_of(&l))
        .collect();
    assert_eq!(
        body[0],
        "export CUDA_HOME=/usr/local/cuda    # a tab before this comment"
    );
    // The long nvcc line wraps with a visible mark, never silently.
    assert!(body.len() > 2 && body[2].starts_with("↪ "), "{body:?}");
}

#[test]
fn code_is_highlighted_only_when_asked() {
    let doc = showcase();
    let is_coloured = |r: &Rendered| {
        let c = &r.code_blocks[2];
        r.lines
            .range(c.first_line + 1..c.last_line)
            .any(|l| l.spans.iter().any(|s| s.style.fg.is_some()))
    };
    assert!(is_coloured(&coloured(&doc, 80)));
    let no_highlighter = render(
        &doc,
        &RenderOptions {
            width: 80,
            theme: &Theme::for_name(ThemeName::Dark),
            highlighter: None,
            wrap_code: true,
        },
    );
    assert!(!is_coloured(&no_highlighter));
}

#[test]
fn task_lists_show_their_state() {
    let rendered = plain(&showcase(), 80);
    let all = text(&rendered);
    assert!(all.contains("\n[ ] open task\n"));
    assert!(all.contains("\n[✓] finished task\n"));
    assert!(all.contains("\n[✓] finished the corpus' way\n"));
}

#[test]
fn the_cache_reuses_a_rendering_until_something_changes() {
    let doc = showcase();
    let dark = Theme::for_name(ThemeName::Dark);
    let mut cache = RenderCache::new(2);
    let options = |width| RenderOptions {
        width,
        theme: &dark,
        highlighter: None,
        wrap_code: true,
    };
    let first = cache.get_or_render(&doc, &options(80));
    let again = cache.get_or_render(&doc, &options(80));
    assert!(std::sync::Arc::ptr_eq(&first, &again));
    let narrow = cache.get_or_render(&doc, &options(40));
    assert!(!std::sync::Arc::ptr_eq(&first, &narrow));
    cache.get_or_render(&doc, &options(80)); // 80 is now the most recent
    let highlighted = RenderOptions {
        width: 80,
        theme: &dark,
        highlighter: Some(Highlighter::global()),
        wrap_code: true,
    };
    assert!(!cache.contains(&doc, &highlighted));
    cache.get_or_render(&doc, &highlighted);
    assert_eq!(cache.len(), 2);
    assert!(
        !cache.contains(&doc, &options(40)),
        "least recently used went first"
    );
}

/// Everything a file can carry that a terminal would act on.
const HOSTILE: &str = "# Title \x1b[2J with ESC\n\n\
    Text with CSI \x1b[31mred\x1b[0m, OSC 52 \x1b]52;c;ZXZpbA==\x07, OSC 8 \
    \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\, C1 \u{9b}2J and \u{9d}0;x\u{9c}, BEL \x07, \
    DEL \x7f, backspace \x08.\n\n\
    `code \x1b[1m`\n\n\
    ```bash\necho \"\x1b]52;c;ZXZpbA==\x07\"\n\tindented\n```\n\n\
    | a \x1b[5m | b |\n|---|---|\n| \u{90}x | y |\n\n\
    [link \x1b[7m](https://x.org/\x1b[8m) ![alt \x1b[3m](i.png)\n\n\
    <div>\x1b]0;title\x07</div>\n\n\
    - item \x1b[4m\n\n\
    > quote \x1b[9m\n";

#[test]
fn control_characters_never_reach_the_terminal() {
    let doc = document("evil.md", HOSTILE);
    for rendered in [plain(&doc, 80), coloured(&doc, 80), coloured(&doc, 20)] {
        for line in rendered.lines.iter() {
            for span in &line.spans {
                assert!(
                    !span.content.chars().any(lore::text::needs_escape),
                    "control character in {span:?}"
                );
            }
        }
        let plain_text = to_ansi(rendered.lines.iter(), false);
        assert!(!plain_text.contains('\x1b'));
        let coloured_text = to_ansi(rendered.lines.iter(), true);
        assert!(only_sgr_escapes(&coloured_text), "{coloured_text:?}");
        assert!(
            plain_text.contains("^[]52;c;ZXZpbA==^G"),
            "OSC 52 shown visibly"
        );
        assert!(plain_text.contains("<U+009B>2J"), "C1 CSI shown visibly");
    }
}

/// True if every ESC in `text` starts an SGR sequence (`ESC [ digits;… m`) and
/// no other control character but newline is present.
fn only_sgr_escapes(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            0x1b => {
                if bytes.get(i + 1) != Some(&b'[') {
                    return false;
                }
                let mut j = i + 2;
                while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                    j += 1;
                }
                if bytes.get(j) != Some(&b'm') {
                    return false;
                }
                i = j + 1;
                continue;
            }
            b'\n' => {}
            b if b < 0x20 || b == 0x7f => return false,
            _ => {}
        }
        i += 1;
    }
    !text.chars().any(|c| ('\u{80}'..='\u{9f}').contains(&c))
}

#[test]
fn windows_line_endings_do_not_show_as_carets() {
    let doc = document(
        "crlf.md",
        "# T\r\n\r\ntext\r\nmore\r\n\r\n<div>\r\nx\r\n</div>\r\n\r\n```bash\r\necho hi\r\n```\r\n\r\n```\r\nplain\r\n```\r\n",
    );
    for rendered in [plain(&doc, 80), coloured(&doc, 80)] {
        let all = text(&rendered);
        assert!(!all.contains("^M"), "{all}");
        assert!(
            all.contains("\ntext more\n") && all.contains("\necho hi\n"),
            "{all}"
        );
    }
}

#[test]
fn every_shipped_document_renders_within_its_width() {
    let corpus = Corpus::load(&SourceSet::builtin_knowledge());
    assert!(!corpus.is_empty());
    for doc in &corpus.documents {
        for width in [20u16, 80] {
            let rendered = coloured(doc, width);
            assert_eq!(rendered.headings.len(), doc.sections.len(), "{}", doc.path);
            for (i, line) in rendered.lines.iter().enumerate() {
                assert!(
                    line.width() <= usize::from(width),
                    "{} line {i} is {} wide at {width}: {:?}",
                    doc.path,
                    line.width(),
                    text_of(&line)
                );
            }
        }
    }
}

/// Markdown-ish text: real syntax, wide characters, long words, controls.
fn markdown() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("# ".to_string()),
        Just("## ".to_string()),
        Just("#### ".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("- ".to_string()),
        Just("  - ".to_string()),
        Just("    - ".to_string()),
        Just("1. ".to_string()),
        Just("123456789. ".to_string()),
        Just("- [ ] ".to_string()),
        Just("- [x] ".to_string()),
        Just("- [✓] ".to_string()),
        Just("> ".to_string()),
        Just("> > > > > > ".to_string()),
        Just("**".to_string()),
        Just("*".to_string()),
        Just("~~".to_string()),
        Just("`".to_string()),
        Just("\n```bash\n".to_string()),
        Just("\n```\n".to_string()),
        Just("\n    ".to_string()),
        Just("---\n".to_string()),
        Just("\n| a | b | c |\n|---|:-:|--:|\n| ".to_string()),
        Just(" | ".to_string()),
        Just("[link](other.md#x)".to_string()),
        Just("[web](https://example.org/a/very/long/path/that/goes/on)".to_string()),
        Just("![alt](i.png)".to_string()),
        Just("[^1]".to_string()),
        Just("\n[^1]: note ".to_string()),
        Just(" https://example.org/p ".to_string()),
        Just("<div>".to_string()),
        Just("<b>".to_string()),
        Just("  \n".to_string()),
        Just("\t".to_string()),
        Just("漢字かな".to_string()),
        Just("🚀🔥".to_string()),
        Just("👩‍🔬".to_string()),
        Just("e\u{301}".to_string()),
        Just("\x1b[31m".to_string()),
        Just("\u{9b}".to_string()),
        Just("supercalifragilisticexpialidocious_and_more".to_string()),
        "[a-z]{1,12}".prop_map(|s| s),
        "[a-z ]{1,40}".prop_map(|s| s),
    ];
    proptest::collection::vec(piece, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn random_markdown_renders_within_the_width(text in markdown(), width in 10u16..=160) {
        let doc = document("random.md", &text);
        let rendered = coloured(&doc, width);
        prop_assert_eq!(rendered.lines.len(), rendered.source_lines.len());
        prop_assert!(rendered.source_lines.windows(2).all(|w| w[0] <= w[1]));
        prop_assert_eq!(rendered.headings.len(), doc.sections.len());
        for line in rendered.lines.iter() {
            // An escape (`<U+200D>`) is never cut in two, so in the narrowest
            // indented columns it alone may pass the width, by less than
            // its own length.
            let text = text_of(&line);
            prop_assert!(
                line.width() <= usize::from(width)
                    || (text.contains("<U+") && line.width() <= usize::from(width) + 10),
                "{} columns at width {}: {:?}", line.width(), width, text
            );
            for span in &line.spans {
                prop_assert!(!span.content.chars().any(lore::text::needs_escape));
            }
        }
        for link in &rendered.links {
            prop_assert!(link.line < rendered.lines.len());
            prop_assert!(link.start_col < link.end_col);
            prop_assert!(link.end_col <= rendered.lines.width(link.line));
            // In step with the document's links; a footnote's lands.
            let parsed = doc.links.get(link.index);
            prop_assert_eq!(parsed.map(|l| &l.target), Some(&link.target));
            if let LinkTarget::Internal { anchor: Some(anchor), .. } = &link.target
                && anchor.starts_with("fn:")
            {
                prop_assert!(rendered.line_for_anchor(anchor).is_some(), "{}", anchor);
            }
        }
        for code in &rendered.code_blocks {
            prop_assert!(code.first_line <= code.last_line && code.last_line < rendered.lines.len());
        }
    }

    #[test]
    fn any_text_never_panics(text in "\\PC{0,400}", width in 0u16..=300) {
        let doc = document("any.md", &text);
        let rendered = plain(&doc, width);
        prop_assert_eq!(rendered.lines.len(), rendered.source_lines.len());
    }
}

/// GitHub alerts are callouts: the kind as a title in its colour, the bar in
/// the same colour, and no `[!NOTE]` marker left in the text.
#[test]
fn github_alerts_are_callouts_with_their_kind_as_title() {
    let doc = document(
        "notes/alerts.md",
        "# Alerts\n\n> [!NOTE]\n> Read this first.\n\n> [!CAUTION]\n> Do not run it as root.\n\n> A plain quote.\n",
    );
    let rendered = plain(&doc, 60);
    let all = text(&rendered);
    assert!(all.contains("│ Note\n│ Read this first.\n"), "{all}");
    assert!(
        all.contains("│ Caution\n│ Do not run it as root.\n"),
        "{all}"
    );
    assert!(all.contains("│ A plain quote.\n"), "{all}");
    assert!(!all.contains("[!"), "{all}");
    let coloured = styles(&coloured(&doc, 60));
    assert!(coloured.contains("{LightBlue+BOLD:Note}"), "{coloured}");
    assert!(coloured.contains("{LightRed+BOLD:Caution}"), "{coloured}");
}

/// HTML comments are hidden, as GitHub, Hugo and every Markdown viewer hide
/// them: the `<!---MARKER_GEN_START-->` markers of every docker/cli
/// reference page, a licence header over several lines, a note to editors
/// inside a sentence or beside other HTML. A section's questions block
/// (`<!-- questions`) stays hidden too, and a comment inside code is code.
#[test]
fn html_comments_are_hidden_like_docker_clis_generator_markers() {
    let doc = document(
        "reference/commandline/container_run.md",
        "# docker container run\n\n<!---MARKER_GEN_START-->\nCreate and run a new container from an image\n\n<!--\n  Licensed under the Apache License.\n-->\n\n## Options\n\n<!-- questions\n- How do I run a container from an image?\n- What does docker container run do?\n-->\n\nRun it <!-- TODO: say more --> now, <!-- a note\nover two lines --> then.\n\n<div>kept <!-- hidden --></div>\n\n```html\n<!-- shown: it is code -->\n```\n\n<!---MARKER_GEN_END-->\n",
    );
    let rendered = plain(&doc, 60);
    let all = text(&rendered);
    assert_eq!(
        all,
        "docker container run\n════════════════════\n\nCreate and run a new container from an image\n\nOptions\n───────\n\nRun it now, then.\n\n<div>kept </div>\n\n┌─ html ──────────────────\n<!-- shown: it is code -->\n└─────────────────────────\n"
    );
    // Every screen line still knows its file line.
    let line_of = |needle: &str| {
        let i = rendered
            .lines
            .iter()
            .position(|l| text_of(&l).contains(needle))
            .unwrap();
        rendered.source_lines[i]
    };
    assert_eq!(line_of("Create and run"), 4);
    assert_eq!(line_of("Run it"), 17);
    assert_eq!(line_of("<div>"), 20);
}

/// Hugo pages (docs.docker.com) put tabs and includes on lines of their
/// own: `{{< tabs >}}`, `{{< tab name="Linux" >}}`, `{{< /tab >}}`,
/// `{{% include "x.md" %}}`. Such a line is not prose; a tab's name stays
/// as a label. A shortcode inside a sentence stays as written, and one in a
/// code block is code.
#[test]
fn hugo_shortcode_lines_are_not_prose_and_tabs_keep_their_names() {
    let doc = document(
        "manuals/engine/containers/gpu.md",
        "---\ntitle: GPU access\n---\n\n## Access an NVIDIA GPU\n\nInstall the drivers first.\n{{% include \"gpu-note.md\" %}}\nThen pick your system.\n\n{{< tabs >}}\n{{< tab name=\"Linux\" >}}\n\n```console\n$ docker run --gpus all ubuntu nvidia-smi\n{{< not-a-shortcode >}}\n```\n\n{{< /tab >}}\n{{< tab name=\"Windows\" >}}\nUse WSL 2 with `--gpus all`.\n{{< /tab >}}\n{{< /tabs >}}\n\nSee {{< link \"gpu\" >}} for more.\n\n- In a list:\n  {{< tabs >}}\n  {{< tab name=\"macOS\" >}}\n  Docker Desktop.\n  {{< /tab >}}{{< /tabs >}}\n",
    );
    let rendered = plain(&doc, 60);
    assert_eq!(
        text(&rendered),
        "Access an NVIDIA GPU\n────────────────────\n\nInstall the drivers first.\nThen pick your system.\n\nLinux:\n\n┌─ console ──────────────────────────────\n$ docker run --gpus all ubuntu nvidia-smi\n{{< not-a-shortcode >}}\n└────────────────────────────────────────\n\nWindows:\nUse WSL 2 with --gpus all.\n\nSee {{< link \"gpu\" >}} for more.\n\n• In a list:\n  macOS:\n  Docker Desktop.\n"
    );
    let labels = styles(&coloured(&doc, 60));
    assert!(labels.contains(":Linux:}"), "{labels}");
}

/// GFM tables put two lines in one cell with `<br>` (the docker/cli
/// reference's Options tables): a line break in the cell, not the tag.
#[test]
fn br_in_a_gfm_table_cell_breaks_the_line_in_the_cell() {
    let doc = document(
        "reference/commandline/container_run.md",
        "# Options\n\n| Name | Description |\n|:-----|:------------|\n| `--cgroupns` | Cgroup namespace to use (host\\|private)<br>'host': Run in the host's namespace<br/>'private': Its own namespace |\n| `-d` | Run in the background<BR /> and print the ID |\n",
    );
    let all = text(&plain(&doc, 100));
    assert!(!all.to_lowercase().contains("<br"), "{all}");
    assert!(
        all.contains(
            "--cgroupns │ Cgroup namespace to use (host|private)\n           │ 'host': Run in the host's namespace\n           │ 'private': Its own namespace\n"
        ),
        "{all}"
    );
    // Too narrow for a grid: the stacked rows keep the breaks.
    let narrow = text(&plain(&doc, 16));
    assert!(!narrow.to_lowercase().contains("<br"), "{narrow}");
    assert!(narrow.contains("\n'host': Run in\n"), "{narrow}");
}
