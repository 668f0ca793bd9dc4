//! The `x-campaign-id` header: required where the contract says so, a UUID, and a campaign
//! that exists; and the campaign of a public-bearer call, where the session may supply it.

use axum::{
    extract::FromRequestParts,
    http::{request::Parts, HeaderMap},
};
use uuid::Uuid;

use crate::{
    auth::{HasAuthn, PublicUser},
    catalog::CatalogReads,
    error::{Error, ProblemType},
    store::Campaign,
};

pub const HEADER: &str = "x-campaign-id";

/// The campaign a request is scoped to.
#[derive(Debug, Clone)]
pub struct CampaignScope(pub Campaign);

/// The header's UUID: 400 when missing or not a UUID.
pub fn campaign_id(headers: &HeaderMap) -> Result<Uuid, Error> {
    optional_campaign_id(headers)?.ok_or_else(|| {
        Error::invalid_field(HEADER, "required", "the x-campaign-id header is required")
    })
}

/// The header's UUID when it is sent: 400 when it is not a UUID.
pub fn optional_campaign_id(headers: &HeaderMap) -> Result<Option<Uuid>, Error> {
    let Some(value) = headers.get(HEADER) else {
        return Ok(None);
    };
    value
        .to_str()
        .ok()
        .and_then(|v| Uuid::parse_str(v.trim()).ok())
        .map(Some)
        .ok_or_else(|| Error::invalid_field(HEADER, "invalid", "x-campaign-id must be a UUID"))
}

/// The campaign `id` names: 404 `campaign-not-found` when there is none.
pub async fn existing(state: &impl CatalogReads, id: Uuid) -> Result<Campaign, Error> {
    let (catalog, store) = state.reads();
    catalog
        .definitions
        .campaign(store, id)
        .await?
        .ok_or_else(|| {
            Error::new(
                ProblemType::CampaignNotFound,
                format!("Campaign {id} is not configured."),
            )
        })
}

impl<S: CatalogReads> FromRequestParts<S> for CampaignScope {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let id = campaign_id(&parts.headers)?;
        Ok(CampaignScope(existing(state, id).await?))
    }
}

/// A public-bearer call and the campaign it works in (docs/api-catalog.md, "Who may call, and in
/// which campaign"): the `x-campaign-id` header when sent, else the session's campaign.
///
/// - no bearer, or an invalid one: 401 `token-invalid` / `token-expired`;
/// - neither header nor session campaign: 400 naming `x-campaign-id`;
/// - a header that differs from the session's campaign: 403 `forbidden` (a session is bound to
///   the campaign it was started in);
/// - an unknown campaign: 404 `campaign-not-found`;
/// - a session whose partner client may not use the campaign (any more): 403 `forbidden`.
#[derive(Debug, Clone)]
pub struct SessionCampaign {
    pub user: PublicUser,
    pub campaign: Campaign,
}

impl<S: CatalogReads + HasAuthn> FromRequestParts<S> for SessionCampaign {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let user = PublicUser::from_request_parts(parts, state).await?;
        let header = optional_campaign_id(&parts.headers)?;
        SessionCampaign::resolve(state, user, header).await
    }
}

impl SessionCampaign {
    /// The campaign of `user`'s call given the `x-campaign-id` header it sent (see the type).
    pub async fn resolve(
        state: &(impl CatalogReads + HasAuthn),
        user: PublicUser,
        header: Option<Uuid>,
    ) -> Result<Self, Error> {
        let id = match (header, user.claims.campaign_id) {
            (Some(sent), Some(session)) if sent != session => {
                return Err(Error::new(
                    ProblemType::Forbidden,
                    format!(
                        "This session belongs to campaign {session}; x-campaign-id {sent} is not allowed with it."
                    ),
                ))
            }
            (Some(id), _) | (None, Some(id)) => id,
            (None, None) => {
                return Err(Error::invalid_field(
                    HEADER,
                    "required",
                    "send x-campaign-id: this session was started without a campaign",
                ))
            }
        };
        let campaign = existing(state, id).await?;
        // Identity sessions have no partner client; the campaign they were minted in is theirs.
        if let Some(client) = user.partner_client_id {
            let authn = state.authn();
            authn
                .auth
                .require_campaign(authn.store.as_ref(), client, id)
                .await?;
        }
        Ok(SessionCampaign { user, campaign })
    }
}
