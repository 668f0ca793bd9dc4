//! The key of an order's ticket page, `/tickets/{order_id}?key=…`: a keyed value
//! (`crate::keyed`, [`Purpose::TicketPage`](crate::keyed::Purpose)) of the order id and the
//! order's stored nonce. Neither the order id (partners see it in events) nor a copy of the
//! database alone opens the page; an operator's resend stores a new nonce, which ends every
//! link sent before (docs/security.md, "The ticket page").

use rand::RngCore;
use uuid::Uuid;

use crate::keyed::PurposeKey;

/// Bytes of a fresh nonce.
const NONCE_BYTES: usize = 16;

#[derive(Debug, Clone)]
pub struct TicketPageKey(PurposeKey);

impl TicketPageKey {
    pub fn new(key: PurposeKey) -> Self {
        Self(key)
    }

    /// A new random nonce for an order's key.
    pub fn new_nonce() -> Vec<u8> {
        let mut nonce = vec![0u8; NONCE_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut nonce);
        nonce
    }

    /// The key of `order_id`'s page under `nonce`, as it goes into the URL.
    pub fn for_order(&self, order_id: Uuid, nonce: &[u8]) -> String {
        self.0.value(&[order_id.as_bytes(), nonce])
    }

    /// Whether `key` is `order_id`'s under `nonce`, compared in constant time.
    pub fn verify(&self, order_id: Uuid, nonce: &[u8], key: &str) -> bool {
        self.0.verify(&[order_id.as_bytes(), nonce], key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyed::{KeyedValues, Purpose};

    #[test]
    fn a_key_opens_its_order_under_its_nonce_only() {
        let keys = TicketPageKey::new(KeyedValues::new(b"secret").key(Purpose::TicketPage));
        let (order, nonce) = (crate::ids::random_id(), TicketPageKey::new_nonce());
        let key = keys.for_order(order, &nonce);
        assert_eq!(key.len(), 32);
        assert!(keys.verify(order, &nonce, &key));
        assert!(!keys.verify(order, &nonce, &key[..31]));
        assert!(!keys.verify(crate::ids::random_id(), &nonce, &key));
        assert!(!keys.verify(order, &TicketPageKey::new_nonce(), &key));
    }
}
