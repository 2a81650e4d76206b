//! Who may approve a refund, and how much (README, "Approvers and tiers"): the gate
//! policy's `[approval]` section names the approvers (each with a role) and the tiers
//! (each role's upper amount per currency, minor units; no `up_to` means no limit), and
//! how long a batch preview stays valid. Also where a refund came from
//! ([`RefundSource`]) and the one-line note pasted into the ticket once it ran
//! ([`explain_note`]). Pure: the gate (`app::refund_exec`) and the batch
//! (`domain::refund_batch`) call it.
//!
//! A policy that names no approvers keeps the behaviour from before tiers: the OS user
//! approves, and no tier limits the amount (the daily budget still does).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::domain::refund_gate::{Refusal, Rule};
use crate::money::{Currency, format_major};

/// Minutes a batch preview stays valid when the policy does not say.
pub const DEFAULT_BATCH_EXPIRY_MINUTES: i64 = 15;

/// A person who may approve refunds, and the tier (role) whose limits apply to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Approver {
    pub name: String,
    pub role: String,
}

/// A role's upper amount per currency (minor units). `None`: no limit in any currency.
/// A currency the map does not name is refused for that role.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tier {
    pub role: String,
    pub up_to: Option<BTreeMap<Currency, i64>>,
}

/// The validated `[approval]` section.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalPolicy {
    pub approvers: Vec<Approver>,
    pub tiers: Vec<Tier>,
    pub batch_expiry_minutes: i64,
}

impl Default for ApprovalPolicy {
    /// No approvers named (the OS user approves, no tier applies), the shipped tiers
    /// ready for when they are: agent up to 100.00 USD/EUR, lead up to 500.00, finance
    /// without a limit; batches valid 15 minutes.
    fn default() -> Self {
        let up_to = |minor: i64| {
            Some(BTreeMap::from([
                (Currency::USD, minor),
                (Currency::EUR, minor),
            ]))
        };
        Self {
            approvers: Vec::new(),
            tiers: vec![
                Tier {
                    role: "agent".into(),
                    up_to: up_to(10_000),
                },
                Tier {
                    role: "lead".into(),
                    up_to: up_to(50_000),
                },
                Tier {
                    role: "finance".into(),
                    up_to: None,
                },
            ],
            batch_expiry_minutes: DEFAULT_BATCH_EXPIRY_MINUTES,
        }
    }
}

/// `[approval]` as written in the gate policy file; unknown keys are refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalFile {
    #[serde(default)]
    pub batch_expiry_minutes: Option<i64>,
    #[serde(default)]
    pub approvers: Option<Vec<ApproverFile>>,
    #[serde(default)]
    pub tiers: Option<Vec<TierFile>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApproverFile {
    pub name: String,
    pub role: String,
}

/// `up_to = { usd = 10000, eur = 10000 }` in minor units; left out: no limit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TierFile {
    pub role: String,
    #[serde(default)]
    pub up_to: Option<BTreeMap<String, i64>>,
}

impl ApprovalPolicy {
    /// The policy a parsed `[approval]` sets: what it leaves out keeps the default
    /// (tiers, expiry; no approvers).
    pub fn from_file(file: &ApprovalFile) -> Result<Self, String> {
        let mut out = Self::default();
        if let Some(m) = file.batch_expiry_minutes {
            if !(1..=24 * 60).contains(&m) {
                return Err(format!(
                    "approval.batch_expiry_minutes is {m}; it must be from 1 to 1440 (a day)"
                ));
            }
            out.batch_expiry_minutes = m;
        }
        if let Some(tiers) = &file.tiers {
            out.tiers = tiers.iter().map(tier_of).collect::<Result<_, _>>()?;
            for (i, t) in out.tiers.iter().enumerate() {
                if out.tiers[..i].iter().any(|u| u.role == t.role) {
                    return Err(format!("approval.tiers: role '{}' is listed twice", t.role));
                }
            }
        }
        if let Some(approvers) = &file.approvers {
            for a in approvers {
                let name = a.name.trim();
                if name.is_empty() || name.chars().count() > 60 || name.contains(['\n', '\r']) {
                    return Err(format!(
                        "approval.approvers: '{}' is not a name (1 to 60 characters, one line)",
                        a.name
                    ));
                }
                if out
                    .approvers
                    .iter()
                    .any(|b| b.name.eq_ignore_ascii_case(name))
                {
                    return Err(format!("approval.approvers: '{name}' is listed twice"));
                }
                if !out.tiers.iter().any(|t| t.role == a.role) {
                    return Err(format!(
                        "approval.approvers: {name}'s role '{}' has no tier; the tiers are {}",
                        a.role,
                        out.role_names()
                    ));
                }
                out.approvers.push(Approver {
                    name: name.to_string(),
                    role: a.role.clone(),
                });
            }
        }
        Ok(out)
    }

    /// Whether the policy names approvers (then one must be named for every refund).
    pub fn names_approvers(&self) -> bool {
        !self.approvers.is_empty()
    }

