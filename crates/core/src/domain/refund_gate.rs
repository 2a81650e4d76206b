//! The approval gate in front of refund execution, pure: the frozen proposal, the
//! approval bound to it by a hash, the policy (allowed currencies, daily budgets) and the
//! checks run on freshly re-read Stripe data just before `POST /v1/refunds`
//! (RULES.md, "Refund execution"). No IO here; the root package's `app::refund_exec` does the calls.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::refund_approval::{ApprovalFile, ApprovalPolicy};
use crate::money::{Currency, format_major, parse_major};

/// Reasons Stripe accepts on `POST /v1/refunds`.
pub const STRIPE_REASONS: [&str; 3] = ["duplicate", "fraudulent", "requested_by_customer"];

/// What the operator is asked to approve, frozen: nothing in it may change after approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub ticket: String,
    pub charge: String,
    /// Minor units of `currency`.
    pub amount: i64,
    pub currency: Currency,
    /// Stripe's refund reason (`requested_by_customer`, `duplicate`, `fraudulent`).
    pub reason: String,
    /// Ids of what supports the refund (ticket, charge, invoice, ...).
    pub evidence: Vec<String>,
    /// The suggestion rule that proposed it.
    pub rule: String,
}

impl Proposal {
    /// SHA-256 (hex) over every field, each length-prefixed so no two different
    /// proposals can share the text that is hashed.
    pub fn digest(&self) -> String {
        let mut h = Sha256::new();
        let mut field = |name: &str, value: &str| {
            h.update(name.as_bytes());
            h.update((value.len() as u64).to_be_bytes());
            h.update(value.as_bytes());
        };
        field("ticket", &self.ticket);
        field("charge", &self.charge);
        field("amount", &self.amount.to_string());
        field("currency", self.currency.as_str());
        field("reason", &self.reason);
        field("evidence_count", &self.evidence.len().to_string());
        for e in &self.evidence {
            field("evidence", e);
        }
        field("rule", &self.rule);
        hex::encode(h.finalize())
    }

    /// The `Idempotency-Key` for the refund call: derived from the ticket and the approved
    /// arguments, so a retry or a second press sends the same key and Stripe refunds once.
    pub fn idempotency_key(&self) -> String {
        let ticket: String = self
            .ticket
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .take(40)
            .collect();
        format!("tieout-refund-{ticket}-{}", &self.digest()[..32])
    }

    /// `20.00 USD`.
    pub fn amount_display(&self) -> String {
        format!(
            "{} {}",
            format_major(self.amount, self.currency),
            self.currency.upper()
        )
    }
}

/// An operator's approval, bound to one proposal by its digest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    pub digest: String,
    pub approved_by: String,
    pub approved_at: i64,
}

impl Approval {
    pub fn new(proposal: &Proposal, approved_by: &str, approved_at: i64) -> Self {
        Self {
            digest: proposal.digest(),
            approved_by: approved_by.to_string(),
            approved_at,
        }
    }

    /// Ok when the approval is for exactly these arguments; any change voids it.
    pub fn covers(&self, proposal: &Proposal) -> Result<(), Refusal> {
        if self.digest == proposal.digest() {
            Ok(())
        } else {
            Err(Refusal::new(
                Rule::ApprovalVoid,
                "the approval was given for different arguments (ticket, charge, amount, \
                 currency, reason, evidence or rule changed): review the new preview and \
                 approve it again",
            ))
        }
    }
}

/// The gate's rules, each with a stable id (shown in refusals and the audit log).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    ApprovalVoid,
    AmountPositive,
    AmountStep,
    AmountRemaining,
    ChargeDisputed,
    ChargeNotCaptured,
    CurrencyMismatch,
    CurrencyAllowed,
    NoBudget,
    DailyBudget,
    ReasonValid,
    KeyNotTest,
    WriterDisabled,
    /// The approver is not one the gate policy names (or none was named).
    ApproverUnknown,
    /// The amount is above the approver's tier.
    OverTier,
    /// The batch preview is older than the policy's `batch_expiry_minutes`.
    BatchExpired,
}

impl Rule {
    pub fn id(self) -> &'static str {
        match self {
            Rule::ApprovalVoid => "approval_void",
            Rule::AmountPositive => "amount_positive",
            Rule::AmountStep => "amount_step",
            Rule::AmountRemaining => "amount_remaining",
            Rule::ChargeDisputed => "charge_disputed",
            Rule::ChargeNotCaptured => "charge_not_captured",
            Rule::CurrencyMismatch => "currency_mismatch",
            Rule::CurrencyAllowed => "currency_allowed",
            Rule::NoBudget => "no_budget",
            Rule::DailyBudget => "daily_budget",
            Rule::ReasonValid => "reason_valid",
            Rule::KeyNotTest => "key_not_test",
            Rule::WriterDisabled => "writer_disabled",
            Rule::ApproverUnknown => "approver_unknown",
            Rule::OverTier => "over_tier",
            Rule::BatchExpired => "batch_expired",
        }
    }
}

