//! `tieout suggest`: refund recommendations for one ticket or a tickets file.
//!
//! - One ticket (`--email E --order O [--message M] [--ticket ID]`): one JSON object on
//!   stdout, `{"ticket_id","recommendation","amount","currency","reason","evidence","rule"}`.
//! - A tickets file (`--tickets FILE`: CSV with tieout's `ticket_id,email,order_id,message`
//!   or a helpdesk export's columns, JSON lines or a JSON array, told apart by extension,
//!   else content; read by `app::tickets`, the pane's reader too): writes `refund-suggestions.jsonl` and
//!   `refund-suggestions.csv` into `--out` (default: the current folder) atomically, and
//!   prints their paths. A line of the file that cannot be read is named on stderr with
//!   its line number and skipped; the other tickets are still decided and written, and the
//!   command then exits 5 (data that could not be understood), so a script notices.
//!
//! - The early fraud warnings queue (`--fraud-warnings`): writes `fraud-warnings.csv` and
//!   `fraud-warnings.md` into `--out` (`app::fraud_warnings`), prints a line per currency
//!   and the paths.
//!
//! Data: `--demo` reads the bundled demo account, `--cached` the local cache; otherwise
//! only what the tickets need is read live from Stripe (`source::ticket_fetch`).
//! `--policy FILE` replaces the default policy key by key; a bad policy exits 2.

use std::path::{Path, PathBuf};

use crate::app::suggest::{self as uc, read_policy, suggest_all, summary, write_outputs};
use crate::app::ticket_fetch::TicketRead;
use crate::domain::refunds::{Policy, Ticket, trail};
use crate::failure::FailKind;
use crate::model::AccountData;
use crate::report::refunds::json_line;

use super::{CmdResult, Ctx, Failure, SuggestArgs};

pub fn run(ctx: &Ctx, args: &SuggestArgs) -> CmdResult {
    if ctx.global.view.is_some() && args.tickets.is_none() {
        return Err(Failure::usage(
            "--view writes the Refunds queue as a saved view shows it: give the tickets with --tickets FILE",
        ));
    }
    if let Some(hash) = &args.confirm {
        return super::suggest_batch::confirm(ctx, args, hash);
    }
    one_ticket_writes_no_file(args)?;
    let policy = read_policy(args.policy.as_deref())?;
    if args.fraud_warnings {
        return run_fraud_warnings(ctx, args, &policy);
    }
    match &args.tickets {
        Some(path) => run_batch(ctx, args, path, &policy),
        None if args.approve.is_some() => Err(Failure::usage(
            "--approve names tickets of --tickets FILE, or warnings with --fraud-warnings",
        )),
        None => run_one(ctx, args, &policy),
    }
}

/// One ticket's suggestion goes to stdout and no file is written, so `--out`/`--force`
/// without `--tickets` would be silently ignored: refuse them (exit 2) instead.
fn one_ticket_writes_no_file(args: &SuggestArgs) -> CmdResult {
    if args.tickets.is_some() || args.fraud_warnings {
        return Ok(());
    }
    let flag = match (&args.out, args.force) {
        (Some(_), _) => "--out",
        (None, true) => "--force",
        (None, false) => return Ok(()),
    };
    Err(Failure::usage(format!(
        "{flag} applies to --tickets FILE or --fraud-warnings only: one ticket's suggestion is printed on stdout as JSON (redirect it to keep it)"
    )))
}

fn run_one(ctx: &Ctx, args: &SuggestArgs, policy: &Policy) -> CmdResult {
    let nonempty = |v: &Option<String>, flag: &str| -> Result<String, Failure> {
        v.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .ok_or_else(|| {
                Failure::usage(format!(
                    "{flag} is empty: give the customer's {}",
                    &flag[2..]
                ))
            })
    };
    let ticket = Ticket {
        ticket_id: args.ticket.clone(),
        email: nonempty(&args.email, "--email")?,
        order_id: nonempty(&args.order, "--order")?,
        message: args.message.clone().unwrap_or_default(),
        amount: None,
    };
    let tickets = [ticket];
    let (data, reads) = account_for(ctx, &tickets)?;
    let (rows, trails) = suggest_all(&data, &tickets, &reads, policy, &ctx.request());
    let unread: Vec<Option<String>> = reads.into_iter().map(|r| r.unread).collect();
    for (_, s) in &rows {
        println!("{}", json_line(s));
    }
    if args.explain {
        eprint!("{}", trail::markdown(&trails));
        super::suggest_batch::print_notes(&tickets);
    }
    if let Some(why) = unread.iter().flatten().next() {
        return Err(Failure::new(
            FailKind::Stripe,
            format!("the ticket is for review: could not read Stripe: {why}"),
        ));
    }
    Ok(())
}

