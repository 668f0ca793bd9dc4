//! What a gate scans: a ticket's QR token, or its printed code typed by hand.
//!
//! The QR code holds a compact JWS (RFC 7515), EdDSA over Ed25519 with the keys of the
//! bearers (`kid` in its header, the public keys at `/.well-known/jwks.json`), header type
//! [`TICKET_TOKEN_TYPE`], so an offline gate can verify it and no bearer check accepts it. Its
//! claims ([`TicketClaims`]) name the ticket, its printed code, merchant, product and validity
//! and hold nothing about the person. Tokens are made when a ticket is shown (mail, page,
//! wallet pass, calendar file): Ed25519 signatures are deterministic, so one key gives one
//! token per ticket; after a rotation the old key still verifies (docs/gate.md).

use chrono_tz::Tz;
use uuid::Uuid;

use super::window::Validity;
use crate::{auth::Authn, display_code::is_plausible_ticket_code, error::Error};

pub use app::wire::{TicketClaims, WindowKind, TICKET_TOKEN_TYPE};

/// The claims of a ticket of `validity` in `zone`.
pub fn claims(
    ticket_id: Uuid,
    code: &str,
    merchant_id: Uuid,
    product_id: Uuid,
    validity: Validity,
    zone: Tz,
) -> TicketClaims {
    let kind = match validity {
        Validity::Slot { .. } => WindowKind::Slot,
        Validity::Day(_) => WindowKind::Day,
        Validity::Undated { .. } => WindowKind::Undated,
    };
    let bare = super::window::window(validity, zone, 0, 0);
    TicketClaims {
        tid: ticket_id,
        code: code.to_owned(),
        mid: merchant_id,
        pid: product_id,
        kind,
        vf: bare.from.timestamp(),
        vu: bare.until.map(|u| u.timestamp()),
    }
}

/// Puts each valid or used ticket's QR token into `order` (its `qr`); `zone` is its merchant's.
/// An undated ticket's validity counts from its order's day.
pub fn attach(
    tokens: &crate::auth::TokenService,
    zone: Tz,
    order: &mut app::wire::Order,
) -> anyhow::Result<()> {
    for ticket in &mut order.tickets {
        if ticket.status == app::wire::TicketStatus::Cancelled {
            continue;
        }
        let validity = match (&ticket.timeslot, ticket.visit_date) {
            (Some(slot), _) => Validity::Slot {
                start: slot.start_time.to_utc(),
                end: slot.end_time.to_utc(),
            },
            (None, Some(day)) => Validity::Day(day),
            (None, None) => Validity::Undated {
                issued: order.created_at,
                until: ticket.valid_until,
            },
        };
        let claims = claims(
            ticket.ticket_id,
            &ticket.code,
            order.merchant_id,
            ticket.product_id,
            validity,
            zone,
        );
        ticket.qr = Some(tokens.sign_typed(TICKET_TOKEN_TYPE, &claims)?);
    }
    Ok(())
}

/// What a scan names.
#[derive(Debug, Clone, PartialEq)]
pub enum Scanned {
    /// A verified QR token.
    Token(TicketClaims),
    /// A printed code, normalised.
    Printed(String),
}

impl Scanned {
    /// The printed code the scan names.
    pub fn printed_code(&self) -> &str {
        match self {
            Scanned::Token(claims) => &claims.code,
            Scanned::Printed(code) => code,
        }
    }
}

/// Reads a scan: a QR token whose signature verifies, or a plausible printed code; anything
/// else (a forged or damaged token, text that is no code) is `ticket-unknown`.
pub async fn read(authn: &Authn, raw: &str) -> Result<Scanned, Error> {
    let raw = raw.trim();
    if raw.matches('.').count() == 2 {
        return crate::keys::verify_typed(authn, raw, TICKET_TOKEN_TYPE)
            .await
            .map(Scanned::Token)
            .map_err(|_| super::judge::unknown());
    }
    typed_code(raw)
        .map(Scanned::Printed)
        .ok_or_else(super::judge::unknown)
}

/// A printed code as a person types it, in the form it is printed (`ABCD-EFGH-JKMN`): upper
/// case, spaces dropped, Crockford's look-alikes read as digits (O as 0, I and L as 1), and
/// the dashes put in when twelve characters come without them.
pub fn typed_code(raw: &str) -> Option<String> {
    let cleaned: String = raw
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c.to_ascii_uppercase() {
            'O' => '0',
            'I' | 'L' => '1',
            other => other,
        })
        .collect();
    let code = if cleaned.len() == 12 && cleaned.bytes().all(|b| b.is_ascii_alphanumeric()) {
        format!("{}-{}-{}", &cleaned[..4], &cleaned[4..8], &cleaned[8..])
    } else {
        cleaned
    };
    is_plausible_ticket_code(&code).then_some(code)
}

/// Whether `text` has a QR token's shape (three base64url parts, at most 2048 characters),
/// unverified: what the frame may draw as a QR code.
pub fn looks_like_token(text: &str) -> bool {
    text.len() <= 2048
        && text.split('.').count() == 3
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_code_is_read_as_printed() {
        assert_eq!(
            typed_code(" abcd efgh jkmn ").as_deref(),
            Some("ABCD-EFGH-JKMN")
        );
        assert_eq!(
            typed_code("ABCD-EFGH-JKMN").as_deref(),
            Some("ABCD-EFGH-JKMN")
        );
        // Look-alikes are the digits Crockford's alphabet has instead.
        assert_eq!(
            typed_code("OIL0-0000-0000").as_deref(),
            Some("0110-0000-0000")
        );
        assert_eq!(typed_code("not a code!"), None);
        assert_eq!(typed_code(""), None);
    }

    #[test]
    fn a_token_verifies_with_its_type_only_and_not_after_a_flipped_bit() {
        let key = crate::auth::tokens::generate_ed25519().unwrap();
        let tokens = crate::auth::TokenService::new("http://issuer.test", &key, &[]);
        let claims = TicketClaims {
            tid: crate::ids::random_id(),
            code: "ABCD-EFGH-JKMN".into(),
            mid: crate::ids::random_id(),
            pid: crate::ids::random_id(),
            kind: WindowKind::Day,
            vf: 1_782_856_800,
            vu: Some(1_782_943_200),
        };
        let token = tokens.sign_typed(TICKET_TOKEN_TYPE, &claims).unwrap();
        assert_eq!(
            tokens.verify_typed::<TicketClaims>(&token, TICKET_TOKEN_TYPE),
            Ok(claims)
        );
        assert!(tokens
            .verify_typed::<TicketClaims>(&token, "other")
            .is_err());
        let (head, signature) = token.rsplit_once('.').unwrap();
        let mut bytes = signature.as_bytes().to_vec();
        bytes[3] = if bytes[3] == b'A' { b'B' } else { b'A' };
        let flipped = format!("{head}.{}", String::from_utf8(bytes).unwrap());
        assert!(tokens
            .verify_typed::<TicketClaims>(&flipped, TICKET_TOKEN_TYPE)
            .is_err());
        // No bearer check accepts it: it has no audience.
        assert!(tokens
            .verify::<serde_json::Value>(&token, crate::auth::Audience::Backend)
            .is_err());
    }
}
