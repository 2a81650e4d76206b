//! The detail beside the queue: the suggestion's title, then its facts, rule and reason
//! wrapped to the panel's width.

use super::*;

pub(super) fn detail_title<'a>(a: &'a Assessment, cx: &ViewCx<'_>) -> Line<'a> {
    let s = &a.suggestion;
    let mut spans = vec![
        Span::styled(
            format!(" {} ", s.ticket_id.as_deref().unwrap_or("ticket")),
            cx.theme.style(Role::Title),
        ),
        Span::styled(
            format!("{} ", s.recommendation.as_str()),
            cx.theme.style(rec_role(s.recommendation)),
        ),
    ];
    if let (Some(c), true) = (s.currency, s.amount > 0) {
        spans.push(Span::styled(
            format!("{} ", Money::new(s.amount, c).display()),
            cx.theme.style(Role::AmountPositive),
        ));
    }
    spans.push(Span::styled(
        format!("· {} ", s.rule),
        cx.theme.style(Role::Muted),
    ));
    Line::from(spans)
}

pub(super) fn money(minor: i64, c: crate::money::Currency) -> String {
    Money::new(minor, c).display()
}

/// Word-wraps `text` into lines of at most `width` cells (a word longer than a line is
/// cut).
pub(super) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(8);
    let mut lines = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let w = crate::tui::widgets::text::width(word);
        let cur_w = crate::tui::widgets::text::width(&cur);
        if !cur.is_empty() && cur_w + 1 + w > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        while crate::tui::widgets::text::width(&cur) > width {
            let cut: String = cur.chars().take(width).collect();
            let rest: String = cur.chars().skip(width).collect();
            lines.push(cut);
            cur = rest;
        }
    }
    if !cur.is_empty() || lines.is_empty() {
        lines.push(cur);
    }
    lines
}

pub(super) const LABEL_W: usize = 9;

/// A labelled field, its value wrapped under itself (the label column stays clear).
pub(super) fn push_field(
    out: &mut Vec<Line<'static>>,
    label: &str,
    value: &str,
    width: usize,
    cx: &ViewCx<'_>,
    role: Role,
) {
    let parts = wrap(value, width.saturating_sub(LABEL_W));
    for (i, part) in parts.into_iter().enumerate() {
        let head = if i == 0 {
            format!("{label:<LABEL_W$}")
        } else {
            " ".repeat(LABEL_W)
        };
        out.push(Line::from(vec![
            Span::styled(head, cx.theme.style(Role::Muted)),
            Span::styled(part, cx.theme.style(role)),
        ]));
    }
}

pub(super) fn detail_lines(a: &Assessment, cx: &ViewCx<'_>, width: usize) -> Vec<Line<'static>> {
    let tz = cx.tz;
    let m = &a.matched;
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut field = |label: &str, value: String, role: Role| {
        push_field(&mut out, label, &value, width, cx, role);
    };
    let customers: Vec<&str> = m.customers.iter().map(|c| c.id.as_str()).collect();
    field(
        "From",
        format!(
            "{} · order {} · {}",
            a.ticket.email.trim(),
            a.ticket.order_id.trim(),
            if customers.is_empty() {
                "no customer".to_string()
            } else {
                customers.join(", ")
            }
        ),
        Role::Text,
    );
    if !a.ticket.message.trim().is_empty() {
        field(
            "Message",
            format!("“{}”", a.ticket.message.trim()),
            Role::Text,
        );
    }
    let charge_line = match &m.order {
        OrderMatch::One { charge, .. } => format!(
            "{} · {} on {} · refunded {}",
            charge.id,
            money(charge.amount_captured, charge.currency),
            date_in(charge.created, tz),
            money(charge.amount_refunded, charge.currency),
        ),
        OrderMatch::Ambiguous { charges, .. } => format!(
            "several name the order: {}",
            charges
                .iter()
                .map(|c| format!("{} ({})", c.id, money(c.amount, c.currency)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        OrderMatch::NotFound => format!(
            "none names the order ({} succeeded checked)",
            m.customer_charges.len()
        ),
        OrderMatch::NoCustomer => "none (no customer)".to_string(),
    };
    field("Charge", charge_line, Role::Text);
    if m.charge().is_some() && m.refunds.is_empty() && m.disputes.is_empty() {
        field("Refunds", "none; no disputes".to_string(), Role::Text);
    }
    if m.charge().is_some() && !(m.refunds.is_empty() && m.disputes.is_empty()) {
        let refunds = if m.refunds.is_empty() {
            "none".to_string()
        } else {
            m.refunds
                .iter()
                .map(|r| {
                    format!(
                        "{} {} {} {}",
                        r.id,
                        money(r.amount, r.currency),
                        r.status,
                        date_in(r.created, tz)
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        field("Refunds", refunds, Role::Text);
        let disputes = if m.disputes.is_empty() {
            "none".to_string()
        } else {
            m.disputes
                .iter()
                .map(|d| {
                    format!(
                        "{} {} {}{}",
                        d.id,
                        money(d.amount, d.currency),
                        d.status,
                        d.reason
                            .as_deref()
                            .map(|r| format!(" ({r})"))
                            .unwrap_or_default()
                    )
                })
                .collect::<Vec<_>>()
                .join("; ")
        };
        field("Disputes", disputes, Role::Text);
    }
    if m.charge().is_some() {
        let plan = match &m.subscription {
            None => "none paid by this charge".to_string(),
            Some(link) => {
                let s = &link.subscription;
                let interval = match (s.interval.as_deref(), s.interval_count) {
                    (Some("day"), 1) => "daily".to_string(),
                    (Some(i), 1) => format!("{i}ly"),
                    (Some(i), n) => format!("every {n} {i}s"),
                    (None, _) => "no interval".to_string(),
                };
                let period = match (s.current_period_start, s.current_period_end) {
                    (Some(a), Some(b)) => format!("{} → {}", date_in(a, tz), date_in(b, tz)),
                    _ => "period unknown".to_string(),
                };
                let via = match &link.via {
                    PeriodLink::PeriodStart => "charged at the period start".to_string(),
                    PeriodLink::LatestInvoice { invoice } => format!("paid {invoice}"),
                };
                format!("{} · {interval} · {period} · {} · {via}", s.id, s.status)
            }
        };
        field("Plan", plan, Role::Text);
    }
    field("Reason", a.suggestion.reason.clone(), Role::Text);
    if !a.suggestion.evidence.is_empty() {
        field("Evidence", a.suggestion.evidence.join(" "), Role::Muted);
    }
    out
}
