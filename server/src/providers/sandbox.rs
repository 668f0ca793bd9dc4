//! The built-in sandbox payment provider: everything it hosts is served by this server, so
//! the whole flow works on one machine without an external provider.
//!
//! Its payment page is `/pay/{payment_id}?key=…`: the key is an HMAC of the payment id under a
//! key every node shares (`crate::keyed`, `Purpose::PaymentPage`), so only who was handed the
//! payment URL can see or settle the payment; the bare id, which a partner reads in events
//! and return URLs, is not enough (docs/security.md, "The sandbox payment page"). With
//! `BOXOFFICE_SANDBOX_PAYMENTS=0` the provider has no key: it opens no payment and its page
//! answers 404.

use url::Url;
use uuid::Uuid;

use super::{
    payment::{
        OpenedAtProvider, ProviderPayment, ProviderRefund, ProviderRefundState, RefundRequest,
    },
    PaymentProvider, PaymentRequest, ProvisionedAccount,
};
use crate::{display_code::crockford, keyed::PurposeKey};

/// Makes and checks the keys of the sandbox payment page's URLs.
#[derive(Debug, Clone)]
pub struct PaymentPageKey(PurposeKey);

impl PaymentPageKey {
    pub fn new(key: PurposeKey) -> Self {
        Self(key)
    }

    /// The key of `payment_id`'s page, as it goes into the URL.
    pub fn for_payment(&self, payment_id: Uuid) -> String {
        self.0.value(&[payment_id.as_bytes()])
    }

    /// Whether `key` is `payment_id`'s, compared in constant time.
    pub fn verify(&self, payment_id: Uuid, key: &str) -> bool {
        self.0.verify(&[payment_id.as_bytes()], key)
    }

    /// The path (with its query) of `payment_id`'s page.
    pub fn page_path(&self, payment_id: Uuid) -> String {
        format!("/pay/{payment_id}?key={}", self.for_payment(payment_id))
    }
}

/// Makes and checks the keys of the sandbox KYC page's URLs (one per merchant account), so
/// only who was handed the account's `kyc_url` can verify it.
#[derive(Debug, Clone)]
pub struct KycPageKey(PurposeKey);

impl KycPageKey {
    pub fn new(key: PurposeKey) -> Self {
        Self(key)
    }

    /// The key of `provider_account_id`'s page, as it goes into the URL.
    pub fn for_account(&self, provider_account_id: &str) -> String {
        self.0.value(&[provider_account_id.as_bytes()])
    }

    /// Whether `key` is `provider_account_id`'s, compared in constant time.
    pub fn verify(&self, provider_account_id: &str, key: &str) -> bool {
        self.0.verify(&[provider_account_id.as_bytes()], key)
    }
}

/// The sandbox's name, stored with its payments and merchant accounts.
pub const NAME: &str = "sandbox";

pub struct SandboxPayments {
    base_url: String,
    /// `None`: the sandbox is switched off and opens no payment.
    page_key: Option<PaymentPageKey>,
    /// `None`: the sandbox is switched off and its KYC page opens for nobody.
    kyc_key: Option<KycPageKey>,
}

impl SandboxPayments {
    pub fn new(
        base_url: impl Into<String>,
        page_key: Option<PaymentPageKey>,
        kyc_key: Option<KycPageKey>,
    ) -> Self {
        Self {
            base_url: base_url.into(),
            page_key,
            kyc_key,
        }
    }
}

