//! Progress of a sync as events, and their reporters: a progress bar with counts and an
//! estimate when stderr is a terminal, plain lines otherwise. The TUI receives the same
//! events through a channel ([`Progress`] is implemented for a tokio sender and for any
//! closure).

use std::io::{IsTerminal, Write};
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// What a sync step reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    Account,
    Payouts,
    BalanceTransactions,
    OpenInvoices,
    UncollectibleInvoices,
    /// Paid and void invoices since an instant (the recovery picture's endings).
    SettledInvoices,
    InvoicePayments,
    PaymentIntents,
    Customers,
    Charges,
    Refunds,
    Disputes,
    Subscriptions,
    RenewalMethods,
    FraudWarnings,
    /// Stripe's events since the last sync (an incremental refresh).
    Events,
    /// The objects the events changed, read again by id.
    Changed,
}

impl Part {
    pub fn label(self) -> &'static str {
        match self {
            Part::Account => "account",
            Part::Payouts => "payouts",
            Part::BalanceTransactions => "balance transactions",
            Part::OpenInvoices => "open invoices",
            Part::UncollectibleInvoices => "uncollectible invoices",
            Part::SettledInvoices => "paid and void invoices",
            Part::InvoicePayments => "invoice payments",
            Part::PaymentIntents => "payment intents",
            Part::Customers => "customers",
            Part::Charges => "charges",
            Part::Refunds => "refunds",
            Part::Disputes => "disputes",
            Part::Subscriptions => "subscriptions",
            Part::RenewalMethods => "subscription payment methods",
            Part::FraudWarnings => "early fraud warnings",
            Part::Events => "events",
            Part::Changed => "changed objects",
        }
    }

    /// What one per-object fetch of this part is for ("payouts" for balance transactions).
    fn per(self) -> &'static str {
        match self {
            Part::BalanceTransactions => "payouts",
            Part::PaymentIntents | Part::InvoicePayments => "invoices",
            _ => "requests",
        }
    }

    fn item(self) -> &'static str {
        match self {
            Part::BalanceTransactions => "lines",
            _ => "items",
        }
    }
}

/// One step of a sync.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyncEvent {
    /// A list is being read: `count` items so far (after each page).
    Listing { part: Part, count: usize },
    /// A list is complete.
    Listed { part: Part, count: usize },
    /// `total` per-object reads are about to run (lines of `total` payouts, ...).
    Planned { part: Part, total: usize },
    /// One per-object read finished: `done` of `total`, `items` rows so far.
    Fetched {
        part: Part,
        done: usize,
        total: usize,
        items: usize,
    },
    /// Lines of settled payouts kept from the previous sync instead of refetched.
    Reused { payouts: usize, lines: usize },
    /// The pace changed: Stripe answered 429 and the client slowed to `per_second`
    /// (`rate_limited`), or it won its rate back (`per_second == budget` once whole).
    Paced {
        per_second: u32,
        budget: u32,
        rate_limited: bool,
    },
    /// Pages an interrupted sync had already read, taken from its journal instead of
    /// read again.
    Resumed { pages: usize },
    /// The sync reads everything rather than refresh from the events, and why.
    FullSync { reason: String },
    /// An incremental refresh: `events` read since the last sync touched `objects`.
    Refreshing { events: usize, objects: usize },
}

/// What the progress says about the pace: `rate-limited, slowing to 6 req/s`, `back to
/// 20 req/s`.
pub fn pace_text(per_second: u32, budget: u32, rate_limited: bool) -> String {
    if rate_limited && per_second < budget {
        format!("rate-limited, slowing to {per_second} req/s")
    } else {
        format!("back to {per_second} req/s")
    }
}

/// Receives sync events. Called from the sync's own task: keep it quick.
pub trait Progress: Send + Sync {
    fn event(&self, event: SyncEvent);
}

impl<F: Fn(SyncEvent) + Send + Sync> Progress for F {
    fn event(&self, event: SyncEvent) {
        self(event)
    }
}

impl Progress for tokio::sync::mpsc::UnboundedSender<SyncEvent> {
    fn event(&self, event: SyncEvent) {
        // A closed receiver (the screen went away) just stops the updates.
        let _ = self.send(event);
    }
}

