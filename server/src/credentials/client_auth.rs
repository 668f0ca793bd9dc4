//! Partner client authentication (client credentials) and backend bearers.

use crate::{
    auth::{tokens::BackendClaims, Audience},
    error::{Error, ProblemType, Result},
    secrets,
    state::AppState,
    store::PartnerClient,
};

use super::IssuedToken;

/// The client whose id and secret these are; 401 `client-authentication-failed` otherwise.
pub async fn authenticate(
    state: &AppState,
    client_id: &str,
    client_secret: &str,
) -> Result<PartnerClient> {
    let client = state.store.partner_client_by_client_id(client_id).await?;
    // Hashes even for an unknown client so timing does not tell which ids exist.
    let matches = secrets::verify_client_secret(
        client_secret,
        client.as_ref().map(|c| c.secret_hash.as_slice()),
    );
    match client {
        Some(client) if matches => Ok(client.client),
        _ => Err(Error::new(
            ProblemType::ClientAuthenticationFailed,
            "The client_id and client_secret do not match a partner client.",
        )
        .with_oauth("invalid_client")),
    }
}

/// A backend bearer for an authenticated client.
pub fn backend_token(state: &AppState, client: &PartnerClient) -> Result<IssuedToken> {
    let ttl = state.config.backend_token_ttl_secs;
    let claims = BackendClaims {
        registered: state
            .tokens
            .registered(Audience::Backend, client.client_id.clone(), ttl),
    };
    Ok(IssuedToken {
        access_token: state.tokens.sign(&claims)?,
        token_type: "Bearer",
        expires_in: ttl,
        expires_at: None,
    })
}
