//! The built-in sandbox payment provider: everything it hosts is served by this server, so
//! the whole flow works on one machine without an external provider.

use rand::Rng;
use url::Url;

use super::{PaymentProvider, PaymentRequest, ProvisionedAccount};

pub struct SandboxPayments {
    base_url: String,
}

impl SandboxPayments {
    pub fn new(base_url: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
        }
    }
}

/// Crockford base32 without I, L, O, U: unambiguous when read aloud or typed.
const CROCKFORD: &[u8] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// `n` random Crockford base32 characters.
pub fn crockford(n: usize) -> String {
    let mut rng = rand::rngs::OsRng;
    (0..n)
        .map(|_| CROCKFORD[rng.gen_range(0..CROCKFORD.len())] as char)
        .collect()
}

#[async_trait::async_trait]
impl PaymentProvider for SandboxPayments {
    fn name(&self) -> &'static str {
        "sandbox"
    }

    async fn create_payment(&self, request: &PaymentRequest) -> anyhow::Result<Option<Url>> {
        // The sandbox's payment page is served by this server (`crate::sandbox::pay`).
        Ok(Some(Url::parse(&format!(
            "{}/pay/{}",
            self.base_url, request.payment_id
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