/// Ignores every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn event(&self, _: SyncEvent) {}
}

/// `2431` -> `2,431`.
pub fn grouped(n: usize) -> String {
    tieout_core::money::group_thousands(&n.to_string())
}

/// The plain line for an event, if it deserves one (lists every 50 pages, per-object
/// reads about every tenth of the way and at the end).
pub fn plain_line(event: &SyncEvent) -> Option<String> {
    match event {
        SyncEvent::Listing { part, count } => (*count > 0 && count.is_multiple_of(5000))
            .then(|| format!("{}: {} so far", part.label(), grouped(*count))),
        SyncEvent::Listed { part, count } => Some(format!("{}: {}", part.label(), grouped(*count))),
        SyncEvent::Planned { .. } => None,
        SyncEvent::Fetched {
            part,
            done,
            total,
            items,
        } => {
            let step = (*total / 10).max(1);
            (*done == *total || done.is_multiple_of(step)).then(|| {
                if *part == Part::PaymentIntents {
                    return format!(
                        "{}: {} of {} failing invoices",
                        part.label(),
                        grouped(*done),
                        grouped(*total)
                    );
                }
                format!(
                    "{}: {} of {} {}, {} {}",
                    part.label(),
                    grouped(*done),
                    grouped(*total),
                    part.per(),
                    grouped(*items),
                    part.item()
                )
            })
        }
        SyncEvent::Reused { payouts, lines } => Some(format!(
            "balance transactions: kept {} lines of {} settled payouts from the last sync",
            grouped(*lines),
            grouped(*payouts)
        )),
        SyncEvent::Paced {
            per_second,
            budget,
            rate_limited,
        } => Some(pace_text(*per_second, *budget, *rate_limited)),
        SyncEvent::Resumed { pages } => Some(format!(
            "resuming the interrupted sync: {} pages already read",
            grouped(*pages)
        )),
        SyncEvent::FullSync { reason } => Some(format!("full sync: {reason}")),
        SyncEvent::Refreshing { events, objects } => Some(format!(
            "refreshing from {} events: {} changed objects",
            grouped(*events),
            grouped(*objects)
        )),
    }
}

#[derive(Default)]
struct BarState {
    listed: Vec<(Part, usize)>,
    /// Per-object reads: part, done so far, total.
    planned: Vec<(Part, usize, usize)>,
    /// `rate-limited, slowing to N req/s` while below the budget.
    pace: Option<String>,
}

impl BarState {
    fn set_count(&mut self, part: Part, count: usize) {
        match self.listed.iter_mut().find(|(p, _)| *p == part) {
            Some(entry) => entry.1 = count,
            None => self.listed.push((part, count)),
        }
    }

    fn message(&self) -> String {
        let counts = self
            .listed
            .iter()
            .map(|(p, n)| format!("{} {}", p.label(), grouped(*n)))
            .collect::<Vec<_>>()
            .join(" · ");
        match &self.pace {
            Some(pace) => format!("{pace} · {counts}"),
            None => counts,
        }
    }
}

/// Sync progress on stderr: a bar when stderr is a terminal, plain lines otherwise.
pub struct StderrProgress {
    bar: Option<ProgressBar>,
    state: Mutex<BarState>,
}

impl StderrProgress {
    /// Chooses the bar or plain lines by whether stderr is a terminal.
    pub fn new() -> Self {
        if std::io::stderr().is_terminal() {
            Self::bar()
        } else {
            Self::plain()
        }
    }

    /// Plain lines, one per noteworthy event.
    pub fn plain() -> Self {
        Self {
            bar: None,
            state: Mutex::new(BarState::default()),
        }
    }

