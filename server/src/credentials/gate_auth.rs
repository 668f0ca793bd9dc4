//! Gate client authentication and gate bearers (docs/gate.md, "Gates"): a gate's client id
//! and secret, or a paired device's, give a gate bearer at `/oauth/token`'s client-credentials
//! grant. They are credentials of their own kind: a partner's never give a gate bearer, and a
//! gate bearer reaches nothing but the gate's endpoints (its own audience).

use crate::{
    auth::{tokens::GateClaims, Audience, Authn},
    error::{Error, ProblemType, Result},
    secrets,
};

use super::IssuedToken;

/// How long a gate bearer lasts: a scanner asks for a new one as it needs it.
pub const GATE_TOKEN_TTL_SECS: u64 = 3600;

/// A gate bearer for the gate credential `client_id` with `client_secret`; `None` when
/// `client_id` is no gate's or device's (the caller tries a partner's). A wrong secret or a
/// revoked gate is 401 `client-authentication-failed`.
pub async fn gate_token(
    state: &Authn,
    client_id: &str,
    client_secret: &str,
) -> Result<Option<IssuedToken>> {
    let Some(credential) = state.store.gate_credential(client_id).await? else {
        return Ok(None);
    };
    if !secrets::verify_secret(client_secret, &credential.credential_hash)
        || credential.gate.revoked_at.is_some()
    {
        return Err(Error::new(
            ProblemType::ClientAuthenticationFailed,
            "The client_id and client_secret do not match a standing gate.",
        )
        .with_oauth("invalid_client"));
    }
    let claims = GateClaims {
        registered: state.tokens.registered(
            Audience::Gate,
            credential.gate.gate_id.to_string(),
            GATE_TOKEN_TTL_SECS,
        ),
        cid: client_id.to_owned(),
        sv: secrets::secret_version(&credential.credential_hash),
    };
    Ok(Some(IssuedToken {
        access_token: state.tokens.sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: GATE_TOKEN_TTL_SECS,
        expires_at: None,
    }))
}
