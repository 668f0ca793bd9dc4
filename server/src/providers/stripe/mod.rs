//! Stripe as the payment provider (`BOXOFFICE_PAYMENT_PROVIDER=stripe`; docs/payments.md).
//!
//! Stripe Connect's marketplace shape: each merchant is an Express connected account, onboarded
//! at Stripe through an Account Link (its KYC URL); a payment is a PaymentIntent, a
//! destination charge to the merchant's account with the platform's fee as the application
//! fee when the merchant has an account that can take charges, else a plain charge to the
//! platform. The customer pays on Boxoffice's own payment page (`page`), which mounts Stripe's
//! Payment Element. What Stripe reports comes in through the webhook (`crate::payments::
//! webhook`) and, when a webhook is lost, through the reconciliation
//! (`crate::payments::reconcile`).

pub mod amounts;
pub mod client;
pub mod objects;
pub mod settings;
pub mod signature;

use std::collections::HashMap;

use secrecy::SecretString;
use stripe_connect::{
    account::{
        CreateAccount, CreateAccountCapabilities, CreateAccountCapabilitiesCardPayments,
        CreateAccountCapabilitiesTransfers, CreateAccountType,
    },
    account_link::{CreateAccountLink, CreateAccountLinkType},
};
use stripe_core::{
    payment_intent::{
        CancelPaymentIntent, CreatePaymentIntent, CreatePaymentIntentTransferData,
        RetrievePaymentIntent,
    },
    refund::CreateRefund,
};
use url::Url;

use self::{
    client::{StripeApi, StripeError},
    objects::{Account, AccountLink, PaymentIntent, Refund},
    settings::StripeSettings,
};
use super::{
    payment::{
        OpenedAtProvider, ProviderPayment, ProviderPaymentState, ProviderRefund,
        ProviderRefundState, RefundRequest,
    },
    sandbox::{KycPageKey, PaymentPageKey},
    PaymentProvider, PaymentRequest, ProvisionedAccount,
};
use crate::display_code::crockford;

/// The provider's name, stored with its payments and merchant accounts.
pub const NAME: &str = "stripe";

/// Stripe, under the platform's keys.
#[derive(Debug)]
pub struct StripePayments {
    api: StripeApi,
    settings: StripeSettings,
    base_url: String,
    pages: PaymentPageKey,
    kyc_pages: KycPageKey,
}

impl StripePayments {
    pub fn new(
        settings: &StripeSettings,
        base_url: String,
        pages: PaymentPageKey,
        kyc_pages: KycPageKey,
    ) -> anyhow::Result<Self> {
        if let Some(missing) = settings.missing() {
            anyhow::bail!(missing);
        }
        let secret = settings
            .stripe_secret_key
            .clone()
            .unwrap_or_else(|| SecretString::from(""));
        Ok(Self {
            api: StripeApi::new(settings.stripe_api_base.clone(), secret)?,
            settings: settings.clone(),
            base_url,
            pages,
            kyc_pages,
        })
    }

    pub fn settings(&self) -> &StripeSettings {
        &self.settings
    }

    /// The payment methods offered for a payment in `currency`.
    fn payment_method_types(&self, currency: &str) -> Vec<String> {
        if !self.settings.stripe_payment_methods.is_empty() {
            return self.settings.stripe_payment_methods.clone();
        }
        let mut types = vec!["card".to_owned()];
        if currency.eq_ignore_ascii_case("EUR") {
            types.extend(["ideal".to_owned(), "bancontact".to_owned()]);
        }
        types
    }

    /// The payment page of `payment_id` (absolute: Stripe sends the customer back to it).
    pub fn page_url(&self, payment_id: uuid::Uuid) -> String {
        format!("{}{}", self.base_url, self.pages.page_path(payment_id))
    }

    /// Whether `key` opens `payment_id`'s payment page.
    pub fn page_key_matches(&self, payment_id: uuid::Uuid, key: &str) -> bool {
        self.pages.verify(payment_id, key)
    }

    /// The merchant's page that makes a fresh Account Link (they last minutes, and Stripe
    /// sends the merchant back here when one ran out), keyed so only the merchant's links
    /// open it (`crate::payments::kyc`).
    pub fn kyc_page(&self, provider_account_id: &str) -> String {
        format!(
            "{}/stripe/kyc/{provider_account_id}?key={}",
            self.base_url,
            self.kyc_pages.for_account(provider_account_id)
        )
    }

    /// Whether `key` opens `provider_account_id`'s KYC page.
    pub fn kyc_key_matches(&self, provider_account_id: &str, key: &str) -> bool {
        self.kyc_pages.verify(provider_account_id, key)
    }

    /// The connected account `provider_account_id` as Stripe has it now.
    pub async fn account(&self, provider_account_id: &str) -> anyhow::Result<Account> {
        let request = stripe_connect::account::RetrieveAccount::new(provider_account_id);
        Ok(self.api.send(&request, "").await?)
    }
}

/// Our state of a PaymentIntent.
fn state_of(intent: &PaymentIntent) -> ProviderPaymentState {
    match intent.status.as_str() {
        "succeeded" => ProviderPaymentState::Succeeded,
        "canceled" => ProviderPaymentState::Canceled,
        _ => ProviderPaymentState::Open {
            last_error: intent
                .last_payment_error
                .as_ref()
                .and_then(|e| e.message.clone()),
        },
    }
}

fn payment_of(intent: PaymentIntent) -> ProviderPayment {
    ProviderPayment {
        state: state_of(&intent),
        client_secret: intent.client_secret,
    }
}

