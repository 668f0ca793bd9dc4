//! PKCE (RFC 7636), S256 only.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A verifier is 43 to 128 unreserved characters (RFC 7636 §4.1).
pub fn is_valid_verifier(verifier: &str) -> bool {
    (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

/// An S256 challenge is the base64url SHA-256 of a verifier: 43 characters.
pub fn is_valid_challenge(challenge: &str) -> bool {
    challenge.len() == 43
        && URL_SAFE_NO_PAD
            .decode(challenge)
            .is_ok_and(|b| b.len() == 32)
}

/// Whether `verifier` hashes to `challenge`.
pub fn verifies(verifier: &str, challenge: &str) -> bool {
    let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    is_valid_verifier(verifier) && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_7636_example_verifies() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(is_valid_challenge(challenge));
        assert!(verifies(verifier, challenge));
        assert!(!verifies(
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXj",
            challenge
        ));
    }

    #[test]
    fn malformed_verifiers_and_challenges_are_refused() {
        assert!(!is_valid_verifier("short"));
        assert!(!is_valid_verifier(&"a".repeat(129)));
        assert!(!is_valid_verifier(&format!("{}!", "a".repeat(43))));
        assert!(!is_valid_challenge("plain-text-challenge"));
    }
}
