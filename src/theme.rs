//! How lore looks: one `Theme` of ratatui `Style`s per colour theme, shared by
//! the Markdown renderer, `lore show` and the TUI, plus the syntax-highlighting
//! theme that goes with it.
//!
//! Prose colours use the terminal's own 16-colour palette, so they follow the
//! user's terminal scheme and work over any SSH link. Code colours come from a
//! syntect theme (RGB); terminals that do not announce truecolor get the
//! nearest xterm-256 colour instead.
//!
//! This module decides colours only; it never reads files or writes to the
//! terminal. `Theme::plain()` has no styles at all: NO_COLOR, `--plain`.

use ratatui::style::{Color, Modifier, Style};
use two_face::theme::EmbeddedThemeName;

use crate::config::ThemeName;

/// Every style the reader, `lore show` and the TUI chrome use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    /// `None` for the plain theme.
    pub name: Option<ThemeName>,
    /// Emit syntax colours as 24-bit RGB (else the nearest xterm-256 colour).
    pub truecolor: bool,

    pub text: Style,
    /// Headings, level 1 to 6.
    pub headings: [Style; 6],
    pub emphasis: Style,
    pub strong: Style,
    pub strike: Style,
    pub inline_code: Style,
    /// Base style of code block text (under the syntax colours).
    pub code_block: Style,
    /// The frame lines above and below a code block.
    pub code_border: Style,
    /// The language name in a code block's top frame line.
    pub code_label: Style,
    /// The `↪` mark that starts a wrapped code line.
    pub continuation: Style,
    pub link: Style,
    /// The link's destination shown after its text.
    pub link_target: Style,
    /// The `→` mark before targets lore can open (files in the knowledge).
    pub link_followable: Style,
    pub quote: Style,
    /// The `│` bar in front of quoted lines.
    pub quote_mark: Style,
    pub rule: Style,
    pub list_marker: Style,
    pub task_done: Style,
    pub task_open: Style,
    pub table_header: Style,
    pub table_border: Style,
    pub footnote: Style,
    pub image: Style,
    /// Raw HTML, shown as text.
    pub html: Style,
    pub search_match: Style,
    /// The focused link, list row or selection.
    pub selection: Style,
    pub status_bar: Style,
    pub dim: Style,
    /// GitHub alerts: note, tip, important, warning, caution.
    pub alerts: [Style; 5],
}

/// The light theme's colours (xterm 256-colour indexes; contrast on white
/// in brackets).
pub mod light {
    use ratatui::style::Color;
    /// #626262 (6.1:1): paths, link targets, counts, borders.
    pub const GREY: Color = Color::Indexed(241);
    /// #444444 (9.7:1): quotes, labels.
    pub const DARK_GREY: Color = Color::Indexed(238);
    /// #005faf (6.4:1).
    pub const BLUE: Color = Color::Indexed(25);
    /// #005f87 (7.0:1).
    pub const CYAN: Color = Color::Indexed(24);
    /// #008700 (4.7:1).
    pub const GREEN: Color = Color::Indexed(28);
    /// #af0000 (7.4:1).
    pub const RED: Color = Color::Indexed(124);
    /// #870087 (8.8:1).
    pub const MAGENTA: Color = Color::Indexed(90);
    /// #af5f00 (4.7:1): warnings, fuzzy matches.
    pub const ORANGE: Color = Color::Indexed(130);
    /// #ffff87, behind black text: search matches.
    pub const YELLOW: Color = Color::Indexed(228);
    /// #d0d0d0, behind black text: the status bar.
    pub const BAR: Color = Color::Indexed(252);
    /// #ffffff, on magenta (8.8:1): the current find match.
    pub const WHITE: Color = Color::Indexed(231);
}

/// What identifies a theme's output, for caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ThemeKey {
    pub name: Option<ThemeName>,
    pub truecolor: bool,
}

impl Theme {
    pub fn for_name(name: ThemeName) -> Theme {
        match name {
            ThemeName::Dark => Theme::dark(),
            ThemeName::Light => Theme::light(),
        }
    }

    /// No colours, no attributes: output is exactly the text.
    pub fn plain() -> Theme {
        let none = Style::new();
        Theme {
            name: None,
            truecolor: false,
            text: none,
            headings: [none; 6],
            emphasis: none,
            strong: none,
            strike: none,
            inline_code: none,
            code_block: none,
            code_border: none,
            code_label: none,
            continuation: none,
            link: none,
            link_target: none,
            link_followable: none,
            quote: none,
            quote_mark: none,
            rule: none,
            list_marker: none,
            task_done: none,
            task_open: none,
            table_header: none,
            table_border: none,
            footnote: none,
            image: none,
            html: none,
            search_match: none,
            selection: none,
            status_bar: none,
            dim: none,
            alerts: [none; 5],
        }
    }

