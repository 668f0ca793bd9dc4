//! The built-in sandbox payment provider: everything it hosts is served by this server, so
//! the whole flow works on one machine without an external provider.
//!
//! Its payment page is `/pay/{payment_id}?key=…`: the key is an HMAC of the payment id under a
//! key every node shares (`crate::keys::payment_page_key`), so only who was handed the
//! payment URL can see or settle the payment; the bare id, which a partner reads in events
//! and return URLs, is not enough (docs/security.md, "The sandbox payment page"). With
//! `BOXOFFICE_SANDBOX_PAYMENTS=0` the provider has no key: it opens no payment and its page
//! answers 404.

use std::sync::Arc;

use hmac::{Hmac, Mac};
use subtle::ConstantTimeEq;
use url::Url;
use uuid::Uuid;

use super::{PaymentProvider, PaymentRequest, ProvisionedAccount};
use crate::display_code::crockford;

/// Bytes of the HMAC kept in a payment page's key (128 bits, as 32 hex digits).
const KEY_BYTES: usize = 16;

/// Makes and checks the keys of the sandbox payment page's URLs.
#[derive(Clone)]
pub struct PaymentPageKey {
    secret: Arc<[u8]>,
}

impl std::fmt::Debug for PaymentPageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PaymentPageKey(..)")
    }
}

impl PaymentPageKey {
    pub fn new(secret: impl Into<Vec<u8>>) -> Self {
        let secret: Vec<u8> = secret.into();
        Self {
            secret: Arc::from(secret),
        }
    }

    fn tag(&self, payment_id: Uuid) -> [u8; KEY_BYTES] {
        let mut mac =
            Hmac::<sha2::Sha256>::new_from_slice(&self.secret).expect("HMAC takes any key length");
        mac.update(b"pay:");
        mac.update(payment_id.as_bytes());
        let mut out = [0u8; KEY_BYTES];
        out.copy_from_slice(&mac.finalize().into_bytes()[..KEY_BYTES]);
        out
    }

    /// The key of `payment_id`'s page, as it goes into the URL.
    pub fn for_payment(&self, payment_id: Uuid) -> String {
        self.tag(payment_id)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Whether `key` is `payment_id`'s, compared in constant time.
    pub fn verify(&self, payment_id: Uuid, key: &str) -> bool {
        let expected = self.for_payment(payment_id);
        key.len() == expected.len() && bool::from(expected.as_bytes().ct_eq(key.as_bytes()))
    }

    /// The path (with its query) of `payment_id`'s page.
    pub fn page_path(&self, payment_id: Uuid) -> String {
        format!("/pay/{payment_id}?key={}", self.for_payment(payment_id))
    }
}

pub struct SandboxPayments {
    base_url: String,
    /// `None`: the sandbox is switched off and opens no payment.
    page_key: Option<PaymentPageKey>,
}

impl SandboxPayments {
    pub fn new(base_url: impl Into<String>, page_key: Option<PaymentPageKey>) -> Self {
        Self {
            base_url: base_url.into(),
            page_key,
        }
    }
}

#[async_trait::async_trait]
impl PaymentProvider for SandboxPayments {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    async fn create_payment(&self, request: &PaymentRequest) -> anyhow::Result<Option<Url>> {
        let Some(key) = &self.page_key else {
            anyhow::bail!(
                "the sandbox payment provider is switched off (BOXOFFICE_SANDBOX_PAYMENTS)"
            );
        };
        // The sandbox's payment page is served by this server (`crate::sandbox::pay`).
        Ok(Some(Url::parse(&format!(
            "{}{}",
            self.base_url,
            key.page_path(request.payment_id)
        ))?))
    }

    async fn provision_account(
        &self,
        _legal_name: &str,
        _email: &str,
    ) -> anyhow::Result<ProvisionedAccount> {
        Ok(ProvisionedAccount {
            provider_account_id: format!("sbx_acct_{}", uuid::Uuid::new_v4().simple()),
            debtor_code: format!("D{}", crockford(9)),
        })
    }

    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url> {
        Ok(Url::parse(&format!(
            "{}/sandbox/kyc/{provider_account_id}",
            self.base_url
        ))?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_payment_pages_key_is_its_own_and_the_servers() {
        let key = PaymentPageKey::new(b"secret".to_vec());
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let for_a = key.for_payment(a);
        assert_eq!(for_a.len(), 2 * KEY_BYTES);
        assert!(key.verify(a, &for_a));
        assert!(!key.verify(b, &for_a), "another payment's key");
        assert!(!key.verify(a, ""), "no key");
        assert!(!key.verify(a, &for_a[..31]), "a shortened key");
        assert!(!key.verify(a, &for_a.to_uppercase()), "another spelling");
        let other = PaymentPageKey::new(b"other".to_vec());
        assert!(!other.verify(a, &for_a), "another server's key");
        assert_eq!(key.page_path(a), format!("/pay/{a}?key={for_a}"));
    }
}
