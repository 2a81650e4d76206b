//! Stripe Dashboard addresses of the ids tieout relies on, so an agent can open each piece
//! of evidence and check the reading: `https://dashboard.stripe.com[/acct_…][/test]/<page>/<id>`.
//! The `/test` segment for test mode, the connected account's id first when the account
//! was read with `--stripe-account` (Connect), and the page by the id's prefix:
//!
//! | prefix | page |
//! |---|---|
//! | `cus_` | `customers` |
//! | `ch_`, `py_`, `pi_` | `payments` |
//! | `re_`, `pyr_` | `refunds` |
//! | `dp_`, `du_` | `disputes` |
//! | `sub_` | `subscriptions` |
//! | `in_` | `invoices` |
//! | `po_` | `payouts` |
//!
//! Any other id has no address (`None`), and so has an id or account with characters an
//! id never has (nothing from outside is pasted into an address).

use super::Mode;

/// The Dashboard's origin.
pub const DASHBOARD: &str = "https://dashboard.stripe.com";

/// Where an account's objects open in the Dashboard: its mode and, for a connected
/// account, its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DashboardLinks {
    pub mode: Mode,
    /// The connected account (`acct_…`) the objects belong to, when read through Connect.
    pub connected: Option<String>,
}

fn page(id: &str) -> Option<&'static str> {
    let (prefix, rest) = id.split_once('_')?;
    if rest.is_empty() {
        return None;
    }
    Some(match prefix {
        "cus" => "customers",
        "ch" | "py" | "pi" => "payments",
        "re" | "pyr" => "refunds",
        "dp" | "du" => "disputes",
        "sub" => "subscriptions",
        "in" => "invoices",
        "po" => "payouts",
        _ => return None,
    })
}

fn id_like(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl DashboardLinks {
    pub fn new(mode: Mode, connected: Option<&str>) -> Self {
        DashboardLinks {
            mode,
            connected: connected
                .map(str::trim)
                .filter(|a| a.starts_with("acct_") && id_like(a))
                .map(str::to_string),
        }
    }

    /// The Dashboard address of `id`, or `None` for an id with no page.
    pub fn url(&self, id: &str) -> Option<String> {
        if !id_like(id) {
            return None;
        }
        let page = page(id)?;
        let mut out = String::from(DASHBOARD);
        if let Some(acct) = &self.connected {
            out.push('/');
            out.push_str(acct);
        }
        if self.mode == Mode::Test {
            out.push_str("/test");
        }
        out.push('/');
        out.push_str(page);
        out.push('/');
        out.push_str(id);
        Some(out)
    }

    /// The addresses of `ids`, in order, skipping ids without a page.
    pub fn urls<'a>(&self, ids: impl IntoIterator<Item = &'a String>) -> Vec<String> {
        ids.into_iter().filter_map(|id| self.url(id)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_evidence_prefix_opens_its_page() {
        let live = DashboardLinks::new(Mode::Live, None);
        let cases = [
            ("cus_1", "customers"),
            ("ch_1", "payments"),
            ("py_1", "payments"),
            ("pi_1", "payments"),
            ("re_1", "refunds"),
            ("pyr_1", "refunds"),
            ("dp_1", "disputes"),
            ("du_1", "disputes"),
            ("sub_1", "subscriptions"),
            ("in_1", "invoices"),
            ("po_1", "payouts"),
        ];
        for (id, page) in cases {
            assert_eq!(
                live.url(id).as_deref(),
                Some(format!("https://dashboard.stripe.com/{page}/{id}").as_str())
            );
        }
        for id in [
            "txn_1",
            "acct_1",
            "cus_",
            "nothing",
            "",
            "ch_1/../x",
            "ch_1?x=1",
        ] {
            assert_eq!(live.url(id), None, "{id}");
        }
    }

    #[test]
    fn test_mode_and_connected_accounts_have_their_segments() {
        let test = DashboardLinks::new(Mode::Test, None);
        assert_eq!(
            test.url("ch_3Abc").as_deref(),
            Some("https://dashboard.stripe.com/test/payments/ch_3Abc")
        );
        let connected = DashboardLinks::new(Mode::Test, Some("acct_1Conn"));
        assert_eq!(
            connected.url("re_9").as_deref(),
            Some("https://dashboard.stripe.com/acct_1Conn/test/refunds/re_9")
        );
        let live_connected = DashboardLinks::new(Mode::Live, Some(" acct_1Conn "));
        assert_eq!(
            live_connected.url("cus_9").as_deref(),
            Some("https://dashboard.stripe.com/acct_1Conn/customers/cus_9")
        );
        // Not an account id: no account segment rather than a broken address.
        let odd = DashboardLinks::new(Mode::Live, Some("acct_1/../x"));
        assert_eq!(odd.connected, None);
        assert_eq!(
            odd.urls(&[
                "cus_1".to_string(),
                "txn_2".to_string(),
                "sub_3".to_string()
            ]),
            [
                "https://dashboard.stripe.com/customers/cus_1",
                "https://dashboard.stripe.com/subscriptions/sub_3"
            ]
        );
    }
}