    fn dark() -> Theme {
        let dim = Style::new().fg(Color::DarkGray);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        Theme {
            name: Some(ThemeName::Dark),
            truecolor: false,
            text: Style::new(),
            headings: [
                bold.fg(Color::LightMagenta),
                bold.fg(Color::LightCyan),
                bold.fg(Color::LightBlue),
                bold.fg(Color::LightGreen),
                bold.fg(Color::LightYellow),
                Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            ],
            emphasis: Style::new().add_modifier(Modifier::ITALIC),
            strong: bold,
            strike: Style::new().add_modifier(Modifier::CROSSED_OUT),
            inline_code: Style::new().fg(Color::LightYellow),
            code_block: Style::new(),
            code_border: dim,
            code_label: Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            continuation: dim,
            link: Style::new()
                .fg(Color::LightBlue)
                .add_modifier(Modifier::UNDERLINED),
            link_target: dim,
            link_followable: Style::new().fg(Color::LightGreen),
            quote: Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            quote_mark: dim,
            rule: dim,
            list_marker: Style::new().fg(Color::LightCyan),
            task_done: Style::new().fg(Color::LightGreen),
            task_open: Style::new().fg(Color::LightYellow),
            table_header: bold.fg(Color::LightCyan),
            table_border: dim,
            footnote: Style::new().fg(Color::LightCyan),
            image: Style::new().fg(Color::Gray).add_modifier(Modifier::ITALIC),
            html: dim,
            search_match: Style::new().fg(Color::Black).bg(Color::Yellow),
            selection: Style::new().add_modifier(Modifier::REVERSED),
            status_bar: Style::new().fg(Color::White).bg(Color::DarkGray),
            alerts: [
                Color::LightBlue,
                Color::LightGreen,
                Color::LightMagenta,
                Color::LightYellow,
                Color::LightRed,
            ]
            .map(|c| Style::new().fg(c)),
            dim,
        }
    }

    /// Colours from the xterm 256-colour cube and grey ramp, whose values
    /// every terminal shares (the 16 named colours are whatever the user's
    /// palette says): each text colour reaches 4.5:1 on white (WCAG AA).
    fn light() -> Theme {
        let dim = Style::new().fg(light::GREY);
        let bold = Style::new().add_modifier(Modifier::BOLD);
        Theme {
            name: Some(ThemeName::Light),
            truecolor: false,
            text: Style::new(),
            headings: [
                bold.fg(light::MAGENTA),
                bold.fg(light::BLUE),
                bold.fg(light::CYAN),
                bold.fg(light::GREEN),
                bold.fg(light::RED),
                Style::new()
                    .fg(light::DARK_GREY)
                    .add_modifier(Modifier::ITALIC),
            ],
            emphasis: Style::new().add_modifier(Modifier::ITALIC),
            strong: bold,
            strike: Style::new().add_modifier(Modifier::CROSSED_OUT),
            inline_code: Style::new().fg(light::RED),
            code_block: Style::new(),
            code_border: dim,
            code_label: Style::new()
                .fg(light::DARK_GREY)
                .add_modifier(Modifier::ITALIC),
            continuation: dim,
            link: Style::new()
                .fg(light::BLUE)
                .add_modifier(Modifier::UNDERLINED),
            link_target: dim,
            link_followable: Style::new().fg(light::GREEN),
            quote: Style::new()
                .fg(light::DARK_GREY)
                .add_modifier(Modifier::ITALIC),
            quote_mark: dim,
            rule: dim,
            list_marker: Style::new().fg(light::BLUE),
            task_done: Style::new().fg(light::GREEN),
            task_open: Style::new().fg(light::RED),
            table_header: bold.fg(light::BLUE),
            table_border: dim,
            footnote: Style::new().fg(light::BLUE),
            image: Style::new()
                .fg(light::DARK_GREY)
                .add_modifier(Modifier::ITALIC),
            html: dim,
            search_match: Style::new().fg(Color::Black).bg(light::YELLOW),
            selection: Style::new().add_modifier(Modifier::REVERSED),
            status_bar: Style::new().fg(Color::Black).bg(light::BAR),
            alerts: [
                light::BLUE,
                light::GREEN,
                light::MAGENTA,
                light::ORANGE,
                light::RED,
            ]
            .map(|c| Style::new().fg(c)),
            dim,
        }
    }

    /// Use 24-bit colours for code (see [`terminal_has_truecolor`]).
    #[must_use]
    pub fn with_truecolor(mut self, truecolor: bool) -> Theme {
        self.truecolor = truecolor;
        self
    }