/// A refusal: which rule and why, in words an operator can act on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refusal {
    pub rule: Rule,
    pub reason: String,
}

impl Refusal {
    pub fn new(rule: Rule, reason: impl Into<String>) -> Self {
        Self {
            rule,
            reason: reason.into(),
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "refused by rule {}: {}", self.rule.id(), self.reason)
    }
}

/// Allowed currencies, the daily budget per currency (minor units), and who may approve
/// how much ([`ApprovalPolicy`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatePolicy {
    pub allowed: Vec<Currency>,
    pub daily_budget: BTreeMap<Currency, i64>,
    pub approval: ApprovalPolicy,
}

impl Default for GatePolicy {
    /// USD only, 500.00 USD a day.
    fn default() -> Self {
        Self {
            allowed: vec![Currency::USD],
            daily_budget: BTreeMap::from([(Currency::USD, 50_000)]),
            approval: ApprovalPolicy::default(),
        }
    }
}

/// The gate policy's file as written (see [`GatePolicy::from_toml`]); unknown keys are
/// refused.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatePolicyFile {
    #[serde(default)]
    pub allowed_currencies: Option<Vec<String>>,
    /// Major units as text: `usd = "500.00"`.
    #[serde(default)]
    pub daily_budget: BTreeMap<String, String>,
    /// Approvers, tiers and the batch expiry; left out: none named (today's behaviour).
    #[serde(default)]
    pub approval: Option<ApprovalFile>,
}

impl GatePolicy {
    /// Reads a policy from TOML:
    ///
    /// ```toml
    /// allowed_currencies = ["usd", "eur"]   # default: the currencies with a budget
    /// [daily_budget]
    /// usd = "500.00"
    /// eur = "300.00"
    /// ```
    pub fn from_toml(text: &str) -> Result<Self, String> {
        let file: GatePolicyFile = toml::from_str(text).map_err(|e| e.to_string())?;
        Self::from_file(&file)
    }

    /// The policy a parsed file sets: every currency and amount checked.
    pub fn from_file(file: &GatePolicyFile) -> Result<Self, String> {
        let mut daily_budget = BTreeMap::new();
        for (code, amount) in &file.daily_budget {
            let cur = Currency::parse(code)
                .map_err(|e| format!("daily_budget: '{code}' is not a currency ({e})"))?;
            let minor =
                parse_major(amount, cur).map_err(|e| format!("daily_budget.{code}: {e}"))?;
            if minor < 0 {
                return Err(format!("daily_budget.{code}: a budget cannot be negative"));
            }
            daily_budget.insert(cur, minor);
        }
        let allowed = match &file.allowed_currencies {
            Some(list) => list
                .iter()
                .map(|c| {
                    Currency::parse(c)
                        .map_err(|e| format!("allowed_currencies: '{c}' is not a currency ({e})"))
                })
                .collect::<Result<Vec<_>, _>>()?,
            None => daily_budget.keys().copied().collect(),
        };
        let approval = match &file.approval {
            Some(a) => ApprovalPolicy::from_file(a)?,
            None => ApprovalPolicy::default(),
        };
        Ok(Self {
            allowed,
            daily_budget,
            approval,
        })
    }
}

/// The charge as just re-read from Stripe, with its disputes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FreshCharge {
    pub id: String,
    pub currency: Option<Currency>,
    pub amount_captured: i64,
    pub amount_refunded: i64,
    pub disputed: bool,
    /// Ids of disputes on the charge (any status).
    pub disputes: Vec<String>,
}

