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
        let (accent, warn, err, ok, current) = match name {
            ThemeName::Dark => (
                Color::LightCyan,
                Color::LightYellow,
                Color::LightRed,
                Color::LightGreen,
                Color::LightMagenta,
            ),
            ThemeName::Light => (
                Color::Blue,
                Color::Indexed(130),
                Color::Red,
                Color::Green,
                Color::Magenta,
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
            found_current: Style::new().fg(Color::Black).bg(current).add_modifier(bold),
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
