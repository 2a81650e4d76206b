//! Copying text: the system clipboard through the platform's tool when one is there
//! (pbcopy, wl-copy, xclip, xsel, clip.exe), else OSC 52, which terminals (also over SSH)
//! turn into a clipboard write.

use std::io::Write;
use std::process::{Command, Stdio};

/// A clipboard tool found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tool {
    pub program: &'static str,
    pub args: &'static [&'static str],
}

/// The system clipboard tool to use, if any. Over SSH the local machine's clipboard is
/// what the user wants, so OSC 52 is used there.
pub fn system_tool() -> Option<Tool> {
    let over_ssh =
        std::env::var_os("SSH_TTY").is_some() || std::env::var_os("SSH_CONNECTION").is_some();
    if over_ssh {
        return None;
    }
    let candidates: &[(Tool, Option<&str>)] = &[
        (
            Tool {
                program: "pbcopy",
                args: &[],
            },
            None,
        ),
        (
            Tool {
                program: "wl-copy",
                args: &[],
            },
            Some("WAYLAND_DISPLAY"),
        ),
        (
            Tool {
                program: "xclip",
                args: &["-selection", "clipboard"],
            },
            Some("DISPLAY"),
        ),
        (
            Tool {
                program: "xsel",
                args: &["--clipboard", "--input"],
            },
            Some("DISPLAY"),
        ),
        (
            Tool {
                program: "clip.exe",
                args: &[],
            },
            None,
        ),
    ];
    candidates
        .iter()
        .find(|(tool, env)| {
            env.is_none_or(|e| std::env::var_os(e).is_some()) && on_path(tool.program)
        })
        .map(|(t, _)| t.clone())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// The bytes `tool` reads as `text`. Windows' `clip.exe` (also from WSL) reads its input in
/// the console's legacy code page, which garbles names such as "Zoë" or "Łódź", unless the
/// input is UTF-16LE starting with a byte-order mark; the other tools read UTF-8.
fn payload(tool: &Tool, text: &str) -> Vec<u8> {
    if tool.program == "clip.exe" {
        std::iter::once(0xFEFF)
            .chain(text.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect()
    } else {
        text.as_bytes().to_vec()
    }
}

/// Pipes `text` into the tool.
pub fn copy_with(tool: &Tool, text: &str) -> Result<(), String> {
    let mut child = Command::new(tool.program)
        .args(tool.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("{}: {e}", tool.program))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&payload(tool, text))
            .map_err(|e| format!("{}: {e}", tool.program))?;
    }
    let status = child.wait().map_err(|e| format!("{}: {e}", tool.program))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} exited with {status}", tool.program))
    }
}

/// The OSC 52 sequence that asks the terminal to put `text` on the clipboard.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osc52_encodes_base64() {
        assert_eq!(osc52("hi"), "\x1b]52;c;aGk=\x07");
        assert_eq!(base64(b"foobar"), "Zm9vYmFy");
        assert_eq!(base64(b"fooba"), "Zm9vYmE=");
        assert_eq!(base64(b"f"), "Zg==");
        assert_eq!(base64(b""), "");
    }

    #[test]
    fn clip_exe_gets_utf16_with_a_bom_and_the_others_utf8() {
        let tool = |program| Tool { program, args: &[] };
        assert_eq!(
            payload(&tool("clip.exe"), "Zoë"),
            [0xFF, 0xFE, b'Z', 0, b'o', 0, 0xEB, 0]
        );
        assert_eq!(payload(&tool("pbcopy"), "Zoë"), "Zoë".as_bytes());
    }
}
