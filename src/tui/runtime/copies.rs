//! Where a copy goes (`Effect::Copy`, `Effect::CopyDoc`): the system clipboard tool when
//! there is one, else OSC 52 through the terminal; and a file when neither can take it:
//! the tool failed, the terminal could not be written, or the text is larger than a
//! terminal takes in one OSC 52 sequence ([`OSC52_MAX_BYTES`]). The file is new, readable
//! by its owner only, in the data folder (else the system's temporary folder), and the
//! status line names it. Also keeps the command palette's recent actions
//! (`Effect::SaveRecent`) in the data folder.

use std::io::Write;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc::Sender;

use super::clipboard::{self, Tool};
use super::effects::spawn;
use crate::tui::msg::Msg;

/// The most text sent as one OSC 52 sequence: 74 KiB of text is about 100 kB of base64,
/// the smallest limit among common terminals (hterm's; xterm's default is smaller still,
/// and tmux passes it through only when `set-clipboard` is on). More goes to a file.
pub const OSC52_MAX_BYTES: usize = 74 * 1024;

/// The palette's recent actions, in the data folder.
pub const RECENT_FILE: &str = "palette-recent.txt";

/// Puts `text` on the clipboard, or in a `*.ext` file when the clipboard cannot take it;
/// answers with `Msg::Copied` naming the place.
pub fn copy(tool: Option<&Tool>, text: String, ext: &'static str, tx: &Sender<Msg>) {
    match tool {
        Some(tool) => {
            let tool = tool.clone();
            let tx = tx.clone();
            spawn("copy".into(), move || {
                let r = match clipboard::copy_with(&tool, &text) {
                    Ok(()) => Ok(format!("the clipboard ({})", tool.program)),
                    Err(e) => to_file(&text, ext, &e),
                };
                let _ = tx.blocking_send(Msg::Copied(r));
            });
        }
        None if text.len() > OSC52_MAX_BYTES => {
            let why = format!("{} KiB, too big for OSC 52", text.len().div_ceil(1024));
            let _ = tx.try_send(Msg::Copied(to_file(&text, ext, &why)));
        }
        None => {
            // Written between frames on the UI task, so it cannot interleave a draw.
            let mut out = std::io::stdout();
            let r = match out
                .write_all(clipboard::osc52(&text).as_bytes())
                .and_then(|()| out.flush())
            {
                Ok(()) => Ok("the terminal clipboard (OSC 52)".to_string()),
                Err(e) => to_file(&text, ext, &format!("the terminal refused it: {e}")),
            };
            let _ = tx.try_send(Msg::Copied(r));
        }
    }
}

/// Writes the copy to a file in the data folder (else the temporary folder), saying where
/// and why it is not on the clipboard.
fn to_file(text: &str, ext: &str, why: &str) -> Result<String, String> {
    let dir = crate::app::data_dir()
        .filter(|d| std::fs::create_dir_all(d).is_ok())
        .unwrap_or_else(std::env::temp_dir);
    to_file_in(&dir, text, ext, why)
}

/// The copy as a new file in `dir`: where it is (first: a long status line is cut at its
/// end) and why, or why not even that.
fn to_file_in(dir: &Path, text: &str, ext: &str, why: &str) -> Result<String, String> {
    match write_new_file(dir, text, ext) {
        Ok(path) => Ok(format!("{} ({why})", path.display())),
        Err(e) => Err(format!("{why}, and no file could be written: {e}")),
    }
}

/// Writes `text` to a new file `tieout-copy-*.ext` in `dir`, readable by its owner only.
pub fn write_new_file(dir: &Path, text: &str, ext: &str) -> Result<PathBuf, String> {
    let mut file = tempfile::Builder::new()
        .prefix("tieout-copy-")
        .suffix(&format!(".{ext}"))
        .tempfile_in(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    file.write_all(text.as_bytes())
        .map_err(|e| format!("{}: {e}", file.path().display()))?;
    let (_, path) = file.keep().map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(path)
}

/// The most of the recent actions' file read (a few hundred bytes when tieout wrote it).
const RECENT_MAX_BYTES: u64 = 16 * 1024;

/// The recent actions saved by the last session (empty without a data folder or file, or
/// when it is not text).
pub fn load_recent(data_dir: Option<&Path>) -> String {
    use std::io::Read;
    let Some(file) = data_dir.and_then(|d| std::fs::File::open(d.join(RECENT_FILE)).ok()) else {
        return String::new();
    };
    let mut text = String::new();
    match file.take(RECENT_MAX_BYTES).read_to_string(&mut text) {
        Ok(_) => text,
        Err(_) => String::new(),
    }
}

/// Saves the recent actions in the data folder; a failure is only logged.
pub fn save_recent(text: String) {
    let Some(dir) = crate::app::data_dir() else {
        return;
    };
    spawn("palette-recent".into(), move || {
        let path = dir.join(RECENT_FILE);
        let r = std::fs::create_dir_all(&dir).and_then(|()| std::fs::write(&path, text.as_bytes()));
        if let Err(e) = r {
            tracing::warn!(
                "could not keep the palette's recent actions in {}: {e}",
                path.display()
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_recent_actions_file_is_read_when_there_is_one() {
        let dir = tempfile::tempdir().expect("dir");
        assert_eq!(load_recent(None), "");
        assert_eq!(load_recent(Some(dir.path())), "");
        std::fs::write(dir.path().join(RECENT_FILE), "next_month\n").expect("write");
        assert_eq!(load_recent(Some(dir.path())), "next_month\n");
        std::fs::write(dir.path().join(RECENT_FILE), b"\xff\xfe").expect("write");
        assert_eq!(load_recent(Some(dir.path())), "", "not text: forgotten");
    }

    #[test]
    fn a_copy_that_cannot_go_to_the_clipboard_is_a_file_named_first_in_the_message() {
        let dir = tempfile::tempdir().expect("dir");
        let said =
            to_file_in(dir.path(), "[]\n", "json", "700 KiB, too big for OSC 52").expect("written");
        let (path, why) = said.split_once(" (").expect("path (why)");
        assert!(path.starts_with(&*dir.path().to_string_lossy()) && path.ends_with(".json"));
        assert_eq!(why, "700 KiB, too big for OSC 52)");
        assert_eq!(std::fs::read_to_string(path).expect("read"), "[]\n");
        let gone = dir.path().join("no such folder");
        let err = to_file_in(&gone, "x", "txt", "the terminal refused it").expect_err("no dir");
        assert!(
            err.starts_with("the terminal refused it, and no file"),
            "{err}"
        );
    }

    #[test]
    fn a_copy_file_is_new_each_time_and_holds_the_text() {
        let dir = tempfile::tempdir().expect("dir");
        let a = write_new_file(dir.path(), "a\tb\n", "tsv").expect("first");
        let b = write_new_file(dir.path(), "c\n", "tsv").expect("second");
        assert_ne!(a, b);
        assert!(a.to_string_lossy().ends_with(".tsv"));
        assert_eq!(std::fs::read_to_string(&a).expect("read"), "a\tb\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&a).expect("meta").permissions().mode();
            assert_eq!(mode & 0o077, 0, "owner only");
        }
    }
}
