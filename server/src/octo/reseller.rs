//! Who calls an OCTO route and what it may see: a partner client with its backend bearer (the
//! reseller), one of its campaigns (its only one, or the one `x-campaign-id` names, as
//! elsewhere in the API), the merchant of the base path within that campaign, the
//! capabilities it asked for (`Octo-Capabilities`) and its language (`Accept-Language`).

use app::wire::Locale;
use axum::{
    extract::FromRequestParts,
    http::{request::Parts, HeaderMap, HeaderValue},
    response::{IntoResponse, Response},
};
use uuid::Uuid;

use super::error::{OctoError, OctoResult};
use crate::{
    auth::BackendClient,
    catalog::merchants::merchant_in_campaign,
    state::AppState,
    store::{Merchant, PartnerClient},
};

/// The capabilities this server implements (docs/octo.md, "Capabilities").
pub const CONTENT: &str = "octo/content";
pub const PRICING: &str = "octo/pricing";
pub const QUESTIONS: &str = "octo/questions";
pub const SUPPORTED: [&str; 3] = [CONTENT, PRICING, QUESTIONS];

/// The capabilities a request asked for, of those this server has, in its order.
#[derive(Debug, Clone, Default)]
pub struct Capabilities(Vec<&'static str>);

impl Capabilities {
    /// From `Octo-Capabilities` (a comma-separated list); absent, none are asked for, and
    /// names this server does not know are left out.
    pub fn of(headers: &HeaderMap) -> Self {
        let asked: Vec<String> = headers
            .get_all("octo-capabilities")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|name| name.trim().to_ascii_lowercase())
            .collect();
        Self(
            SUPPORTED
                .into_iter()
                .filter(|name| asked.iter().any(|a| a == name))
                .collect(),
        )
    }

    pub fn has(&self, name: &str) -> bool {
        self.0.contains(&name)
    }

    /// The `Octo-Capabilities` answer header: the ones in use, empty when none.
    pub fn header(&self) -> String {
        self.0.join(", ")
    }
}

/// A reseller's call on a merchant's OCTO base path.
pub struct Reseller {
    pub partner: PartnerClient,
    pub campaign_id: Uuid,
    pub merchant: Merchant,
    pub capabilities: Capabilities,
    pub locale: Locale,
    /// The public origin, for the URLs of pictures.
    pub base: std::sync::Arc<str>,
    /// Whether tickets have Apple Wallet passes (OCTO's `PKPASS_URL`).
    pub wallet_passes: bool,
}

impl Reseller {
    /// `body` with OCTO's answer headers: the capabilities in use and the languages.
    pub fn answer(&self, body: impl IntoResponse) -> Response {
        let mut response = body.into_response();
        let headers = response.headers_mut();
        if let Ok(value) = HeaderValue::from_str(&self.capabilities.header()) {
            headers.insert("octo-capabilities", value);
        }
        headers.insert(
            "content-language",
            HeaderValue::from_static(self.locale.tag()),
        );
        headers.insert(
            "available-languages",
            HeaderValue::from_static("nl-NL, en-GB, de-DE, fr-FR"),
        );
        response
    }
}

/// The merchant id of an OCTO path (`/octo/{merchant_id}/…`).
fn merchant_id_of(parts: &Parts) -> Option<Uuid> {
    let mut segments = parts.uri.path().trim_start_matches('/').split('/');
    match (segments.next(), segments.next()) {
        (Some("octo"), Some(id)) => id.parse().ok(),
        _ => None,
    }
}

impl FromRequestParts<AppState> for Reseller {
    type Rejection = OctoError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> OctoResult<Self> {
        let client = BackendClient::from_request_parts(parts, state)
            .await
            .map_err(|_| {
                OctoError::unauthorized(
                    "Send a partner's backend bearer (client credentials) in the Authorization header.",
                )
            })?;
        let partner = state
            .store
            .partner_client_by_client_id(&client.client_id)
            .await
            .map_err(crate::error::Error::from)?
            .ok_or_else(|| OctoError::unauthorized("The partner client no longer exists."))?
            .client;
        let unknown = || OctoError::not_found("No such merchant on this server.");
        let merchant_id = merchant_id_of(parts).ok_or_else(unknown)?;
        let campaign_id = campaign_of(&parts.headers, &partner)?;
        let merchant = merchant_in_campaign(state.reads(), merchant_id, campaign_id)
            .await
            .map_err(|_| unknown())?;
        let accept = parts
            .headers
            .get("accept-language")
            .and_then(|v| v.to_str().ok());
        Ok(Reseller {
            capabilities: Capabilities::of(&parts.headers),
            locale: Locale::negotiate(accept),
            partner,
            campaign_id,
            merchant,
            base: state.commerce.catalog.base.clone(),
            wallet_passes: state.tickets.apple_wallet.is_some(),
        })
    }
}

/// The campaign a reseller sells in: the one `x-campaign-id` names, which must be one of its
/// own (403 otherwise), or its only one.
fn campaign_of(headers: &HeaderMap, partner: &PartnerClient) -> OctoResult<Uuid> {
    match headers.get("x-campaign-id").map(|v| v.to_str()) {
        Some(value) => {
            let id: Uuid = value
                .ok()
                .and_then(|v| v.trim().parse().ok())
                .ok_or_else(|| OctoError::bad_request("x-campaign-id must be a UUID"))?;
            if partner.campaign_ids.contains(&id) {
                Ok(id)
            } else {
                Err(OctoError::forbidden(
                    "This partner client does not sell in the campaign x-campaign-id names.",
                ))
            }
        }
        None => match partner.campaign_ids.as_slice() {
            [only] => Ok(*only),
            [] => Err(OctoError::forbidden(
                "This partner client sells in no campaign yet.",
            )),
            _ => Err(OctoError::bad_request(
                "This partner client sells in several campaigns: name one in x-campaign-id.",
            )),
        },
    }
}
