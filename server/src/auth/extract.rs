//! Extractors that demand a credential: a handler's signature says who may call it.

use axum::{extract::FromRequestParts, http::request::Parts};
use uuid::Uuid;

use super::{
    authn::{Authn, HasAuthn},
    bearer_token,
    cache::SessionCheck,
    tokens::{BackendClaims, GateClaims, MerchantClaims, PublicClaims},
    Audience, TokenRejection,
};
use crate::error::{Error, ProblemType};

/// The problem of a refused bearer, saying which case it is, for a route that takes bearers of
/// `expected`. Nothing in it is secret: the kinds of bearer are documented and `iss` is a
/// public address.
fn rejection(state: &Authn, reason: TokenRejection, expected: Audience) -> Error {
    let detail = match reason {
        TokenRejection::Expired => {
            return Error::new(
                ProblemType::TokenExpired,
                "The bearer token has expired; obtain a new one.",
            )
        }
        TokenRejection::Invalid => format!(
            "The bearer token is not valid here: it is malformed or not signed by this server's keys; this route takes {}.",
            bearer_kind(expected)
        ),
        TokenRejection::OtherAudience(found) => format!(
            "This is {}; this route takes {}.",
            bearer_kind(found),
            bearer_kind(expected)
        ),
        TokenRejection::OtherIssuer(iss) => format!(
            "The bearer token was issued by another server address (iss {iss}); this server is {}. Send it to the server that issued it, or obtain one here.",
            state.tokens.issuer()
        ),
    };
    Error::new(ProblemType::TokenInvalid, detail)
}

/// What a bearer of `audience` is, in a partner's words.
fn bearer_kind(audience: Audience) -> &'static str {
    match audience {
        Audience::Backend => "a backend bearer (client credentials at /oauth/token)",
        Audience::Public => "the public bearer of a session",
        Audience::Merchant => "a merchant bearer (from the onboarding magic link)",
        Audience::Receipt => "a receipt token, which is no bearer",
        Audience::Gate => "a gate bearer (a gate's client credentials at /oauth/token)",
    }
}

fn required(parts: &Parts) -> Result<&str, Error> {
    bearer_token(&parts.headers).ok_or_else(|| {
        Error::new(
            ProblemType::TokenInvalid,
            "Send a bearer token in the Authorization header.",
        )
    })
}

/// A partner backend, authenticated by a backend bearer (client credentials) issued under the
/// client's current secret: rotating the secret or deleting the client ends its bearers at
/// once, on every node (one read of the client per call).
#[derive(Debug, Clone)]
pub struct BackendClient {
    /// The partner's `client_id`.
    pub client_id: String,
}

impl<S: HasAuthn> FromRequestParts<S> for BackendClient {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = state.authn();
        let token = required(parts)?;
        let claims: BackendClaims = crate::keys::verify(state, token, Audience::Backend)
            .await
            .map_err(|reason| rejection(state, reason, Audience::Backend))?;
        let current = state
            .store
            .partner_client_by_client_id(&claims.registered.sub)
            .await?
            .map(|c| crate::secrets::secret_version(&c.secret_hash));
        if current.as_deref() != Some(claims.sv.as_str()) {
            return Err(Error::new(
                ProblemType::TokenInvalid,
                "The bearer token was revoked: the client's secret was rotated or the client removed; obtain a new one.",
            ));
        }
        Ok(BackendClient {
            client_id: claims.registered.sub,
        })
    }
}

/// An end user with a public bearer whose session has not been revoked.
#[derive(Debug, Clone)]
pub struct PublicUser {
    pub customer_id: Uuid,
    pub session_id: Uuid,
    /// The session's partner client; `None` for sessions minted from an identity token.
    pub partner_client_id: Option<Uuid>,
    pub claims: PublicClaims,
}