fn run_batch(ctx: &Ctx, args: &SuggestArgs, path: &Path, policy: &Policy) -> CmdResult {
    let opts = crate::app::tickets::read_options(
        crate::app::config_dir().as_deref(),
        args.columns.as_deref(),
        &args.order_pattern,
    )?;
    let read = crate::app::tickets::read_file(path, &opts)?;
    for p in &read.problems {
        eprintln!(
            "tieout: {} line {}: {}; this ticket was skipped",
            path.display(),
            p.line,
            p.message
        );
    }
    for n in &read.notes {
        eprintln!("tieout: {} line {}: {}", path.display(), n.line, n.message);
    }
    let tickets: Vec<Ticket> = read.tickets.into_iter().map(|(_, t)| t).collect();
    let (data, reads) = account_for(ctx, &tickets)?;
    let unread: Vec<Option<String>> = reads.iter().map(|r| r.unread.clone()).collect();
    // Stripe could be read for no ticket at all: nothing was answered, so nothing is
    // written (an earlier good export stays as it is) and the failure is the exit code.
    if !tickets.is_empty() && unread.len() == tickets.len() && unread.iter().all(Option::is_some) {
        let why = unread.iter().flatten().next().cloned().unwrap_or_default();
        return Err(Failure::new(
            FailKind::Stripe,
            format!(
                "Stripe could be read for none of the {} ticket(s), so nothing was written: {why}",
                tickets.len()
            ),
        ));
    }
    if let Some(keys) = &args.approve {
        return super::suggest_batch::preview_tickets(ctx, args, &data, &tickets, policy, keys);
    }
    if let Some(name) = &ctx.global.view {
        return run_view(ctx, args, &data, &tickets, policy, name);
    }
    let (rows, trails) = suggest_all(&data, &tickets, &reads, policy, &ctx.request());
    if args.explain {
        super::suggest_batch::print_notes(&tickets);
    }

    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let explained = args.explain.then_some(trails.as_slice());
    let written = write_outputs(&dir, &rows, explained, args.force)?;
    for p in &written {
        println!("{}", p.display());
    }
    eprintln!("tieout: {}", summary(&rows));
    let unread_ids: Vec<String> = rows
        .iter()
        .zip(&unread)
        .filter(|(_, u)| u.is_some())
        .map(|((t, _), _)| t.ticket_id.clone().unwrap_or_else(|| t.email.clone()))
        .collect();
    if !unread_ids.is_empty() {
        let skipped = if read.problems.is_empty() {
            String::new()
        } else {
            format!(
                "; also {} line(s) of {} could not be read (named above) and were skipped",
                read.problems.len(),
                path.display()
            )
        };
        return Err(Failure::new(
            FailKind::Stripe,
            format!(
                "{} ticket(s) could not be read from Stripe ({}): they are `review` with the reason in the files; the other {} ticket(s) were answered and everything was written{skipped}",
                unread_ids.len(),
                unread_ids.join(", "),
                rows.len() - unread_ids.len()
            ),
        ));
    }
    if !read.problems.is_empty() {
        return Err(Failure::data(format!(
            "{} line(s) of {} could not be read (named above) and were skipped; the other {} ticket(s) were written",
            read.problems.len(),
            path.display(),
            rows.len()
        )));
    }
    Ok(())
}

/// The early fraud warnings queue: its two files into `--out`, then a line per currency
/// and the paths on stdout; a note on stderr when the warnings could not be read.
fn run_fraud_warnings(ctx: &Ctx, args: &SuggestArgs, policy: &Policy) -> CmdResult {
    use crate::app::fraud_warnings as fw;
    let request = ctx.request();
    let data = fw::load(&request)?;
    let q = fw::build(&request, &data, policy);
    if let Some(note) = crate::report::fraud_warnings::read_note(&data.meta) {
        eprintln!("tieout: {note}");
    }
    if let Some(keys) = &args.approve {
        let keys = super::suggest_batch::approve_keys(keys);
        let items = fw::items_for(&q, &keys).map_err(Failure::usage)?;
        return super::suggest_batch::preview(ctx, args, items);
    }
    let dir = args.out.clone().unwrap_or_else(|| PathBuf::from("."));
    let written = super::write_exports(&dir, &fw::files(&request, &data, &q, policy), args.force)?;
    println!(
        "Early fraud warnings to decide: {} (off the list: {} refunded, {} disputed)",
        q.rows.len(),
        q.refunded,
        q.disputed
    );
    for (c, (n, stake, refund)) in q.totals() {
        println!(
            "{}: {n} warning(s), {} {} at stake, {} {} to refund now",
            c.upper(),
            crate::money::format_major(stake, c),
            c.upper(),
            crate::money::format_major(refund, c),
            c.upper()
        );
    }
    for (p, _) in written {
        println!("{}", p.display());
    }
    Ok(())
}

