//! Money as Stripe counts it: integer minor units tied to a currency, with Stripe's own
//! exponent table (which differs from ISO 4217 for ISK, UGX and the three-decimal
//! currencies). Decimal text is produced and read here and nowhere else; floats never
//! touch an amount. Sums are kept per currency and never mixed.

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::compact::InlineText;

/// A lowercase three-letter currency code as Stripe sends it (`usd`, `jpy`, `kwd`).
///
/// Stored inline so that a million balance-transaction rows do not allocate a string each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Currency([u8; 3]);

/// Why a currency code or an amount could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoneyError {
    #[error("'{0}' is not a three-letter currency code")]
    BadCurrency(String),
    #[error("'{text}' is not an amount in {currency}: {why}")]
    BadAmount {
        text: String,
        currency: Currency,
        why: &'static str,
    },
    #[error("adding {a} and {b} would mix currencies")]
    CurrencyMismatch { a: Currency, b: Currency },
    #[error("the sum overflows 64-bit minor units")]
    Overflow,
}

impl Currency {
    /// ISO 4217's "no currency": stands in for a code Stripe did not send or sent malformed.
    pub const XXX: Currency = Currency(*b"xxx");
    pub const USD: Currency = Currency(*b"usd");
    pub const EUR: Currency = Currency(*b"eur");
    pub const JPY: Currency = Currency(*b"jpy");

    /// Parses a code in any case (`USD`, `usd`); anything but three ASCII letters is refused.
    pub fn parse(code: &str) -> Result<Self, MoneyError> {
        let bytes = code.trim().as_bytes();
        if bytes.len() != 3 || !bytes.iter().all(u8::is_ascii_alphabetic) {
            return Err(MoneyError::BadCurrency(code.to_string()));
        }
        Ok(Self([
            bytes[0].to_ascii_lowercase(),
            bytes[1].to_ascii_lowercase(),
            bytes[2].to_ascii_lowercase(),
        ]))
    }

    /// The lowercase code, as Stripe writes it.
    pub fn as_str(&self) -> &str {
        // The bytes are checked ASCII letters at construction.
        std::str::from_utf8(&self.0).unwrap_or("???")
    }

    /// The uppercase code, as people write it.
    pub fn upper(&self) -> String {
        self.as_str().to_ascii_uppercase()
    }

    /// Digits after the decimal point in Stripe's API representation of this currency.
    ///
    /// Zero-decimal currencies are sent as whole units; ISK and UGX are zero-decimal in
    /// ISO 4217 but Stripe sends them as two-decimal values (always ending in `00`), so they
    /// are two here. `BHD JOD KWD OMR TND` have three.
    pub fn exponent(&self) -> u32 {
        match self.as_str() {
            "bif" | "clp" | "djf" | "gnf" | "jpy" | "kmf" | "krw" | "mga" | "pyg" | "rwf"
            | "vnd" | "vuv" | "xaf" | "xof" | "xpf" => 0,
            "bhd" | "jod" | "kwd" | "omr" | "tnd" => 3,
            _ => 2,
        }
    }

    /// The step Stripe accepts for amounts in this currency, in minor units: 10 for the
    /// three-decimal currencies (last digit must be 0), 100 for ISK and UGX, 1 otherwise.
    pub fn amount_step(&self) -> i64 {
        match self.as_str() {
            "bhd" | "jod" | "kwd" | "omr" | "tnd" => 10,
            "isk" | "ugx" => 100,
            _ => 1,
        }
    }

    /// Rounds a non-negative minor amount down to a multiple of [`Self::amount_step`].
    pub fn floor_to_step(&self, minor: i64) -> i64 {
        let step = self.amount_step();
        minor - minor.rem_euclid(step)
    }
}

impl fmt::Display for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.upper())
    }
}

impl fmt::Debug for Currency {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Currency({})", self.as_str())
    }
}

