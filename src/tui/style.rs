//! Colours and emphasis for the TUI's own chrome (bars, lists, selections,
//! highlights), for a dark or a light terminal, or emphasis only under
//! NO_COLOR. Document text is styled by the Markdown renderer with `Theme`;
//! this is only the frame around it, built from the same theme.

use ratatui::style::{Color, Modifier, Style};

use crate::config::ThemeName;
use crate::theme::Theme;

#[derive(Debug, Clone, PartialEq)]
pub struct Chrome {
    /// The top bar: where you are.
    pub header: Style,
    /// The bottom bar.
    pub status: Style,
    /// A key in a hint (`q` of "q quit").
    pub key: Style,
    /// Less important text: paths, counts, descriptions.
    pub dim: Style,
    /// Folder headings in lists, section headings in panels.
    pub heading: Style,
    /// Titles in lists.
    pub title: Style,
    /// The selected row of a list.
    pub selected: Style,
    /// Characters a fuzzy filter or a search matched.
    pub matched: Style,
    /// Every match of find-in-document.
    pub found: Style,
    /// The current match of find-in-document.
    pub found_current: Style,
    /// The link Tab moved to.
    pub link_focus: Style,
    pub warning: Style,
    pub error: Style,
    pub ok: Style,
    pub border: Style,
    /// A text box being typed in.
    pub input: Style,
}

impl Chrome {
    /// The chrome that goes with a document theme: the shared styles
    /// (selection, matches, status bar, dim text) come from the theme so the
    /// frame and the document agree. A plain theme (NO_COLOR) gets emphasis
    /// only.
    pub fn new(theme: &Theme) -> Chrome {
        let Some(name) = theme.name else {
            return Chrome::plain();
        };
        let on_current = match name {
            ThemeName::Dark => Color::Black,
            ThemeName::Light => crate::theme::light::WHITE,
        };
        let (accent, warn, err, ok, current) = match name {
            ThemeName::Dark => (
                Color::LightCyan,
                Color::LightYellow,
                Color::LightRed,
                Color::LightGreen,
                Color::LightMagenta,
            ),
            ThemeName::Light => (
                crate::theme::light::BLUE,
                crate::theme::light::ORANGE,
                crate::theme::light::RED,
                crate::theme::light::GREEN,
                crate::theme::light::MAGENTA,
            ),
        };
        let bold = Modifier::BOLD;
        Chrome {
            header: theme.status_bar.add_modifier(bold),
            status: theme.status_bar,
            key: Style::new().fg(accent).add_modifier(bold),
            dim: theme.dim,
            heading: theme.heading(2),
            title: theme.text,
            selected: theme.selection.add_modifier(bold),
            matched: Style::new()
                .fg(warn)
                .add_modifier(bold | Modifier::UNDERLINED),
            found: theme.search_match,
            found_current: Style::new().fg(on_current).bg(current).add_modifier(bold),
            link_focus: theme.selection.add_modifier(bold),
            warning: Style::new().fg(warn),
            error: Style::new().fg(err).add_modifier(bold),
            ok: Style::new().fg(ok),
            border: theme.dim,
            input: Style::new().add_modifier(bold),
        }
    }

    /// No colour, only emphasis: NO_COLOR and `--color never`.
    pub fn plain() -> Chrome {
        let none = Style::new();
        Chrome {
            header: Style::new().add_modifier(Modifier::REVERSED),
            status: Style::new().add_modifier(Modifier::REVERSED),
            key: Style::new().add_modifier(Modifier::BOLD),
            dim: none,
            heading: Style::new().add_modifier(Modifier::BOLD),
            title: none,
            selected: Style::new().add_modifier(Modifier::REVERSED),
            matched: Style::new().add_modifier(Modifier::UNDERLINED),
            found: Style::new().add_modifier(Modifier::UNDERLINED),
            found_current: Style::new().add_modifier(Modifier::REVERSED),
            link_focus: Style::new().add_modifier(Modifier::REVERSED),
            warning: Style::new().add_modifier(Modifier::BOLD),
            error: Style::new().add_modifier(Modifier::BOLD),
            ok: none,
            border: none,
            input: Style::new().add_modifier(Modifier::BOLD),
        }
    }

