//! The product's [`Loader`]: the TUI's loads as calls to the application's
//! [`Workbench`] (the same loaders, client and readers as the headless commands), its
//! answers turned into the panes' [`Workspace`].

use std::sync::Arc;

use super::effects::{LoadEnd, Loader};
use crate::app::refund_exec::GateSession;
use crate::app::workbench::{OnDisk, OpenError, OpenFrom, Opened, Workbench};
use crate::model::AccountData;
use crate::model::{AccountIdent, Parts};
use crate::time::Month;
use crate::tui::workspace::{LoadError, LoadKind, Workspace};

impl From<Opened> for Workspace {
    fn from(o: Opened) -> Self {
        Workspace::new(o.data, o.tickets)
            .with_gaps(o.gaps)
            .with_history(o.history)
            .with_bank(o.bank)
            .with_connected(o.connected)
            // A broken policy file: the default is previewed, and the gate says what is
            // wrong when asked to send.
            .with_gate_policy(crate::app::refund_exec::load_policy().unwrap_or_default())
    }
}

impl Loader for Workbench {
    fn load(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError> {
        let from = match kind {
            LoadKind::Demo => OpenFrom::Demo,
            LoadKind::Cache | LoadKind::Newer => OpenFrom::Cache,
            LoadKind::Fresh => OpenFrom::Fresh,
            // Its own effect (it needs the account on screen): see `retry`.
            LoadKind::Retry(parts) => {
                return Err(OpenError::new(format!(
                    "internal: a retry of {parts:?} came as a whole load"
                )));
            }
        };
        self.open(from, progress).map(Workspace::from)
    }

    fn load_in_parts(
        &self,
        kind: LoadKind,
        progress: &(dyn Fn(String) + Send + Sync),
        first: &dyn Fn(Workspace),
    ) -> Result<LoadEnd, LoadError> {
        match kind {
            LoadKind::Cache => self
                .open_cache_in_parts(&|part| first(Workspace::from(part)))
                .map(LoadEnd::Rest),
            _ => self.load(kind, progress).map(LoadEnd::Whole),
        }
    }

    fn retry(
        &self,
        parts: Parts,
        account: &AccountIdent,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<Workspace, LoadError> {
        self.read_again(parts, account, progress)
            .map(Workspace::from)
    }

    fn load_month(
        &self,
        month: Month,
        progress: &(dyn Fn(String) + Send + Sync),
    ) -> Result<AccountData, String> {
        self.read_month(month, progress)
    }

    fn refund_gate(&self) -> Result<GateSession, String> {
        Workbench::refund_gate(self)
    }

    fn on_disk(&self) -> Option<OnDisk> {
        Workbench::on_disk(self)
    }
}

/// The demo account as the workbench shows it (the screenshots use this too).
pub fn demo_workspace(workbench: &Workbench) -> Result<Workspace, LoadError> {
    workbench.open(OpenFrom::Demo, &|_| {}).map(Workspace::from)
}

/// The workbench as a shared loader for [`super::run`].
pub fn loader(workbench: Workbench) -> Arc<dyn Loader> {
    Arc::new(workbench)
}
