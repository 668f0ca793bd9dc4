//! The key of an order's ticket page, `/tickets/{order_id}?key=…`: an HMAC of the order id and
//! the order's stored nonce under a secret every node derives from the shared cursor secret
//! (`crate::keys::ticket_page_key`). Neither the order id (partners see it in events) nor a
//! copy of the database alone opens the page; an operator's resend stores a new nonce, which
//! ends every link sent before (docs/security.md, "The ticket page").

use std::sync::Arc;

use hmac::{Hmac, Mac};
use rand::RngCore;
use subtle::ConstantTimeEq;
use uuid::Uuid;

/// Bytes of the HMAC kept in a key (128 bits, as 32 hex digits).
const KEY_BYTES: usize = 16;
/// Bytes of a fresh nonce.
const NONCE_BYTES: usize = 16;

#[derive(Clone)]
pub struct TicketPageKey {
    secret: Arc<[u8]>,
}

impl std::fmt::Debug for TicketPageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TicketPageKey(..)")
    }
}

impl TicketPageKey {
    pub fn new(secret: impl Into<Vec<u8>>) -> Self {
        let secret: Vec<u8> = secret.into();
        Self {
            secret: Arc::from(secret),
        }
    }

    /// A new random nonce for an order's key.
    pub fn new_nonce() -> Vec<u8> {
        let mut nonce = vec![0u8; NONCE_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        nonce
    }

    /// The key of `order_id`'s page under `nonce`, as it goes into the URL.
    pub fn for_order(&self, order_id: Uuid, nonce: &[u8]) -> String {
        let mut mac =
            Hmac::<sha2::Sha256>::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(b"tickets:");
        mac.update(order_id.as_bytes());
        mac.update(nonce);
        mac.finalize().into_bytes()[..KEY_BYTES]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `key` is `order_id`'s under `nonce`, compared in constant time.
    pub fn verify(&self, order_id: Uuid, nonce: &[u8], key: &str) -> bool {
        let expected = self.for_order(order_id, nonce);
        key.len() == expected.len() && bool::from(expected.as_bytes().ct_eq(key.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_opens_its_order_under_its_nonce_only() {
        let keys = TicketPageKey::new(b"secret".to_vec());
        let (order, nonce) = (Uuid::new_v4(), TicketPageKey::new_nonce());
        let key = keys.for_order(order, &nonce);
        assert_eq!(key.len(), 32);
        assert!(keys.verify(order, &nonce, &key));
        assert!(!keys.verify(order, &nonce, &key[..31]));
        assert!(!keys.verify(Uuid::new_v4(), &nonce, &key));
        assert!(!keys.verify(order, &TicketPageKey::new_nonce(), &key));
    }
}
