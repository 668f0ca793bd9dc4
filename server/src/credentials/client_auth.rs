//! Partner client authentication (client credentials) and backend bearers.

use crate::{
    auth::Authn,
    auth::{tokens::BackendClaims, Audience},
    error::{Error, ProblemType, Result},
    secrets,
    store::PartnerClient,
};

use super::IssuedToken;

/// A partner client whose secret was just presented, with the version of that secret.
#[derive(Debug, Clone)]
pub struct AuthenticatedClient {
    pub client: PartnerClient,
    secret_version: String,
}

impl std::ops::Deref for AuthenticatedClient {
    type Target = PartnerClient;

    fn deref(&self) -> &PartnerClient {
        &self.client
    }
}

/// The client whose id and secret these are; 401 `client-authentication-failed` otherwise.
pub async fn authenticate(
    state: &Authn,
    client_id: &str,
    client_secret: &str,
) -> Result<AuthenticatedClient> {
    let client = state.store.partner_client_by_client_id(client_id).await?;
    // Hashes even for an unknown client so timing does not tell which ids exist.
    let matches = secrets::verify_client_secret(
        client_secret,
        client.as_ref().map(|c| c.secret_hash.as_slice()),
    );
    match client {
        Some(client) if matches => Ok(AuthenticatedClient {
            secret_version: secrets::secret_version(&client.secret_hash),
            client: client.client,
        }),
        _ => Err(Error::new(
            ProblemType::ClientAuthenticationFailed,
            "The client_id and client_secret do not match a partner client.",
        )
        .with_oauth("invalid_client")),
    }
}

/// A backend bearer for an authenticated client, valid while that client keeps that secret.
pub fn backend_token(state: &Authn, client: &AuthenticatedClient) -> Result<IssuedToken> {
    let ttl = state.config.backend_token_ttl_secs;
    let claims = BackendClaims {
        registered: state
            .tokens
            .registered(Audience::Backend, client.client_id.clone(), ttl),
        sv: client.secret_version.clone(),
    };
    Ok(IssuedToken {
        access_token: state.tokens.sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: ttl,
        expires_at: None,
    })
}
