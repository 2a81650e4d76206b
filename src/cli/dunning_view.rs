//! `tieout dunning --view NAME`: the worklist as a saved Worklist view shows it (its
//! facets, text filter, sort and visible columns), written as
//! `failed-payments-<name>.csv/.md/.json` instead of the whole list. The rows come from
//! the pane's own table (`tui::panes::worklist::view_table`), so the file is exactly what
//! the workbench shows with that view open: the CSV is the pane's `export`, the Markdown
//! and JSON its `copy_table` in those formats.

use std::path::{Path, PathBuf};

use super::{Failure, Formats};
use crate::app::settings::CopyFormat;
use crate::app::views::{self, SavedView};
use crate::domain::dunning::Worklist;

/// The view `name` of the config folder's `views.toml`, which must be a Worklist view.
pub fn find(name: &str) -> Result<SavedView, Failure> {
    let file = views::load()?;
    let view = file.find(name)?.clone();
    if view.pane != crate::tui::tabs::WORKLIST.key {
        return Err(Failure::usage(format!(
            "view \"{name}\" is a view of the {} tab; `tieout dunning --view` writes Worklist views",
            view.pane
        )));
    }
    Ok(view)
}

/// The file names for `view`: `failed-payments-<name>` with the name's letters, digits
/// and dashes (anything else a dash).
pub fn stem(view: &SavedView) -> String {
    let name: String = view
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    format!("failed-payments-{name}")
}

/// Writes the view's rows of `w` into `dir` in `formats`; returns the paths written.
pub fn write(
    w: &Worklist,
    view: &SavedView,
    tz: &jiff::tz::TimeZone,
    dir: Option<&Path>,
    formats: Formats,
    force: bool,
) -> Result<Vec<String>, Failure> {
    let table = crate::tui::panes::worklist::view_table(w, view, tz).map_err(|e| {
        Failure::usage(format!(
            "view \"{}\": {e}; {}",
            view.name,
            views::VIEWS.see()
        ))
    })?;
    let stem = stem(view);
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
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
    let named: Vec<(&str, Vec<u8>)> = files.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    let dir = dir
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let written = super::write_exports(&dir, &named, force)?;
    let mut out = vec![format!(
        "{} of {} invoices in view {}",
        table.visible(),
        w.rows.len(),
        view.name
    )];
    out.extend(written.into_iter().map(|(p, _)| p.display().to_string()));
    Ok(out)
}
