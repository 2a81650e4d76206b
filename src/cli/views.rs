//! `--view NAME` on the headless exports: what a saved view shows, written instead of the
//! whole export. `tieout dunning --view` writes the Worklist's rows as the view shows
//! them (its facets, text filter, sort and visible columns) to
//! `failed-payments-<name>.csv/.md/.json`; `tieout reconcile --month M --view` the
//! Tie-out's payouts of month M as the view shows them to `payouts-<M>-<name>.*`;
//! `tieout suggest --tickets F --view` the Refunds queue to
//! `refund-suggestions-<name>.*`. The
//! rows come from the pane's own table built without a terminal
//! (`tui::panes::worklist::view_table`, `tui::panes::tieout::view_table`), so a file is
//! exactly what the workbench shows with that view open: the CSV is the pane's `export`,
//! the Markdown and JSON its `copy_table` in those formats.

use std::path::{Path, PathBuf};

use super::{Failure, Formats};
use crate::app::settings::CopyFormat;
use crate::app::views::{self, SavedView};
use crate::tui::widgets::table::DataTable;

/// The view `name` of the config folder's `views.toml`, which must be a view of `tab`.
pub fn find(
    name: &str,
    tab: crate::tui::tabs::TabName,
    command: &str,
) -> Result<SavedView, Failure> {
    let file = views::load()?;
    let view = file.find(name)?.clone();
    if view.pane != tab.key {
        return Err(Failure::usage(format!(
            "view \"{name}\" is a view of the {} tab; `tieout {command} --view` writes {} views",
            view.pane, tab.title
        )));
    }
    Ok(view)
}

/// A view's name as it goes into a file name: letters, digits, `-` and `_` (lowercase),
/// anything else a dash.
pub fn file_part(view: &SavedView) -> String {
    view.name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect()
}

/// A view's refusal: what in it is wrong, and where the file is documented.
pub fn refused(view: &SavedView, e: &str) -> Failure {
    Failure::usage(format!(
        "view \"{}\": {e}; {}",
        view.name,
        views::VIEWS.see()
    ))
}

/// Writes `table` as `<stem>.md/.csv/.json` (as `formats` chooses) into `dir`; returns
/// the paths written.
pub fn write_table(
    table: &DataTable,
    stem: &str,
    dir: Option<&Path>,
    formats: Formats,
    force: bool,
) -> Result<Vec<String>, Failure> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::with_capacity(3);
    if formats.md {
        let text = table
            .copy_table(CopyFormat::Markdown)
            .unwrap_or_else(|| "No row matches this view.\n".to_string());
        files.push((format!("{stem}.md"), text.into_bytes()));
    }
    if formats.csv {
        files.push((format!("{stem}.csv"), table.to_csv()));
    }
    if formats.json {
        let text = table
            .copy_table(CopyFormat::Json)
            .unwrap_or_else(|| "[]\n".to_string());
        files.push((format!("{stem}.json"), text.into_bytes()));
    }
    let named: Vec<(&str, Vec<u8>)> = files
        .iter_mut()
        .map(|(n, b)| (n.as_str(), std::mem::take(b)))
        .collect();
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let written = super::write_exports(&dir, &named, force)?;
    Ok(written
        .into_iter()
        .map(|(p, _)| p.display().to_string())
        .collect())
}

/// Prints what a `--view` export wrote: `N of M <what> in view NAME`, then each file.
pub fn report(table: &DataTable, total: usize, what: &str, view: &SavedView, written: &[String]) {
    println!(
        "{} of {total} {what} in view {}",
        table.visible(),
        view.name
    );
    for path in written {
        println!("{path}");
    }
}
