//! Partner credentials: client ids, client secrets and webhook signing secrets.
//!
//! A client secret is 256 random bits from the OS, handed out once and stored only as its
//! SHA-256 hash: a leaked database then holds nothing a caller could authenticate with, and
//! since the secret is uniformly random a fast hash is enough (no password stretching needed).
//! Verification compares hashes in constant time so response timing says nothing about how
//! much of a guess was right.

use base64::{
    engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD},
    Engine,
};
use rand::{rngs::OsRng, RngCore};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Prefix of generated client ids, so an id is recognisable in logs and support tickets.
pub const CLIENT_ID_PREFIX: &str = "pc_";
/// Prefix of webhook signing secrets, as the Standard Webhooks scheme spells them.
pub const WEBHOOK_SECRET_PREFIX: &str = "whsec_";

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    OsRng.fill_bytes(&mut bytes);
    bytes
}

/// A fresh client id: `pc_` and 24 lower-case hex digits (96 random bits, so unguessable
/// enough that ids need not be treated as enumerable).
pub fn new_client_id() -> String {
    let bytes: [u8; 12] = random_bytes();
    format!("{CLIENT_ID_PREFIX}{}", hex::encode(bytes))
}

/// A fresh client id of a gate's kind, `prefix` and 24 lower-case hex digits: `gate_` for
/// a gate's own, `gdev_` for a device paired with it (docs/gate.md).
pub fn new_gate_client_id(prefix: &str) -> String {
    let bytes: [u8; 12] = random_bytes();
    format!("{prefix}{}", hex::encode(bytes))
}

/// A fresh client secret: 32 random bytes, base64url without padding (43 characters). The
/// alphabet has no `:`, `+` or `/`, so the secret survives HTTP Basic and form encoding as is.
pub fn new_client_secret() -> String {
    URL_SAFE_NO_PAD.encode(random_bytes::<32>())
}

/// The SHA-256 hash a client secret is stored as.
pub fn hash_secret(secret: &str) -> Vec<u8> {
    Sha256::digest(secret.as_bytes()).to_vec()
}

/// Which client secret a backend bearer was issued under: 16 hex digits of a hash of the
/// stored secret hash. A bearer carries it (`sv`), so rotating the secret or deleting the
/// client ends every bearer issued before; it says nothing about the secret itself.
pub fn secret_version(stored_hash: &[u8]) -> String {
    let digest = Sha256::new()
        .chain_update(b"boxoffice backend bearer")
        .chain_update(stored_hash)
        .finalize();
    hex::encode(&digest[..8])
}

/// Whether `presented` is the secret whose hash is `stored_hash`, in constant time.
pub fn verify_secret(presented: &str, stored_hash: &[u8]) -> bool {
    bool::from(hash_secret(presented).as_slice().ct_eq(stored_hash))
}

/// Like [`verify_secret`], but also does the hashing work when the client is unknown, so an
/// authentication failure takes as long for an unknown client id as for a wrong secret.
pub fn verify_client_secret(presented: &str, stored_hash: Option<&[u8]>) -> bool {
    const UNKNOWN: [u8; 32] = [0; 32];
    let matches = verify_secret(presented, stored_hash.unwrap_or(&UNKNOWN));
    matches && stored_hash.is_some()
}

/// A fresh webhook signing secret: `whsec_` and standard base64 of 32 random bytes, the form
/// Standard Webhooks libraries accept (the key is the base64 part, 24 to 64 bytes).
pub fn new_webhook_secret() -> String {
    format!(
        "{WEBHOOK_SECRET_PREFIX}{}",
        STANDARD.encode(random_bytes::<32>())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_secrets_carry_256_random_bits() {
        let secret = new_client_secret();
        assert_eq!(secret.len(), 43);
        assert_eq!(URL_SAFE_NO_PAD.decode(&secret).unwrap().len(), 32);
        assert_ne!(secret, new_client_secret());
        assert!(secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    }

    #[test]
    fn the_hash_is_sha256_and_not_the_secret() {
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        assert_eq!(hash.len(), 32);
        assert_ne!(hash, secret.as_bytes());
        assert_eq!(hash, Sha256::digest(secret.as_bytes()).to_vec());
    }

    #[test]
    fn only_the_right_secret_verifies() {
        let secret = new_client_secret();
        let hash = hash_secret(&secret);
        assert!(verify_secret(&secret, &hash));
        assert!(!verify_secret(&new_client_secret(), &hash));
        assert!(!verify_secret("", &hash));
        assert!(!verify_secret(&secret, &hash[..31]));
        assert!(!verify_secret(&secret, &[]));
    }

    #[test]
    fn an_unknown_client_never_verifies() {
        let secret = new_client_secret();
        assert!(verify_client_secret(&secret, Some(&hash_secret(&secret))));
        assert!(!verify_client_secret(&secret, None));
        assert!(!verify_client_secret("", None));
    }

    #[test]
    fn client_ids_are_prefixed_and_random() {
        let id = new_client_id();
        assert!(id.starts_with(CLIENT_ID_PREFIX));
        assert_eq!(id.len(), CLIENT_ID_PREFIX.len() + 24);
        assert_ne!(id, new_client_id());
    }

    #[test]
    fn webhook_secrets_follow_standard_webhooks() {
        let secret = new_webhook_secret();
        let key = secret.strip_prefix(WEBHOOK_SECRET_PREFIX).unwrap();
        let bytes = STANDARD.decode(key).unwrap();
        assert!((24..=64).contains(&bytes.len()));
        assert_ne!(secret, new_webhook_secret());
    }
}
