//! Refund suggestions, the one use case behind `tieout suggest` and the Refunds pane: the
//! account the tickets are decided over (the demo, the cache, or a live read of only what
//! they need), every ticket matched and decided, and the files a tickets run writes.

use std::path::{Path, PathBuf};

use crate::app::ReadRequest;
use crate::app::exports::write_exports;
use crate::app::load::stripe_failure;
use crate::app::ticket_fetch::{TicketRead, fetch_tickets};
use crate::app::toml_file;
use crate::domain::refunds::{
    Assessment, Facts, Policy, Recommendation, Suggestion, Ticket, assess, load_policy,
    trail::{self, StripeRequests, Trail},
    unreadable,
};
use crate::failure::Failure;
use crate::model::{AccountData, Origin, SnapshotMeta};
use crate::report::refunds::{CSV_FILE, JSONL_FILE, csv, jsonl};

/// The trail of every ticket, with `--explain` on a tickets file.
pub const EXPLAIN_FILE: &str = "refund-explanations.md";

/// The policy: the file's, over the default; a usage failure with the line and what is
/// wrong. The file is read by the strict reader ([`toml_file`]): bounded, UTF-8 only, no
/// unknown keys (the nearest known one is named), and never empty (an empty file is more
/// likely a mistake than a wish for the default, which leaving out `--policy` gives).
pub fn read_policy(path: Option<&Path>) -> Result<Policy, Failure> {
    let Some(path) = path else {
        return Ok(Policy::default_policy());
    };
    let origin = path.display().to_string();
    let doc = toml_file::POLICY;
    let Some(text) = toml_file::read(path, doc)? else {
        return Err(Failure::usage(format!(
            "{} {origin} does not exist: check the path given to --policy, or leave --policy out for the built-in default",
            doc.what
        )));
    };
    if toml_file::is_blank(&text) {
        return Err(Failure::usage(format!(
            "{} {origin} is empty (only blank lines or comments): write the keys to change, or leave --policy out for the built-in default policy; {} for its full text",
            doc.what,
            doc.see()
        )));
    }
    load_policy(&text, &origin).map_err(|mut e| {
        e.message = toml_file::explain_message(&e.message);
        Failure::usage(e.to_string())
    })
}

/// Decides every ticket over `data`, read from the connected account `connected` when
/// there is one (where the evidence opens in the Dashboard). One `Facts` for the batch:
/// its index of the rows is built once, not per ticket.
pub fn assess_all(
    data: &AccountData,
    connected: Option<&str>,
    tickets: &[Ticket],
    policy: &Policy,
    now: i64,
    tz: &jiff::tz::TimeZone,
) -> Vec<Assessment> {
    let facts = Facts::of(data).connected(connected);
    tickets
        .iter()
        .map(|t| assess(t, &facts, policy, now, tz))
        .collect()
}

/// Decides every ticket over the data; a ticket whose objects could not be read
/// (`reads[i].unread`, the error) is `review` with that reason instead. A ticket read
/// live gets the requests it made (`reads[i].lookups`) in its trail; without `reads`
/// (the demo, the cache) the trail says where the rows came from.
pub fn suggest_all(
    data: &AccountData,
    tickets: &[Ticket],
    reads: &[TicketRead],
    policy: &Policy,
    req: &ReadRequest,
) -> (Vec<(Ticket, Suggestion)>, Vec<Trail>) {
    // Evidence opens in the Dashboard of the account read: its mode, and the connected
    // account's pages when read with --stripe-account. One `Facts` for the batch: its
    // index of the rows is built at the first ticket, not per ticket.
    let facts = Facts::of(data).connected(req.stripe_account.as_deref());
    tickets
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let read = reads.get(i);
            let made = read.map(|r| StripeRequests::Made(r.lookups.clone()));
            match read.and_then(|r| r.unread.as_deref()) {
                Some(why) => {
                    let s = unreadable(t, why);
                    let trail = Trail {
                        ticket_id: s.ticket_id.clone(),
                        stripe: made.unwrap_or_default(),
                        lookups: vec![s.reason.clone()],
                        decided_by: s.rule.clone(),
                        ..Trail::default()
                    };
                    ((t.clone(), s), trail)
                }
                None => {
                    let mut a = assess(t, &facts, policy, req.now, &req.tz);
                    if let Some(made) = made {
                        a.trail.stripe = made;
                    }
                    ((a.ticket, a.suggestion), a.trail)
                }
            }
        })
        .unzip()
}

/// Writes `refund-suggestions.jsonl` and `.csv` (and with `trails`
/// `refund-explanations.md`) into `dir` as a set (a different earlier file refuses all,
/// a usage failure, unless `force`); returns their paths.
pub fn write_outputs(
    dir: &Path,
    rows: &[(Ticket, Suggestion)],
    trails: Option<&[Trail]>,
    force: bool,
) -> Result<Vec<PathBuf>, Failure> {
    let mut files = vec![(JSONL_FILE, jsonl(rows)), (CSV_FILE, csv(rows))];
    if let Some(trails) = trails {
        files.push((EXPLAIN_FILE, trail::markdown(trails).into_bytes()));
    }
    let written = write_exports(dir, &files, force)?;
    Ok(written.into_iter().map(|(path, _)| path).collect())
}

