//! Large tickets files for the `suggest --tickets` benchmark (issue 40, defect 6):
//! `count` seeded refund tickets against an account (the bundled demo), written as a
//! helpdesk export would be. Same seed, count, style and account give the same bytes.
//!
//! The mix, per ticket: mostly a real customer's email with the order id of one of their
//! charges (from the charge's `order_id`/`order` metadata), some with the email's case
//! changed (the case-insensitive lookup), some with an order id the customer never had,
//! some with an email no customer has, and some with the order id only in the message
//! (found by the order-id pattern). About one ticket id in 200 repeats an earlier one (the
//! repeated-ticket note). Messages are a few sentences, some quoted with commas and line
//! breaks, so 100,000 tickets make a file of about 100 MB, as the export of the issue did.
//!
//! [`Style::Shopify`] writes Shopify's order export instead: `count` orders, each listed
//! once (a ticket about an order already listed names a new, unknown one), one row per
//! line item, an order's later rows repeating its `Name` and `Email` with the other
//! columns blank (the reader keeps the first row of each order), so `count` orders make
//! about twice as many rows.

use std::collections::HashSet;
use std::io::{self, Write};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tieout::model::AccountData;
use tieout::model::status::ChargeStatus;

/// The export a tickets file imitates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// tieout's own columns: `ticket_id,email,order_id,message`.
    Tieout,
    /// Shopify's order export (`Name,Email,Financial Status,…,Notes,Id`), a row per line item.
    Shopify,
}

