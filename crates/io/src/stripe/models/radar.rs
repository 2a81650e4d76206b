//! Radar's early fraud warning (`radar.early_fraud_warning`, `issfr_...`): the card network
//! flagged a charge as fraudulent. Read leniently: a `fraud_type` tieout does not know is
//! kept verbatim, a field of the wrong type or absent is `None`, never a failed read.

use serde::{Deserialize, Deserializer, Serialize};

use super::{AnyObject, Expandable, FraudType, HasId};

/// An early fraud warning, as `GET /v1/radar/early_fraud_warnings` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EarlyFraudWarning {
    pub id: String,
    #[serde(default, deserialize_with = "lenient_bool")]
    pub actionable: Option<bool>,
    /// The charge, an id or (with `expand[]=data.charge.balance_transaction`) the object
    /// with the fee Stripe kept on it.
    #[serde(default, deserialize_with = "lenient_expandable")]
    pub charge: Option<Expandable<WarnedCharge>>,
    #[serde(default, deserialize_with = "lenient_i64")]
    pub created: Option<i64>,
    #[serde(default, deserialize_with = "lenient_fraud_type")]
    pub fraud_type: Option<FraudType>,
    #[serde(default, deserialize_with = "lenient_bool")]
    pub livemode: Option<bool>,
    #[serde(default, deserialize_with = "lenient_expandable")]
    pub payment_intent: Option<Expandable<AnyObject>>,
}

/// The warned charge as the expanded list gives it: only what the queue takes from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarnedCharge {
    pub id: String,
    #[serde(default, deserialize_with = "lenient_expandable")]
    pub balance_transaction: Option<Expandable<ChargeFee>>,
}

/// The charge's balance transaction, for its fee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChargeFee {
    pub id: String,
    #[serde(default, deserialize_with = "lenient_i64")]
    pub fee: Option<i64>,
}

impl HasId for WarnedCharge {
    fn id(&self) -> &str {
        &self.id
    }
}

impl HasId for ChargeFee {
    fn id(&self) -> &str {
        &self.id
    }
}

impl EarlyFraudWarning {
    /// The fee Stripe kept on the warned charge, when the read expanded it.
    pub fn charge_fee(&self) -> Option<i64> {
        match self
            .charge
            .as_ref()?
            .object()?
            .balance_transaction
            .as_ref()?
        {
            Expandable::Object(bt) => bt.fee,
            Expandable::Id(_) => None,
        }
    }
}

fn value<'de, D: Deserializer<'de>>(d: D) -> Result<serde_json::Value, D::Error> {
    Ok(Option::<serde_json::Value>::deserialize(d)?.unwrap_or_default())
}

fn lenient_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(value(d)?.as_bool())
}

fn lenient_i64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    Ok(value(d)?.as_i64())
}

fn lenient_fraud_type<'de, D: Deserializer<'de>>(d: D) -> Result<Option<FraudType>, D::Error> {
    Ok(value(d)?.as_str().map(FraudType::parse))
}

fn lenient_expandable<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(
    d: D,
) -> Result<Option<Expandable<T>>, D::Error> {
    Ok(serde_json::from_value(value(d)?).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stripes_example_parses_and_odd_shapes_never_fail() {
        // Stripe's own example (fixtures/stripe, `radar.early_fraud_warning`).
        let w: EarlyFraudWarning = serde_json::from_str(
            r#"{"actionable":true,"charge":"ch_1234","created":1234567890,"fraud_type":"misc",
                "id":"issfr_1Pgc79B7WZ01zgkWxwDzEIPX","livemode":false,
                "object":"radar.early_fraud_warning"}"#,
        )
        .expect("parses");
        assert_eq!(w.actionable, Some(true));
        assert_eq!(w.fraud_type, Some(FraudType::Misc));
        assert_eq!(w.charge.as_ref().map(Expandable::id), Some("ch_1234"));
        assert_eq!(w.charge_fee(), None);
        let odd: EarlyFraudWarning = serde_json::from_str(
            r#"{"id":"issfr_2","fraud_type":"made_with_a_new_trick","actionable":"yes",
                "created":null,"charge":{"id":"ch_9","balance_transaction":{"id":"txn_9","fee":321}},
                "payment_intent":42}"#,
        )
        .expect("odd shapes parse");
        assert_eq!(
            odd.fraud_type,
            Some(FraudType::Unknown("made_with_a_new_trick".into()))
        );
        assert_eq!((odd.actionable, odd.created), (None, None));
        assert_eq!(odd.charge_fee(), Some(321));
        assert_eq!(odd.payment_intent, None);
        let bare: EarlyFraudWarning = serde_json::from_str(r#"{"id":"issfr_3"}"#).expect("bare");
        assert_eq!((bare.charge, bare.fraud_type), (None, None));
    }
}