/// `20 ticket(s): 6 approve, 2 partial, 7 decline, 5 review`.
pub fn summary(rows: &[(Ticket, Suggestion)]) -> String {
    let count = |r: Recommendation| rows.iter().filter(|(_, s)| s.recommendation == r).count();
    format!(
        "{} ticket(s): {} approve, {} partial, {} decline, {} review",
        rows.len(),
        count(Recommendation::Approve),
        count(Recommendation::Partial),
        count(Recommendation::Decline),
        count(Recommendation::Review)
    )
}

/// The account read for some tickets, and how each ticket's read went.
pub struct TicketsAccount {
    pub data: AccountData,
    /// Per ticket, for a live read (empty for the demo and the cache).
    pub reads: Vec<TicketRead>,
    /// Requests the live read made (0 for the demo and the cache).
    pub requests: u64,
}

/// The account data the tickets are decided over: the demo, the cache, or a live read of
/// just what the tickets need (`app::ticket_fetch`).
pub fn account_for(req: &ReadRequest, tickets: &[Ticket]) -> Result<TicketsAccount, Failure> {
    if req.demo || req.cached {
        let data = crate::app::load::load(req, crate::app::load::Need::Refunds)?;
        return Ok(TicketsAccount {
            data,
            reads: Vec::new(),
            requests: 0,
        });
    }
    let client = crate::app::connect(req)?;
    let meta = SnapshotMeta {
        account_id: req.stripe_account.clone().unwrap_or_default(),
        account_name: None,
        mode: client.key().mode(),
        origin: Origin::Live,
        api_version: crate::stripe::API_VERSION.into(),
        fetched_at: req.now,
        window_start: 0,
        window_end: 0,
        default_currency: None,
        payment_methods: Default::default(),
        settled_invoices_since: None,
        balance: None,
        lines_complete: false,
        lines_since: None,
        fraud_warnings: Default::default(),
    };
    crate::stripe::blocking::block_on(async {
        let (data, reads) = fetch_tickets(client.clone(), tickets, meta)
            .await
            .map_err(stripe_failure)?;
        Ok(TicketsAccount {
            data,
            reads,
            requests: client.stats().requests,
        })
    })
    .map_err(|e| Failure::other(format!("could not start the async runtime: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy_file(text: &[u8]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("policy.toml");
        std::fs::write(&path, text).expect("write");
        (dir, path)
    }

    #[test]
    fn an_unknown_policy_key_names_its_place_and_the_nearest_key() {
        let (_dir, path) = policy_file(b"name = \"x\"\n\n[window]\ndayz = 14\n");
        let e = read_policy(Some(&path)).expect_err("unknown key");
        assert!(
            e.message.contains("line 4, column 1")
                && e.message.contains("did you mean `days`?")
                && e.message.contains("see the README's \"Refund policy\""),
            "{}",
            e.message
        );
        let (_dir, path) = policy_file(b"[windw]\ndays = 14\n");
        let e = read_policy(Some(&path)).expect_err("unknown table");
        assert!(
            e.message.contains("line 1, column 2") && e.message.contains("did you mean `window`?"),
            "{}",
            e.message
        );
    }

    #[test]
    fn an_empty_policy_file_is_refused_and_says_how_to_get_the_default() {
        for text in [&b""[..], b"  \n\n", b"# nothing yet\n\n# still nothing\n"] {
            let (_dir, path) = policy_file(text);
            let e = read_policy(Some(&path)).expect_err("empty");
            assert!(
                e.message.contains("is empty")
                    && e.message
                        .contains("leave --policy out for the built-in default")
                    && e.message.contains("\"Refund policy\""),
                "{}",
                e.message
            );
            assert_eq!(e.kind, crate::failure::FailKind::Usage);
        }
        let (_dir, path) = policy_file(b"# only the window\n[window]\ndays = 14\n");
        assert_eq!(read_policy(Some(&path)).expect("valid").window_days, 14);
    }

    #[test]
    fn a_policy_that_is_not_utf8_is_placed_not_blamed_on_permissions() {
        let (_dir, path) = policy_file(b"[window]\ndays = 14 # \xff\n");
        let e = read_policy(Some(&path)).expect_err("not UTF-8");
        assert!(
            e.message.contains("line 2, column 13") && e.message.contains("not UTF-8"),
            "{}",
            e.message
        );
        assert!(!e.message.contains("permission"), "{}", e.message);
        let dir = tempfile::tempdir().expect("dir");
        let e = read_policy(Some(&dir.path().join("none.toml"))).expect_err("missing");
        assert!(e.message.contains("does not exist"), "{}", e.message);
    }
}
