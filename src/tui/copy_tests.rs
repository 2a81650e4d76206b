//! Copying through the harness: `y` the selected row, `Y` every row the focused table
//! shows after its filter and sort (all pages, not the one on screen), `c` the cell, in
//! the format of `copy_format` (TSV by default, Markdown, JSON); asserted as the exact
//! text the clipboard effect carries.

use std::sync::Arc;

use super::harness::{Harness, test_settings};
use super::msg::Effect;
use super::panes::table_pane::TablePane;
use super::state::Startup;
use super::widgets::table::{Cell, RowsSource, TableSource, col};
use super::workspace::Workspace;
use crate::app::settings::CopyFormat;
use crate::model::Origin;
use crate::money::{Currency, Money};

struct Line {
    id: String,
    amount: i64,
    currency: Currency,
    note: &'static str,
}

/// Sixty lines, more than a page at 80x24: even ones in EUR with a tab in their note.
fn lines(_: &Workspace) -> Arc<dyn TableSource> {
    let rows = (0..60)
        .map(|i| Line {
            id: format!("ln_{i:02}"),
            amount: (i * 100 + 5) * if i % 3 == 0 { -1 } else { 1 },
            currency: if i % 2 == 0 {
                Currency::EUR
            } else {
                Currency::USD
            },
            note: if i % 2 == 0 { "even\tline" } else { "odd" },
        })
        .collect();
    Arc::new(RowsSource::new(
        rows,
        vec![
            col("Line", 8, |r: &Line| Cell::text(&r.id)),
            col("Amount", 16, |r: &Line| {
                Cell::Money(Money::new(r.amount, r.currency))
            }),
            col("Note", 12, |r: &Line| Cell::text(r.note)),
        ],
    ))
}

fn harness(format: CopyFormat) -> Harness {
    let mut settings = test_settings(Startup::Demo);
    settings.copy_format = format;
    let ws = super::sample::workspace(Origin::Demo);
    let mut h = Harness::with_tabs(
        settings,
        vec![Box::new(TablePane::new(
            "Lines",
            "Lines",
            "No lines.",
            lines,
        ))],
        Box::new(move |_| Ok(ws.clone())),
        80,
        24,
    );
    h.start();
    h
}

/// The last copy asked for: its text and the extension of its fallback file.
fn last_copy(h: &Harness) -> (String, &'static str) {
    match h.log.iter().rev().find_map(|e| match e {
        Effect::CopyDoc { text, ext } => Some((text.clone(), *ext)),
        Effect::Copy(text) => Some((text.clone(), "txt")),
        _ => None,
    }) {
        Some(copy) => copy,
        None => panic!("nothing copied: {:?}", h.log),
    }
}

/// Filters to the amounts shown starting `-1` (ln_12, ln_15, ln_18) and sorts by the
/// line, last first, the first row selected.
fn filter_and_sort(h: &mut Harness) {
    h.keys("/");
    h.type_text("-1");
    h.keys("enter s s home");
}

#[test]
fn big_y_copies_the_filtered_sorted_table_as_tsv_by_default() {
    let mut h = harness(CopyFormat::Tsv);
    filter_and_sort(&mut h);
    h.keys("Y");
    assert_eq!(
        last_copy(&h),
        (
            "Line\tAmount\tAmount currency\tNote\n\
             ln_18\t-18.05\tEUR\teven\\tline\n\
             ln_15\t-15.05\tUSD\todd\n\
             ln_12\t-12.05\tEUR\teven\\tline\n"
                .to_string(),
            "tsv"
        )
    );
    // y: the selected row alone; c: the selected cell.
    h.keys("down y");
    assert_eq!(
        last_copy(&h),
        ("ln_15\t-15.05\tUSD\todd".to_string(), "tsv")
    );
    h.keys("c");
    assert_eq!(last_copy(&h), ("ln_15".to_string(), "txt"));
}

#[test]
fn big_y_copies_every_row_shown_not_only_the_page_on_screen() {
    let mut h = harness(CopyFormat::Tsv);
    h.keys("/");
    h.type_text("odd");
    h.keys("enter");
    let page = h.frame().lines().filter(|l| l.contains("ln_")).count();
    assert!(page < 30, "a page shows {page} of the 30 odd lines");
    h.keys("Y");
    let (text, _) = last_copy(&h);
    assert_eq!(text.lines().count(), 31, "the header and all 30 odd lines");
    assert!(text.ends_with("ln_59\t59.05\tUSD\todd\n"), "{text}");
}

#[test]
fn the_copy_format_setting_gives_markdown_or_json() {
    let mut h = harness(CopyFormat::Markdown);
    filter_and_sort(&mut h);
    h.keys("Y");
    assert_eq!(
        last_copy(&h),
        (
            "| Line | Amount | Amount currency | Note |\n\
             | --- | ---: | --- | --- |\n\
             | ln_18 | -18.05 | EUR | even\tline |\n\
             | ln_15 | -15.05 | USD | odd |\n\
             | ln_12 | -12.05 | EUR | even\tline |\n"
                .to_string(),
            "md"
        )
    );
    let mut h = harness(CopyFormat::Json);
    filter_and_sort(&mut h);
    h.keys("Y");
    assert_eq!(
        last_copy(&h),
        (
            "[\n  \
             {\"Line\": \"ln_18\", \"Amount\": \"-18.05\", \"Amount currency\": \"EUR\", \"Note\": \"even\\tline\"},\n  \
             {\"Line\": \"ln_15\", \"Amount\": \"-15.05\", \"Amount currency\": \"USD\", \"Note\": \"odd\"},\n  \
             {\"Line\": \"ln_12\", \"Amount\": \"-12.05\", \"Amount currency\": \"EUR\", \"Note\": \"even\\tline\"}\n]\n"
                .to_string(),
            "json"
        )
    );
    h.keys("y");
    assert_eq!(
        last_copy(&h).0,
        r#"{"Line": "ln_18", "Amount": "-18.05", "Amount currency": "EUR", "Note": "even\tline"}"#
    );
}

#[test]
fn copy_table_runs_from_the_palette_too() {
    let mut h = harness(CopyFormat::Tsv);
    h.keys("/");
    h.type_text("ln_05");
    h.keys("enter :");
    h.type_text("copy table");
    h.keys("enter");
    assert_eq!(
        last_copy(&h),
        (
            "Line\tAmount\tAmount currency\tNote\nln_05\t5.05\tUSD\todd\n".to_string(),
            "tsv"
        )
    );
}