    fn role_names(&self) -> String {
        self.tiers
            .iter()
            .map(|t| t.role.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The approvers' names, comma-separated (for refusals and prompts).
    pub fn approver_names(&self) -> String {
        self.approvers
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Who signs a refund off: `name` when the policy names approvers (it must be one of
    /// them, case-insensitively), else the OS user with no tier.
    pub fn signoff(&self, name: Option<&str>, os_user: &str) -> Result<Signoff, Refusal> {
        let name = name.map(str::trim).filter(|n| !n.is_empty());
        if !self.names_approvers() {
            return match name {
                None => Ok(Signoff {
                    approver: os_user.to_string(),
                    tier: None,
                }),
                Some(n) => Err(Refusal::new(
                    Rule::ApproverUnknown,
                    format!(
                        "the gate policy names no approvers, so '{n}' cannot be one: leave the \
                         approver out (the OS user approves) or add [approval] approvers"
                    ),
                )),
            };
        }
        let Some(n) = name else {
            return Err(Refusal::new(
                Rule::ApproverUnknown,
                format!(
                    "name who approves: one of {} (the gate policy's approvers)",
                    self.approver_names()
                ),
            ));
        };
        match self
            .approvers
            .iter()
            .find(|a| a.name.eq_ignore_ascii_case(n))
        {
            Some(a) => Ok(Signoff {
                approver: a.name.clone(),
                tier: Some(a.role.clone()),
            }),
            None => Err(Refusal::new(
                Rule::ApproverUnknown,
                format!(
                    "unknown approver '{n}'; the approvers are {}",
                    self.approver_names()
                ),
            )),
        }
    }

    /// Ok when `s` may approve `amount` of `currency`: a known approver (when the policy
    /// names any) within their tier's upper amount.
    pub fn check(&self, s: &Signoff, amount: i64, currency: Currency) -> Result<(), Refusal> {
        if !self.names_approvers() {
            return Ok(());
        }
        let known = self
            .approvers
            .iter()
            .find(|a| a.name == s.approver && Some(&a.role) == s.tier.as_ref());
        let Some(who) = known else {
            return Err(Refusal::new(
                Rule::ApproverUnknown,
                format!(
                    "'{}' is not an approver in the gate policy; the approvers are {}",
                    s.approver,
                    self.approver_names()
                ),
            ));
        };
        let Some(tier) = self.tiers.iter().find(|t| t.role == who.role) else {
            return Err(Refusal::new(
                Rule::OverTier,
                format!("{}'s role '{}' has no tier", who.name, who.role),
            ));
        };
        let Some(limits) = &tier.up_to else {
            return Ok(());
        };
        let cur = currency.upper();
        let Some(&limit) = limits.get(&currency) else {
            return Err(Refusal::new(
                Rule::OverTier,
                format!(
                    "tier {} has no upper amount in {cur}, so {} cannot approve {cur} refunds: \
                     a higher tier must",
                    tier.role, who.name
                ),
            ));
        };
        if amount > limit {
            return Err(Refusal::new(
                Rule::OverTier,
                format!(
                    "{} {cur} is above tier {} ({} approves up to {} {cur}): a higher tier must \
                     approve it",
                    format_major(amount, currency),
                    tier.role,
                    who.name,
                    format_major(limit, currency)
                ),
            ));
        }
        Ok(())
    }
}

fn tier_of(t: &TierFile) -> Result<Tier, String> {
    let role = t.role.trim();
    if role.is_empty()
        || role.len() > 40
        || !role
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "approval.tiers: role '{}' must be 1 to 40 characters of a-z, 0-9, '-' or '_'",
            t.role
        ));
    }
    let up_to = match &t.up_to {
        None => None,
        Some(map) => {
            let mut out = BTreeMap::new();
            for (code, &minor) in map {
                let cur = Currency::parse(code).map_err(|e| {
                    format!("approval.tiers ({role}): '{code}' is not a currency ({e})")
                })?;
                if minor < 0 {
                    return Err(format!(
                        "approval.tiers ({role}): up_to.{code} is {minor}; an upper amount cannot be negative"
                    ));
                }
                out.insert(cur, minor);
            }
            Some(out)
        }
    };
    Ok(Tier {
        role: role.to_string(),
        up_to,
    })
}

/// Who approved a refund and under which tier (`None`: no approvers in the policy, the
/// OS user approved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signoff {
    pub approver: String,
    pub tier: Option<String>,
}

impl Signoff {
    /// `Ana (agent)`, or just the name without a tier.
    pub fn label(&self) -> String {
        match &self.tier {
            Some(t) => format!("{} ({t})", self.approver),
            None => self.approver.clone(),
        }
    }
}

/// Where a refund came from: a support ticket or an early fraud warning.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", content = "id", rename_all = "snake_case")]
pub enum RefundSource {
    Ticket(String),
    FraudWarning(String),
}

impl RefundSource {
    /// The source of a proposal's key: an `issfr_` id is a fraud warning, anything else
    /// a ticket (a proposal's `ticket` is the key the audit log and the queue use).
    pub fn of_key(key: &str) -> Self {
        if key.starts_with("issfr_") {
            RefundSource::FraudWarning(key.to_string())
        } else {
            RefundSource::Ticket(key.to_string())
        }
    }