/// Runs every check in order and returns the first refusal. `spent_today` is what
/// tieout already refunded today in the proposal's currency (from the audit log).
pub fn check(
    p: &Proposal,
    fresh: &FreshCharge,
    policy: &GatePolicy,
    spent_today: i64,
) -> Result<(), Refusal> {
    let cur = p.currency.upper();
    if p.amount <= 0 {
        return Err(Refusal::new(
            Rule::AmountPositive,
            format!(
                "the amount must be an explicit whole number of minor units above 0 (got {})",
                p.amount
            ),
        ));
    }
    let step = p.currency.amount_step();
    if p.amount % step != 0 {
        return Err(Refusal::new(
            Rule::AmountStep,
            format!(
                "{cur} amounts must be multiples of {step} minor units (Stripe refuses others): \
                 {} is not",
                p.amount
            ),
        ));
    }
    if !STRIPE_REASONS.contains(&p.reason.as_str()) {
        return Err(Refusal::new(
            Rule::ReasonValid,
            format!(
                "'{}' is not a Stripe refund reason: use one of {}",
                p.reason,
                STRIPE_REASONS.join(", ")
            ),
        ));
    }
    if fresh.id != p.charge {
        return Err(Refusal::new(
            Rule::CurrencyMismatch,
            format!("re-read charge {} instead of {}", fresh.id, p.charge),
        ));
    }
    if fresh.currency != Some(p.currency) {
        return Err(Refusal::new(
            Rule::CurrencyMismatch,
            format!(
                "the charge is in {} but the proposal is in {cur}",
                fresh
                    .currency
                    .map_or_else(|| "an unknown currency".to_string(), |c| c.upper())
            ),
        ));
    }
    if fresh.disputed || !fresh.disputes.is_empty() {
        let ids = if fresh.disputes.is_empty() {
            String::new()
        } else {
            format!(" ({})", fresh.disputes.join(", "))
        };
        return Err(Refusal::new(
            Rule::ChargeDisputed,
            format!(
                "charge {} has a dispute{ids}: answer the dispute in the Dashboard instead of \
                 refunding",
                p.charge
            ),
        ));
    }
    if fresh.amount_captured <= 0 {
        return Err(Refusal::new(
            Rule::ChargeNotCaptured,
            format!("charge {} has nothing captured to refund", p.charge),
        ));
    }
    let remaining = fresh.amount_captured - fresh.amount_refunded;
    if p.amount > remaining {
        return Err(Refusal::new(
            Rule::AmountRemaining,
            format!(
                "{} is more than is left to refund on {} ({} {cur})",
                p.amount_display(),
                p.charge,
                format_major(remaining.max(0), p.currency)
            ),
        ));
    }
    if !policy.allowed.contains(&p.currency) {
        return Err(Refusal::new(
            Rule::CurrencyAllowed,
            format!(
                "{cur} is not in the allowed refund currencies ({}): add it to the gate policy \
                 if refunds in it are meant to run",
                policy
                    .allowed
                    .iter()
                    .map(Currency::upper)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    let Some(&budget) = policy.daily_budget.get(&p.currency) else {
        return Err(Refusal::new(
            Rule::NoBudget,
            format!("{cur} has no daily refund budget: set one in the gate policy"),
        ));
    };
    let left = budget - spent_today;
    if p.amount > left {
        return Err(Refusal::new(
            Rule::DailyBudget,
            format!(
                "{} is over today's remaining {cur} refund budget ({} {cur} left of {} {cur})",
                p.amount_display(),
                format_major(left.max(0), p.currency),
                format_major(budget, p.currency)
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proposal() -> Proposal {
        Proposal {
            ticket: "T-1001".into(),
            charge: "ch_1".into(),
            amount: 2000,
            currency: Currency::USD,
            reason: "requested_by_customer".into(),
            evidence: vec!["T-1001".into(), "ch_1".into()],
            rule: "double_charge".into(),
        }
    }

    fn fresh() -> FreshCharge {
        FreshCharge {
            id: "ch_1".into(),
            currency: Some(Currency::USD),
            amount_captured: 10_000,
            amount_refunded: 0,
            disputed: false,
            disputes: vec![],
        }
    }

    fn rule_of(r: Result<(), Refusal>) -> Option<Rule> {
        r.err().map(|e| e.rule)
    }

    #[test]
    fn approval_binds_every_argument() {
        let p = proposal();
        let a = Approval::new(&p, "ops", 1);
        assert!(a.covers(&p).is_ok());
        type Change = Box<dyn Fn(&mut Proposal)>;
        let changes: Vec<Change> = vec![
            Box::new(|p| p.ticket.push('x')),
            Box::new(|p| p.charge.push('x')),
            Box::new(|p| p.amount += 1),
            Box::new(|p| p.currency = Currency::EUR),
            Box::new(|p| p.reason = "duplicate".into()),
            Box::new(|p| p.evidence.push("in_1".into())),
            Box::new(|p| p.evidence[0].push('x')),
            Box::new(|p| p.rule.push('x')),
        ];
        for change in changes {
            let mut q = proposal();
            change(&mut q);
            let err = a
                .covers(&q)
                .expect_err("changed proposal must void the approval");
            assert_eq!(err.rule, Rule::ApprovalVoid);
        }
    }

    #[test]
    fn digest_is_unambiguous_across_field_boundaries() {
        let mut a = proposal();
        a.evidence = vec!["ab".into(), "c".into()];
        let mut b = proposal();
        b.evidence = vec!["a".into(), "bc".into()];
        assert_ne!(a.digest(), b.digest());
        assert_eq!(proposal().digest(), proposal().digest());
    }

    #[test]
    fn idempotency_key_is_stable_and_follows_the_arguments() {
        let p = proposal();
        assert_eq!(p.idempotency_key(), proposal().idempotency_key());
        assert!(p.idempotency_key().starts_with("tieout-refund-T-1001-"));
        assert!(p.idempotency_key().len() <= 255);
        let mut q = proposal();
        q.amount = 2100;
        assert_ne!(p.idempotency_key(), q.idempotency_key());
    }

    #[test]
    fn a_plain_refund_passes() {
        assert_eq!(
            check(&proposal(), &fresh(), &GatePolicy::default(), 0),
            Ok(())
        );
    }

    #[test]
    fn amount_must_be_positive() {
        for amount in [0, -100] {
            let mut p = proposal();
            p.amount = amount;
            assert_eq!(
                rule_of(check(&p, &fresh(), &GatePolicy::default(), 0)),
                Some(Rule::AmountPositive)
            );
        }
    }

    #[test]
    fn amount_must_fit_what_is_left() {
        let mut f = fresh();
        f.amount_refunded = 9_000;
        let r = check(&proposal(), &f, &GatePolicy::default(), 0);
        assert_eq!(rule_of(r.clone()), Some(Rule::AmountRemaining));
        assert!(r.expect_err("refused").reason.contains("10.00 USD"));
        f.amount_refunded = 8_000;
        assert_eq!(check(&proposal(), &f, &GatePolicy::default(), 0), Ok(()));
    }

    #[test]
    fn disputed_charges_are_refused() {
        let mut f = fresh();
        f.disputes = vec!["dp_1".into()];
        assert_eq!(
            rule_of(check(&proposal(), &f, &GatePolicy::default(), 0)),
            Some(Rule::ChargeDisputed)
        );
        let mut f = fresh();
        f.disputed = true;
        assert_eq!(
            rule_of(check(&proposal(), &f, &GatePolicy::default(), 0)),
            Some(Rule::ChargeDisputed)
        );
    }

    #[test]
    fn currency_must_be_allowed_and_budgeted() {
        let eur = Currency::parse("eur").expect("eur");
        let mut p = proposal();
        p.currency = eur;
        let mut f = fresh();
        f.currency = Some(eur);
        assert_eq!(
            rule_of(check(&p, &f, &GatePolicy::default(), 0)),
            Some(Rule::CurrencyAllowed)
        );
        let mut policy = GatePolicy::default();
        policy.allowed.push(eur);
        assert_eq!(rule_of(check(&p, &f, &policy, 0)), Some(Rule::NoBudget));
        // The charge's own currency must match the proposal's.
        assert_eq!(
            rule_of(check(&p, &fresh(), &policy, 0)),
            Some(Rule::CurrencyMismatch)
        );
    }

    #[test]
    fn daily_budget_counts_what_was_spent() {
        let mut p = proposal();
        p.amount = 12_000;
        let mut f = fresh();
        f.amount_captured = 50_000;
        // 500.00 budget, 400.00 spent: 120.00 does not fit, 100.00 does.
        let r = check(&p, &f, &GatePolicy::default(), 40_000);
        assert_eq!(rule_of(r.clone()), Some(Rule::DailyBudget));
        assert!(r.expect_err("refused").reason.contains("100.00 USD left"));
        p.amount = 10_000;
        assert_eq!(check(&p, &f, &GatePolicy::default(), 40_000), Ok(()));
    }

    #[test]
    fn three_decimal_amounts_end_in_zero() {
        let kwd = Currency::parse("kwd").expect("kwd");
        let policy = GatePolicy::from_toml("[daily_budget]\nkwd = \"50.000\"\n").expect("toml");
        let mut p = proposal();
        p.currency = kwd;
        p.amount = 5_125;
        let mut f = fresh();
        f.currency = Some(kwd);
        assert_eq!(rule_of(check(&p, &f, &policy, 0)), Some(Rule::AmountStep));
        p.amount = 5_120;
        assert_eq!(check(&p, &f, &policy, 0), Ok(()));
    }

    #[test]
    fn policy_file_parses_and_rejects_typos() {
        let p = GatePolicy::from_toml(
            "allowed_currencies = [\"USD\", \"eur\"]\n[daily_budget]\nusd = \"100.00\"\n",
        )
        .expect("parse");
        assert_eq!(p.daily_budget.get(&Currency::USD), Some(&10_000));
        assert_eq!(p.allowed.len(), 2);
        assert!(GatePolicy::from_toml("daily_budgets = {}\n").is_err());
        assert!(GatePolicy::from_toml("[daily_budget]\nusd = \"1.234\"\n").is_err());
    }

    #[test]
    fn reason_must_be_a_stripe_reason() {
        let mut p = proposal();
        p.reason = "because".into();
        assert_eq!(
            rule_of(check(&p, &fresh(), &GatePolicy::default(), 0)),
            Some(Rule::ReasonValid)
        );
    }
}
