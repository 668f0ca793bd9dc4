//! The built-in sandbox payment provider: everything it hosts is served by this server, so
//! the whole flow works on one machine without an external provider.

use url::Url;

use super::{PaymentProvider, PaymentRequest, ProvisionedAccount};
use crate::display_code::crockford;

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
