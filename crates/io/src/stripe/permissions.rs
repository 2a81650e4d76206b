//! The restricted-key permissions tieout reads with (RULES.md, "Stripe facts"): what `login`
//! asks the user to grant, and how a 403's `rak_...` slug maps to the Dashboard's rows.
//! The permission of each resource a sync reads, and its Dashboard row, come from that
//! resource's declaration (`tieout_core::model::Resource`); the others are declared here.

use tieout_core::model::Resource;

/// One permission of a restricted key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Permission {
    /// The slug Stripe names in a 403 (`rak_payout_read`).
    pub slug: &'static str,
    /// The row in the Dashboard's restricted-key editor (set it to Read).
    pub resource: &'static str,
    /// What tieout reads with it.
    pub used_for: &'static str,
    /// Needed by tieout (false: only in some setups or for optional extras).
    pub required: bool,
    /// The list tieout reads with it, asked with `limit=1` to check the key has it
    /// (`tieout status`); `None` when tieout makes no read of its own with it (Stripe
    /// checks it inside another read, or it is for an optional extra).
    pub probe: Option<&'static str>,
}

/// Every permission tieout knows of; the `required` ones are what it needs.
pub const PERMISSIONS: &[Permission] = &[
    Permission {
        slug: "rak_balance_read",
        resource: "Balance",
        used_for: "the balance and its transactions (tie-out, balance roll-forward); the key check at login",
        required: true,
        probe: Some("/v1/balance_transactions"),
    },
    Permission {
        slug: Resource::Payouts.permission(),
        resource: Resource::Payouts.dashboard_row(),
        used_for: "payouts (tie-out)",
        required: true,
        probe: Some(Resource::Payouts.list_path()),
    },
    Permission {
        slug: Resource::Invoices.permission(),
        resource: Resource::Invoices.dashboard_row(),
        used_for: "open invoices and their payment attempts (worklist)",
        required: true,
        probe: Some(Resource::Invoices.list_path()),
    },
    Permission {
        slug: "rak_payment_intent_read",
        resource: "PaymentIntents",
        used_for: "decline reasons of failed payments (worklist)",
        required: true,
        probe: Some("/v1/payment_intents"),
    },
    Permission {
        slug: Resource::Charges.permission(),
        resource: Resource::Charges.dashboard_row(),
        used_for: "charges and their refunds (refund suggestions, drill-down)",
        required: true,
        probe: Some(Resource::Charges.list_path()),
    },
    Permission {
        slug: Resource::Customers.permission(),
        resource: Resource::Customers.dashboard_row(),
        used_for: "customers by email (worklist, refund suggestions)",
        required: true,
        probe: Some(Resource::Customers.list_path()),
    },
    Permission {
        slug: Resource::Disputes.permission(),
        resource: Resource::Disputes.dashboard_row(),
        used_for: "disputes (refund suggestions, tie-out drill-down)",
        required: true,
        probe: Some(Resource::Disputes.list_path()),
    },
    Permission {
        slug: Resource::Subscriptions.permission(),
        resource: Resource::Subscriptions.dashboard_row(),
        used_for: "subscriptions and their periods (worklist, annual prorating)",
        required: true,
        probe: Some(Resource::Subscriptions.list_path()),
    },
    Permission {
        slug: "rak_plan_read",
        resource: "Prices",
        used_for: "billing intervals of subscriptions",
        required: true,
        probe: None,
    },
    Permission {
        slug: "rak_refund_read",
        resource: "Refunds",
        used_for: "refunds, where the Dashboard lists them apart from Charges",
        required: false,
        probe: Some("/v1/refunds"),
    },
    Permission {
        slug: Resource::PaymentMethods.permission(),
        resource: Resource::PaymentMethods.dashboard_row(),
        used_for: "cards that expire before a subscription renews (dunning; without it that section says so)",
        required: false,
        probe: Some("/v1/payment_methods"),
    },
    Permission {
        slug: Resource::FraudWarnings.permission(),
        resource: Resource::FraudWarnings.dashboard_row(),
        used_for: "early fraud warnings (the fraud warnings queue; without it the queue says so)",
        required: false,
        probe: Some(Resource::FraudWarnings.list_path()),
    },
    Permission {
        slug: "rak_product_read",
        resource: "Products",
        used_for: "product names (optional)",
        required: false,
        probe: None,
    },
    Permission {
        slug: "rak_balance_transaction_source_read",
        resource: "Balance transaction sources",
        used_for: "expanding a balance transaction's source (optional)",
        required: false,
        probe: None,
    },
    Permission {
        slug: "rak_connected_account_read",
        resource: "Connected accounts",
        used_for: "reading the account's name (optional)",
        required: false,
        probe: None,
    },
];

