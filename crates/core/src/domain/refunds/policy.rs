//! The refund policy: the numbers the rules use and the sentence each rule's reason
//! quotes, read from TOML. The default policy ships as `default_policy.toml` (embedded);
//! a user's file overlays it key by key. A typo, an unknown key, a wrong type or an
//! impossible value is refused with the line and column and what is wrong.

use std::fmt;
use std::ops::Range;

use serde::Deserialize;
use toml::Spanned;

pub use super::fraud_policy::FraudPolicy;
use super::fraud_policy::{FraudDraft, RawFraud};
use super::rules::RawRules;
pub use super::rules::RuleKind;

/// The default policy, exactly as shipped.
pub const DEFAULT_POLICY_TOML: &str = include_str!("default_policy.toml");

impl RuleKind {
    fn index(self) -> usize {
        self as usize
    }
}

/// A rule's id (the output's `rule`) and the sentence its reason quotes (placeholders
/// already filled in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleText {
    pub id: String,
    pub says: String,
}

/// A validated refund policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    pub name: String,
    /// Full refund within this many whole days of the charge (day N is in, N+1 out).
    pub window_days: i64,
    /// The window applies only to the customer's first succeeded charge.
    pub first_purchase_only: bool,
    /// Offer prorated refunds for the unused months of a yearly plan.
    pub annual_proration: bool,
    /// This many refunds or more in the lookback sends the ticket to a person.
    pub pattern_threshold: i64,
    pub pattern_lookback_days: i64,
    /// The early fraud warnings queue's section.
    pub fraud_warnings: FraudPolicy,
    rules: Vec<RuleText>,
}

impl Policy {
    /// The default policy (RULES.md, "Refund suggestions"), from the embedded file.
    pub fn default_policy() -> Policy {
        match parse_policy(DEFAULT_POLICY_TOML, "the default policy") {
            Ok(p) => p,
            // The embedded file is checked by a unit test; this arm cannot be reached by a
            // released build, but a panic would be worse than an obvious placeholder.
            Err(e) => Policy::fallback(&e.to_string()),
        }
    }

    fn fallback(why: &str) -> Policy {
        Policy {
            name: format!("broken default policy: {why}"),
            window_days: 30,
            first_purchase_only: true,
            annual_proration: true,
            pattern_threshold: 2,
            pattern_lookback_days: 365,
            fraud_warnings: FraudPolicy {
                refund_up_to: Default::default(),
                dispute_fee: Default::default(),
                refund_rule: "fraud-warning-actionable".into(),
                review_rule: "fraud-warning-review".into(),
            },
            rules: RuleKind::ALL
                .iter()
                .map(|k| RuleText {
                    id: k.key().replace('_', "-"),
                    says: String::new(),
                })
                .collect(),
        }
    }

    pub fn rule(&self, kind: RuleKind) -> &RuleText {
        &self.rules[kind.index()]
    }

    /// The rule's id, as the output's `rule` field shows it.
    pub fn id(&self, kind: RuleKind) -> &str {
        &self.rule(kind).id
    }

    /// The sentence the rule's reason quotes.
    pub fn says(&self, kind: RuleKind) -> &str {
        &self.rule(kind).says
    }
}

/// Why a policy file was refused: where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct PolicyError {
    /// The file's name (or "the default policy").
    pub source_name: String,
    /// 1-based line and column of the offending text, when known.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "policy {}", self.source_name)?;
        if let (Some(l), Some(c)) = (self.line, self.column) {
            write!(f, ", line {l}, column {c}")?;
        }
        write!(
            f,
            ": {}. Fix the file; see the README's \"Refund policy\" for every key and the default",
            self.message
        )
    }
}

/// 1-based line and column of a byte offset in `text`.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let col = before
        .rsplit('\n')
        .next()
        .map(|s| s.chars().count())
        .unwrap_or(0)
        + 1;
    (line, col)
}

