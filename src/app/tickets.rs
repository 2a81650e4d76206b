//! Reading a tickets file for `tieout suggest --tickets` and the Refunds pane alike: the
//! bytes from disk, the format from the extension or the content, and the column map and
//! order pattern from `tickets.toml` in the config folder with the command line's
//! `--columns` / `--order-pattern` over it. Both shells call [`read_file`], so the pane and
//! the command read the same tickets from the same file.
//!
//! `tickets.toml`:
//!
//! ```toml
//! order_pattern = ['\bSO-[0-9]+\b']        # replaces the defaults (ORD-1234, #1234)
//! [columns]
//! ticket_id = "Id"
//! email = "Requester email"
//! message = "Description"
//! ```

use std::path::Path;

use serde::Deserialize;

use crate::domain::refunds::Ticket;
use crate::domain::refunds::ticket_columns::{ColumnMap, OrderPattern};
use crate::domain::refunds::tickets::{
    ReadOptions, TicketsFormat, TicketsRead, read_tickets, read_tickets_bytes_with,
};
use crate::failure::Failure;

/// The file in the config folder that maps a helpdesk's columns.
pub const CONFIG_FILE: &str = "tickets.toml";

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct TicketsToml {
    #[serde(default)]
    columns: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    order_pattern: Vec<String>,
}

/// The column map and order pattern: `tickets.toml` in `config_dir` (when there is one),
/// then `columns` (`--columns`) and `patterns` (`--order-pattern`) over it. A file or flag
/// that cannot be read is a usage error naming it.
pub fn read_options(
    config_dir: Option<&Path>,
    columns: Option<&str>,
    patterns: &[String],
) -> Result<ReadOptions, Failure> {
    let mut map = ColumnMap::default();
    let mut pattern_list: Vec<String> = Vec::new();
    if let Some(path) = config_dir
        .map(|d| d.join(CONFIG_FILE))
        .filter(|p| p.is_file())
    {
        let at = path.display();
        let text = std::fs::read_to_string(&path)
            .map_err(|e| Failure::usage(format!("cannot read {at}: {e}")))?;
        let file: TicketsToml = toml::from_str(&text).map_err(|e| {
            Failure::usage(format!("{at}: {e}; see the README's \"Tickets files\""))
        })?;
        for (key, header) in &file.columns {
            map.set(key, header)
                .map_err(|e| Failure::usage(format!("{at}: {e}")))?;
        }
        pattern_list = file.order_pattern;
    }
    if let Some(spec) = columns {
        let over = ColumnMap::parse(spec).map_err(Failure::usage)?;
        map = map.overlaid(&over);
    }
    if !patterns.is_empty() {
        pattern_list = patterns.to_vec();
    }
    let orders = if pattern_list.is_empty() {
        OrderPattern::default()
    } else {
        OrderPattern::new(&pattern_list).map_err(Failure::usage)?
    };
    Ok(ReadOptions {
        columns: map,
        orders,
    })
}

/// Reads the tickets of the file at `path`. `Err` (a usage failure naming the file) when
/// it cannot be opened or as a whole cannot be read; bad lines are in the result.
pub fn read_file(path: &Path, opts: &ReadOptions) -> Result<TicketsRead, Failure> {
    let bytes = crate::files::read_input(path, crate::files::MAX_INPUT_BYTES).map_err(|e| {
        Failure::usage(format!(
            "cannot read the tickets file {}: {e}; check its path",
            path.display()
        ))
    })?;
    read_bytes(&bytes, path.extension().and_then(|e| e.to_str()), opts)
        .map_err(|e| Failure::usage(format!("tickets file {}: {e}", path.display())))
}

/// Reads tickets from bytes whose file had extension `ext`.
pub fn read_bytes(
    bytes: &[u8],
    ext: Option<&str>,
    opts: &ReadOptions,
) -> Result<TicketsRead, String> {
    let format = TicketsFormat::detect(
        ext,
        &String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]),
    );
    read_tickets_bytes_with(bytes, format, opts)
}

/// Parses `tickets.csv` text (header `ticket_id,email,order_id,message`, optionally
/// `amount`) with the rules' reader, the one `tieout suggest --tickets` uses. The pane has
/// nowhere to list skipped lines, so a line that cannot be read fails the load and is named.
pub fn parse_tickets_csv(text: &str) -> Result<Vec<Ticket>, String> {
    let read = read_tickets(text, TicketsFormat::Csv).map_err(|e| format!("tickets.csv {e}"))?;
    match read.problems.first() {
        Some(p) => Err(format!("tickets.csv line {}: {}", p.line, p.message)),
        None => Ok(read.tickets.into_iter().map(|(_, t)| t).collect()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_file_maps_columns_and_the_flags_go_over_it() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(
            dir.path().join(CONFIG_FILE),
            "order_pattern = ['SO-[0-9]+']\n[columns]\nemail = \"Mail\"\nmessage = \"Text\"\n",
        )
        .expect("write");
        let opts = read_options(Some(dir.path()), Some("message=Body"), &[]).expect("options");
        let read = read_bytes(
            b"Mail,Body,Text\na@x.io,about SO-12,x\n",
            Some("csv"),
            &opts,
        )
        .expect("readable");
        assert_eq!(read.tickets[0].1.email, "a@x.io");
        assert_eq!(read.tickets[0].1.order_id, "SO-12");
        assert_eq!(read.tickets[0].1.message, "about SO-12");

        std::fs::write(dir.path().join(CONFIG_FILE), "[columns]\nmail = \"x\"\n").expect("write");
        let e = read_options(Some(dir.path()), None, &[]).expect_err("unknown field");
        assert!(
            e.message.contains("unknown ticket field 'mail'"),
            "{}",
            e.message
        );
        let e = read_options(None, None, &["(".into()]).expect_err("bad pattern");
        assert!(
            e.message.contains("not a valid regular expression"),
            "{}",
            e.message
        );
    }
}
