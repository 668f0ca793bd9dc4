//! What Stripe answers and sends, read leniently: only the fields Boxoffice uses, each with a
//! default where Stripe (or an older API version, as a fake server's events carry) may leave
//! it out. The requests are typed by async-stripe's generated parameters instead
//! (`super::client`), so a wrong parameter name does not compile.

use std::collections::HashMap;

use serde::Deserialize;

/// A PaymentIntent (docs.stripe.com/api/payment_intents/object).
#[derive(Debug, Clone, Deserialize)]
pub struct PaymentIntent {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub client_secret: Option<String>,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub currency: String,
    #[serde(default)]
    pub metadata: HashMap<String, String>,
    #[serde(default)]
    pub last_payment_error: Option<ApiError>,
}

/// A Refund (docs.stripe.com/api/refunds/object).
#[derive(Debug, Clone, Deserialize)]
pub struct Refund {
    pub id: String,
    #[serde(default)]
    pub status: Option<String>,
    #[serde(default)]
    pub amount: i64,
    #[serde(default)]
    pub metadata: HashMap<String, String>,
}

/// A Charge (docs.stripe.com/api/charges/object), as `charge.refunded` carries it.
#[derive(Debug, Clone, Deserialize)]
pub struct Charge {
    pub id: String,
    #[serde(default)]
    pub refunds: Option<List<Refund>>,
}

/// A connected Account (docs.stripe.com/api/accounts/object).
#[derive(Debug, Clone, Deserialize)]
pub struct Account {
    pub id: String,
    #[serde(default)]
    pub charges_enabled: bool,
    #[serde(default)]
    pub details_submitted: bool,
}

/// An Account Link (docs.stripe.com/api/account_links/object).
#[derive(Debug, Clone, Deserialize)]
pub struct AccountLink {
    pub url: String,
}

/// An Event (docs.stripe.com/api/events/object); its object stays JSON until its type says
/// what it is.
#[derive(Debug, Clone, Deserialize)]
pub struct Event {
    pub id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub data: EventData,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EventData {
    pub object: serde_json::Value,
}

/// A list object's page.
#[derive(Debug, Clone, Deserialize)]
pub struct List<T> {
    #[serde(default = "Vec::new")]
    pub data: Vec<T>,
}

/// Stripe's error body `{"error": {…}}`.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorBody {
    pub error: ApiError,
}

/// An API error or a payment's last error (docs.stripe.com/api/errors).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ApiError {
    #[serde(default, rename = "type")]
    pub error_type: Option<String>,
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub decline_code: Option<String>,
    #[serde(default)]
    pub message: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Stripe's own example objects (`shared/spec/stripe/fixtures3.json`) read as these types.
    #[test]
    fn stripes_example_objects_parse() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/api/fixtures/stripe/objects.json"
        );
        let text = std::fs::read_to_string(path).unwrap();
        let fixtures: serde_json::Value = serde_json::from_str(&text).unwrap();
        let resources = &fixtures["resources"];
        let pi: PaymentIntent =
            serde_json::from_value(resources["payment_intent"].clone()).unwrap();
        assert!(pi.id.starts_with("pi_"));
        let _: Refund = serde_json::from_value(resources["refund"].clone()).unwrap();
        let _: Charge = serde_json::from_value(resources["charge"].clone()).unwrap();
        let account: Account = serde_json::from_value(resources["account"].clone()).unwrap();
        assert!(account.id.starts_with("acct_"));
        let _: AccountLink = serde_json::from_value(resources["account_link"].clone()).unwrap();
        let _: Event = serde_json::from_value(resources["event"].clone()).unwrap();
    }
}