/// The account the tickets are decided over (`app::suggest::account_for`), saying on
/// stderr what a live read took and which tickets it could not read.
fn account_for(ctx: &Ctx, tickets: &[Ticket]) -> Result<(AccountData, Vec<TicketRead>), Failure> {
    let read = uc::account_for(&ctx.request(), tickets)?;
    if !read.reads.is_empty() {
        eprintln!(
            "tieout: read what {} ticket(s) need from Stripe in {} request(s); list calls per ticket: {}",
            tickets.len(),
            read.requests,
            read.reads
                .iter()
                .map(|r| r.calls.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        );
        for (t, r) in tickets.iter().zip(&read.reads) {
            if let Some(why) = &r.unread {
                eprintln!(
                    "tieout: ticket {} could not be read from Stripe, so it is for review: {why}",
                    t.ticket_id.as_deref().unwrap_or(t.email.as_str())
                );
            }
        }
    }
    Ok((read.data, read.reads))
}

/// `--view NAME` with `--tickets FILE`: the tickets decided as the Refunds pane decides
/// them, with the saved view's filter, sort and columns, to
/// `refund-suggestions-<name>.csv/.md/.json` (the whole-queue files are not written).
fn run_view(
    ctx: &Ctx,
    args: &SuggestArgs,
    data: &AccountData,
    tickets: &[Ticket],
    policy: &Policy,
    name: &str,
) -> CmdResult {
    let view = super::views::find(name, crate::tui::tabs::REFUNDS, "suggest")?;
    let assessed = crate::app::suggest::assess_all(
        data,
        ctx.global.stripe_account.as_deref(),
        tickets,
        policy,
        ctx.now,
        &ctx.tz,
    );
    let total = assessed.len();
    let table = crate::tui::panes::refunds::view_table(assessed, &view, &ctx.tz, ctx.now)
        .map_err(|e| super::views::refused(&view, &e))?;
    let stem = format!("refund-suggestions-{}", super::views::file_part(&view));
    let formats = super::Formats {
        md: true,
        csv: true,
        json: true,
    };
    let written =
        super::views::write_table(&table, &stem, args.out.as_deref(), formats, args.force)?;
    super::views::report(&table, total, "tickets", &view, &written);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(out: Option<&str>, force: bool, tickets: Option<&str>) -> SuggestArgs {
        SuggestArgs {
            email: tickets.is_none().then(|| "a@b.c".to_string()),
            order: tickets.is_none().then(|| "O1".to_string()),
            message: None,
            ticket: None,
            tickets: tickets.map(PathBuf::from),
            fraud_warnings: false,
            policy: None,
            out: out.map(PathBuf::from),
            force,
            columns: None,
            order_pattern: Vec::new(),
            explain: false,
            approve: None,
            approver: None,
            confirm: None,
        }
    }

    /// `--out`/`--force` on a one-ticket run were silently ignored (no file is written
    /// then); they are a usage error that names `--tickets`.
    #[test]
    fn out_and_force_need_a_tickets_file() {
        for (args, flag) in [
            (one(Some("d"), false, None), "--out"),
            (one(None, true, None), "--force"),
        ] {
            let f = one_ticket_writes_no_file(&args).expect_err("refused");
            assert_eq!(crate::cli::ExitStatus::code(f.kind), 2);
            assert!(
                f.message.starts_with(&format!(
                    "{flag} applies to --tickets FILE or --fraud-warnings only"
                )),
                "{}",
                f.message
            );
        }
        one_ticket_writes_no_file(&one(None, false, None)).expect("plain one ticket");
        one_ticket_writes_no_file(&one(Some("d"), true, Some("t.csv"))).expect("batch");
        let mut fraud = one(Some("d"), true, None);
        fraud.fraud_warnings = true;
        one_ticket_writes_no_file(&fraud).expect("the fraud warnings queue writes files");
    }
}
