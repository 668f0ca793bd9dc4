//! The `x-campaign-id` header: required where the contract says so, a UUID, and a campaign
//! that exists.

use axum::{extract::FromRequestParts, http::request::Parts};
use uuid::Uuid;

use crate::{
    error::{Error, ProblemType},
    state::AppState,
    store::Campaign,
};

pub const HEADER: &str = "x-campaign-id";

/// The campaign a request is scoped to.
#[derive(Debug, Clone)]
pub struct CampaignScope(pub Campaign);

/// The header's UUID: 400 when missing or not a UUID.
pub fn campaign_id(parts: &Parts) -> Result<Uuid, Error> {
    let value = parts.headers.get(HEADER).ok_or_else(|| {
        Error::invalid_field(HEADER, "required", "the x-campaign-id header is required")
    })?;
    value
        .to_str()
        .ok()
        .and_then(|v| Uuid::parse_str(v.trim()).ok())
        .ok_or_else(|| Error::invalid_field(HEADER, "invalid", "x-campaign-id must be a UUID"))
}

impl FromRequestParts<AppState> for CampaignScope {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let id = campaign_id(parts)?;
        let campaign = state.store.campaign(id).await?.ok_or_else(|| {
            Error::new(
                ProblemType::CampaignNotFound,
                format!("Campaign {id} is not configured."),
            )
        })?;
        Ok(CampaignScope(campaign))
    }
}
