//! A paragraph without its Hugo shortcode lines (see `corpus::shortcodes`):
//! the parser reads `{{< tabs >}}` and `{{< tab name="Linux" >}}` on two
//! lines as one paragraph of text, and a shortcode line between two lines
//! of prose as part of the sentence. Each such line goes; a tab's name
//! stays as a label line (`Linux:`), and prose on either side of a dropped
//! line keeps to its own lines rather than running together.

use ratatui::style::Style;

use super::wrap::{Frag, Inline};
use crate::corpus::ShortcodeLine;
use crate::text::sanitize;

/// `inlines` with the text of `lines` (sorted by line) taken out, tab
/// labels in `style`.
pub fn without_shortcode_lines(
    inlines: Vec<Inline>,
    lines: &[ShortcodeLine],
    style: Style,
) -> Vec<Inline> {
    let find = |n: usize| {
        lines
            .binary_search_by_key(&n, |l| l.line)
            .ok()
            .map(|i| &lines[i])
    };
    let on_a_line = |inline: &Inline| match inline {
        Inline::Text(frag) => find(frag.source).is_some(),
        Inline::Break => false,
    };
    if lines.is_empty() || !inlines.iter().any(on_a_line) {
        return inlines;
    }
    let mut out: Vec<Inline> = Vec::with_capacity(inlines.len());
    // The shortcode line whose text is being dropped.
    let mut dropping = None;
    for inline in inlines {
        let Inline::Text(frag) = &inline else {
            dropping = None;
            out.push(inline);
            continue;
        };
        let Some(shortcode) = find(frag.source) else {
            dropping = None;
            out.push(inline);
            continue;
        };
        if dropping == Some(shortcode.line) {
            continue;
        }
        dropping = Some(shortcode.line);
        end_line(&mut out);
        if let Some(label) = &shortcode.label {
            out.push(Inline::Text(Frag {
                text: format!("{}:", sanitize(label)),
                style,
                link: None,
                source: shortcode.line,
                whole: false,
            }));
            out.push(Inline::Break);
        }
    }
    out
}

/// Ends the line being built, if it holds any text.
fn end_line(out: &mut Vec<Inline>) {
    let text_since_break = out
        .iter()
        .rev()
        .take_while(|i| !matches!(i, Inline::Break))
        .any(|i| matches!(i, Inline::Text(f) if !f.text.trim().is_empty()));
    if text_since_break {
        out.push(Inline::Break);
    }
}
