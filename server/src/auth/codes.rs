//! One-time codes (session codes, onboarding codes): 256 random bits, handed out once, stored
//! only as a SHA-256 hash, so a database leak does not leak usable codes.

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use rand::RngCore;
use sha2::{Digest, Sha256};

/// A fresh code: 32 random bytes, base64url (43 characters).
pub fn new_code() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The hash a code is stored and looked up by.
pub fn code_hash(code: &str) -> Vec<u8> {
    Sha256::digest(code.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_long_random_and_stored_by_hash() {
        let a = new_code();
        assert_eq!(a.len(), 43);
        assert_ne!(a, new_code());
        assert_eq!(code_hash(&a), code_hash(&a));
        assert_ne!(code_hash(&a), a.as_bytes());
    }
}
