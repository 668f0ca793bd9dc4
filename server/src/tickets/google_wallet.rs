//! Google Wallet: a "save to Google Wallet" link per order whose JWT (RS256, the operator's
//! service-account key) carries the event-ticket class and one object per ticket in its
//! payload, so issuing the passes needs no call to Google (the "JWT with objects" flow of the
//! Google Wallet API). Offered only when the operator configured the issuer and key
//! (`BOXOFFICE_GOOGLE_WALLET_ISSUER_ID`, `BOXOFFICE_GOOGLE_WALLET_KEY_FILE`).

use anyhow::Context;
use chrono::Utc;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde::Deserialize;
use serde_json::{json, Value};

use super::{facts, order_doc::OrderDoc, texts::texts};
use crate::config::Config;

/// The save link's address; the JWT follows it.
const SAVE_URL: &str = "https://pay.google.com/gp/v/save/";

/// The fields of a service-account key file this uses.
#[derive(Deserialize)]
struct ServiceAccount {
    client_email: String,
    private_key: String,
}

/// The operator's Google Wallet issuer and service account.
#[derive(Clone)]
pub struct GoogleWallet {
    issuer_id: String,
    client_email: String,
    key: EncodingKey,
    /// The page origins that may show the save button (the public URL).
    origin: String,
}

impl std::fmt::Debug for GoogleWallet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoogleWallet")
            .field("issuer_id", &self.issuer_id)
            .finish_non_exhaustive()
    }
}

impl GoogleWallet {
    /// The configured wallet, or `None` when the operator configured none; a key file that
    /// cannot be read is an error at start, not at the first customer's click.
    pub fn from_config(config: &Config) -> anyhow::Result<Option<Self>> {
        let (Some(issuer_id), Some(path)) = (
            &config.google_wallet_issuer_id,
            &config.google_wallet_key_file,
        ) else {
            return Ok(None);
        };
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "reading BOXOFFICE_GOOGLE_WALLET_KEY_FILE {}",
                path.display()
            )
        })?;
        let account: ServiceAccount = serde_json::from_str(&text)
            .context("BOXOFFICE_GOOGLE_WALLET_KEY_FILE is not a service-account key (JSON)")?;
        let key = EncodingKey::from_rsa_pem(account.private_key.as_bytes())
            .context("the service account's private_key is not an RSA PEM key")?;
        Ok(Some(Self {
            issuer_id: issuer_id.clone(),
            client_email: account.client_email,
            key,
            origin: config.base_url(),
        }))
    }

    /// The save link of `doc`'s tickets.
    pub fn save_url(&self, doc: &OrderDoc) -> anyhow::Result<String> {
        let claims = self.claims(doc);
        let jwt = jsonwebtoken::encode(&Header::new(Algorithm::RS256), &claims, &self.key)?;
        Ok(format!("{SAVE_URL}{jwt}"))
    }

    /// The JWT's claims: the event's class and an object per ticket, ids prefixed by the
    /// issuer id as Google requires (ids: letters, digits, `.`, `_`, `-`).
    fn claims(&self, doc: &OrderDoc) -> Value {
        let t = texts(doc.locale);
        let language = doc.locale.tag();
        let localized =
            |value: &str| json!({ "defaultValue": { "language": language, "value": value } });
        let class_id = format!("{}.boxoffice-{}", self.issuer_id, doc.merchant.merchant_id);
        let a = &doc.merchant.address;
        let class = json!({
            "id": class_id,
            "issuerName": doc.merchant_name(),
            "eventName": localized(&format!("{} {}", t.calendar_visit, doc.merchant_name())),
            "reviewStatus": "UNDER_REVIEW",
            "venue": {
                "name": localized(doc.merchant_name()),
                "address": localized(&format!("{}, {} {}, {}", a.street, a.postal_code, a.city, a.country)),
            },
        });
        let objects: Vec<Value> = doc
            .order
            .tickets
            .iter()
            .map(|ticket| {
                let mut object = json!({
                    "id": format!("{}.ticket-{}", self.issuer_id, ticket.ticket_id),
                    "classId": class_id,
                    "state": "ACTIVE",
                    "ticketNumber": ticket.code,
                    "ticketType": localized(&ticket.product_title),
                    "reservationInfo": { "confirmationCode": doc.order.order_display_id },
                    "barcode": { "type": "QR_CODE", "value": ticket.qr_content(), "alternateText": ticket.code },
                    "textModulesData": [{ "header": t.visit, "body": facts::visit_line(doc) }],
                });
                if let Some(slot) = &ticket.timeslot {
                    object["validTimeInterval"] = json!({
                        "start": { "date": slot.start_time.to_rfc3339() },
                        "end": { "date": slot.end_time.to_rfc3339() },
                    });
                }
                object
            })
            .collect();
        json!({
            "iss": self.client_email,
            "aud": "google",
            "typ": "savetowallet",
            "iat": Utc::now().timestamp(),
            "origins": [self.origin],
            "payload": { "eventTicketClasses": [class], "eventTicketObjects": objects },
        })
    }
}
