//! Saved views: `views.toml` in the config folder. A view is what one tab showed when it
//! was saved under a name (its text filter, the Worklist's facets, the sort, the columns
//! left visible, the Tie-out's month), so it can be opened again from the palette
//! (`open_view`), at start (`tieout --view NAME`) or by a headless export
//! (`tieout dunning --view NAME`, which writes exactly the rows the view shows).
//!
//! ```toml
//! [[view]]
//! name = "eur-no-retry"
//! pane = "worklist"          # the tab: worklist, tieout, refunds, query
//! filter = "acme"            # the text filter (`/`)
//! columns = ["Customer", "Amount", "Action"]   # visible columns; none = all
//! sort = { column = "Amount", direction = "desc" }
//! facets = { no_retry_left = true, currency = "eur", action = "do_not_retry" }
//! # facets.decline = { decline_code = "insufficient_funds" }
//! # month = "2026-10"        # the Tie-out's month
//! ```
//!
//! The file is read by the strict reader ([`toml_file`]): a mistake is refused with its
//! line and column. Saving reads the file again, replaces (or adds) only the view of that
//! name and writes the whole file atomically, so the other views are never lost (comments
//! in the file are not kept).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::toml_file::{self, ConfigDoc};
use crate::failure::Failure;

/// The file's name in the config folder.
pub const VIEWS_FILE: &str = "views.toml";

/// How messages name the file and where the README documents it.
pub const VIEWS: ConfigDoc = ConfigDoc {
    what: "the saved views file",
    section: "Saved views",
};

/// One saved view.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SavedView {
    pub name: String,
    /// The tab's key (`tui::tabs`): `worklist`, `tieout`, `refunds`, `query`.
    pub pane: String,
    /// The table's text filter.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub filter: String,
    /// The visible columns by title, in table order; empty: every column.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub columns: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<Sort>,
    /// The Worklist's facets.
    #[serde(default, skip_serializing_if = "Facets::is_empty")]
    pub facets: Facets,
    /// The Tie-out's month, `YYYY-MM`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<String>,
}

/// The sort: a column by its title, and the direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sort {
    pub column: String,
    pub direction: Direction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Asc,
    Desc,
}

/// The Worklist's facets (`f`), in the words the CSV uses.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Facets {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_retry_left: bool,
    /// A decline: its decline code, or (when Stripe gave none) its failure code; an empty
    /// table is "no failed attempt".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline: Option<Decline>,
    /// A currency, lowercase ISO code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub currency: Option<String>,
    /// An action, as the CSV's `action` column writes it (`do_not_retry`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
}

/// A decline facet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decline {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decline_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_code: Option<String>,
}

impl Facets {
    pub fn is_empty(&self) -> bool {
        *self == Facets::default()
    }

    /// The worklist filter these facets name, or what in them is not understood.
    pub fn to_filter(&self) -> Result<crate::domain::dunning::Filter, String> {
        use crate::domain::declines::Action;
        let currency = match &self.currency {
            Some(c) => Some(
                crate::money::Currency::parse(c)
                    .map_err(|e| format!("facets.currency = \"{c}\": {e}"))?,
            ),
            None => None,
        };
        let action = match &self.action {
            Some(a) => Some(
                Action::ALL
                    .iter()
                    .copied()
                    .find(|x| x.as_str() == a)
                    .ok_or_else(|| {
                        let known: Vec<&str> = Action::ALL.iter().map(|x| x.as_str()).collect();
                        format!(
                            "facets.action = \"{a}\" is not an action (one of {})",
                            known.join(", ")
                        )
                    })?,
            ),
            None => None,
        };
        Ok(crate::domain::dunning::Filter {
            no_retry_left: self.no_retry_left,
            decline: self.decline.as_ref().map(|d| {
                crate::domain::dunning::DeclineKey::of(
                    d.decline_code.as_deref(),
                    d.failure_code.as_deref(),
                )
            }),
            currency,
            action,
        })
    }

    /// The facets of a worklist filter.
    pub fn of_filter(f: &crate::domain::dunning::Filter) -> Facets {
        Facets {
            no_retry_left: f.no_retry_left,
            decline: f.decline.as_ref().map(|k| Decline {
                decline_code: k.decline_code.clone(),
                failure_code: k.failure_code.clone(),
            }),
            currency: f.currency.map(|c| c.as_str().to_string()),
            action: f.action.map(|a| a.as_str().to_string()),
        }
    }
}

/// The file: a list of `[[view]]` tables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ViewsFile {
    #[serde(default)]
    pub view: Vec<SavedView>,
}

impl ViewsFile {
    /// Parses the file's text; `origin` names it in the message of a bad one.
    pub fn parse(text: &str, origin: &str) -> Result<ViewsFile, Failure> {
        let file: ViewsFile = toml_file::parse(text, origin, VIEWS)?;
        for (i, v) in file.view.iter().enumerate() {
            let name = v.name.trim();
            if name.is_empty() {
                return Err(Failure::usage(format!(
                    "{} {origin}: view {} has no name; {}",
                    VIEWS.what,
                    i + 1,
                    VIEWS.see()
                )));
            }
            if file.view[..i].iter().any(|u| u.name == v.name) {
                return Err(Failure::usage(format!(
                    "{} {origin}: two views are named \"{name}\"; rename one; {}",
                    VIEWS.what,
                    VIEWS.see()
                )));
            }
        }
        Ok(file)
    }

    /// The file at `path`; no file: no views.
    pub fn load_from(path: &Path) -> Result<ViewsFile, Failure> {
        let origin = path.display().to_string();
        match toml_file::read(path, VIEWS)? {
            None => Ok(ViewsFile::default()),
            Some(text) => Self::parse(&text, &origin),
        }
    }