#[async_trait::async_trait]
impl PaymentProvider for SandboxPayments {
    fn name(&self) -> &'static str {
        NAME
    }

    async fn create_payment(
        &self,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>> {
        let Some(key) = &self.page_key else {
            anyhow::bail!(
                "the sandbox payment provider is switched off (BOXOFFICE_SANDBOX_PAYMENTS)"
            );
        };
        // The sandbox's payment page is served by this server (`crate::sandbox::pay`), and
        // the payment is ours alone: its page settles it.
        Ok(Some(OpenedAtProvider {
            url: Url::parse(&format!(
                "{}{}",
                self.base_url,
                key.page_path(request.payment_id)
            ))?,
            provider_ref: None,
        }))
    }

    /// Never asked: a sandbox payment has no provider reference (its page settles it).
    async fn payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        anyhow::bail!("the sandbox keeps no payment {provider_ref} of its own")
    }

    /// Never asked, as `payment`.
    async fn cancel_payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        anyhow::bail!("the sandbox keeps no payment {provider_ref} of its own")
    }

    /// The sandbox's money is pretend: a refund succeeds at once, one per refund id.
    async fn refund(&self, request: &RefundRequest) -> anyhow::Result<ProviderRefund> {
        Ok(ProviderRefund {
            provider_ref: format!("sbx_re_{}", request.refund_id.simple()),
            state: ProviderRefundState::Succeeded,
        })
    }

    async fn provision_account(
        &self,
        _legal_name: &str,
        _email: &str,
    ) -> anyhow::Result<ProvisionedAccount> {
        Ok(ProvisionedAccount {
            provider_account_id: format!("sbx_acct_{}", crate::ids::random_id().simple()),
            debtor_code: format!("D{}", crockford(9)),
        })
    }

    /// The sandbox KYC page of the account, its key in the query (`crate::sandbox::kyc`).
    /// With the sandbox switched off the URL has no key, and the page answers 404 like any
    /// page of a switched-off sandbox; the onboarding status that shows it stays readable.
    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url> {
        let mut url = Url::parse(&self.base_url)?;
        url.path_segments_mut()
            .map_err(|()| anyhow::anyhow!("the public URL cannot take a path"))?
            .pop_if_empty()
            .extend(["sandbox", "kyc", provider_account_id]);
        if let Some(key) = &self.kyc_key {
            url.query_pairs_mut()
                .append_pair("key", &key.for_account(provider_account_id));
        }
        Ok(url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::keyed::{KeyedValues, Purpose};

    fn pay_key(secret: &[u8]) -> PaymentPageKey {
        PaymentPageKey::new(KeyedValues::new(secret).key(Purpose::PaymentPage))
    }

    fn kyc_key(secret: &[u8]) -> KycPageKey {
        KycPageKey::new(KeyedValues::new(secret).key(Purpose::KycPage))
    }

    #[test]
    fn a_payment_pages_key_is_its_own_and_the_servers() {
        let key = pay_key(b"secret");
        let (a, b) = (crate::ids::random_id(), crate::ids::random_id());
        let for_a = key.for_payment(a);
        assert_eq!(for_a.len(), 32);
        assert!(key.verify(a, &for_a));
        assert!(!key.verify(b, &for_a), "another payment's key");
        assert!(!key.verify(a, ""), "no key");
        assert!(!key.verify(a, &for_a[..31]), "a shortened key");
        assert!(!key.verify(a, &for_a.to_uppercase()), "another spelling");
        let other = pay_key(b"other");
        assert!(!other.verify(a, &for_a), "another server's key");
        assert_eq!(key.page_path(a), format!("/pay/{a}?key={for_a}"));
    }

    #[test]
    fn a_kyc_pages_key_is_its_accounts_and_no_payments() {
        let key = kyc_key(b"secret");
        let for_a = key.for_account("sbx_acct_a");
        assert_eq!(for_a.len(), 32);
        assert!(key.verify("sbx_acct_a", &for_a));
        assert!(!key.verify("sbx_acct_b", &for_a), "another account's key");
        assert!(!key.verify("sbx_acct_a", ""), "no key");
        assert!(!kyc_key(b"other").verify("sbx_acct_a", &for_a));
        // Even under the same secret, a payment's key is no account's.
        let payment = crate::ids::random_id();
        let pay = pay_key(b"secret").for_payment(payment);
        assert!(!key.verify(&payment.to_string(), &pay));
    }

    #[tokio::test]
    async fn the_kyc_url_carries_the_accounts_key_while_the_sandbox_is_on() {
        let key = kyc_key(b"secret");
        let on = SandboxPayments::new("https://box.example", None, Some(key.clone()));
        let url = on.kyc_url("sbx_acct_a").await.unwrap();
        assert_eq!(
            url.as_str(),
            format!(
                "https://box.example/sandbox/kyc/sbx_acct_a?key={}",
                key.for_account("sbx_acct_a")
            )
        );
        let off = SandboxPayments::new("https://box.example", None, None);
        assert_eq!(
            off.kyc_url("sbx_acct_a").await.unwrap().as_str(),
            "https://box.example/sandbox/kyc/sbx_acct_a"
        );
    }
}
