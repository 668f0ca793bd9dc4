use rust_decimal::Decimal;
use url::Url;
use uuid::Uuid;

/// A merchant account as the payment provider created it.
#[derive(Debug, Clone)]
pub struct ProvisionedAccount {
    pub provider_account_id: String,
    /// The provider's code for the merchant, used as `debtorCode` in onboarding.
    pub debtor_code: String,
}

/// A payment to open at the provider for an order.
#[derive(Debug, Clone)]
pub struct PaymentRequest {
    /// Our id of the payment; the provider hands it back when the customer returns.
    pub payment_id: Uuid,
    pub order_display_id: String,
    pub amount: Decimal,
    pub currency: String,
}

/// A payment service provider: takes payments and provisions merchant accounts and their KYC.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync {
    /// The provider's name, stored with what it creates.
    fn name(&self) -> &'static str;
    /// Opens a payment and returns where the customer pays; `None` when the provider gave no
    /// redirect (the checkout then fails with `checkout-order-empty-redirect`).
    async fn create_payment(&self, request: &PaymentRequest) -> anyhow::Result<Option<Url>>;
    async fn provision_account(
        &self,
        legal_name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount>;
    /// Where the merchant completes KYC for an account.
    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url>;
}