    /// The view named `name`, or a refusal that lists the saved names.
    pub fn find(&self, name: &str) -> Result<&SavedView, Failure> {
        self.view.iter().find(|v| v.name == name).ok_or_else(|| {
            let names: Vec<&str> = self.view.iter().map(|v| v.name.as_str()).collect();
            Failure::usage(if names.is_empty() {
                format!(
                    "no saved view \"{name}\": {VIEWS_FILE} has none yet; save one in the workbench with save_view"
                )
            } else {
                format!(
                    "no saved view \"{name}\"; the saved views are: {}",
                    names.join(", ")
                )
            })
        })
    }

    /// Adds `view`, replacing the one of the same name (in its place).
    pub fn put(&mut self, view: SavedView) {
        match self.view.iter_mut().find(|v| v.name == view.name) {
            Some(old) => *old = view,
            None => self.view.push(view),
        }
    }

    /// The file's text.
    pub fn to_text(&self) -> Result<String, String> {
        let body = toml::to_string(self).map_err(|e| e.to_string())?;
        Ok(format!(
            "# tieout's saved views (README: \"Saved views\"); save_view rewrites this file.\n\n{body}"
        ))
    }
}

/// `views.toml` in the config folder, if there is a config folder.
pub fn default_path() -> Option<PathBuf> {
    super::config_dir().map(|d| d.join(VIEWS_FILE))
}

/// The saved views of the config folder (none without a folder or a file).
pub fn load() -> Result<ViewsFile, Failure> {
    match default_path() {
        Some(p) => ViewsFile::load_from(&p),
        None => Ok(ViewsFile::default()),
    }
}

/// Saves `view` into the file at `path`: read again (a file that does not parse is not
/// replaced), the view put in, written atomically. Returns every view now in the file.
pub fn save_to(path: &Path, view: SavedView) -> Result<ViewsFile, String> {
    let mut file = ViewsFile::load_from(path).map_err(|f| f.message)?;
    file.put(view);
    let text = file.to_text()?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    }
    crate::files::write_atomic(path, text.as_bytes(), true)
        .map_err(|e| format!("{} {}: {e}", VIEWS.what, path.display()))?;
    Ok(file)
}

/// Saves `view` into the config folder's file.
pub fn save(view: SavedView) -> Result<(PathBuf, ViewsFile), String> {
    let path = default_path()
        .ok_or_else(|| "no config folder: set TIEOUT_CONFIG_DIR to save views".to_string())?;
    let file = save_to(&path, view)?;
    Ok((path, file))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(name: &str) -> SavedView {
        SavedView {
            name: name.into(),
            pane: "worklist".into(),
            filter: "acme".into(),
            columns: vec!["Customer".into(), "Amount".into()],
            sort: Some(Sort {
                column: "Amount".into(),
                direction: Direction::Desc,
            }),
            facets: Facets {
                no_retry_left: true,
                currency: Some("eur".into()),
                decline: Some(Decline {
                    decline_code: Some("insufficient_funds".into()),
                    failure_code: None,
                }),
                action: Some("do_not_retry".into()),
            },
            month: None,
        }
    }

    #[test]
    fn a_view_round_trips_and_saving_keeps_the_others() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("conf").join(VIEWS_FILE);
        save_to(&path, view("a")).expect("first");
        let mut b = view("b");
        b.pane = "tieout".into();
        b.month = Some("2026-10".into());
        b.facets = Facets::default();
        save_to(&path, b.clone()).expect("second");
        let mut a2 = view("a");
        a2.filter = "other".into();
        let file = save_to(&path, a2.clone()).expect("replace");
        assert_eq!(file.view, vec![a2.clone(), b.clone()]);
        let again = ViewsFile::load_from(&path).expect("reads back");
        assert_eq!(again.view, vec![a2, b]);
        let f = again
            .find("a")
            .expect("a")
            .facets
            .to_filter()
            .expect("facets");
        assert!(f.no_retry_left && f.currency.is_some() && f.action.is_some());
        assert_eq!(Facets::of_filter(&f), view("a").facets);
    }

    #[test]
    fn a_bad_file_is_placed_and_is_not_overwritten() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join(VIEWS_FILE);
        let text = "[[view]]\nname = \"x\"\npane = \"worklist\"\nsrot = 1\n";
        std::fs::write(&path, text).expect("write");
        let e = ViewsFile::load_from(&path).expect_err("unknown key");
        assert!(
            e.message.contains("line 4, column 1")
                && e.message.contains("did you mean `sort`?")
                && e.message.contains("\"Saved views\""),
            "{}",
            e.message
        );
        let e = save_to(&path, view("y")).expect_err("not replaced");
        assert!(e.contains("line 4"), "{e}");
        assert_eq!(std::fs::read_to_string(&path).expect("kept"), text);
    }

    #[test]
    fn an_unknown_name_lists_the_saved_ones() {
        let file = ViewsFile {
            view: vec![view("a"), view("b")],
        };
        let e = file.find("c").expect_err("unknown");
        assert!(e.message.contains("a, b"), "{}", e.message);
        let dup = "[[view]]\nname = \"a\"\npane = \"x\"\n[[view]]\nname = \"a\"\npane = \"y\"\n";
        assert!(ViewsFile::parse(dup, "v.toml").is_err());
        let bad = Facets {
            action: Some("explode".into()),
            ..Facets::default()
        };
        assert!(bad.to_filter().expect_err("bad").contains("do_not_retry"));
    }
}
