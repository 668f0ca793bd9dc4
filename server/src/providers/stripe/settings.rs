//! The Stripe provider's settings (`BOXOFFICE_STRIPE_*`), part of `server --help`.

use std::time::Duration;

use secrecy::SecretString;
use url::Url;

/// How the server talks to Stripe when `BOXOFFICE_PAYMENT_PROVIDER=stripe`.
#[derive(Debug, Clone, clap::Args)]
pub struct StripeSettings {
    /// Stripe's secret API key (`sk_live_…`, `sk_test_…`, or a restricted `rk_…`); required
    /// with the Stripe provider.
    #[arg(long, env = "BOXOFFICE_STRIPE_SECRET_KEY", hide_env_values = true)]
    pub stripe_secret_key: Option<SecretString>,

    /// Stripe's publishable key (`pk_…`), handed to Stripe.js on the payment page; required
    /// with the Stripe provider.
    #[arg(long, env = "BOXOFFICE_STRIPE_PUBLISHABLE_KEY")]
    pub stripe_publishable_key: Option<String>,

    /// Signing secrets of the webhook endpoint `/webhooks/stripe` (`whsec_…`), comma separated:
    /// during a rotation both the old and the new one. Required with the Stripe provider.
    #[arg(
        long,
        env = "BOXOFFICE_STRIPE_WEBHOOK_SECRET",
        value_delimiter = ',',
        hide_env_values = true
    )]
    pub stripe_webhook_secret: Vec<SecretString>,

    /// Base URL of Stripe's API (a fake server's in tests).
    #[arg(
        long,
        env = "BOXOFFICE_STRIPE_API_BASE",
        default_value = "https://api.stripe.com"
    )]
    pub stripe_api_base: Url,

    /// Where the payment page loads Stripe.js from (a stand-in's in tests).
    #[arg(
        long,
        env = "BOXOFFICE_STRIPE_JS_URL",
        default_value = "https://js.stripe.com/v3/"
    )]
    pub stripe_js_url: Url,

    /// Payment method types offered, comma separated (`card,ideal`); unset: `card`, and iDEAL
    /// and Bancontact for payments in euros.
    #[arg(long, env = "BOXOFFICE_STRIPE_PAYMENT_METHODS", value_delimiter = ',')]
    pub stripe_payment_methods: Vec<String>,

    /// Seconds a payment stays open before the reconciliation asks Stripe about it (and
    /// between two questions about the same payment).
    #[arg(long, env = "BOXOFFICE_STRIPE_RECONCILE_AFTER", default_value_t = 300)]
    pub stripe_reconcile_after_secs: u64,

    /// The platform's fee, in percent of a payment to a merchant with a connected account,
    /// taken as the destination charge's application fee (rounded half to even to the
    /// currency's minor unit).
    #[arg(
        long,
        env = "BOXOFFICE_STRIPE_APPLICATION_FEE_PERCENT",
        default_value = "0"
    )]
    pub stripe_application_fee_percent: rust_decimal::Decimal,

    /// Country of the connected accounts created for merchants (ISO 3166-1 alpha-2).
    #[arg(long, env = "BOXOFFICE_STRIPE_ACCOUNT_COUNTRY", default_value = "NL")]
    pub stripe_account_country: String,
}

impl StripeSettings {
    pub fn reconcile_after(&self) -> Duration {
        Duration::from_secs(self.stripe_reconcile_after_secs)
    }

    /// What is missing for the Stripe provider to run, as one sentence; `None` when nothing.
    pub fn missing(&self) -> Option<String> {
        let mut missing = Vec::new();
        if self.stripe_secret_key.is_none() {
            missing.push("BOXOFFICE_STRIPE_SECRET_KEY");
        }
        if self.stripe_publishable_key.is_none() {
            missing.push("BOXOFFICE_STRIPE_PUBLISHABLE_KEY");
        }
        if self.stripe_webhook_secret.is_empty() {
            missing.push("BOXOFFICE_STRIPE_WEBHOOK_SECRET");
        }
        if self.stripe_application_fee_percent.is_sign_negative()
            || self.stripe_application_fee_percent > rust_decimal::Decimal::ONE_HUNDRED
        {
            return Some(
                "BOXOFFICE_STRIPE_APPLICATION_FEE_PERCENT must be between 0 and 100".into(),
            );
        }
        (!missing.is_empty())
            .then(|| format!("the Stripe payment provider needs {}", missing.join(", ")))
    }
}
