//! The identity bearer exchange: a retail partner's identity token becomes a public bearer for
//! a session in the campaign the frame runs in. Tokens from issuers not on the allow-list, and
//! for a campaign the issuer is not tied to, are refused before any call to a provider; a
//! token's apiKey must be one the issuer lists (`auth::identity`); no user is created until
//! the token verifies.

use chrono::Utc;

use super::{sessions::public_token, IssuedToken};
use crate::{
    auth::Authn,
    auth::{
        codes::{code_hash, new_code},
        identity::{claimed_issuer, IdentityError, TrustedIssuer},
    },
    error::{Error, ProblemType, Result},
    store::{Campaign, CustomerDetails, CustomerKey, NewSession, SessionMode},
};

pub use app::wire::IdentityExchange;

fn rejected(reason: &str) -> Error {
    Error::new(
        ProblemType::IdentityTokenRejected,
        format!("The identity token was rejected: {reason}."),
    )
}

pub async fn exchange(
    state: &Authn,
    campaign: &Campaign,
    request: IdentityExchange,
) -> Result<IssuedToken> {
    if request.identity_token.is_empty() {
        return Err(Error::invalid_field(
            "identity_token",
            "required",
            "identity_token must not be empty",
        ));
    }
    let issuer_name = claimed_issuer(&request.identity_token)
        .map_err(|_| rejected("it is not a JWT with an issuer"))?;
    let issuer = state
        .store
        .identity_issuer_by_issuer(&issuer_name)
        .await?
        .ok_or_else(|| rejected("its issuer is not allowed"))?;
    if !issuer.campaign_ids.contains(&campaign.campaign_id) {
        return Err(rejected("its issuer is not allowed in this campaign"));
    }
    let trusted = TrustedIssuer {
        issuer: issuer.issuer.clone(),
        jwks_url_template: issuer.jwks_url_template.clone(),
        audience: issuer.audience.clone(),
        api_keys: issuer.api_keys.clone(),
    };
    let identity = state
        .identity
        .verify(&request.identity_token, &trusted)
        .await
        .map_err(|err| match err {
            IdentityError::Rejected(reason) => rejected(reason),
            IdentityError::ProviderUnavailable => Error::new(
                ProblemType::IdentityProviderUnavailable,
                "The identity provider's keys could not be fetched; try again shortly.",
            ),
        })?;

    let customer_id = state
        .store
        .upsert_customer(
            CustomerKey::Identity {
                identity_issuer_id: issuer.identity_issuer_id,
                accountuid: &identity.accountuid,
            },
            &CustomerDetails::default(),
        )
        .await?;
    let mut integrator_params = serde_json::Map::new();
    integrator_params.insert("accountuid".into(), identity.accountuid.clone().into());
    if let Some(card) = &identity.loyalty_card {
        integrator_params.insert("loyalty_card".into(), card.clone().into());
    }
    // The session is minted already redeemed: there is no code to hand out, only the bearer.
    let jti = crate::ids::random_id();
    let session = state
        .store
        .create_session(&NewSession {
            partner_session_id: crate::ids::random_id(),
            code_hash: code_hash(&new_code()),
            partner_client_id: None,
            customer_id,
            campaign_id: Some(campaign.campaign_id),
            mode: SessionMode::Identity,
            code_challenge: None,
            code_expires_at: Utc::now(),
            redeemed_with: Some(jti),
            integrator_params,
            prefill: None,
        })
        .await?;
    public_token(state, &session, jti).await
}
