//! Standard Webhooks signatures: `webhook-signature: v1,<base64 HMAC-SHA256>` over
//! `{webhook-id}.{webhook-timestamp}.{body}`, keyed by the base64 secret after `whsec_`.

use base64::{engine::general_purpose::STANDARD, Engine};
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// The `webhook-signature` value for a delivery.
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &[u8]) -> anyhow::Result<String> {
    let key = STANDARD.decode(secret.strip_prefix("whsec_").unwrap_or(secret))?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key)?;
    mac.update(id.as_bytes());
    mac.update(b".");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    Ok(format!(
        "v1,{}",
        STANDARD.encode(mac.finalize().into_bytes())
    ))
}

/// Whether any `v1` signature in `header` (space-separated) matches, as a receiver checks it.
pub fn verify(secret: &str, id: &str, timestamp: i64, body: &[u8], header: &str) -> bool {
    let Ok(expected) = sign(secret, id, timestamp, body) else {
        return false;
    };
    header.split(' ').any(|candidate| {
        use subtle::ConstantTimeEq;
        candidate.len() == expected.len()
            && bool::from(candidate.as_bytes().ct_eq(expected.as_bytes()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_standard_webhooks_reference_vector() {
        // The example of the Standard Webhooks specification.
        let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
        let id = "msg_p5jXN8AQM9LWM0D4loKWxJek";
        let timestamp = 1614265330;
        let body = br#"{"test": 2432232314}"#;
        let signature = sign(secret, id, timestamp, body).unwrap();
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert!(verify(
            secret,
            id,
            timestamp,
            body,
            &format!("v1,bogus {signature}")
        ));
        assert!(!verify(secret, id, timestamp + 1, body, &signature));
    }
}