/// The Dashboard row a `rak_*` slug belongs to.
pub fn resource_of(slug: &str) -> Option<&'static str> {
    PERMISSIONS
        .iter()
        .find(|p| p.slug == slug)
        .map(|p| p.resource)
}

/// The lines `tieout login` prints: what to grant, one per line.
pub fn needed_lines() -> Vec<String> {
    let mut lines: Vec<String> = PERMISSIONS
        .iter()
        .filter(|p| p.required)
        .map(|p| format!("  {:<24} {:<15} {}", p.slug, p.resource, p.used_for))
        .collect();
    let optional: Vec<&str> = PERMISSIONS
        .iter()
        .filter(|p| !p.required)
        .map(|p| p.slug)
        .collect();
    lines.push(format!("  optional: {}", optional.join(", ")));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_required_set_matches_the_notes() {
        let required: Vec<&str> = PERMISSIONS
            .iter()
            .filter(|p| p.required)
            .map(|p| p.slug)
            .collect();
        assert_eq!(
            required,
            [
                "rak_balance_read",
                "rak_payout_read",
                "rak_invoice_read",
                "rak_payment_intent_read",
                "rak_charge_read",
                "rak_customer_read",
                "rak_dispute_read",
                "rak_subscription_read",
                "rak_plan_read",
            ]
        );
        for p in PERMISSIONS {
            assert!(
                p.slug.starts_with("rak_") && p.slug.ends_with("_read"),
                "{}",
                p.slug
            );
        }
        assert_eq!(resource_of("rak_plan_read"), Some("Prices"));
        assert_eq!(
            resource_of("rak_payment_method_read"),
            Some("PaymentMethods")
        );
        assert_eq!(resource_of("rak_unknown_read"), None);
        let lines = needed_lines();
        let optional = lines.last().cloned().unwrap_or_default();
        assert!(optional.contains("rak_payment_method_read"), "{optional}");
        assert_eq!(lines.len(), required.len() + 1);
        assert!(lines[1].contains("rak_payout_read") && lines[1].contains("Payouts"));
    }

    #[test]
    fn each_resource_is_read_with_a_listed_permission_on_its_dashboard_row() {
        // The slugs the resources declare, as Stripe names them in a 403.
        assert_eq!(
            Resource::ALL.map(Resource::permission),
            [
                "rak_payout_read",
                "rak_invoice_read",
                "rak_customer_read",
                "rak_charge_read",
                "rak_charge_read",
                "rak_dispute_read",
                "rak_subscription_read",
                "rak_payment_method_read",
                "rak_radar_early_fraud_warning_read",
            ]
        );
        for r in Resource::ALL {
            let listed: Vec<&Permission> = PERMISSIONS
                .iter()
                .filter(|p| p.slug == r.permission())
                .collect();
            assert_eq!(listed.len(), 1, "{r}: {listed:?}");
            assert_eq!(listed[0].resource, r.dashboard_row(), "{r}");
            assert_eq!(resource_of(r.permission()), Some(r.dashboard_row()));
        }
        // The permission of a resource with a list of its own is checked on that list.
        for r in [
            Resource::Payouts,
            Resource::Invoices,
            Resource::Customers,
            Resource::Charges,
            Resource::Disputes,
            Resource::Subscriptions,
            Resource::FraudWarnings,
        ] {
            assert_eq!(
                PERMISSIONS
                    .iter()
                    .find(|p| p.slug == r.permission())
                    .and_then(|p| p.probe),
                Some(r.list_path()),
                "{r}"
            );
        }
        let mut slugs: Vec<&str> = PERMISSIONS.iter().map(|p| p.slug).collect();
        slugs.sort_unstable();
        slugs.dedup();
        assert_eq!(slugs.len(), PERMISSIONS.len());
    }
}
