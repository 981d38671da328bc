//! Copying by OSC 52: the terminal itself puts the text on the clipboard, so
//! copying works over SSH and inside tmux where lore cannot reach a local
//! clipboard. The sequence is only ever built from text the user chose to copy,
//! and only from what they can see and would type: `text::for_clipboard`
//! leaves out control and invisible characters (the app does so first, to say
//! so in the status line; this is the last gate).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

/// Terminals cap OSC 52 payloads (xterm's default is about 100 kB of base64);
/// beyond this we refuse rather than send something truncated.
pub const MAX_COPY_BYTES: usize = 74_000;

/// The bytes that ask the terminal to set its clipboard to `text`. Inside tmux
/// (`inside_tmux`) the plain sequence is followed by the same one wrapped for
/// tmux's passthrough, which reaches the outer terminal when tmux's
/// `set-clipboard` is off but `allow-passthrough` is on.
pub fn osc52(text: &str, inside_tmux: bool) -> Result<String, String> {
    let (text, _) = crate::text::for_clipboard(text);
    if text.len() > MAX_COPY_BYTES {
        return Err(format!(
            "{} bytes is more than a terminal clipboard takes ({MAX_COPY_BYTES})",
            text.len()
        ));
    }
    let payload = STANDARD.encode(text.as_bytes());
    let plain = format!("\x1b]52;c;{payload}\x07");
    if !inside_tmux {
        return Ok(plain);
    }
    let wrapped = format!("\x1bPtmux;\x1b{plain}\x1b\\");
    Ok(format!("{plain}{wrapped}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequence_carries_base64_text() {
        assert_eq!(
            osc52("FROM x\n", false).unwrap(),
            "\x1b]52;c;RlJPTSB4Cg==\x07"
        );
    }

    #[test]
    fn inside_tmux_a_passthrough_copy_follows() {
        let seq = osc52("a", true).unwrap();
        assert!(seq.starts_with("\x1b]52;c;YQ==\x07\x1bPtmux;\x1b\x1b]52;c;YQ==\x07"));
        assert!(seq.ends_with("\x1b\\"));
    }

    #[test]
    fn control_characters_never_reach_the_clipboard() {
        // A copied `ESC [201~` would end a bracketed paste early.
        assert_eq!(
            osc52("x \x1b[201~ y\u{202e}\n", false).unwrap(),
            osc52("x [201~ y\n", false).unwrap()
        );
    }

    #[test]
    fn huge_text_is_refused() {
        assert!(osc52(&"x".repeat(MAX_COPY_BYTES + 1), false).is_err());
    }
}
