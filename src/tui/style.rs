//! Colours and emphasis for the TUI's own chrome (bars, lists, selections,
//! highlights), for a dark or a light terminal, or none at all under NO_COLOR.
//! Document text is styled by the Markdown renderer; this is only the frame
//! around it.

use ratatui::style::{Color, Modifier, Style};

use crate::config::ThemeName;

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
    pub fn new(theme: ThemeName, color: bool) -> Chrome {
        if !color {
            return Chrome::plain();
        }
        let (fg_dim, accent, bar_bg, bar_fg, sel_bg, hl_bg, warn, err, ok) = match theme {
            ThemeName::Dark => (
                Color::Gray,
                Color::Cyan,
                Color::Indexed(236),
                Color::White,
                Color::Indexed(24),
                Color::Indexed(58),
                Color::Yellow,
                Color::LightRed,
                Color::LightGreen,
            ),
            ThemeName::Light => (
                Color::DarkGray,
                Color::Blue,
                Color::Indexed(254),
                Color::Black,
                Color::Indexed(153),
                Color::Indexed(229),
                Color::Indexed(130),
                Color::Red,
                Color::Green,
            ),
        };
        Chrome {
            header: Style::new()
                .fg(bar_fg)
                .bg(bar_bg)
                .add_modifier(Modifier::BOLD),
            status: Style::new().fg(bar_fg).bg(bar_bg),
            key: Style::new().fg(accent).add_modifier(Modifier::BOLD),
            dim: Style::new().fg(fg_dim),
            heading: Style::new().fg(accent).add_modifier(Modifier::BOLD),
            title: Style::new(),
            selected: Style::new().bg(sel_bg).add_modifier(Modifier::BOLD),
            matched: Style::new().fg(warn).add_modifier(Modifier::BOLD),
            found: Style::new().bg(hl_bg).add_modifier(Modifier::UNDERLINED),
            found_current: Style::new()
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
            link_focus: Style::new().add_modifier(Modifier::REVERSED | Modifier::BOLD),
            warning: Style::new().fg(warn),
            error: Style::new().fg(err).add_modifier(Modifier::BOLD),
            ok: Style::new().fg(ok),
            border: Style::new().fg(fg_dim),
            input: Style::new().add_modifier(Modifier::BOLD),
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
}