fn error_at(
    text: &str,
    source_name: &str,
    span: Option<Range<usize>>,
    message: String,
) -> PolicyError {
    let (line, column) = match span {
        Some(r) => {
            let (l, c) = line_col(text, r.start);
            (Some(l), Some(c))
        }
        None => (None, None),
    };
    PolicyError {
        source_name: source_name.to_string(),
        line,
        column,
        message,
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    name: Option<Spanned<String>>,
    window: Option<RawWindow>,
    proration: Option<RawProration>,
    pattern: Option<RawPattern>,
    rules: Option<RawRules>,
    fraud_warnings: Option<RawFraud>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWindow {
    days: Option<Spanned<i64>>,
    first_purchase_only: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProration {
    annual: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPattern {
    threshold: Option<Spanned<i64>>,
    lookback_days: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawRule {
    id: Option<Spanned<String>>,
    says: Option<Spanned<String>>,
}

/// The placeholders a rule's sentence may use.
const PLACEHOLDERS: [&str; 3] = ["window_days", "pattern_threshold", "pattern_lookback_days"];

/// Longest window or lookback a policy may name (ten years): more is a typo.
const MAX_DAYS: i64 = 3650;

/// A policy being assembled: numbers and the raw (unfilled) sentences, each with the span
/// it came from (None for values inherited from the default).
struct Draft {
    name: String,
    window_days: (i64, Option<Range<usize>>),
    first_purchase_only: bool,
    annual_proration: bool,
    pattern_threshold: (i64, Option<Range<usize>>),
    pattern_lookback_days: (i64, Option<Range<usize>>),
    ids: Vec<(String, Option<Range<usize>>)>,
    says: Vec<(String, Option<Range<usize>>)>,
    fraud: FraudDraft,
}

fn overlay(draft: &mut Draft, raw: RawPolicy) {
    if let Some(n) = raw.name {
        draft.name = n.into_inner();
    }
    if let Some(w) = raw.window {
        if let Some(d) = w.days {
            draft.window_days = (*d.get_ref(), Some(d.span()));
        }
        if let Some(f) = w.first_purchase_only {
            draft.first_purchase_only = f;
        }
    }
    if let Some(p) = raw.proration.and_then(|p| p.annual) {
        draft.annual_proration = p;
    }
    if let Some(p) = raw.pattern {
        if let Some(t) = p.threshold {
            draft.pattern_threshold = (*t.get_ref(), Some(t.span()));
        }
        if let Some(l) = p.lookback_days {
            draft.pattern_lookback_days = (*l.get_ref(), Some(l.span()));
        }
    }
    if let Some(f) = raw.fraud_warnings {
        draft.fraud.overlay(f);
    }
    if let Some(mut rules) = raw.rules {
        for kind in RuleKind::ALL {
            if let Some(rule) = rules.take(kind) {
                if let Some(id) = rule.id {
                    let span = id.span();
                    draft.ids[kind.index()] = (id.into_inner(), Some(span));
                }
                if let Some(says) = rule.says {
                    let span = says.span();
                    draft.says[kind.index()] = (says.into_inner(), Some(span));
                }
            }
        }
    }
}

fn empty_draft() -> Draft {
    Draft {
        name: String::new(),
        window_days: (0, None),
        first_purchase_only: false,
        annual_proration: false,
        pattern_threshold: (0, None),
        pattern_lookback_days: (0, None),
        ids: vec![(String::new(), None); RuleKind::ALL.len()],
        says: vec![(String::new(), None); RuleKind::ALL.len()],
        fraud: FraudDraft::default(),
    }
}

fn parse_raw(text: &str, source_name: &str) -> Result<RawPolicy, PolicyError> {
    toml::from_str::<RawPolicy>(text).map_err(|e| {
        let msg = e.message().trim().trim_end_matches('.').to_string();
        error_at(text, source_name, e.span(), msg)
    })
}

/// Fills `{placeholders}`; an unknown or unclosed one is an error naming it.
fn fill(says: &str, d: &Draft) -> Result<String, String> {
    let mut out = String::with_capacity(says.len());
    let mut rest = says;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| "a '{' is not closed by '}'".to_string())?;
        let name = &after[..close];
        let value = match name {
            "window_days" => d.window_days.0,
            "pattern_threshold" => d.pattern_threshold.0,
            "pattern_lookback_days" => d.pattern_lookback_days.0,
            other => {
                return Err(format!(
                    "unknown placeholder {{{other}}}; the known ones are {}",
                    PLACEHOLDERS
                        .iter()
                        .map(|p| format!("{{{p}}}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        };
        out.push_str(&value.to_string());
        rest = &after[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A sentence ends at `.`, `!` or `?` followed by whitespace or the end; decimals such as
/// `49.00` do not end one.
pub fn sentence_count(text: &str) -> usize {
    let chars: Vec<char> = text.trim().chars().collect();
    let mut n = 0;
    for (i, c) in chars.iter().enumerate() {
        if matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace()) {
            n += 1;
        }
    }
    if n == 0 && !chars.is_empty() { 1 } else { n }
}

fn validate(d: Draft, text: &str, source_name: &str) -> Result<Policy, PolicyError> {
    let err =
        |span: &Option<Range<usize>>, msg: String| error_at(text, source_name, span.clone(), msg);
    let (days, span) = &d.window_days;
    if !(0..=MAX_DAYS).contains(days) {
        return Err(err(
            span,
            format!(
                "window.days is {days}; it must be a whole number of days from 0 to {MAX_DAYS}"
            ),
        ));
    }
    let (t, span) = &d.pattern_threshold;
    if !(1..=1000).contains(t) {
        return Err(err(
            span,
            format!("pattern.threshold is {t}; it must be at least 1 (a count of refunds)"),
        ));
    }
    let (l, span) = &d.pattern_lookback_days;
    if !(1..=MAX_DAYS).contains(l) {
        return Err(err(
            span,
            format!("pattern.lookback_days is {l}; it must be from 1 to {MAX_DAYS} days"),
        ));
    }
    let mut rules = Vec::with_capacity(RuleKind::ALL.len());
    for kind in RuleKind::ALL {
        let (id, id_span) = &d.ids[kind.index()];
        let key = kind.key();
        if id.is_empty()
            || id.len() > 40
            || !id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        {
            return Err(err(
                id_span,
                format!(
                    "rules.{key}.id is '{id}'; an id is 1 to 40 characters of a-z, 0-9, '-' or '_'"
                ),
            ));
        }
        if let Some(earlier) = rules.iter().position(|r: &RuleText| r.id == *id) {
            return Err(err(
                id_span,
                format!(
                    "rules.{key}.id '{id}' is already the id of rules.{}; each rule needs its own id",
                    RuleKind::ALL[earlier].key()
                ),
            ));
        }
        let (says, says_span) = &d.says[kind.index()];
        let filled =
            fill(says, &d).map_err(|m| err(says_span, format!("rules.{key}.says: {m}")))?;
        if filled.trim().is_empty() {
            return Err(err(
                says_span,
                format!("rules.{key}.says is empty; write the sentence the reason quotes"),
            ));
        }
        if filled.contains(['\n', '\r']) || filled.chars().count() > 200 {
            return Err(err(
                says_span,
                format!("rules.{key}.says must be one line of at most 200 characters"),
            ));
        }
        if sentence_count(&filled) > 1 {
            return Err(err(
                says_span,
                format!(
                    "rules.{key}.says has {} sentences; write one (the reason adds one sentence of facts, and a reason has at most two)",
                    sentence_count(&filled)
                ),
            ));
        }
        rules.push(RuleText {
            id: id.clone(),
            says: filled.trim().to_string(),
        });
    }
    let fraud_warnings = d.fraud.validate().map_err(|(msg, span)| err(&span, msg))?;
    Ok(Policy {
        fraud_warnings,
        name: d.name,
        window_days: d.window_days.0,
        first_purchase_only: d.first_purchase_only,
        annual_proration: d.annual_proration,
        pattern_threshold: d.pattern_threshold.0,
        pattern_lookback_days: d.pattern_lookback_days.0,
        rules,
    })
}

/// Parses a complete policy (every key present), e.g. the embedded default.
fn parse_policy(text: &str, source_name: &str) -> Result<Policy, PolicyError> {
    let raw = parse_raw(text, source_name)?;
    let mut draft = empty_draft();
    overlay(&mut draft, raw);
    // A complete policy names every rule; the default is checked by a test.
    for kind in RuleKind::ALL {
        if draft.says[kind.index()].0.is_empty() {
            return Err(error_at(
                text,
                source_name,
                None,
                format!("[rules.{}] is missing", kind.key()),
            ));
        }
    }
    validate(draft, text, source_name)
}

/// Reads a user's policy file: every key it sets overrides the default's; keys it leaves
/// out keep the default. `source_name` is how errors name the file.
pub fn load_policy(text: &str, source_name: &str) -> Result<Policy, PolicyError> {
    let base = parse_raw(DEFAULT_POLICY_TOML, "the default policy")?;
    let mut draft = empty_draft();
    overlay(&mut draft, base);
    // Spans of inherited values point into the default file, not the user's: drop them.
    draft.window_days.1 = None;
    draft.pattern_threshold.1 = None;
    draft.pattern_lookback_days.1 = None;
    for slot in draft.ids.iter_mut().chain(draft.says.iter_mut()) {
        slot.1 = None;
    }
    draft.fraud.forget_spans();
    let user = parse_raw(text, source_name)?;
    overlay(&mut draft, user);
    validate(draft, text, source_name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Policy, PolicyError> {
        load_policy(text, "p.toml")
    }

    #[test]
    fn the_default_policy_is_designs() {
        let p = parse_policy(DEFAULT_POLICY_TOML, "default").expect("default parses");
        assert_eq!(p.window_days, 30);
        assert!(p.first_purchase_only);
        assert!(p.annual_proration);
        assert_eq!(p.pattern_threshold, 2);
        assert_eq!(p.pattern_lookback_days, 365);
        let ids: Vec<&str> = RuleKind::ALL.iter().map(|k| p.id(*k)).collect();
        assert_eq!(
            ids,
            [
                "no-customer",
                "no-charge",
                "ambiguous-charge",
                "already-refunded",
                "disputed",
                "refund-pattern",
                "first-purchase-window",
                "annual-prorate",
                "outside-window"
            ]
        );
        assert_eq!(
            p.says(RuleKind::FirstPurchaseWindow),
            "Full refund within 30 days of the charge on a first purchase."
        );
        assert_eq!(p, Policy::default_policy());
        // The text alone: no key set keeps the default (a file that is empty is refused
        // by the app's reader, which knows it is a file).
        assert_eq!(load("").expect("no key = default"), p);
    }

    #[test]
    fn a_user_file_overrides_key_by_key_and_fills_placeholders() {
        let p = load("[window]\ndays = 14\n[rules.refund_pattern]\nsays = \"{pattern_threshold}+ refunds in {pattern_lookback_days} days: a person looks.\"\n[pattern]\nthreshold = 3\n")
            .expect("valid");
        assert_eq!(p.window_days, 14);
        assert_eq!(p.pattern_threshold, 3);
        assert_eq!(
            p.says(RuleKind::FirstPurchaseWindow),
            "Full refund within 14 days of the charge on a first purchase."
        );
        assert_eq!(
            p.says(RuleKind::RefundPattern),
            "3+ refunds in 365 days: a person looks."
        );
        assert_eq!(p.id(RuleKind::Disputed), "disputed");
    }

    #[test]
    fn a_typo_in_a_key_is_refused_with_its_line() {
        let e = load("name = \"x\"\n\n[window]\ndayz = 14\n").expect_err("typo");
        assert_eq!(e.line, Some(4), "{e}");
        assert!(e.message.contains("dayz"), "{e}");
        assert!(e.to_string().contains("line 4, column 1"), "{e}");
    }

    #[test]
    fn an_unknown_section_or_rule_is_refused() {
        let e = load("[windows]\ndays = 1\n").expect_err("unknown table");
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("windows"), "{e}");
        let e = load("\n[rules.first_purchase]\nid = \"x\"\n").expect_err("unknown rule");
        assert_eq!(e.line, Some(2), "{e}");
        assert!(e.message.contains("first_purchase"), "{e}");
    }

    #[test]
    fn impossible_values_are_refused_with_their_position() {
        let e = load("[window]\ndays = -3\n").expect_err("negative");
        assert_eq!((e.line, e.column), (Some(2), Some(8)), "{e}");
        assert!(e.message.contains("window.days is -3"), "{e}");
        let e = load("[pattern]\nlookback_days = 30\nthreshold = 0\n").expect_err("zero");
        assert_eq!(e.line, Some(3), "{e}");
        assert!(e.message.contains("threshold is 0"), "{e}");
        let e = load("[pattern]\nlookback_days = 0\n").expect_err("zero lookback");
        assert_eq!(e.line, Some(2), "{e}");
        let e = load("[window]\ndays = \"thirty\"\n").expect_err("wrong type");
        assert_eq!(e.line, Some(2), "{e}");
        let e = load("[proration]\nannual = 1\n").expect_err("wrong type");
        assert_eq!(e.line, Some(2), "{e}");
        let e = load("[window\ndays = 3\n").expect_err("syntax");
        assert_eq!(e.line, Some(1), "{e}");
    }

    #[test]
    fn rule_ids_and_sentences_are_checked() {
        let e = load("[rules.disputed]\nid = \"Disputed Charge\"\n").expect_err("bad id");
        assert_eq!(e.line, Some(2));
        let e = load("[rules.disputed]\nid = \"no-customer\"\n").expect_err("duplicate id");
        assert!(
            e.message.contains("already the id of rules.no_customer"),
            "{e}"
        );
        let e = load("[rules.disputed]\nsays = \"One. Two.\"\n").expect_err("two sentences");
        assert!(e.message.contains("2 sentences"), "{e}");
        let e =
            load("[rules.disputed]\nsays = \"Within {days} days.\"\n").expect_err("placeholder");
        assert!(e.message.contains("{days}"), "{e}");
        assert_eq!(e.line, Some(2));
        let e = load("[rules.disputed]\nsays = \"  \"\n").expect_err("empty");
        assert!(e.message.contains("empty"), "{e}");
    }

    #[test]
    fn sentences_are_counted_without_decimals() {
        assert_eq!(sentence_count("Refund 49.00 USD now."), 1);
        assert_eq!(sentence_count("A. B."), 2);
        assert_eq!(sentence_count("no stop"), 1);
        assert_eq!(sentence_count(""), 0);
    }
}