    /// The id alone (`T-123`, `issfr_…`).
    pub fn id(&self) -> &str {
        match self {
            RefundSource::Ticket(id) | RefundSource::FraudWarning(id) => id,
        }
    }

    /// `ticket:T-123` or `fraud_warning:issfr_…`: the refund's `metadata[tieout_source]`.
    pub fn tag(&self) -> String {
        match self {
            RefundSource::Ticket(id) => format!("ticket:{id}"),
            RefundSource::FraudWarning(id) => format!("fraud_warning:{id}"),
        }
    }
}

/// The note to paste into the ticket once a refund ran:
/// `Refunded 79.00 USD on ch_… (re_…), rule first-purchase-window, approved by Ana (agent).`
pub fn explain_note(
    amount: i64,
    currency: Currency,
    charge: &str,
    refund_id: &str,
    rule: &str,
    approved_by: &Signoff,
) -> String {
    format!(
        "Refunded {} {} on {charge} ({refund_id}), rule {rule}, approved by {}.",
        format_major(amount, currency),
        currency.upper(),
        approved_by.label()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ApprovalPolicy {
        let file: ApprovalFile = toml::from_str(
            "batch_expiry_minutes = 10\n\
             approvers = [{ name = \"Ana\", role = \"agent\" }, { name = \"Bo\", role = \"lead\" }, { name = \"Cy\", role = \"finance\" }]\n",
        )
        .expect("toml");
        ApprovalPolicy::from_file(&file).expect("valid")
    }

    #[test]
    fn no_approvers_keeps_the_os_user_and_no_tier() {
        let p = ApprovalPolicy::default();
        let s = p.signoff(None, "ops").expect("os user");
        assert_eq!(
            s,
            Signoff {
                approver: "ops".into(),
                tier: None
            }
        );
        assert_eq!(p.check(&s, 10_000_000, Currency::USD), Ok(()));
        let e = p.signoff(Some("Ana"), "ops").expect_err("no approvers");
        assert_eq!(e.rule, Rule::ApproverUnknown);
        assert_eq!(p.batch_expiry_minutes, 15);
    }

    #[test]
    fn approvers_must_be_known_and_within_their_tier() {
        let p = policy();
        assert_eq!(p.batch_expiry_minutes, 10);
        let e = p.signoff(Some("Zed"), "ops").expect_err("unknown");
        assert_eq!(e.rule, Rule::ApproverUnknown);
        assert!(e.reason.contains("Ana, Bo, Cy"), "{}", e.reason);
        assert!(p.signoff(None, "ops").is_err());
        let ana = p.signoff(Some("ana"), "ops").expect("known");
        assert_eq!(ana.label(), "Ana (agent)");
        assert_eq!(p.check(&ana, 10_000, Currency::USD), Ok(()));
        let e = p.check(&ana, 10_010, Currency::USD).expect_err("over");
        assert_eq!(e.rule, Rule::OverTier);
        assert!(
            e.reason.contains("tier agent") && e.reason.contains("100.00 USD"),
            "{}",
            e.reason
        );
        let jpy = Currency::parse("jpy").expect("jpy");
        assert_eq!(
            p.check(&ana, 100, jpy).map_err(|e| e.rule),
            Err(Rule::OverTier)
        );
        let cy = p.signoff(Some("Cy"), "ops").expect("known");
        assert_eq!(p.check(&cy, 10_000_000, jpy), Ok(()));
        let forged = Signoff {
            approver: "Ana".into(),
            tier: Some("finance".into()),
        };
        assert_eq!(
            p.check(&forged, 1, Currency::USD).map_err(|e| e.rule),
            Err(Rule::ApproverUnknown)
        );
    }

    #[test]
    fn bad_sections_say_what_is_wrong() {
        let bad = |text: &str| {
            let file: ApprovalFile = toml::from_str(text).expect("toml");
            ApprovalPolicy::from_file(&file).expect_err("refused")
        };
        assert!(bad("batch_expiry_minutes = 0").contains("1 to 1440"));
        assert!(
            bad("approvers = [{ name = \"A\", role = \"boss\" }]")
                .contains("role 'boss' has no tier")
        );
        assert!(bad("tiers = [{ role = \"a\", up_to = { usd = -1 } }]").contains("negative"));
        assert!(
            bad("tiers = [{ role = \"a\", up_to = { dollars = 1 } }]").contains("not a currency")
        );
        assert!(toml::from_str::<ApprovalFile>("approver = []").is_err());
    }

    #[test]
    fn sources_and_notes() {
        assert_eq!(RefundSource::of_key("T-1").tag(), "ticket:T-1");
        assert_eq!(
            RefundSource::of_key("issfr_1").tag(),
            "fraud_warning:issfr_1"
        );
        let s = Signoff {
            approver: "Ana".into(),
            tier: Some("agent".into()),
        };
        assert_eq!(
            explain_note(
                7_900,
                Currency::USD,
                "ch_1",
                "re_1",
                "first-purchase-window",
                &s
            ),
            "Refunded 79.00 USD on ch_1 (re_1), rule first-purchase-window, approved by Ana (agent)."
        );
    }
}
