//! Values keyed by the secret every node shares: the keys in the URLs we hand out (the sandbox
//! payment and KYC pages, the ticket page) and the pseudonyms we keep instead of a value (a
//! holder's address). Gate pairing and offer links get theirs here too: a [`Purpose`] each.
//!
//! Each purpose has a key of its own, an HMAC of the shared secret under the purpose's label
//! (`crate::keys::keyed_values` loads the secret), so a value made for one purpose never opens
//! another's page, and neither tells anything of the secret. A keyed value is the first 128
//! bits of an HMAC-SHA256 of the purpose's domain and the subject, as hexadecimal, compared in
//! constant time.
//!
//! The labels and domains are part of every link already sent: changing one ends them all.

use std::sync::Arc;

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// Bytes of the HMAC kept in a keyed value (128 bits, 32 hexadecimal digits).
const VALUE_BYTES: usize = 16;

/// What a keyed value is for; each has its own key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// `/pay/{payment_id}?key=…`, the sandbox payment page.
    PaymentPage,
    /// `/sandbox/kyc/…?key=…`, the sandbox KYC page of a merchant account.
    KycPage,
    /// `/tickets/{order_id}?key=…`, the ticket page of an order (under its stored nonce).
    TicketPage,
    /// A buyer's network address as a checkout keeps it for its hold bounds.
    HoldAddress,
}

impl Purpose {
    /// The label the purpose's key is derived under.
    fn label(self) -> &'static [u8] {
        match self {
            Self::PaymentPage => b"boxoffice sandbox payment page key v1",
            Self::KycPage => b"boxoffice sandbox kyc page key v1",
            Self::TicketPage => b"boxoffice ticket page key v1",
            Self::HoldAddress => b"boxoffice hold address pseudonym v1",
        }
    }

    /// What every value of the purpose begins with, before its subject.
    fn domain(self) -> &'static [u8] {
        match self {
            Self::PaymentPage => b"pay:",
            Self::KycPage => b"kyc:",
            Self::TicketPage => b"tickets:",
            Self::HoldAddress => b"hold address:",
        }
    }
}

/// The shared secret every purpose's key is derived from.
#[derive(Clone)]
pub struct KeyedValues {
    secret: Arc<[u8]>,
}

/// Shows no part of the secret.
impl std::fmt::Debug for KeyedValues {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyedValues(..)")
    }
}

impl KeyedValues {
    pub fn new(secret: impl Into<Vec<u8>>) -> Self {
        Self {
            secret: Arc::from(secret.into()),
        }
    }

    /// The key of `purpose`.
    pub fn key(&self, purpose: Purpose) -> PurposeKey {
        let mut mac = hmac(&self.secret);
        mac.update(purpose.label());
        PurposeKey {
            purpose,
            secret: Arc::from(mac.finalize().into_bytes().to_vec()),
        }
    }
}

/// The key of one [`Purpose`]: makes and checks its values.
#[derive(Clone)]
pub struct PurposeKey {
    purpose: Purpose,
    secret: Arc<[u8]>,
}

/// Shows the purpose, no part of the key.
impl std::fmt::Debug for PurposeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PurposeKey({:?}, ..)", self.purpose)
    }
}

impl PurposeKey {
    /// The value of a subject given in `parts`, written one after the other: every part but
    /// the last must have a fixed length (a UUID, a nonce of fixed size), so that no two
    /// subjects write the same bytes.
    pub fn value(&self, parts: &[&[u8]]) -> String {
        let mut mac = hmac(&self.secret);
        mac.update(self.purpose.domain());
        for part in parts {
            mac.update(part);
        }
        hex::encode(&mac.finalize().into_bytes()[..VALUE_BYTES])
    }

    /// Whether `value` is the subject's, compared in constant time.
    pub fn verify(&self, parts: &[&[u8]], value: &str) -> bool {
        let expected = self.value(parts);
        value.len() == expected.len() && bool::from(expected.as_bytes().ct_eq(value.as_bytes()))
    }
}

fn hmac(key: &[u8]) -> Hmac<Sha256> {
    Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes any key length")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_verifies_for_its_subject_and_purpose_only() {
        let keys = KeyedValues::new(b"secret".to_vec());
        let pay = keys.key(Purpose::PaymentPage);
        let subject = crate::ids::random_id();
        let value = pay.value(&[subject.as_bytes()]);
        assert_eq!(value.len(), 2 * VALUE_BYTES);
        assert!(pay.verify(&[subject.as_bytes()], &value));
        assert!(!pay.verify(&[subject.as_bytes()], &value[..31]));
        assert!(!pay.verify(&[crate::ids::random_id().as_bytes()], &value));
        // The same subject under another purpose, or another secret, is another value.
        assert!(!keys
            .key(Purpose::TicketPage)
            .verify(&[subject.as_bytes()], &value));
        assert!(!KeyedValues::new(b"other".to_vec())
            .key(Purpose::PaymentPage)
            .verify(&[subject.as_bytes()], &value));
    }

    /// The values of links sent before this module existed, computed apart from this code
    /// (Python's `hmac`: `HMAC(HMAC(secret, label), domain ‖ subject)[..16]`, as the keys'
    /// first versions made them). A change here would end every link in customers' mail boxes.
    #[test]
    fn links_made_before_still_open() {
        let keys = KeyedValues::new(b"a shared cursor secret".to_vec());
        let payment = uuid::Uuid::from_u128(7);
        assert_eq!(
            keys.key(Purpose::PaymentPage).value(&[payment.as_bytes()]),
            "18f42c71ae75f865e7ea839620d4c1c9"
        );
        assert_eq!(
            keys.key(Purpose::KycPage).value(&[b"acct_1"]),
            "bc3af30ac0cf3071fd73a79bfd2acdef"
        );
        assert_eq!(
            keys.key(Purpose::TicketPage)
                .value(&[payment.as_bytes(), &[9u8; 16]]),
            "a29feebe84010bc0bc31004595fa5971"
        );
    }
}
