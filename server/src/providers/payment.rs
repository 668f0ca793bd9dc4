use url::Url;

/// A merchant account as the payment provider created it.
#[derive(Debug, Clone)]
pub struct ProvisionedAccount {
    pub provider_account_id: String,
    /// The provider's code for the merchant, used as `debtorCode` in onboarding.
    pub debtor_code: String,
}

/// A payment service provider: provisions merchant accounts and hosts their KYC.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync {
    /// The provider's name, stored with what it creates.
    fn name(&self) -> &'static str;
    async fn provision_account(
        &self,
        legal_name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount>;
    /// Where the merchant completes KYC for an account.
    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url>;
}
