//! A gate's offline manifest of a day (`GET /v2/gates/{gate_id}/manifest`; docs/gate.md,
//! "Offline"): the tickets of that day for the gate's products that are revoked (cancelled or
//! replaced) or used, each named by the first 16 bytes of the SHA-256 of its printed code
//! (base64url, no padding), so the list names no code a reader could use. Signed as a compact
//! JWS with the keys of the bearers (header type [`MANIFEST_TYPE`]), so a device checks it
//! came from us before it trusts it; the ticket tokens it judges offline are verified with the
//! same JWKS.

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::Gates;
use crate::{error::Result, store::Gate};

pub use app::wire::{code_hash, GateManifest as Manifest, MANIFEST_TYPE};

/// The signed manifest of `gate` for `day`, made at `now`.
pub async fn manifest(
    gates: &Gates<'_>,
    gate: &Gate,
    day: NaiveDate,
    now: DateTime<Utc>,
) -> Result<String> {
    let products = gate.product_ids.as_ref().map(|ids| ids.0.as_slice());
    let codes = gates
        .store
        .day_codes(gate.merchant_id, products, day)
        .await?;
    let claims = Manifest {
        gate_id: gate.gate_id,
        date: day,
        iat: now.timestamp(),
        revoked: codes.revoked.iter().map(|c| code_hash(c)).collect(),
        used: codes.used.iter().map(|c| code_hash(c)).collect(),
        merchant_id: gate.merchant_id,
        product_ids: products.map(<[Uuid]>::to_vec),
        early_minutes: gate.early_minutes.try_into().unwrap_or_default(),
        late_minutes: gate.late_minutes.try_into().unwrap_or_default(),
        products: codes.products,
    };
    Ok(gates.authn.tokens.sign_typed(MANIFEST_TYPE, &claims)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_is_named_by_22_characters_of_its_hash() {
        let hash = code_hash("ABCD-EFGH-JKMN");
        assert_eq!(hash.len(), 22);
        assert_eq!(hash, code_hash("ABCD-EFGH-JKMN"));
        assert_ne!(hash, code_hash("ABCD-EFGH-JKMP"));
    }

    #[test]
    fn a_manifest_of_ten_thousand_tickets_stays_under_400_kb() {
        let key = crate::auth::tokens::generate_ed25519().unwrap();
        let tokens = crate::auth::TokenService::new("http://issuer.test", &key, &[]);
        let hashes = |n: usize| (0..n).map(|i| code_hash(&format!("T{i:011}"))).collect();
        let manifest = Manifest {
            gate_id: crate::ids::random_id(),
            date: "2026-07-01".parse().unwrap(),
            iat: 1_782_900_000,
            revoked: hashes(2_000),
            used: hashes(8_000),
            merchant_id: crate::ids::random_id(),
            product_ids: None,
            early_minutes: 30,
            late_minutes: 0,
            products: Vec::new(),
        };
        let jws = tokens.sign_typed(MANIFEST_TYPE, &manifest).unwrap();
        assert!(jws.len() < 400 * 1024, "{} bytes", jws.len());
        assert_eq!(
            tokens.verify_typed::<Manifest>(&jws, MANIFEST_TYPE),
            Ok(manifest)
        );
    }
}
