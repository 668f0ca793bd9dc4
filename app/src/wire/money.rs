use std::fmt;

use rust_decimal::{Decimal, RoundingStrategy};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An amount of money: a decimal written as text with exactly two decimals, and a currency code.
///
/// The value is a `Decimal` in code and never passes through a float.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Money {
    #[cfg_attr(feature = "ssr", schema(value_type = String, example = "12.50"))]
    pub value: Decimal,
    #[cfg_attr(feature = "ssr", schema(example = "EUR"))]
    pub currency: String,
}

impl Money {
    pub fn new(value: Decimal, currency: impl Into<String>) -> Self {
        Self {
            value,
            currency: currency.into(),
        }
    }

    /// The value rounded to cents with banker's rounding, as the wire shows it.
    pub fn cents(&self) -> Decimal {
        let mut v = self
            .value
            .round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven);
        v.rescale(2);
        v
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.cents(), self.currency)
    }
}

#[derive(Serialize, Deserialize)]
struct MoneyWire<'a> {
    value: std::borrow::Cow<'a, str>,
    currency: std::borrow::Cow<'a, str>,
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        MoneyWire {
            value: self.cents().to_string().into(),
            currency: self.currency.as_str().into(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Money {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = MoneyWire::deserialize(d)?;
        let value = wire
            .value
            .parse::<Decimal>()
            .map_err(serde::de::Error::custom)?;
        Ok(Money::new(value, wire.currency.into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dec(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn serialises_with_exactly_two_decimals() {
        let json = serde_json::to_string(&Money::new(dec("12.5"), "EUR")).unwrap();
        assert_eq!(json, r#"{"value":"12.50","currency":"EUR"}"#);
        let json = serde_json::to_string(&Money::new(dec("7"), "EUR")).unwrap();
        assert_eq!(json, r#"{"value":"7.00","currency":"EUR"}"#);
    }

    #[test]
    fn rounds_half_to_even() {
        assert_eq!(Money::new(dec("0.125"), "EUR").cents(), dec("0.12"));
        assert_eq!(Money::new(dec("0.135"), "EUR").cents(), dec("0.14"));
    }

    #[test]
    fn round_trips_through_json_without_floats() {
        let m: Money = serde_json::from_str(r#"{"value":"0.10","currency":"EUR"}"#).unwrap();
        assert_eq!(m.value, dec("0.10"));
        assert!(serde_json::from_str::<Money>(r#"{"value":"abc","currency":"EUR"}"#).is_err());
    }
}
