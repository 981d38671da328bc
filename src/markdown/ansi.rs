//! Rendered lines as text for stdout (`lore show`): SGR colour sequences when
//! asked, otherwise the bare text with no escape sequence at all.
//!
//! This is the last step before the terminal, so it filters again: any
//! control character that reached a span is made visible here, whatever the
//! layer above did. The only escape sequences in the output are the SGR ones
//! written below.

use std::borrow::Borrow;
use std::fmt::Write as _;
use std::io;

use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;

use crate::text::{needs_escape, sanitize};

/// The lines as one string, each ending in a newline.
pub fn to_ansi<'a>(lines: impl IntoIterator<Item = impl Borrow<Line<'a>>>, color: bool) -> String {
    let mut out = String::new();
    for line in lines {
        push_line(&mut out, line.borrow(), color);
    }
    out
}

/// Writes the lines to `out`, each ending in a newline.
pub fn write_ansi<'a>(
    out: &mut impl io::Write,
    lines: impl IntoIterator<Item = impl Borrow<Line<'a>>>,
    color: bool,
) -> io::Result<()> {
    let mut buffer = String::new();
    for line in lines {
        buffer.clear();
        push_line(&mut buffer, line.borrow(), color);
        out.write_all(buffer.as_bytes())?;
    }
    Ok(())
}

fn push_line(out: &mut String, line: &Line<'_>, color: bool) {
    // Every SGR starts from a reset (`0;`), so a reset is only written
    // before unstyled text and at the end of the line.
    let mut styled = false;
    let mut current = Style::new();
    for span in &line.spans {
        let text = &span.content;
        let safe;
        let text: &str = if text.chars().any(|c| needs_escape(c) || c == '\n') {
            safe = sanitize(text).replace('\n', " ");
            &safe
        } else {
            text
        };
        if text.is_empty() {
            continue;
        }
        let style = line.style.patch(span.style);
        if color && style != Style::new() {
            if !styled || style != current {
                out.push_str(&sgr(style));
            }
            styled = true;
            current = style;
        } else if styled {
            out.push_str("\x1b[0m");
            styled = false;
        }
        out.push_str(text);
    }
    if styled {
        out.push_str("\x1b[0m");
    }
    out.push('\n');
}

/// `ESC [ 0 ; … m` for a style.
fn sgr(style: Style) -> String {
    let mut codes: Vec<String> = vec!["0".into()];
    let m = style.add_modifier - style.sub_modifier;
    for (flag, code) in [
        (Modifier::BOLD, "1"),
        (Modifier::DIM, "2"),
        (Modifier::ITALIC, "3"),
        (Modifier::UNDERLINED, "4"),
        (Modifier::SLOW_BLINK, "5"),
        (Modifier::RAPID_BLINK, "6"),
        (Modifier::REVERSED, "7"),
        (Modifier::HIDDEN, "8"),
        (Modifier::CROSSED_OUT, "9"),
    ] {
        if m.contains(flag) {
            codes.push(code.into());
        }
    }
    if let Some(fg) = style.fg {
        codes.push(color_code(fg, false));
    }
    if let Some(bg) = style.bg {
        codes.push(color_code(bg, true));
    }
    let mut out = String::from("\x1b[");
    out.push_str(&codes.join(";"));
    out.push('m');
    out
}

fn color_code(color: Color, background: bool) -> String {
    let base = if background { 40 } else { 30 };
    let bright = if background { 100 } else { 90 };
    let mut s = String::new();
    let _ = match color {
        Color::Reset => write!(s, "{}", base + 9),
        Color::Black => write!(s, "{base}"),
        Color::Red => write!(s, "{}", base + 1),
        Color::Green => write!(s, "{}", base + 2),
        Color::Yellow => write!(s, "{}", base + 3),
        Color::Blue => write!(s, "{}", base + 4),
        Color::Magenta => write!(s, "{}", base + 5),
        Color::Cyan => write!(s, "{}", base + 6),
        Color::Gray => write!(s, "{}", base + 7),
        Color::DarkGray => write!(s, "{bright}"),
        Color::LightRed => write!(s, "{}", bright + 1),
        Color::LightGreen => write!(s, "{}", bright + 2),
        Color::LightYellow => write!(s, "{}", bright + 3),
        Color::LightBlue => write!(s, "{}", bright + 4),
        Color::LightMagenta => write!(s, "{}", bright + 5),
        Color::LightCyan => write!(s, "{}", bright + 6),
        Color::White => write!(s, "{}", bright + 7),
        Color::Indexed(i) => write!(s, "{};5;{i}", base + 8),
        Color::Rgb(r, g, b) => write!(s, "{};2;{r};{g};{b}", base + 8),
    };
    s
}

#[cfg(test)]
mod tests {
    use ratatui::text::Span;

    use super::*;

    #[test]
    fn without_colour_there_is_no_escape_at_all() {
        let lines = vec![Line::from(vec![
            Span::styled("bold", Style::new().add_modifier(Modifier::BOLD)),
            Span::raw(" and \x1b[31mevil\x07"),
        ])];
        let text = to_ansi(&lines, false);
        assert_eq!(text, "bold and ^[[31mevil^G\n");
    }

    #[test]
    fn colour_uses_sgr_and_resets() {
        let lines = vec![Line::from(vec![
            Span::styled(
                "h",
                Style::new()
                    .fg(Color::LightCyan)
                    .add_modifier(Modifier::BOLD),
            ),
            Span::raw(" x "),
            Span::styled("c", Style::new().fg(Color::Indexed(196))),
            Span::styled(
                "r",
                Style::new().fg(Color::Rgb(1, 2, 3)).bg(Color::DarkGray),
            ),
        ])];
        assert_eq!(
            to_ansi(&lines, true),
            "\x1b[0;1;96mh\x1b[0m x \x1b[0;38;5;196mc\x1b[0;38;2;1;2;3;100mr\x1b[0m\n"
        );
    }
}
