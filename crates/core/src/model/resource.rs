//! What a read of the account is made of, in one vocabulary for every floor: the eight
//! [`Resource`]s a sync reads, each declared once here with its label, the [`Table`]s it
//! fills, the list a sync reads it from, the restricted-key permission Stripe checks for
//! that list and the Dashboard row that grants it; [`Parts`], the set of resources one
//! read makes; and [`AccountIdent`], the account a key reads. The IO crate reads these,
//! its permission table takes the resources' slugs from here, and the panes mark what
//! they could not read by [`Resource`].

use super::{SnapshotMeta, Table};
use crate::money::Currency;

/// Declares the resources once: for each, its [`Resource`] variant, its [`Parts`] field and
/// what it is. From this one list come [`Resource`], [`Resource::ALL`], its accessors,
/// [`Parts`] with one `bool` a resource, and [`Parts::all`]. A new resource is one entry
/// here, its read in the IO crate's `source::sync` (an exhaustive `match` there) and,
/// when Stripe checks a permission of its own for it, nothing else: the permission table
/// and the panes' marks take the slug and the Dashboard row from here.
macro_rules! resources {
    ($(
        $(#[$doc:meta])*
        $variant:ident => $field:ident {
            label: $label:literal,
            tables: [$($table:ident),+ $(,)?],
            list: $list:literal,
            permission: $slug:literal,
            dashboard: $row:literal $(,)?
        },
    )*) => {
        /// One resource a sync reads, with the tables it fills.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Resource {
            $($(#[$doc])* $variant,)*
        }

        impl Resource {
            /// Every resource, in the order a read reports them.
            pub const ALL: [Resource; Resource::COUNT] = [$(Resource::$variant,)*];
            /// How many resources there are.
            pub const COUNT: usize = [$(stringify!($variant),)*].len();

            /// In words, for messages (`disputes`).
            pub const fn label(self) -> &'static str {
                match self {
                    $(Resource::$variant => $label,)*
                }
            }

            /// The tables it fills (each table is filled by exactly one resource).
            pub const fn tables(self) -> &'static [Table] {
                match self {
                    $(Resource::$variant => &[$(Table::$table,)+],)*
                }
            }

            /// The list a sync reads it from (`/v1/payouts`), before any fan-out.
            pub const fn list_path(self) -> &'static str {
                match self {
                    $(Resource::$variant => $list,)*
                }
            }

            /// The restricted-key permission Stripe checks for that list
            /// (`rak_payout_read`), the one a 403 names when the key lacks it.
            pub const fn permission(self) -> &'static str {
                match self {
                    $(Resource::$variant => $slug,)*
                }
            }

            /// The row of the Dashboard's restricted-key editor that grants
            /// [`Resource::permission`] (set it to Read).
            pub const fn dashboard_row(self) -> &'static str {
                match self {
                    $(Resource::$variant => $row,)*
                }
            }
        }

        /// Which resources one read makes: one flag a [`Resource`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
        pub struct Parts {
            $($(#[$doc])* pub $field: bool,)*
        }

        impl Parts {
            /// Every resource.
            pub fn all() -> Self {
                Self {
                    $($field: true,)*
                }
            }

            fn flag(&mut self, r: Resource) -> &mut bool {
                match r {
                    $(Resource::$variant => &mut self.$field,)*
                }
            }
        }
    };
}