impl PublicUser {
    async fn from_token(token: &str, state: &Authn) -> Result<Self, Error> {
        let refused = |reason| rejection(state, reason, Audience::Public);
        let claims: PublicClaims = crate::keys::verify(state, token, Audience::Public)
            .await
            .map_err(refused)?;
        let customer_id = Uuid::parse_str(&claims.registered.sub)
            .map_err(|_| refused(TokenRejection::Invalid))?;
        // Revocation (a replayed session code) must cut the bearer off before its expiry, on
        // every node within the auth cache's bound.
        let session = state.auth.session(state.store.as_ref(), claims.sid).await?;
        let partner_client_id = match session {
            SessionCheck::Stands(s) if s.bearer_jti == claims.registered.jti => {
                s.partner_client_id
            }
            SessionCheck::Revoked => return Err(Error::new(
                ProblemType::TokenInvalid,
                "The bearer token was revoked because its session code was redeemed twice (a code presented again may have leaked); start a new session.",
            )),
            SessionCheck::Stands(_) | SessionCheck::Unknown => {
                return Err(Error::new(
                    ProblemType::TokenInvalid,
                    "The bearer token's session is unknown to this server, or it is not the bearer its session code gave; start a new session.",
                ))
            }
        };
        Ok(PublicUser {
            customer_id,
            session_id: claims.sid,
            partner_client_id,
            claims,
        })
    }
}

impl<S: HasAuthn> FromRequestParts<S> for PublicUser {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = state.authn();
        let token = required(parts)?;
        PublicUser::from_token(token, state).await
    }
}

/// A public bearer when one is sent (guests allowed); a token that is sent and invalid is
/// still refused with 401.
#[derive(Debug, Clone)]
pub struct MaybePublicUser(pub Option<PublicUser>);

impl<S: HasAuthn> FromRequestParts<S> for MaybePublicUser {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = state.authn();
        if !parts
            .headers
            .contains_key(axum::http::header::AUTHORIZATION)
        {
            return Ok(MaybePublicUser(None));
        }
        let token = required(parts)?;
        Ok(MaybePublicUser(Some(
            PublicUser::from_token(token, state).await?,
        )))
    }
}

/// A merchant, authenticated by the bearer from the onboarding magic link.
#[derive(Debug, Clone)]
pub struct MerchantUser {
    pub merchant_account_id: Uuid,
}

impl<S: HasAuthn> FromRequestParts<S> for MerchantUser {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = state.authn();
        let token = required(parts)?;
        let refused = |reason| rejection(state, reason, Audience::Merchant);
        let claims: MerchantClaims = crate::keys::verify(state, token, Audience::Merchant)
            .await
            .map_err(refused)?;
        let merchant_account_id = Uuid::parse_str(&claims.registered.sub)
            .map_err(|_| refused(TokenRejection::Invalid))?;
        Ok(MerchantUser {
            merchant_account_id,
        })
    }
}

/// A merchant's gate (or a device paired with it), by a gate bearer issued under the
/// credential's current secret while the gate stands. The credential is read through the
/// auth cache (`auth::cache`): revoking or changing the gate reaches the node that made the
/// change at once and every other node within the cache's interval, as for partner clients.
#[derive(Debug, Clone)]
pub struct GateUser {
    pub gate: crate::store::Gate,
}

impl<S: HasAuthn> FromRequestParts<S> for GateUser {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        let state = state.authn();
        let token = required(parts)?;
        let claims: GateClaims = crate::keys::verify(state, token, Audience::Gate)
            .await
            .map_err(|reason| rejection(state, reason, Audience::Gate))?;
        let credential = state
            .auth
            .gate_credential(state.store.as_ref(), &claims.cid)
            .await?;
        match credential {
            Some(c)
                if c.gate.gate_id.to_string() == claims.registered.sub
                    && crate::secrets::secret_version(&c.credential_hash) == claims.sv =>
            {
                Ok(GateUser { gate: c.gate })
            }
            _ => Err(Error::new(
                ProblemType::TokenInvalid,
                "The bearer token was revoked: the gate was revoked; ask the operator for a new gate or pairing.",
            )),
        }
    }
}
