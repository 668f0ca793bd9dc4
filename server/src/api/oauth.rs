//! `POST /oauth/token` (client credentials) and `POST /v1/oauth/token` (the session code
//! exchange in bare RFC 6749 form).

use axum::{extract::State, http::HeaderMap, middleware, response::Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::token_request::{bare_token, client_credentials, TokenForm};
use crate::{
    credentials::{client_auth, sessions, IssuedToken},
    error::{Error, ProblemType, Result},
    http::{
        openapi::{Problem400, Problem401, Problem429},
        rate_limit::{self, RateLimit},
    },
    state::AppState,
};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let limit = RateLimit::per_minute(state.config.auth_rate_per_minute);
    OpenApiRouter::new()
        .routes(routes!(client_credentials_token))
        .routes(routes!(code_exchange_token))
        .layer(middleware::from_fn_with_state(
            limit,
            rate_limit::middleware,
        ))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct ClientCredentialsRequest {
    /// Must be `client_credentials`.
    grant_type: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    /// Accepted and ignored: backend bearers carry no scopes.
    #[allow(dead_code)]
    scope: Option<String>,
}

/// OAuth 2.0 client credentials (RFC 6749 §4.4): a backend bearer for the partner backend.
#[utoipa::path(post, path = "/oauth/token", tag = "credentials",
    request_body(content = ClientCredentialsRequest, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = IssuedToken),
              Problem400, Problem401, Problem429))]
async fn client_credentials_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    TokenForm(body): TokenForm<ClientCredentialsRequest>,
) -> Result<Response> {
    match body.grant_type.as_deref() {
        Some("client_credentials") => {}
        Some(other) => {
            return Err(Error::new(
                ProblemType::UnsupportedGrantType,
                format!("grant_type `{other}` is not supported here; use client_credentials."),
            )
            .with_oauth("unsupported_grant_type"))
        }
        None => {
            return Err(
                Error::invalid_field("grant_type", "required", "grant_type is required")
                    .with_oauth("invalid_request"),
            )
        }
    }
    let (client_id, secret) = client_credentials(&headers, body.client_id, body.client_secret)?;
    let client = client_auth::authenticate(&state, &client_id, &secret).await?;
    Ok(bare_token(client_auth::backend_token(&state, &client)?))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct CodeGrantRequest {
    /// `authorization_code` when sent.
    grant_type: Option<String>,
    /// The session code.
    code: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    code_verifier: Option<String>,
}

/// The session code exchange in bare RFC 6749 form (field `code`); the same exchange as
/// `POST /v1/session/token`.
#[utoipa::path(post, path = "/v1/oauth/token", tag = "credentials",
    request_body(content = CodeGrantRequest, content_type = "application/x-www-form-urlencoded"),
    responses((status = 200, body = IssuedToken),
              Problem400, Problem401, Problem429))]
async fn code_exchange_token(
    State(state): State<AppState>,
    headers: HeaderMap,
    TokenForm(body): TokenForm<CodeGrantRequest>,
) -> Result<Response> {
    if let Some(grant) = body
        .grant_type
        .as_deref()
        .filter(|g| *g != "authorization_code")
    {
        return Err(Error::new(
            ProblemType::UnsupportedGrantType,
            format!("grant_type `{grant}` is not supported here; use authorization_code."),
        )
        .with_oauth("unsupported_grant_type"));
    }
    let code = body.code.filter(|c| !c.is_empty()).ok_or_else(|| {
        Error::invalid_field("code", "required", "code is required").with_oauth("invalid_request")
    })?;
    let (client_id, client_secret) =
        client_credentials(&headers, body.client_id, body.client_secret)?;
    let mut token = sessions::exchange(
        &state,
        sessions::CodeExchange {
            session_code: code,
            client_id,
            client_secret,
            code_verifier: body.code_verifier,
        },
    )
    .await?;
    token.expires_at = None;
    Ok(bare_token(token))
}