impl FromStr for Currency {
    type Err = MoneyError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl Serialize for Currency {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Currency {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

/// An amount in a currency's minor units (cents, yen, fils).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Money {
    pub minor: i64,
    pub currency: Currency,
}

impl Money {
    pub fn new(minor: i64, currency: Currency) -> Self {
        Self { minor, currency }
    }

    /// Decimal major units with the currency's exponent: `12.34`, `-0.05`, `1234` (JPY),
    /// `5.120` (KWD). No grouping, no symbol: this is the form CSV and Markdown carry.
    pub fn major(&self) -> String {
        format_major(self.minor, self.currency)
    }

    /// Major units followed by the uppercase code: `12.34 USD`.
    pub fn display(&self) -> String {
        format!("{} {}", self.major(), self.currency)
    }

    /// Adds two amounts of one currency; mixing currencies or overflowing is an error.
    pub fn checked_add(self, other: Money) -> Result<Money, MoneyError> {
        if self.currency != other.currency {
            return Err(MoneyError::CurrencyMismatch {
                a: self.currency,
                b: other.currency,
            });
        }
        let minor = self
            .minor
            .checked_add(other.minor)
            .ok_or(MoneyError::Overflow)?;
        Ok(Money::new(minor, self.currency))
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// Formats minor units as decimal major units (see [`Money::major`]).
pub fn format_major(minor: i64, currency: Currency) -> String {
    format_major_inline(minor, currency).to_text()
}

/// [`format_major`] for sums too large for i64 (totals are summed in i128 so none is
/// clamped): exact for any i128 (`-0.05`, `1234`, `5.120`).
pub fn format_major_i128(minor: i128, currency: Currency) -> String {
    if let Ok(small) = i64::try_from(minor) {
        return format_major(small, currency);
    }
    let exp = currency.exponent() as usize;
    let abs = minor.unsigned_abs().to_string();
    let sign = if minor < 0 { "-" } else { "" };
    if exp == 0 {
        return format!("{sign}{abs}");
    }
    let padded = format!("{abs:0>width$}", width = exp + 1);
    let (int, frac) = padded.split_at(padded.len() - exp);
    format!("{sign}{int}.{frac}")
}

/// [`format_major`]'s text made on the stack: what exports use, which format millions of
/// amounts. 24 bytes hold every `i64` of minor units at Stripe's exponents (0, 2 and 3:
/// at most 22 bytes; `format_major_edges_match_decimal` checks `i64::MIN` and `MAX`).
pub fn format_major_inline(minor: i64, currency: Currency) -> InlineText {
    // Integer arithmetic: the same text as `Decimal::from(minor)` scaled by the exponent,
    // e.g. `-0.05`, `1234`, `5.120`.
    let exp = currency.exponent();
    let mut out = InlineText::new();
    if minor < 0 {
        out.push_ascii(b"-");
    }
    let abs = minor.unsigned_abs();
    match 10u64.checked_pow(exp) {
        Some(unit) if exp > 0 => {
            push_digits(&mut out, abs / unit, 1);
            out.push_ascii(b".");
            push_digits(&mut out, abs % unit, exp as usize);
        }
        _ => push_digits(&mut out, abs, 1),
    }
    out
}

/// Appends `v` in decimal, zero-padded to at least `width` digits (no formatting
/// machinery: exports write millions of amounts).
fn push_digits(out: &mut InlineText, mut v: u64, width: usize) {
    let mut digits = [b'0'; 20];
    let mut n = 0;
    while v > 0 || n == 0 {
        digits[19 - n] = b'0' + (v % 10) as u8;
        v /= 10;
        n += 1;
    }
    let n = n.max(width.min(20));
    out.push_ascii(&digits[20 - n..]);
}

/// Formats with thousands separators for the screen: `-1,234.50`.
pub fn format_major_grouped(minor: i64, currency: Currency) -> String {
    let plain = format_major(minor, currency);
    let (sign, rest) = match plain.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", plain.as_str()),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let grouped = group_thousands(int);
    match frac {
        Some(f) => format!("{sign}{grouped}.{f}"),
        None => format!("{sign}{grouped}"),
    }
}

/// Puts a comma between each group of three digits of a run of ASCII digits:
/// `1234567` -> `1,234,567`. The one grouping helper (counts use it too).
pub fn group_thousands(digits: &str) -> String {
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Reads decimal major units back into minor units. Exactly the currency's number of
/// decimals or fewer is accepted (`12.3` is 1230 cents), and so are any number of
/// trailing zero decimals beyond them, as banks pad amounts (`8.850` EUR is 8.85 EUR);
/// a non-zero digit beyond the exponent is an error, never a rounding.
pub fn parse_major(text: &str, currency: Currency) -> Result<i64, MoneyError> {
    let bad = |why| MoneyError::BadAmount {
        text: text.to_string(),
        currency,
        why,
    };
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(bad("it is empty"));
    }
    let mut d = Decimal::from_str(trimmed).map_err(|_| bad("it is not a decimal number"))?;
    if d.scale() > currency.exponent() {
        // Padding zeros are dropped; what is left must fit the currency.
        d = d.normalize();
    }
    if d.scale() > currency.exponent() {
        return Err(bad(
            "it has a non-zero digit beyond the decimals the currency allows",
        ));
    }
    let scaled = d
        .checked_mul(Decimal::from(10_i64.pow(currency.exponent())))
        .ok_or_else(|| bad("it is too large"))?;
    // The scale was checked above, so `scaled` is a whole number.
    scaled.to_i64().ok_or_else(|| bad("it is too large"))
}

/// Running totals, one per currency, in a stable (alphabetical) order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Totals(BTreeMap<Currency, i64>);

impl Totals {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an amount to its currency's total. Saturation would hide an error, so an
    /// overflow is reported.
    pub fn add(&mut self, money: Money) -> Result<(), MoneyError> {
        let slot = self.0.entry(money.currency).or_insert(0);
        *slot = slot.checked_add(money.minor).ok_or(MoneyError::Overflow)?;
        Ok(())
    }

    /// Adds minor units in a currency.
    pub fn add_minor(&mut self, minor: i64, currency: Currency) -> Result<(), MoneyError> {
        self.add(Money::new(minor, currency))
    }

    pub fn get(&self, currency: Currency) -> i64 {
        self.0.get(&currency).copied().unwrap_or(0)
    }

    pub fn iter(&self) -> impl Iterator<Item = Money> + '_ {
        self.0.iter().map(|(c, m)| Money::new(*m, *c))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Currencies ordered by their total, largest first (ties alphabetical).
    pub fn by_size_desc(&self) -> Vec<Money> {
        let mut all: Vec<Money> = self.iter().collect();
        all.sort_by(|a, b| {
            b.minor
                .cmp(&a.minor)
                .then_with(|| a.currency.cmp(&b.currency))
        });
        all
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn major_i128_is_exact_at_every_exponent() {
        use super::format_major_i128 as major_i128;
        assert_eq!(major_i128(-5, Currency::USD), "-0.05");
        assert_eq!(major_i128(123_456, Currency::USD), "1234.56");
        assert_eq!(major_i128(1234, Currency::JPY), "1234");
        assert_eq!(major_i128(0, Currency::EUR), "0.00");
        let big = i128::from(i64::MAX) * 4;
        assert_eq!(major_i128(big, Currency::JPY), big.to_string());
        // Beyond i64 at an exponent too: the digits split where the currency says.
        assert_eq!(
            major_i128(big, Currency::USD),
            format!("{}.{:02}", big / 100, big % 100)
        );
    }

    use super::*;
    use proptest::prelude::*;

    fn decimal_text(minor: i64, currency: Currency) -> String {
        let mut d = Decimal::from(minor);
        d.set_scale(currency.exponent()).expect("scale");
        d.to_string()
    }

    proptest! {
        #[test]
        fn format_major_writes_what_decimal_writes(minor in any::<i64>(), which in 0usize..3) {
            let c = [Currency::USD, Currency::JPY, Currency::parse("kwd").expect("kwd")][which];
            prop_assert_eq!(format_major(minor, c), decimal_text(minor, c));
        }
    }

    #[test]
    fn format_major_edges_match_decimal() {
        for c in [
            Currency::USD,
            Currency::JPY,
            Currency::parse("kwd").expect("kwd"),
        ] {
            for m in [
                0,
                1,
                -1,
                5,
                -5,
                99,
                -99,
                100,
                -100,
                1000,
                -1001,
                i64::MIN,
                i64::MAX,
            ] {
                assert_eq!(format_major(m, c), decimal_text(m, c), "{m} {c}");
            }
        }
    }

    fn c(code: &str) -> Currency {
        Currency::parse(code).expect("valid code")
    }

    #[test]
    fn exponents_follow_stripe_not_iso() {
        assert_eq!(c("usd").exponent(), 2);
        assert_eq!(c("JPY").exponent(), 0);
        assert_eq!(c("kwd").exponent(), 3);
        assert_eq!(c("isk").exponent(), 2);
        assert_eq!(c("ugx").exponent(), 2);
        assert_eq!(c("isk").amount_step(), 100);
        assert_eq!(c("tnd").amount_step(), 10);
    }

    #[test]
    fn formats_major_units() {
        assert_eq!(format_major(1234, c("usd")), "12.34");
        assert_eq!(format_major(-5, c("usd")), "-0.05");
        assert_eq!(format_major(0, c("usd")), "0.00");
        assert_eq!(format_major(1234, c("jpy")), "1234");
        assert_eq!(format_major(5120, c("kwd")), "5.120");
        assert_eq!(format_major(50000, c("isk")), "500.00");
        assert_eq!(format_major_grouped(-123456789, c("usd")), "-1,234,567.89");
        assert_eq!(format_major_grouped(1000, c("jpy")), "1,000");
        assert_eq!(format_major_grouped(100, c("usd")), "1.00");
    }

    #[test]
    fn parses_major_units_strictly() {
        assert_eq!(parse_major("12.34", c("usd")), Ok(1234));
        assert_eq!(parse_major("12.3", c("usd")), Ok(1230));
        assert_eq!(parse_major("-0.05", c("usd")), Ok(-5));
        assert_eq!(parse_major("1234", c("jpy")), Ok(1234));
        assert!(parse_major("12.345", c("usd")).is_err());
        assert_eq!(parse_major("8.850", c("eur")), Ok(885));
        assert_eq!(parse_major("+00000000000000.2400", c("usd")), Ok(24));
        assert_eq!(parse_major("12.00000", c("usd")), Ok(1200));
        assert_eq!(parse_major("1500.000", c("jpy")), Ok(1500));
        assert_eq!(parse_major("-0.050", c("usd")), Ok(-5));
        assert!(parse_major("12.3401", c("usd")).is_err());
        assert!(parse_major("1500.001", c("jpy")).is_err());
        assert!(parse_major("1.5", c("jpy")).is_err());
        assert!(parse_major("abc", c("usd")).is_err());
        assert!(parse_major("", c("usd")).is_err());
    }

    #[test]
    fn refuses_bad_codes() {
        assert!(Currency::parse("us").is_err());
        assert!(Currency::parse("usd1").is_err());
        assert!(Currency::parse("u$d").is_err());
    }

    #[test]
    fn adding_mixed_currencies_is_an_error() {
        let a = Money::new(100, c("usd"));
        let b = Money::new(100, c("eur"));
        assert!(a.checked_add(b).is_err());
        assert_eq!(a.checked_add(a), Ok(Money::new(200, c("usd"))));
    }

    #[test]
    fn floors_to_the_currency_step() {
        assert_eq!(c("kwd").floor_to_step(5129), 5120);
        assert_eq!(c("usd").floor_to_step(5129), 5129);
        assert_eq!(c("isk").floor_to_step(5199), 5100);
    }

    fn any_currency() -> impl Strategy<Value = Currency> {
        prop::sample::select(vec![
            "usd", "eur", "jpy", "krw", "kwd", "bhd", "isk", "ugx", "gbp",
        ])
        .prop_map(|s| Currency::parse(s).expect("valid"))
    }

    proptest! {
        #[test]
        fn format_then_parse_is_identity(minor in any::<i64>(), cur in any_currency()) {
            prop_assert_eq!(parse_major(&format_major(minor, cur), cur), Ok(minor));
        }

        #[test]
        fn totals_never_mix_currencies(entries in prop::collection::vec((-1_000_000_000i64..1_000_000_000, any_currency()), 0..60)) {
            let mut totals = Totals::new();
            for (m, cur) in &entries {
                totals.add_minor(*m, *cur).expect("no overflow in range");
            }
            for money in totals.iter() {
                let expected: i64 = entries.iter().filter(|(_, c)| *c == money.currency).map(|(m, _)| *m).sum();
                prop_assert_eq!(money.minor, expected);
            }
            let distinct: std::collections::BTreeSet<_> = entries.iter().map(|(_, c)| *c).collect();
            prop_assert_eq!(totals.len(), distinct.len());
        }
    }
}
