//! Fuzzing the bank statement readers (`bank::read_statement`, issue 34): the MT940, BAI2,
//! CAMT, OFX and CSV fixtures under `tests/fixtures/bank/`, cut, repeated and spliced with pieces
//! of their formats, and arbitrary bytes, never panic; every line read is on a line of the
//! file, and every refusal names the file and a place in it.

use std::path::PathBuf;

use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::TestCaseResult;

use tieout::bank::csv::CsvProfile;
use tieout::bank::read_statement;

use crate::fuzz_kit::fuzz;

/// The statement fixtures the mutations start from.
const FIXTURES: &[&str] = &[
    "sparkasse-2026-10-11.mt940",
    "ing-2026-10-11.mt940",
    "corporate-2026-10-11.mt940",
    "usd-2026-10-11.bai2",
    "eur-2026-10-11.camt053.xml",
    "jpy-2026-10-11.ofx",
    "us-checking-2026-10-11.csv",
];

/// Pieces of statement files, so that a mutation looks like a real broken file.
const FRAGMENTS: &[&str] = &[
    ":20:",
    ":25:",
    ":28C:",
    ":60F:",
    ":60M:",
    ":61:",
    ":86:",
    ":62F:",
    ":62M:",
    ":64:",
    ":NS:",
    "{1:F01X}{2:O940X}{4:",
    "-}",
    "-",
    "C",
    "D",
    "RC",
    "RD",
    "CR",
    "261301",
    "261006",
    "1006",
    "EUR",
    "XXX",
    "1378,29",
    "0,",
    ",,",
    "NTRF",
    "NONREF",
    "//",
    "?20",
    "?2",
    "?",
    "EREF+",
    "SVWZ+",
    "/EREF/",
    "/NAME/",
    "/REMI/USTD//",
    "<Ntry>",
    "</Ntry>",
    "<Amt Ccy=\"EUR\">",
    "01,",
    "02,",
    "03,",
    "16,",
    "88,",
    "49,",
    "98,",
    "99,",
    ",V,",
    ",S,1,2,3,",
    ",D,2,1,",
    "/",
    "<STMTTRN>",
    "<TRNAMT>",
    "\n",
    "\r\n",
    "\r",
    "\u{0}",
    "\u{fc}",
    "99999999999999999999",
];

/// A change to a fixture's lines.
#[derive(Debug, Clone)]
enum Edit {
    Remove(Index),
    Repeat(Index),
    /// Cut the line at a place and put a piece there.
    Splice(Index, Index, String),
    Truncate(Index),
}

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(FRAGMENTS).prop_map(str::to_string),
        1 => any::<String>(),
    ]
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        1 => any::<Index>().prop_map(Edit::Remove),
        1 => any::<Index>().prop_map(Edit::Repeat),
        4 => (any::<Index>(), any::<Index>(), piece()).prop_map(|(l, c, p)| Edit::Splice(l, c, p)),
        1 => any::<Index>().prop_map(Edit::Truncate),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        match e {
            Edit::Remove(i) => {
                lines.remove(i.index(lines.len()));
            }
            Edit::Repeat(i) => {
                let n = i.index(lines.len());
                lines.insert(n, lines[n].clone());
            }
            Edit::Splice(l, c, p) => {
                let n = l.index(lines.len());
                let chars: Vec<char> = lines[n].chars().collect();
                let at = c.index(chars.len() + 1);
                let cut = chars.len().min(at + 1);
                lines[n] = chars[..at].iter().collect::<String>()
                    + p
                    + &chars[cut..].iter().collect::<String>();
            }
            Edit::Truncate(i) => {
                let n = i.index(lines.len());
                lines.truncate(n.max(1));
            }
        }
    }
    lines.join("\n")
}

fn fixture(name: &str) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/bank")
        .join(name);
    let bytes = std::fs::read(&path).expect("a fixture");
    // The Sparkasse fixture is Latin-1, as the bank writes it.
    String::from_utf8(bytes.clone())
        .unwrap_or_else(|_| bytes.iter().map(|&b| char::from(b)).collect())
}

/// Reads `bytes` as the file `name`; checks the lines' places and the refusal's.
fn check(name: &str, bytes: &[u8]) -> TestCaseResult {
    let profile = CsvProfile::built_in("us-debit-credit").expect("built in");
    let lines =
        u32::try_from(bytes.iter().filter(|b| **b == b'\n').count() + 1).unwrap_or(u32::MAX);
    match read_statement(name, bytes, &profile) {
        Ok(read) => {
            for l in &read {
                prop_assert!(
                    (1..=lines).contains(&l.line),
                    "a line read on line {} of {lines}",
                    l.line
                );
            }
        }
        Err(e) => {
            prop_assert_eq!(e.file.as_str(), name);
            prop_assert!(!e.place.is_empty() && !e.what.is_empty(), "{e}");
        }
    }
    Ok(())
}

#[test]
fn fuzz_bank_fixtures_mutated_never_panic_and_name_the_place() {
    let texts: Vec<String> = FIXTURES.iter().map(|f| fixture(f)).collect();
    for (name, text) in FIXTURES.iter().zip(&texts) {
        let profile = CsvProfile::built_in("us-debit-credit").expect("built in");
        assert!(
            read_statement(name, text.as_bytes(), &profile).is_ok(),
            "{name} reads as shipped"
        );
    }
    let strategy = (
        any::<Index>(),
        proptest::collection::vec(edit(), 1..6),
        any::<bool>(),
    );
    fuzz(
        "bank_mutated_fixtures",
        400,
        strategy,
        |(which, edits, crlf)| {
            let n = which.index(FIXTURES.len());
            let mut text = apply(&texts[n], &edits);
            if crlf {
                text = text.replace("\r\n", "\n").replace('\n', "\r\n");
            }
            check(FIXTURES[n], text.as_bytes())
        },
    );
}

#[test]
fn fuzz_bank_arbitrary_bytes_never_panic() {
    let strategy = proptest::collection::vec(
        prop_oneof![
            3 => proptest::sample::select(FRAGMENTS).prop_map(|s| s.as_bytes().to_vec()),
            1 => proptest::collection::vec(any::<u8>(), 0..8),
        ],
        0..60,
    )
    .prop_map(|v| v.concat());
    fuzz("bank_arbitrary_bytes", 600, strategy, |bytes| {
        // Also prefixed, so that the MT940 and the BAI2 reader are the ones chosen.
        let mut mt = b":20:X\n:60F:C261001EUR1,00\n".to_vec();
        mt.extend(&bytes);
        check("fuzz.sta", &mt)?;
        let mut bai = b"01,A,B,261201,0600,1,,,2/\n02,B,A,1,261130,2400,,2/\n".to_vec();
        bai.extend(&bytes);
        check("fuzz.bai", &bai)?;
        check("fuzz.bin", &bytes)
    });
}
