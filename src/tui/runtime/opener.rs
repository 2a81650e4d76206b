//! Opening an address (a Stripe Dashboard page) in the system's browser through the
//! platform's opener: `open` on macOS, `xdg-open` on a Linux desktop, `explorer.exe` on
//! Windows (also from WSL). None over SSH (it would open on the remote machine) or on a
//! machine without a desktop: the runtime then says so in the status line, and the
//! address can still be copied. Only the runtime calls this; the update only asks for it
//! with `Effect::OpenUrl`.

use std::process::{Command, Stdio};

/// The opener found on this machine, if any.
pub fn system_opener() -> Option<&'static str> {
    let over_ssh =
        std::env::var_os("SSH_TTY").is_some() || std::env::var_os("SSH_CONNECTION").is_some();
    if over_ssh {
        return None;
    }
    let desktop =
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some();
    let candidates: &[(&'static str, bool)] = &[
        ("open", cfg!(target_os = "macos")),
        ("xdg-open", desktop),
        ("explorer.exe", true),
    ];
    candidates
        .iter()
        .find(|(program, fits)| *fits && on_path(program))
        .map(|(p, _)| *p)
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}

/// Whether `url` is one tieout opens: a Stripe Dashboard address and nothing an opener
/// could read as an option or a file.
pub fn is_openable(url: &str) -> bool {
    url.starts_with("https://dashboard.stripe.com/")
        && url
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | ':' | '.' | '_' | '-'))
}

/// Opens `url` with `program` and waits for the opener (not the browser) to finish.
pub fn open_with(program: &str, url: &str) -> Result<(), String> {
    if !is_openable(url) {
        return Err(format!("{url} is not a Stripe Dashboard address"));
    }
    let status = Command::new(program)
        .arg(url)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| format!("{program}: {e}"))?;
    // explorer.exe answers 1 even when it opened the address.
    if status.success() || program == "explorer.exe" {
        Ok(())
    } else {
        Err(format!("{program} exited with {status}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_dashboard_addresses_are_opened() {
        assert!(is_openable(
            "https://dashboard.stripe.com/test/payments/ch_1"
        ));
        assert!(!is_openable("https://example.com/x"));
        assert!(!is_openable("https://dashboard.stripe.com/x y"));
        assert!(!is_openable("https://dashboard.stripe.com/$(rm)"));
        assert!(!is_openable("-x"));
    }
}