/// A real (email, order id) pair of the account: a succeeded charge's customer's email and
/// the order id in the charge's metadata.
fn real_orders(data: &AccountData) -> Vec<(String, String)> {
    let emails: std::collections::HashMap<&str, &str> = data
        .customers
        .iter()
        .filter(|c| !c.deleted)
        .filter_map(|c| Some((c.id.as_str(), c.email.as_deref()?)))
        .collect();
    let mut out: Vec<(String, String)> = data
        .charges
        .iter()
        .filter(|c| c.status == ChargeStatus::Succeeded)
        .filter_map(|c| {
            let email = emails.get(c.customer.as_deref()?)?;
            let (_, order) = c
                .metadata
                .iter()
                .find(|(k, _)| *k == "order_id" || *k == "order")?;
            Some(((*email).to_string(), order.to_string()))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

const OPENINGS: &[&str] = &[
    "Hi, I want my money back for order {o}. It never arrived.",
    "Please refund {o}, I cancelled it the same day.",
    "I was charged twice for {o}, please refund one of them.",
    "Changed my mind about {o}, can I return it?",
    "The item from order {o} arrived damaged, refund please.",
    "Please cancel my plan and refund the unused months ({o}).",
    "Bitte erstatten ({o}), \"falsche Farbe\", danke.",
    "Je voudrais un remboursement pour {o}, s'il vous plaît.",
];

const FILLER: &[&str] = &[
    "I have been a customer for a while and this is the first time something went wrong.",
    "The tracking page has said \"label created\" for two weeks now, and nobody answers the phone.",
    "My card statement shows the charge, so the payment definitely went through.",
    "I attached a photo of the box as it was delivered; the corner was crushed.",
    "If a refund is not possible, a replacement would be fine too, but I'd rather have the money back.",
    "Thanks in advance,\nSam",
    "Sent from my phone, sorry for typos.",
];

/// The message of a ticket about `order` (the order id written into it, or a generic
/// one when `order` is empty), a few sentences long.
fn message(rng: &mut ChaCha8Rng, order: &str) -> String {
    let opening = OPENINGS[rng.random_range(0..OPENINGS.len())];
    let mut text = if order.is_empty() {
        opening.replace("{o}", "my last order")
    } else {
        opening.replace("{o}", order)
    };
    for _ in 0..rng.random_range(4..=16) {
        text.push(' ');
        text.push_str(FILLER[rng.random_range(0..FILLER.len())]);
    }
    text
}

/// One ticket: its id, the email and order column, and the message.
struct Row {
    id: String,
    email: String,
    order: String,
    message: String,
}

fn rows(data: &AccountData, count: usize, seed: u64) -> Vec<Row> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let real = real_orders(data);
    let mut out: Vec<Row> = Vec::with_capacity(count);
    for i in 0..count {
        let unknown_order = format!("ORD-9{:06}", rng.random_range(0..1_000_000u32));
        let (email, order) = match real.get(rng.random_range(0..real.len().max(1))) {
            Some((email, order)) => (email.clone(), order.clone()),
            None => (format!("nobody{i}@example.invalid"), unknown_order.clone()),
        };
        let roll = rng.random_range(0..100u32);
        let (email, order, in_message) = match roll {
            // A real customer and one of their orders.
            0..60 => (email, order, false),
            // The email's case changed.
            60..70 => (email.to_uppercase(), order, false),
            // A real customer, an order they never had.
            70..80 => (email, unknown_order, false),
            // An email no customer has.
            80..90 => (format!("nobody{i}@example.invalid"), unknown_order, false),
            // The order id only in the message.
            _ => (email, order, true),
        };
        let id = if i > 0 && rng.random_range(0..200u32) == 0 {
            format!("T-{}", 100_000 + rng.random_range(0..i))
        } else {
            format!("T-{}", 100_000 + i)
        };
        let message = message(&mut rng, &order);
        out.push(Row {
            id,
            email,
            order: if in_message { String::new() } else { order },
            message,
        });
    }
    out
}

/// Writes `count` tickets against `data` in `style` to `w`.
pub fn write_tickets(
    data: &AccountData,
    count: usize,
    seed: u64,
    style: Style,
    w: impl Write,
) -> io::Result<()> {
    let mut csv = csv::Writer::from_writer(w);
    let rows = rows(data, count, seed);
    match style {
        Style::Tieout => {
            csv.write_record(["ticket_id", "email", "order_id", "message"])?;
            for r in &rows {
                csv.write_record([&r.id, &r.email, &r.order, &r.message])?;
            }
        }
        Style::Shopify => {
            csv.write_record([
                "Name",
                "Email",
                "Financial Status",
                "Paid at",
                "Fulfillment Status",
                "Lineitem name",
                "Notes",
                "Id",
            ])?;
            let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1));
            // Each order once: an export lists an order's line items together, so a
            // ticket about an order already listed (or about none) names a new order.
            let mut listed: HashSet<(String, String)> = HashSet::new();
            for (i, r) in rows.iter().enumerate() {
                let key = (r.order.to_ascii_lowercase(), r.email.clone());
                let name = if r.order.is_empty() || !listed.insert(key) {
                    format!("ORD-8{i:06}")
                } else {
                    r.order.clone()
                };
                csv.write_record([
                    name.as_str(),
                    &r.email,
                    "paid",
                    "2026-11-01 10:00:00 +0000",
                    "fulfilled",
                    "Item",
                    &r.message,
                    &r.id,
                ])?;
                for n in 1..rng.random_range(1..=3u32) {
                    let item = format!("Item {}", n + 1);
                    csv.write_record([name.as_str(), &r.email, "", "", "", &item, "", &r.id])?;
                }
            }
        }
    }
    csv.flush()
}

/// [`write_tickets`] into memory.
pub fn tickets_text(data: &AccountData, count: usize, seed: u64, style: Style) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = write_tickets(data, count, seed, style, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> AccountData {
        tieout::source::demo::load_demo().expect("demo")
    }

    #[test]
    fn the_same_seed_writes_the_same_file_and_real_orders_are_used() {
        let data = demo();
        let a = tickets_text(&data, 200, 7, Style::Tieout);
        assert_eq!(a, tickets_text(&data, 200, 7, Style::Tieout));
        assert_eq!(a.lines().next(), Some("ticket_id,email,order_id,message"));
        let real = real_orders(&data);
        assert!(real.len() > 100, "{}", real.len());
        let hits = real
            .iter()
            .filter(|(e, o)| a.contains(&format!("{e},{o},")))
            .count();
        assert!(hits > 20, "{hits}");
        let shopify = tickets_text(&data, 200, 7, Style::Shopify);
        assert!(shopify.starts_with("Name,Email,Financial Status"));
    }
}