    /// A list row's styles: title, dim text and matched characters, on the
    /// selection's background when the row is selected.
    pub fn row(&self, selected: bool) -> RowStyles {
        let on = |style: Style| {
            if selected {
                style.patch(self.selected)
            } else {
                style
            }
        };
        RowStyles {
            title: on(self.title),
            dim: on(self.dim),
            matched: on(self.matched),
        }
    }
}

/// See [`Chrome::row`].
#[derive(Debug, Clone, Copy)]
pub struct RowStyles {
    pub title: Style,
    pub dim: Style,
    pub matched: Style,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The RGB of a colour whose value every terminal agrees on: black,
    /// white, the xterm 256-colour cube and grey ramp, 24-bit. The 16 named
    /// colours depend on the user's palette, so they have none.
    fn rgb(color: Color) -> Option<[f64; 3]> {
        const LEVELS: [u8; 6] = [0, 95, 135, 175, 215, 255];
        let [r, g, b] = match color {
            Color::Black => [0, 0, 0],
            Color::Rgb(r, g, b) => [r, g, b],
            Color::Indexed(i @ 16..=231) => {
                let i = i - 16;
                [
                    LEVELS[usize::from(i / 36)],
                    LEVELS[usize::from(i / 6 % 6)],
                    LEVELS[usize::from(i % 6)],
                ]
            }
            Color::Indexed(i @ 232..=255) => [8 + 10 * (i - 232); 3],
            _ => return None,
        };
        Some([r, g, b].map(f64::from))
    }

    /// WCAG 2 relative luminance and contrast ratio.
    fn contrast(a: [f64; 3], b: [f64; 3]) -> f64 {
        let luminance = |c: [f64; 3]| {
            let [r, g, b] = c.map(|v| {
                let v = v / 255.0;
                if v <= 0.04045 {
                    v / 12.92
                } else {
                    ((v + 0.055) / 1.055).powf(2.4)
                }
            });
            0.2126 * r + 0.7152 * g + 0.0722 * b
        };
        let (x, y) = (luminance(a) + 0.05, luminance(b) + 0.05);
        x.max(y) / x.min(y)
    }

    /// Every coloured text of the light theme, the document's and the
    /// frame's, reaches 4.5:1 against white or against its own background,
    /// in colours that do not depend on the terminal's palette.
    #[test]
    fn the_light_theme_reaches_4_5_to_1_on_white() {
        const WHITE: [f64; 3] = [255.0; 3];
        let theme = Theme::for_name(ThemeName::Light);
        let chrome = Chrome::new(&theme);
        let t = &theme;
        let mut styles: Vec<(&str, Style)> = vec![
            ("inline_code", t.inline_code),
            ("code_label", t.code_label),
            ("continuation", t.continuation),
            ("link", t.link),
            ("link_target", t.link_target),
            ("link_followable", t.link_followable),
            ("quote", t.quote),
            ("list_marker", t.list_marker),
            ("task_done", t.task_done),
            ("task_open", t.task_open),
            ("table_header", t.table_header),
            ("footnote", t.footnote),
            ("image", t.image),
            ("html", t.html),
            ("search_match", t.search_match),
            ("status_bar", t.status_bar),
            ("dim", t.dim),
            ("key", chrome.key),
            ("matched", chrome.matched),
            ("found_current", chrome.found_current),
            ("warning", chrome.warning),
            ("error", chrome.error),
            ("ok", chrome.ok),
        ];
        for (kind, alert) in t.alerts.iter().enumerate() {
            styles.push((
                ["note", "tip", "important", "warning", "caution"][kind],
                *alert,
            ));
        }
        for (level, heading) in t.headings.iter().enumerate() {
            styles.push((["h1", "h2", "h3", "h4", "h5", "h6"][level], *heading));
        }
        for (name, style) in styles {
            let Some(fg) = style.fg else { continue };
            let fg = rgb(fg).unwrap_or_else(|| panic!("{name}: {fg:?} depends on the palette"));
            let bg = style.bg.map_or(WHITE, |bg| {
                rgb(bg).unwrap_or_else(|| panic!("{name}: {bg:?} depends on the palette"))
            });
            let ratio = contrast(fg, bg);
            assert!(ratio >= 4.5, "{name}: {ratio:.2}:1");
        }
    }
}