resources! {
    /// Payouts in the window and their lines, and Stripe's balance (`GET /v1/balance`, read
    /// with the lines' Balance permission).
    Payouts => payouts {
        label: "payouts",
        tables: [Payouts, BalanceTransactions],
        list: "/v1/payouts",
        permission: "rak_payout_read",
        dashboard: "Payouts",
    },
    /// Open and uncollectible invoices, their payments and failing payment intents.
    Invoices => invoices {
        label: "invoices",
        tables: [Invoices, InvoicePayments, PaymentIntents],
        list: "/v1/invoices",
        permission: "rak_invoice_read",
        dashboard: "Invoices",
    },
    Customers => customers {
        label: "customers",
        tables: [Customers],
        list: "/v1/customers",
        permission: "rak_customer_read",
        dashboard: "Customers",
    },
    Charges => charges {
        label: "charges",
        tables: [Charges],
        list: "/v1/charges",
        permission: "rak_charge_read",
        dashboard: "Charges",
    },
    /// Refunds. Stripe checks their list against the charges' permission (the
    /// Dashboard's separate Refunds row, `rak_refund_read`, is an optional extra).
    Refunds => refunds {
        label: "refunds",
        tables: [Refunds],
        list: "/v1/refunds",
        permission: "rak_charge_read",
        dashboard: "Charges",
    },
    Disputes => disputes {
        label: "disputes",
        tables: [Disputes],
        list: "/v1/disputes",
        permission: "rak_dispute_read",
        dashboard: "Disputes",
    },
    Subscriptions => subscriptions {
        label: "subscriptions",
        tables: [Subscriptions],
        list: "/v1/subscriptions",
        permission: "rak_subscription_read",
        dashboard: "Subscriptions",
    },
    /// The active subscriptions with their payment methods expanded (the card check):
    /// read from the subscriptions' list, refused without the payment methods' permission.
    PaymentMethods => payment_methods {
        label: "payment methods",
        tables: [RenewalMethods],
        list: "/v1/subscriptions",
        permission: "rak_payment_method_read",
        dashboard: "PaymentMethods",
    },
    /// The early fraud warnings since the charges' start (Radar): a key without Radar's
    /// read is recorded (`SnapshotMeta::fraud_warnings`), never a failed read.
    FraudWarnings => fraud_warnings {
        label: "early fraud warnings",
        tables: [FraudWarnings],
        list: "/v1/radar/early_fraud_warnings",
        permission: "rak_radar_early_fraud_warning_read",
        dashboard: "Radar: Early fraud warnings",
    },
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

impl Parts {
    /// Nothing (every part off).
    pub fn none() -> Self {
        Self::default()
    }

    /// Just the resources `rs` (a retry of those the workbench could not read).
    pub fn of(rs: impl IntoIterator<Item = Resource>) -> Self {
        let mut p = Self::none();
        for r in rs {
            *p.flag(r) = true;
        }
        p
    }

    /// Whether `r` is read.
    pub fn has(mut self, r: Resource) -> bool {
        *self.flag(r)
    }

    /// The resources read, in [`Resource::ALL`] order.
    pub fn resources(self) -> Vec<Resource> {
        Resource::ALL.into_iter().filter(|r| self.has(*r)).collect()
    }
}

/// The account a key reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccountIdent {
    pub id: String,
    pub name: Option<String>,
    /// The account's default currency (absent when the key may not read the account).
    pub default_currency: Option<Currency>,
}

impl AccountIdent {
    /// The account `meta` was read from, as a read names it.
    pub fn of(meta: &SnapshotMeta) -> Self {
        AccountIdent {
            id: meta.account_id.clone(),
            name: meta.account_name.clone(),
            default_currency: meta.default_currency,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_is_filled_by_exactly_one_resource_as_today() {
        for t in Table::ALL {
            let by: Vec<Resource> = Resource::ALL
                .into_iter()
                .filter(|r| r.tables().contains(&t))
                .collect();
            assert_eq!(by.len(), 1, "{t} is filled by {by:?}");
        }
        let filled: usize = Resource::ALL.iter().map(|r| r.tables().len()).sum();
        assert_eq!(filled, Table::COUNT);
        let map: Vec<(&str, Vec<&str>)> = Resource::ALL
            .iter()
            .map(|r| (r.label(), r.tables().iter().map(|t| t.name()).collect()))
            .collect();
        assert_eq!(
            map,
            [
                ("payouts", vec!["payouts", "balance_transactions"]),
                (
                    "invoices",
                    vec!["invoices", "invoice_payments", "payment_intents"]
                ),
                ("customers", vec!["customers"]),
                ("charges", vec!["charges"]),
                ("refunds", vec!["refunds"]),
                ("disputes", vec!["disputes"]),
                ("subscriptions", vec!["subscriptions"]),
                ("payment methods", vec!["renewal_methods"]),
                ("early fraud warnings", vec!["fraud_warnings"]),
            ]
        );
    }

    #[test]
    fn resources_declare_their_list_and_the_permission_it_needs() {
        for r in Resource::ALL {
            assert!(r.list_path().starts_with("/v1/"), "{r}");
            let slug = r.permission();
            assert!(
                slug.starts_with("rak_") && slug.ends_with("_read"),
                "{slug}"
            );
            assert!(!r.dashboard_row().is_empty(), "{r}");
        }
        // A refund is read with the charges' permission, as Stripe checks it.
        assert_eq!(
            Resource::Refunds.permission(),
            Resource::Charges.permission()
        );
        assert_eq!(Resource::PaymentMethods.dashboard_row(), "PaymentMethods");
        assert_eq!(Resource::Disputes.to_string(), "disputes");
    }

    #[test]
    fn parts_name_the_resources_they_read() {
        assert_eq!(Parts::all().resources(), Resource::ALL.to_vec());
        assert!(Parts::none().resources().is_empty());
        assert_eq!(Parts::none(), Parts::default());
        for r in Resource::ALL {
            let one = Parts::of([r]);
            assert_eq!(one.resources(), vec![r]);
            assert!(one.has(r) && Parts::all().has(r) && !Parts::none().has(r));
        }
        let two = Parts::of([Resource::Disputes, Resource::Payouts]);
        assert!(two.payouts && two.disputes && !two.charges);
        assert_eq!(two.resources(), [Resource::Payouts, Resource::Disputes]);
    }
}