fn refund_state(refund: &Refund) -> ProviderRefundState {
    match refund.status.as_deref() {
        Some("succeeded") => ProviderRefundState::Succeeded,
        Some("failed" | "canceled") => ProviderRefundState::Failed,
        _ => ProviderRefundState::Pending,
    }
}

#[async_trait::async_trait]
impl PaymentProvider for StripePayments {
    fn name(&self) -> &'static str {
        NAME
    }

    fn pays_merchant_accounts(&self) -> bool {
        true
    }

    async fn create_payment(
        &self,
        request: &PaymentRequest,
    ) -> anyhow::Result<Option<OpenedAtProvider>> {
        let minor = amounts::to_minor_units(request.amount, &request.currency)?;
        let currency = request.currency.to_ascii_lowercase();
        let metadata = HashMap::from([
            ("order_id".to_owned(), request.order_id.to_string()),
            (
                "order_display_id".to_owned(),
                request.order_display_id.clone(),
            ),
            ("checkout_id".to_owned(), request.checkout_id.to_string()),
            ("payment_id".to_owned(), request.payment_id.to_string()),
        ]);
        let mut create = CreatePaymentIntent::new(
            minor,
            currency
                .parse::<stripe_types::Currency>()
                .map_err(|_| anyhow::anyhow!("Stripe takes no currency {currency}"))?,
        )
        .metadata(metadata)
        .payment_method_types(self.payment_method_types(&request.currency));
        if let Some(account) = &request.destination {
            let fee = amounts::fee_minor_units(
                request.amount,
                self.settings.stripe_application_fee_percent,
                &request.currency,
            )?;
            create = create
                .transfer_data(CreatePaymentIntentTransferData::new(account.clone()))
                .application_fee_amount(fee);
        }
        // One PaymentIntent per payment id, also when this call is retried.
        let intent: PaymentIntent = self
            .api
            .send(
                &create,
                &format!("boxoffice-payment-{}", request.payment_id),
            )
            .await?;
        let url = Url::parse(&self.page_url(request.payment_id))?;
        Ok(Some(OpenedAtProvider {
            url,
            provider_ref: Some(intent.id),
        }))
    }

    async fn payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        let intent: PaymentIntent = self
            .api
            .send(&RetrievePaymentIntent::new(provider_ref), "")
            .await?;
        Ok(payment_of(intent))
    }

    async fn cancel_payment(&self, provider_ref: &str) -> anyhow::Result<ProviderPayment> {
        let cancel = CancelPaymentIntent::new(provider_ref);
        match self
            .api
            .send::<PaymentIntent>(&cancel, &format!("boxoffice-cancel-{provider_ref}"))
            .await
        {
            Ok(intent) => Ok(payment_of(intent)),
            // Already succeeded, canceled or processing: it stands where it stands.
            Err(StripeError::Api { status: 400, .. }) => self.payment(provider_ref).await,
            Err(err) => Err(err.into()),
        }
    }

    async fn refund(&self, request: &RefundRequest) -> anyhow::Result<ProviderRefund> {
        let mut create = CreateRefund::new()
            .payment_intent(request.payment_ref.clone())
            .amount(amounts::to_minor_units(request.amount, &request.currency)?)
            .metadata(HashMap::from([(
                "refund_id".to_owned(),
                request.refund_id.to_string(),
            )]));
        if request.destination_charge {
            create = create.reverse_transfer(true).refund_application_fee(true);
        }
        let refund: Refund = self
            .api
            .send(&create, &format!("boxoffice-refund-{}", request.refund_id))
            .await?;
        Ok(ProviderRefund {
            state: refund_state(&refund),
            provider_ref: refund.id,
        })
    }

    async fn provision_account(
        &self,
        legal_name: &str,
        email: &str,
    ) -> anyhow::Result<ProvisionedAccount> {
        let debtor_code = format!("D{}", crockford(9));
        let create = CreateAccount::new()
            .type_(CreateAccountType::Express)
            .country(self.settings.stripe_account_country.clone())
            .email(email.to_owned())
            .capabilities(CreateAccountCapabilities {
                card_payments: Some(CreateAccountCapabilitiesCardPayments {
                    requested: Some(true),
                }),
                transfers: Some(CreateAccountCapabilitiesTransfers {
                    requested: Some(true),
                }),
                ..CreateAccountCapabilities::new()
            })
            .metadata(HashMap::from([
                ("debtor_code".to_owned(), debtor_code.clone()),
                ("legal_name".to_owned(), legal_name.to_owned()),
            ]));
        let account: Account = self
            .api
            .send(&create, &format!("boxoffice-account-{debtor_code}"))
            .await?;
        Ok(ProvisionedAccount {
            provider_account_id: account.id,
            debtor_code,
        })
    }

    /// A fresh Account Link for the account's onboarding at Stripe.
    async fn kyc_url(&self, provider_account_id: &str) -> anyhow::Result<Url> {
        let page = self.kyc_page(provider_account_id);
        let link = CreateAccountLink::new(
            provider_account_id.to_owned(),
            CreateAccountLinkType::AccountOnboarding,
        )
        .refresh_url(page.clone())
        .return_url(format!("{page}&returned=1"));
        let link: AccountLink = self
            .api
            .send(
                &link,
                &format!("boxoffice-link-{}", crate::ids::random_id()),
            )
            .await?;
        Ok(Url::parse(&link.url)?)
    }
}
