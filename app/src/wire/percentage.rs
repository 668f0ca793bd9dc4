//! Discount percentages: JSON numbers on the wire (`22.73`), `Decimal` in code.
//!
//! With the workspace's `serde-str` feature a `Decimal` reads only strings, so
//! `rust_decimal::serde::float_option` cannot read back what it writes; this pair can.

use rust_decimal::Decimal;
use serde::{Deserialize, Deserializer, Serializer};

pub fn serialize<S: Serializer>(value: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    rust_decimal::serde::float_option::serialize(value, s)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Decimal>, D::Error> {
    Option::<f64>::deserialize(d)?
        .map(|f| {
            Decimal::try_from(f)
                .map(|p| p.round_dp(2))
                .map_err(serde::de::Error::custom)
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use rust_decimal::Decimal;
    use serde::{Deserialize, Serialize};

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Discount {
        #[serde(default, skip_serializing_if = "Option::is_none", with = "super")]
        percentage: Option<Decimal>,
    }

    #[test]
    fn a_percentage_survives_the_round_trip_through_json() {
        let discount: Discount = serde_json::from_str(r#"{"percentage":22.73}"#).unwrap();
        assert_eq!(discount.percentage, Some("22.73".parse().unwrap()));
        assert_eq!(
            serde_json::to_string(&discount).unwrap(),
            r#"{"percentage":22.73}"#
        );
        let none: Discount = serde_json::from_str("{}").unwrap();
        assert_eq!(none.percentage, None);
    }
}