    /// The style of a heading of `level` (1–6; other values clamp).
    pub fn heading(&self, level: u8) -> Style {
        self.headings[usize::from(level.clamp(1, 6)) - 1]
    }

    /// False for the plain theme: nothing to colour, code stays plain.
    pub fn has_color(&self) -> bool {
        self.name.is_some()
    }

    pub fn key(&self) -> ThemeKey {
        ThemeKey {
            name: self.name,
            truecolor: self.truecolor,
        }
    }

    /// The syntect theme for code under this theme; `None` when plain.
    pub fn syntax_theme(&self) -> Option<EmbeddedThemeName> {
        self.name.map(syntax_theme)
    }

    /// A syntect colour as a terminal colour under this theme.
    pub fn code_color(&self, color: syntect::highlighting::Color) -> Color {
        // two-face's ANSI themes store a palette index in `r` with alpha 0.
        if color.a == 0 {
            return Color::Indexed(color.r);
        }
        if self.truecolor {
            Color::Rgb(color.r, color.g, color.b)
        } else {
            Color::Indexed(ansi256(color.r, color.g, color.b))
        }
    }
}

/// The syntax-highlighting theme that goes with each lore theme (from the
/// themes two-face embeds, the same set bat ships).
pub fn syntax_theme(name: ThemeName) -> EmbeddedThemeName {
    match name {
        ThemeName::Dark => EmbeddedThemeName::OneHalfDark,
        ThemeName::Light => EmbeddedThemeName::OneHalfLight,
    }
}

/// Whether the terminal announces 24-bit colour (`COLORTERM=truecolor` or
/// `24bit`, the convention terminals and bat use). SSH does not forward
/// `COLORTERM`, so remote sessions get the 256-colour fallback, which every
/// modern terminal shows correctly.
pub fn terminal_has_truecolor() -> bool {
    std::env::var("COLORTERM").is_ok_and(|v| {
        let v = v.to_ascii_lowercase();
        v == "truecolor" || v == "24bit"
    })
}

/// The xterm-256 colour closest to an RGB colour: the 6×6×6 cube or the grey
/// ramp, whichever is nearer.
pub fn ansi256(r: u8, g: u8, b: u8) -> u8 {
    const STEPS: [u8; 6] = [0, 95, 135, 175, 215, 255];
    let cube_index = |v: u8| -> usize {
        STEPS
            .iter()
            .enumerate()
            .min_by_key(|(_, s)| (i32::from(**s) - i32::from(v)).abs())
            .map_or(0, |(i, _)| i)
    };
    let (ri, gi, bi) = (cube_index(r), cube_index(g), cube_index(b));
    let cube = (STEPS[ri], STEPS[gi], STEPS[bi]);
    let average = (u32::from(r) + u32::from(g) + u32::from(b)) / 3;
    let grey_index = (average.saturating_sub(8) / 10).min(23) as u8;
    let grey_level = 8 + 10 * grey_index;
    let distance = |(cr, cg, cb): (u8, u8, u8)| -> i32 {
        let d = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        d(cr, r) + d(cg, g) + d(cb, b)
    };
    if distance((grey_level, grey_level, grey_level)) < distance(cube) {
        232 + grey_index
    } else {
        16 + (36 * ri + 6 * gi + bi) as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_has_no_styles_and_no_code_theme() {
        let plain = Theme::plain();
        assert!(!plain.has_color());
        assert_eq!(plain.syntax_theme(), None);
        assert_eq!(plain.heading(1), Style::new());
        assert_eq!(plain.link, Style::new());
    }

    #[test]
    fn each_theme_has_its_own_code_theme() {
        let dark = Theme::for_name(ThemeName::Dark);
        let light = Theme::for_name(ThemeName::Light);
        assert_ne!(dark.syntax_theme(), light.syntax_theme());
        assert_ne!(dark.heading(2), light.heading(2));
        assert_ne!(dark.key(), light.key());
        assert_eq!(dark.heading(9), dark.heading(6));
    }

    #[test]
    fn ansi256_picks_cube_and_grey() {
        assert_eq!(ansi256(0, 0, 0), 16);
        assert_eq!(ansi256(255, 255, 255), 231);
        assert_eq!(ansi256(255, 0, 0), 196);
        assert_eq!(ansi256(128, 128, 128), 244);
        let dark = Theme::for_name(ThemeName::Dark);
        let c = syntect::highlighting::Color {
            r: 255,
            g: 0,
            b: 0,
            a: 255,
        };
        assert_eq!(dark.code_color(c), Color::Indexed(196));
        assert_eq!(
            dark.with_truecolor(true).code_color(c),
            Color::Rgb(255, 0, 0)
        );
    }
}
