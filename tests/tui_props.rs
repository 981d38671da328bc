//! Key and resize storms: whatever a user (or a cat on the keyboard) does, the
//! app must not panic, and every frame must draw at every size down to 0×0.
//! Search queries are answered by a real index, so hits are opened too.

mod common;

use lore::config::ThemeName;
use lore::theme::Theme;
use lore::tui::action::Action;
use lore::tui::keymap::{Key, KeyMap, Named};
use proptest::prelude::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

#[derive(Debug, Clone)]
enum Input {
    Key(Key),
    Resize(u16, u16),
    Wheel(i32),
    Paste(String),
}

fn key() -> impl Strategy<Value = Key> {
    let bound: Vec<Key> = KeyMap::default().bindings().iter().map(|b| b.key).collect();
    let named = [
        Named::Enter,
        Named::Esc,
        Named::Tab,
        Named::BackTab,
        Named::Backspace,
        Named::Delete,
        Named::Up,
        Named::Down,
        Named::Left,
        Named::Right,
        Named::PageUp,
        Named::PageDown,
        Named::Home,
        Named::End,
        Named::F(1),
        Named::F(5),
    ];
    prop_oneof![
        // Keys the table binds, most of the time, so screens are reached.
        6 => proptest::sample::select(bound),
        2 => proptest::sample::select(named.to_vec()).prop_map(Key::Named),
        2 => proptest::char::range(' ', '~').prop_map(Key::Char),
        1 => any::<char>().prop_map(Key::Char),
        1 => proptest::char::range('a', 'z').prop_map(Key::Ctrl),
        1 => proptest::char::range('1', '9').prop_map(Key::Char),
    ]
}

fn input() -> impl Strategy<Value = Input> {
    prop_oneof![
        40 => key().prop_map(Input::Key),
        1 => (0u16..=220, 0u16..=70).prop_map(|(w, h)| Input::Resize(w, h)),
        1 => (-9i32..=9).prop_map(Input::Wheel),
        1 => ".{0,80}".prop_map(Input::Paste),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2, ..ProptestConfig::default() })]

    #[test]
    fn ten_thousand_keys_and_resizes_never_panic(
        inputs in proptest::collection::vec(input(), 10_000),
    ) {
        let mut app = common::shipped_app(Theme::for_name(ThemeName::Dark), 80, 24);
        let index = common::ready_index(&mut app);
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        for input in inputs {
            match input {
                Input::Key(key) => {
                    if let Some(action) = app.action_for_key(key) {
                        app.update(action);
                    }
                }
                Input::Resize(w, h) => {
                    terminal.backend_mut().resize(w, h);
                    app.update(Action::Resize(w, h));
                }
                Input::Wheel(n) => app.update(Action::Scroll(n)),
                Input::Paste(text) => app.update(Action::Paste(text)),
            }
            // Queries are answered at once, as if the worker were instant.
            let _ = common::pump(&mut app, &index);
            if app.quit {
                // Quitting is a normal end; carry on as a fresh session would.
                app.quit = false;
            }
            terminal.draw(|frame| lore::tui::views::draw(frame, &app)).unwrap();
        }
    }
}
