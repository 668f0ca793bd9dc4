//! The `Stripe-Signature` of a webhook: `t=<unix time>,v1=<hex HMAC-SHA256>[,v1=…]`, the HMAC
//! over `"{t}.{raw body}"` under the endpoint's signing secret
//! (docs.stripe.com/webhooks#verify-manually). Any `v1` may match any configured secret:
//! while a secret is rolled, Stripe signs with both and the operator configures both. The
//! timestamp must be within the tolerance of now, either way, so a captured request cannot be
//! replayed later. Comparisons are constant-time.

use hmac::{Hmac, Mac};
use secrecy::{ExposeSecret, SecretString};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How far a signature's timestamp may be from now, as Stripe's own libraries allow.
pub const TOLERANCE_SECS: i64 = 300;

/// Why a webhook's signature was refused (the 400's detail says which).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignatureError {
    /// No `Stripe-Signature` header, or one without `t` or `v1`.
    Malformed,
    /// The timestamp is further from now than the tolerance.
    OutsideTolerance,
    /// No `v1` is the HMAC of the body under any configured secret.
    NoMatch,
}

impl SignatureError {
    pub fn detail(self) -> &'static str {
        match self {
            Self::Malformed => "The Stripe-Signature header is missing or malformed.",
            Self::OutsideTolerance => {
                "The Stripe-Signature timestamp is more than 5 minutes from now."
            }
            Self::NoMatch => "The Stripe-Signature matches no configured webhook secret.",
        }
    }
}

/// Checks `header` against `body` under any of `secrets` at `now` (unix seconds).
pub fn verify(
    header: Option<&str>,
    body: &[u8],
    secrets: &[SecretString],
    now: i64,
) -> Result<(), SignatureError> {
    let header = header.ok_or(SignatureError::Malformed)?;
    let mut timestamp = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", value)) => timestamp = value.parse::<i64>().ok(),
            Some(("v1", value)) => {
                if let Ok(bytes) = hex::decode(value) {
                    signatures.push(bytes);
                }
            }
            _ => {}
        }
    }
    let timestamp = timestamp.ok_or(SignatureError::Malformed)?;
    if signatures.is_empty() {
        return Err(SignatureError::Malformed);
    }
    if (now - timestamp).abs() > TOLERANCE_SECS {
        return Err(SignatureError::OutsideTolerance);
    }
    let matches = secrets.iter().any(|secret| {
        let expected = sign(secret.expose_secret(), timestamp, body);
        // Every candidate is compared, so the time taken tells nothing of which matched.
        signatures.iter().fold(false, |found, candidate| {
            found | bool::from(expected.ct_eq(candidate))
        })
    });
    if matches {
        Ok(())
    } else {
        Err(SignatureError::NoMatch)
    }
}

/// The HMAC-SHA256 of `"{timestamp}.{body}"` under `secret`.
pub fn sign(secret: &str, timestamp: i64, body: &[u8]) -> Vec<u8> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize().into_bytes().to_vec()
}

/// A `Stripe-Signature` header for `body` under `secret` at `timestamp`, as Stripe writes it
/// (the tests' fake sender uses it).
pub fn header(secret: &str, timestamp: i64, body: &[u8]) -> String {
    format!(
        "t={timestamp},v1={}",
        hex::encode(sign(secret, timestamp, body))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_790_000_000;
    const BODY: &[u8] = br#"{"id":"evt_1","type":"payment_intent.succeeded"}"#;

    fn secrets(values: &[&str]) -> Vec<SecretString> {
        values.iter().map(|s| SecretString::from(*s)).collect()
    }

    #[test]
    fn a_signature_under_the_secret_is_accepted() {
        let header = header("whsec_a", NOW, BODY);
        assert_eq!(
            verify(Some(&header), BODY, &secrets(&["whsec_a"]), NOW),
            Ok(())
        );
        // The HMAC of "1790000000.{body}" under "whsec_a", computed apart (Python: hmac.new(b"whsec_a", b"1790000000." + body, "sha256").hexdigest()).
        assert_eq!(
            hex::encode(sign("whsec_a", NOW, BODY)),
            "4ef407c38f5c0758af58b4c33fea915cd61a706a91e869cbe07d3d6195da29c2"
        );
    }

    #[test]
    fn a_wrong_secret_a_changed_body_or_an_old_timestamp_is_refused() {
        let header_a = header("whsec_a", NOW, BODY);
        assert_eq!(
            verify(Some(&header_a), BODY, &secrets(&["whsec_b"]), NOW),
            Err(SignatureError::NoMatch)
        );
        assert_eq!(
            verify(
                Some(&header_a),
                b"{\"id\":\"evt_2\"}",
                &secrets(&["whsec_a"]),
                NOW
            ),
            Err(SignatureError::NoMatch)
        );
        let old = header("whsec_a", NOW - TOLERANCE_SECS - 1, BODY);
        assert_eq!(
            verify(Some(&old), BODY, &secrets(&["whsec_a"]), NOW),
            Err(SignatureError::OutsideTolerance)
        );
        let edge = header("whsec_a", NOW - TOLERANCE_SECS, BODY);
        assert_eq!(
            verify(Some(&edge), BODY, &secrets(&["whsec_a"]), NOW),
            Ok(())
        );
    }

    #[test]
    fn during_a_rotation_either_secret_and_either_v1_matches() {
        let old = hex::encode(sign("whsec_old", NOW, BODY));
        let new = hex::encode(sign("whsec_new", NOW, BODY));
        let both = format!("t={NOW},v1={new},v1={old}");
        assert_eq!(
            verify(Some(&both), BODY, &secrets(&["whsec_old"]), NOW),
            Ok(())
        );
        assert_eq!(
            verify(Some(&both), BODY, &secrets(&["whsec_new"]), NOW),
            Ok(())
        );
        let only_old = format!("t={NOW},v1={old}");
        assert_eq!(
            verify(
                Some(&only_old),
                BODY,
                &secrets(&["whsec_new", "whsec_old"]),
                NOW
            ),
            Ok(())
        );
    }

    #[test]
    fn malformed_headers_are_refused() {
        let secrets = secrets(&["whsec_a"]);
        for header in [
            None,
            Some(""),
            Some("t=1"),
            Some("v1=00"),
            Some("t=x,v1=00"),
            Some("t=1,v1=zz"),
        ] {
            assert_eq!(
                verify(header, BODY, &secrets, NOW),
                Err(SignatureError::Malformed),
                "{header:?}"
            );
        }
    }
}
