//! Judging a ticket without the server (docs/gate.md, "Offline"): the token's claims against
//! the day's signed manifest and what this device let in since, in the server's order of
//! refusals (`server/src/gate/judge.rs`). The signatures are checked before (`signature.rs`);
//! this is the pure part.

use std::collections::BTreeSet;

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use serde::de::DeserializeOwned;

use super::answer::Refusal;
use crate::wire::{code_hash, GateManifest, TicketClaims, WindowKind};

/// A compact JWS taken apart, unverified.
#[derive(Debug, Clone, PartialEq)]
pub struct Jws<T> {
    pub kid: String,
    pub typ: String,
    pub claims: T,
    /// `header.payload`, what the signature is over.
    pub signing_input: String,
    pub signature: Vec<u8>,
}

#[derive(serde::Deserialize)]
struct Header {
    alg: String,
    #[serde(default)]
    kid: String,
    #[serde(default)]
    typ: String,
}

/// `token` taken apart when it is an EdDSA compact JWS whose payload is a `T`.
pub fn parse<T: DeserializeOwned>(token: &str) -> Option<Jws<T>> {
    let mut parts = token.trim().split('.');
    let (header, payload, signature) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let decoded: Header = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(header).ok()?).ok()?;
    if decoded.alg != "EdDSA" {
        return None;
    }
    Some(Jws {
        kid: decoded.kid,
        typ: decoded.typ,
        claims: serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?,
        signing_input: format!("{header}.{payload}"),
        signature: URL_SAFE_NO_PAD.decode(signature).ok()?,
    })
}

