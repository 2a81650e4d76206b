//! A balance transaction's `exchange_rate`, exact and in five bytes. The rate is not money
//! (a factor: settlement currency per presentment major unit), but it is kept as the
//! decimal Stripe wrote, never as a float, so a conversion reads back as it was sent.
//!
//! Why five bytes: a million lines are held at once, and the row's 168 bytes had five
//! bytes of padding after its currency code; the rate sits there, so the row does not grow
//! (`rows::tests::a_balance_transaction_row_is_as_small_as_promised`). A rate of up to
//! nine significant digits (every rate Stripe publishes today, e.g. `1.27`, `0.912345`) is
//! held inline as mantissa and scale; a longer one is interned in a process-wide table and
//! held by its index (a few distinct rates a day: the table stays small).

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Mutex, OnceLock};

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An exchange rate or none (see the module docs): byte 0 is 0 for none, `1 + scale` for
/// an inline rate (mantissa: bytes 1..5, little-endian `u32`), or [`INTERNED`] for an
/// index into the interned rates (bytes 1..5).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ExchangeRate([u8; 5]);

const INTERNED: u8 = 0xFF;

type Interned = (Vec<Decimal>, HashMap<(i128, u32), u32>);

/// Rates too long to be held inline, and their index by mantissa and scale (so `1.270`
/// and `1.27` stay apart: a `Decimal` equals both).
fn interned() -> &'static Mutex<Interned> {
    static TABLE: OnceLock<Mutex<Interned>> = OnceLock::new();
    TABLE.get_or_init(|| Mutex::new((Vec::new(), HashMap::new())))
}

impl ExchangeRate {
    /// No rate: the line was settled in the currency it was paid in.
    pub const NONE: ExchangeRate = ExchangeRate([0; 5]);

    /// `d` exactly, with the scale it was written with (`1.270` stays three places).
    pub fn new(d: Decimal) -> ExchangeRate {
        let scale = d.scale();
        if let (Ok(m), true) = (u32::try_from(d.mantissa()), scale <= 28) {
            let mut b = [0u8; 5];
            b[0] = 1 + scale as u8;
            b[1..].copy_from_slice(&m.to_le_bytes());
            return ExchangeRate(b);
        }
        let mut t = interned().lock().unwrap_or_else(|e| e.into_inner());
        let key = (d.mantissa(), d.scale());
        let index = match t.1.get(&key) {
            Some(i) => *i,
            None => {
                let Ok(i) = u32::try_from(t.0.len()) else {
                    // Four billion distinct rates: not an account's data.
                    return ExchangeRate::NONE;
                };
                t.0.push(d);
                t.1.insert(key, i);
                i
            }
        };
        let mut b = [INTERNED, 0, 0, 0, 0];
        b[1..].copy_from_slice(&index.to_le_bytes());
        ExchangeRate(b)
    }

    /// A rate as text (`1.27`, `0.912345`, `1e-7`); `None` when it is not a number.
    pub fn parse(text: &str) -> Option<ExchangeRate> {
        let t = text.trim();
        Decimal::from_str(t)
            .or_else(|_| Decimal::from_scientific(t))
            .ok()
            .map(ExchangeRate::new)
    }

    /// The rate, when there is one.
    pub fn get(&self) -> Option<Decimal> {
        let [tag, rest @ ..] = self.0;
        let n = u32::from_le_bytes(rest);
        match tag {
            0 => None,
            INTERNED => {
                let t = interned().lock().unwrap_or_else(|e| e.into_inner());
                t.0.get(n as usize).copied()
            }
            s => Some(Decimal::from_i128_with_scale(
                i128::from(n),
                u32::from(s - 1),
            )),
        }
    }

    pub fn is_some(&self) -> bool {
        self.0[0] != 0
    }
}

impl std::fmt::Debug for ExchangeRate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.get() {
            Some(d) => write!(f, "ExchangeRate({d})"),
            None => f.write_str("ExchangeRate(none)"),
        }
    }
}

/// Written as the decimal text (`"1.27"`) or `null`.
impl Serialize for ExchangeRate {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.get() {
            Some(d) => s.serialize_some(&d.to_string()),
            None => s.serialize_none(),
        }
    }
}

/// Read from the decimal text, a JSON number, or `null`; anything else is no rate.
impl<'de> Deserialize<'de> for ExchangeRate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(
            match Option::<serde_json::Value>::deserialize(d)?.unwrap_or_default() {
                serde_json::Value::String(s) => ExchangeRate::parse(&s),
                serde_json::Value::Number(n) => ExchangeRate::parse(&n.to_string()),
                _ => None,
            }
            .unwrap_or(ExchangeRate::NONE),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_back_exactly_inline_or_interned() {
        assert_eq!(std::mem::size_of::<ExchangeRate>(), 5);
        assert_eq!(ExchangeRate::NONE.get(), None);
        assert!(!ExchangeRate::default().is_some());
        for text in [
            "1.27",
            "3.26",
            "0.912345",
            "1.270",
            "0",
            "4294967.295",
            "0.7382431234567891",
            "123456789012.5",
        ] {
            let r = ExchangeRate::parse(text).expect(text);
            assert!(r.is_some());
            assert_eq!(r.get().map(|d| d.to_string()).as_deref(), Some(text));
        }
        // The same long rate is interned once.
        let a = ExchangeRate::parse("0.7382431234567891").expect("a");
        let b = ExchangeRate::parse("0.7382431234567891").expect("b");
        assert_eq!(a, b);
        assert_eq!(
            ExchangeRate::parse("1e-7").and_then(|r| r.get()),
            Decimal::from_str("0.0000001").ok()
        );
        assert_eq!(ExchangeRate::parse("x"), None);
    }

    #[test]
    fn a_rate_is_text_in_json_and_reads_from_a_number_too() {
        let r = ExchangeRate::parse("1.27").expect("rate");
        assert_eq!(serde_json::to_string(&r).expect("json"), "\"1.27\"");
        assert_eq!(
            serde_json::to_string(&ExchangeRate::NONE).expect("json"),
            "null"
        );
        let back: ExchangeRate = serde_json::from_str("\"1.27\"").expect("text");
        assert_eq!(back, r);
        let num: ExchangeRate = serde_json::from_str("1.27").expect("number");
        assert_eq!(num, r);
        let none: ExchangeRate = serde_json::from_str("null").expect("null");
        assert_eq!(none, ExchangeRate::NONE);
    }
}
