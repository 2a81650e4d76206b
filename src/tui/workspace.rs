//! What the panes show: the account's rows plus the support tickets, shared cheaply
//! (`Arc`) between the UI and background jobs, and the shell's loading state.

use std::sync::Arc;

use crate::model::AccountData;

use super::request::RequestId;

/// A support ticket asking for a refund: the rules' own type, so the Refunds pane decides
/// exactly what `tieout suggest --tickets` decides (the optional `amount` included).
pub use crate::domain::refunds::Ticket;

/// The loaded account as the panes see it.
#[derive(Debug, Clone)]
pub struct Workspace {
    pub data: Arc<AccountData>,
    pub tickets: Arc<Vec<Ticket>>,
    /// What the fresh read could not read (its tables empty, or an older copy): the
    /// panes that need it are marked.
    pub gaps: Arc<Vec<Gap>>,
    /// Where the Worklist keeps its run records and how it learns what left the list
    /// (`None`: no history, e.g. most tests).
    pub history: Option<crate::app::run_history::Session>,
    /// The bank statements' lines the Tie-out tab matches payouts to, if any were given.
    pub bank: Option<Arc<Vec<crate::bank::BankLine>>>,
    /// The connected account (`--stripe-account acct_…`) the data was read from, if any:
    /// its objects open in the Dashboard under that account.
    pub connected: Option<String>,
    /// The refund gate's policy (budgets, approvers and tiers, the batch expiry) the
    /// Refunds pane previews against; the gate reads it again before sending.
    pub gate_policy: Arc<crate::domain::refund_gate::GatePolicy>,
}

pub use crate::app::pane_reads::Gap;

impl Workspace {
    pub fn new(data: AccountData, tickets: Vec<Ticket>) -> Self {
        Self {
            data: Arc::new(data),
            tickets: Arc::new(tickets),
            gaps: Arc::new(Vec::new()),
            history: None,
            bank: None,
            connected: None,
            gate_policy: Arc::new(crate::domain::refund_gate::GatePolicy::default()),
        }
    }

    /// The same, previewing refunds against `policy`.
    pub fn with_gate_policy(mut self, policy: crate::domain::refund_gate::GatePolicy) -> Self {
        self.gate_policy = Arc::new(policy);
        self
    }

    /// The same workspace, read from the connected account `account` (Connect).
    pub fn with_connected(mut self, account: Option<String>) -> Self {
        self.connected = account;
        self
    }

    /// The same, with the resources the read could not read.
    pub fn with_gaps(mut self, gaps: Vec<Gap>) -> Self {
        self.gaps = Arc::new(gaps);
        self
    }

    /// `self` (a fresh read with gaps) with each unread resource's tables taken from
    /// `older` (the data shown before), its gaps marked stale. Without gaps, or with
    /// nothing older to show, it is returned as it is.
    pub fn filled_from(self, older: &Workspace) -> Self {
        if self.gaps.is_empty() {
            return self;
        }
        let mut data = Arc::try_unwrap(self.data).unwrap_or_else(|shared| (*shared).clone());
        let mut old = (*older.data).clone();
        let mut gaps = (*self.gaps).clone();
        for g in &mut gaps {
            let tables = g.resource.tables();
            if tables.iter().all(|t| old.row_count(*t) == 0) {
                continue;
            }
            for t in tables {
                data.take_table(*t, &mut old);
            }
            if g.resource == crate::model::Resource::Payouts {
                data.meta.window_start = older.data.meta.window_start;
                data.meta.window_end = older.data.meta.window_end;
            }
            g.stale = true;
        }
        Workspace {
            data: Arc::new(data),
            tickets: self.tickets,
            gaps: Arc::new(gaps),
            history: self.history,
            bank: self.bank,
            connected: self.connected,
            gate_policy: self.gate_policy,
        }
    }

    /// The same workspace keeping the Worklist's run history in `history`.
    pub fn with_history(mut self, history: Option<crate::app::run_history::Session>) -> Self {
        self.history = history;
        self
    }

    /// The same workspace with bank statement lines (`None`: no statement).
    pub fn with_bank(mut self, lines: Option<Vec<crate::bank::BankLine>>) -> Self {
        self.bank = lines.map(Arc::new);
        self
    }
}

/// Where a load reads from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadKind {
    /// The bundled demo account.
    Demo,
    /// The local cache of the last sync (fast; opened first).
    Cache,
    /// Fresh from Stripe (the background refresh).
    Fresh,
    /// The cache again, whole, after a `tieout sync` elsewhere wrote a newer snapshot
    /// than the one on screen (the live refresh's `refresh`).
    Newer,
    /// Only these resources, fresh from Stripe: a pane's retry of what failed, merged
    /// into the data on screen (`Effect::Retry`).
    Retry(crate::model::Parts),
}

/// Why a load failed (the application's word for it: the message says what to do).
pub use crate::app::workbench::OpenError as LoadError;

/// The shell's view of the account load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoadState {
    /// Nothing asked yet.
    Idle,
    /// Waiting for the first data.
    Loading {
        req: RequestId,
        progress: Option<String>,
    },
    /// Data is shown (a refresh may still run: see `State::refreshing`).
    Loaded,
    /// The load failed and there is nothing to show: the message says what to do.
    Failed { message: String },
}

/// The tickets reader the workbench uses for `tickets.csv` text (the demo's, the tests').
pub use crate::app::tickets::parse_tickets_csv;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tickets_parse_and_bad_rows_are_named() {
        let t = parse_tickets_csv(
            "ticket_id,email,order_id,message\nT-1,a@b.c,ord_1,\"please, refund\"\n",
        )
        .expect("valid");
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].message, "please, refund");
        let e = parse_tickets_csv("ticket_id,email,order_id,message\nT-1,a@b.c\n")
            .expect_err("short row");
        assert!(e.contains("line 2"), "{e}");
        let t =
            parse_tickets_csv("ticket_id,email,order_id,message,amount\nT-2,a@b.c,ord_1,,49.00\n")
                .expect("with amount");
        assert_eq!(t[0].amount.as_deref(), Some("49.00"));
    }
}
