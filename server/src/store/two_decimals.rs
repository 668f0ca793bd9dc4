//! Serde for amounts and percentages as the wire shows them: text with exactly two decimals
//! (`"12.50"`), read from text only, so a value never passes through a float.

use rust_decimal::Decimal;
use serde::{Deserializer, Serializer};

pub fn serialize<S: Serializer>(value: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    let mut v = *value;
    // Values are validated to at most two decimals, so rescaling only pads.
    v.rescale(2);
    s.collect_str(&v)
}

pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Decimal, D::Error> {
    rust_decimal::serde::str::deserialize(d)
}
