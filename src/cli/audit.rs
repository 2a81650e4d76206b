//! `tieout audit`: prints the refund audit log, filtered by ticket and day.

use super::{CmdResult, Ctx, Failure};
use crate::app::audit::{AuditLog, Entry, Event};
use crate::money::format_major;

pub fn run(ctx: &Ctx, ticket: Option<&str>, day: Option<&str>) -> CmdResult {
    let day = match day {
        Some(d) => Some(
            crate::time::parse_day(d)
                .map_err(|e| Failure::usage(format!("--day: {e}")))?
                .to_string(),
        ),
        None => None,
    };
    let log = AuditLog::default_location().map_err(|e| Failure::data(e.to_string()))?;
    let entries = log.read().map_err(|e| Failure::data(e.to_string()))?;
    let shown: Vec<&Entry> = entries
        .iter()
        .filter(|e| ticket.is_none_or(|t| e.ticket == t))
        .filter(|e| {
            day.as_deref()
                .is_none_or(|d| crate::time::date_in(e.at, &ctx.tz) == d)
        })
        .collect();
    if shown.is_empty() {
        println!(
            "No audit entries{} in {}.",
            match (ticket, &day) {
                (Some(t), Some(d)) => format!(" for ticket {t} on {d}"),
                (Some(t), None) => format!(" for ticket {t}"),
                (None, Some(d)) => format!(" on {d}"),
                (None, None) => String::new(),
            },
            log.path().display()
        );
        return Ok(());
    }
    for e in shown {
        println!("{}", line(e));
        // A refund created: the note to paste into the ticket, on a line of its own.
        if let Some(note) = crate::app::refund_batch::note_of(e) {
            println!("    note: {note}");
        }
    }
    Ok(())
}

fn event_name(e: Event) -> &'static str {
    match e {
        Event::Proposal => "proposal",
        Event::Cancelled => "cancelled",
        Event::Approval => "approval",
        Event::Refusal => "refusal",
        Event::Call => "call",
        Event::Created => "created",
        Event::CallFailed => "call_failed",
        Event::ReadBack => "read_back",
    }
}

/// One entry on one line: time, event, user, ticket, charge, amount, rule, then what
/// happened (refund id, status, verdict, refusing rule, detail).
pub fn line(e: &Entry) -> String {
    let mut out = format!(
        "{}  {:<11} {:<10} ticket={} charge={} amount={} {} reason={} rule={} evidence=[{}]",
        e.at_utc,
        event_name(e.event),
        e.user,
        e.ticket,
        e.charge,
        format_major(e.amount, e.currency),
        e.currency.upper(),
        e.reason,
        e.rule,
        e.evidence.join(",")
    );
    let mut add = |k: &str, v: &Option<String>| {
        if let Some(v) = v {
            out.push_str(&format!(" {k}={v}"));
        }
    };
    add("refund", &e.refund_id);
    add("status", &e.status);
    add("verdict", &e.verdict);
    add("refused_by", &e.refused_by);
    add("approver", &e.approver);
    add("tier", &e.tier);
    add("source", &e.source);
    add("batch", &e.batch);
    add("idempotency_key", &e.idempotency_key);
    add("request_id", &e.request_id);
    if let Some(d) = &e.detail {
        out.push_str(&format!(" — {d}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::ExitStatus;
    use clap::Parser;

    /// A bad `--day` is a usage error (exit 2) that says the format once, before the
    /// log is even opened.
    #[test]
    fn a_bad_day_is_a_usage_error_that_says_the_format_once() {
        let cli = crate::cli::Cli::try_parse_from(["tieout", "--demo", "audit"]).expect("parse");
        let ctx = Ctx::from_args(cli.global);
        let f = run(&ctx, None, Some("2026-13-01")).expect_err("refused");
        assert_eq!(f.kind.code(), 2);
        assert_eq!(
            f.message,
            "--day: '2026-13-01' is not a day: write it as YYYY-MM-DD"
        );
    }
}