/// The verdict on a verified token: `Ok` lets the holder in.
pub fn judge(
    claims: &TicketClaims,
    manifest: &GateManifest,
    let_in_here: &BTreeSet<String>,
    now: i64,
) -> Result<(), Refusal> {
    if claims.mid != manifest.merchant_id {
        return Err(Refusal::Unknown);
    }
    let hash = code_hash(&claims.code);
    if manifest.revoked.contains(&hash) {
        return Err(Refusal::Cancelled);
    }
    if let_in_here.contains(&hash) || manifest.used.contains(&hash) {
        // When and where is on the server; the device knows only that it was.
        return Err(Refusal::Used { first_at: None });
    }
    if let Some(ids) = &manifest.product_ids {
        if !ids.contains(&claims.pid) {
            return Err(Refusal::WrongGate);
        }
    }
    let (early, late) = match claims.kind {
        WindowKind::Slot => (manifest.early_minutes, manifest.late_minutes),
        WindowKind::Day | WindowKind::Undated => (0, 0),
    };
    let from = claims.vf - i64::from(early) * 60;
    let until = claims.vu.map(|until| until + i64::from(late) * 60);
    if now < from || until.is_some_and(|until| now >= until) {
        return Err(Refusal::NotNow {
            from: Some(from * 1000),
            until: until.map(|until| until * 1000),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    const DAY: i64 = 1_782_856_800;

    fn manifest(merchant: Uuid) -> GateManifest {
        GateManifest {
            gate_id: Uuid::from_u128(9),
            date: "2026-07-01".parse().unwrap(),
            iat: DAY,
            revoked: vec![code_hash("RRRR-RRRR-RRRR")],
            used: vec![code_hash("UUUU-UUUU-UUUU")],
            merchant_id: merchant,
            product_ids: Some(vec![Uuid::from_u128(1)]),
            early_minutes: 30,
            late_minutes: 10,
            products: Vec::new(),
        }
    }

    fn claims(code: &str, kind: WindowKind) -> TicketClaims {
        TicketClaims {
            tid: Uuid::from_u128(5),
            code: code.into(),
            mid: Uuid::from_u128(7),
            pid: Uuid::from_u128(1),
            kind,
            vf: DAY + 10 * 3600,
            vu: Some(DAY + 11 * 3600),
        }
    }

    #[test]
    fn refusals_come_in_the_servers_order() {
        let merchant = Uuid::from_u128(7);
        let book = manifest(merchant);
        let none = BTreeSet::new();
        let at_ten = DAY + 10 * 3600;
        let slot = |code| claims(code, WindowKind::Slot);
        assert_eq!(judge(&slot("AAAA-AAAA-AAAA"), &book, &none, at_ten), Ok(()));
        let foreign = manifest(Uuid::from_u128(8));
        // Another merchant's ticket is unknown even when it is revoked there too.
        assert_eq!(
            judge(&slot("RRRR-RRRR-RRRR"), &foreign, &none, 0),
            Err(Refusal::Unknown)
        );
        assert_eq!(
            judge(&slot("RRRR-RRRR-RRRR"), &book, &none, 0),
            Err(Refusal::Cancelled)
        );
        assert_eq!(
            judge(&slot("UUUU-UUUU-UUUU"), &book, &none, 0),
            Err(Refusal::Used { first_at: None })
        );
        let here = BTreeSet::from([code_hash("AAAA-AAAA-AAAA")]);
        assert_eq!(
            judge(&slot("AAAA-AAAA-AAAA"), &book, &here, at_ten),
            Err(Refusal::Used { first_at: None })
        );
        let mut other_product = slot("AAAA-AAAA-AAAA");
        other_product.pid = Uuid::from_u128(2);
        assert_eq!(
            judge(&other_product, &book, &none, 0),
            Err(Refusal::WrongGate)
        );
    }

    #[test]
    fn a_slot_is_widened_by_the_gates_margins_and_a_day_is_not() {
        let book = manifest(Uuid::from_u128(7));
        let none = BTreeSet::new();
        let slot = claims("AAAA-AAAA-AAAA", WindowKind::Slot);
        let start = slot.vf;
        let end = slot.vu.unwrap();
        assert_eq!(judge(&slot, &book, &none, start - 30 * 60), Ok(()));
        assert_eq!(judge(&slot, &book, &none, end + 10 * 60 - 1), Ok(()));
        let early = judge(&slot, &book, &none, start - 30 * 60 - 1);
        assert_eq!(
            early,
            Err(Refusal::NotNow {
                from: Some((start - 30 * 60) * 1000),
                until: Some((end + 10 * 60) * 1000),
            })
        );
        assert!(judge(&slot, &book, &none, end + 10 * 60).is_err());
        let day = claims("AAAA-AAAA-AAAA", WindowKind::Day);
        assert!(judge(&day, &book, &none, day.vf - 1).is_err());
        let mut undated = claims("AAAA-AAAA-AAAA", WindowKind::Undated);
        undated.vu = None;
        assert_eq!(judge(&undated, &book, &none, i64::MAX / 2), Ok(()));
    }

    #[test]
    fn a_token_is_taken_apart_only_when_it_is_an_eddsa_jws() {
        let part = |json: &str| URL_SAFE_NO_PAD.encode(json);
        let claims = claims("AAAA-AAAA-AAAA", WindowKind::Day);
        let payload = part(&serde_json::to_string(&claims).unwrap());
        let header = part(r#"{"alg":"EdDSA","kid":"k1","typ":"bx-ticket"}"#);
        let token = format!("{header}.{payload}.{}", part("sig"));
        let jws = parse::<TicketClaims>(&token).unwrap();
        assert_eq!(jws.kid, "k1");
        assert_eq!(jws.typ, "bx-ticket");
        assert_eq!(jws.claims, claims);
        assert_eq!(jws.signature, b"sig");
        assert_eq!(jws.signing_input, format!("{header}.{payload}"));
        let hs256 = part(r#"{"alg":"HS256","kid":"k1"}"#);
        assert!(parse::<TicketClaims>(&format!("{hs256}.{payload}.{}", part("s"))).is_none());
        assert!(parse::<TicketClaims>("ABCD-EFGH-JKMN").is_none());
        assert!(parse::<TicketClaims>(&format!("{token}.x")).is_none());
    }
}