    fn bar() -> Self {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} {elapsed_precise} [{bar:24}] {pos}/{len} ETA {eta} {wide_msg}",
        )
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        Self {
            bar: Some(bar),
            state: Mutex::new(BarState::default()),
        }
    }

    /// Removes the bar (plain mode: nothing to do).
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Default for StderrProgress {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for StderrProgress {
    fn drop(&mut self) {
        self.finish();
    }
}

impl Progress for StderrProgress {
    fn event(&self, event: SyncEvent) {
        let Some(bar) = &self.bar else {
            if let Some(line) = plain_line(&event) {
                let mut err = std::io::stderr().lock();
                let _ = writeln!(err, "{line}");
            }
            return;
        };
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        match event {
            SyncEvent::Listing { part, count } | SyncEvent::Listed { part, count } => {
                state.set_count(part, count);
            }
            SyncEvent::Planned { part, total } => {
                state.planned.push((part, 0, total));
                bar.inc_length(total as u64);
            }
            SyncEvent::Fetched {
                part, done, items, ..
            } => {
                if let Some(entry) = state.planned.iter_mut().find(|(p, _, _)| *p == part) {
                    let delta = done.saturating_sub(entry.1);
                    entry.1 = done;
                    bar.inc(delta as u64);
                }
                state.set_count(part, items);
            }
            SyncEvent::Reused { lines, .. } => {
                state.set_count(Part::BalanceTransactions, lines);
            }
            SyncEvent::Paced {
                per_second,
                budget,
                rate_limited,
            } => {
                state.pace = (rate_limited && per_second < budget)
                    .then(|| pace_text(per_second, budget, rate_limited));
            }
            SyncEvent::Resumed { .. }
            | SyncEvent::FullSync { .. }
            | SyncEvent::Refreshing { .. } => {}
        }
        bar.set_message(state.message());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(2431), "2,431");
        assert_eq!(grouped(1_000_000), "1,000,000");
    }

    #[test]
    fn the_pace_is_said_not_hidden() {
        let slowed = SyncEvent::Paced {
            per_second: 6,
            budget: 20,
            rate_limited: true,
        };
        assert_eq!(
            plain_line(&slowed).as_deref(),
            Some("rate-limited, slowing to 6 req/s")
        );
        let back = SyncEvent::Paced {
            per_second: 20,
            budget: 20,
            rate_limited: false,
        };
        assert_eq!(plain_line(&back).as_deref(), Some("back to 20 req/s"));
        let mut state = BarState::default();
        state.set_count(Part::Charges, 300);
        state.pace = Some(pace_text(6, 20, true));
        assert_eq!(
            state.message(),
            "rate-limited, slowing to 6 req/s · charges 300"
        );
    }

    #[test]
    fn plain_lines_say_what_and_how_many() {
        let listed = SyncEvent::Listed {
            part: Part::Payouts,
            count: 31,
        };
        assert_eq!(plain_line(&listed).as_deref(), Some("payouts: 31"));
        let lines = SyncEvent::Fetched {
            part: Part::BalanceTransactions,
            done: 13,
            total: 31,
            items: 2431,
        };
        assert_eq!(plain_line(&lines), None, "13 is not a multiple of 31/10");
        let lines = SyncEvent::Fetched {
            part: Part::BalanceTransactions,
            done: 12,
            total: 30,
            items: 2431,
        };
        assert_eq!(
            plain_line(&lines).as_deref(),
            Some("balance transactions: 12 of 30 payouts, 2,431 lines")
        );
        let last = SyncEvent::Fetched {
            part: Part::PaymentIntents,
            done: 7,
            total: 7,
            items: 7,
        };
        assert_eq!(
            plain_line(&last).as_deref(),
            Some("payment intents: 7 of 7 failing invoices")
        );
        assert_eq!(
            plain_line(&SyncEvent::Listing {
                part: Part::Charges,
                count: 300
            }),
            None
        );
    }

    #[test]
    fn a_channel_and_a_closure_receive_events() {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let progress: &dyn Progress = &tx;
        progress.event(SyncEvent::Planned {
            part: Part::PaymentIntents,
            total: 3,
        });
        assert_eq!(
            rx.try_recv().expect("event"),
            SyncEvent::Planned {
                part: Part::PaymentIntents,
                total: 3
            }
        );
        let seen = Mutex::new(Vec::new());
        let closure = |e: SyncEvent| seen.lock().expect("lock").push(e);
        closure.event(SyncEvent::Reused {
            payouts: 1,
            lines: 2,
        });
        assert_eq!(seen.lock().expect("lock").len(), 1);
    }
}
