use rust_decimal::Decimal;

use crate::error::{Error, ProblemType};
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
    pub order_id: Uuid,
    pub order_display_id: String,
    pub checkout_id: Uuid,
    pub amount: Decimal,
    pub currency: String,
    /// The merchant's own account at this provider, which receives the payment less the
    /// platform's fee; `None`: the platform receives it (a plain charge).
    pub destination: Option<String>,
}

/// A payment the provider opened.
#[derive(Debug, Clone)]
pub struct OpenedAtProvider {
    /// Where the customer pays.
    pub url: Url,
    /// The provider's id of the payment (Stripe: the PaymentIntent), when it keeps one apart
    /// from ours.
    pub provider_ref: Option<String>,
}

/// Where a payment stands at the provider.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProviderPaymentState {
    /// The money was taken.
    Succeeded,
    /// Ended without money; it can never succeed.
    Canceled,
    /// Still open: waiting for the customer (after a failed attempt, `last_error` says why) or
    /// for the payment method to settle.
    Open { last_error: Option<String> },
}

/// A payment as the provider reports it.
#[derive(Debug, Clone)]
pub struct ProviderPayment {
    pub state: ProviderPaymentState,
    /// What the payment page hands the provider's script to pay this payment.
    pub client_secret: Option<String>,
}

/// Money to give back through the provider.
#[derive(Debug, Clone)]
pub struct RefundRequest {
    /// Our id of the refund: the provider does one refund per id, however often asked.
    pub refund_id: Uuid,
    /// The provider's id of the payment refunded.
    pub payment_ref: String,
    pub amount: Decimal,
    pub currency: String,
    /// Whether the payment went to a merchant's own account (its share and the platform's
    /// fee are then taken back in proportion).
    pub destination_charge: bool,
}

/// How far a refund got at the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderRefundState {
    Pending,
    Succeeded,
    Failed,
}

/// A refund the provider made.
#[derive(Debug, Clone)]
pub struct ProviderRefund {
    pub provider_ref: String,
    pub state: ProviderRefundState,
}

/// A payment service provider: takes payments and provisions merchant accounts and their KYC.
#[async_trait::async_trait]
pub trait PaymentProvider: Send + Sync {
    /// The provider's name, stored with what it creates.
    fn name(&self) -> &'static str;
    /// Whether a merchant's own account at the provider receives its payments (then a
    /// merchant whose account cannot take charges cannot sell).
    fn pays_merchant_accounts(&self) -> bool {
        false
    }
    /// Opens a payment; `None` when the provider gave no redirect (the checkout then fails
    /// with `checkout-order-empty-redirect`).
    async fn create_payment(
        &self,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>>;
    /// Asks the provider where the payment `provider_ref` stands.
    async fn payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment>;
    /// Ends the payment `provider_ref` so that it can no longer be paid; answers where it
    /// stands after (`Succeeded` when it was paid before the cancellation arrived).
    async fn cancel_payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment>;
    /// Gives money back; asking again with the same `refund_id` refunds nothing more.
    async fn refund(&self, request: &RefundRequest) -> anyhow::Result<ProviderRefund>;
    async fn provision_account(
        &self,
        legal_name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount>;
    /// Where the merchant completes KYC for an account.
    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url>;
}

/// 502 `payment-provider-unavailable` for a provider call that failed (onboarding, KYC); the
/// provider's own words go to the log, not to the caller.
pub fn unavailable(err: anyhow::Error) -> Error {
    tracing::warn!(error = ?err, "the payment provider failed");
    Error::new(
        ProblemType::PaymentProviderUnavailable,
        "The payment provider could not be reached or refused the request; try again later.",
    )
}
