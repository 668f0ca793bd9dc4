//! `POST /oauth/token` (client credentials) and `POST /v1/oauth/token` (the session code
//! exchange in bare RFC 6749 form).
//!
//! Both are rate limited per client address and client id together, so partners behind one
//! address (a shared egress, or a balancer whose address is not trusted) do not share one
//! bucket, while guessing one client's secret from one address stays limited.

use std::{net::IpAddr, num::NonZeroU32};

use axum::{
    body::Body,
    extract::{Request, State},
    http::HeaderMap,
    middleware::{self, Next},
    response::{IntoResponse, Response},
};
use governor::Quota;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::token_request::{bare_token, basic_credentials, client_credentials, TokenForm};
use crate::{
    credentials::{client_auth, gate_auth, sessions, IssuedToken},
    error::{Error, ProblemType, Result},
    http::{
        openapi::{Problem400, Problem401, Problem429},
        rate_limit::{self, RateLimit},
    },
    state::AppState,
};

/// Token request bodies are a few hundred bytes; a larger one is no token request.
const MAX_TOKEN_BODY: usize = 16 * 1024;
/// Client ids are at most 64 characters; a longer claimed one is keyed by its first 64.
const MAX_KEYED_CLIENT_ID: usize = 64;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let per_minute = NonZeroU32::new(state.config.auth_rate_per_minute.max(1)).expect("non-zero");
    let limit: RateLimit<ClientKey> = RateLimit::new(Quota::per_minute(per_minute));
    OpenApiRouter::new()
        .routes(routes!(client_credentials_token))
        .routes(routes!(code_exchange_token))
        .layer(middleware::from_fn_with_state(limit, limit_per_client))
}

/// What a token request is counted under: its client address and the client id it names.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ClientKey {
    address: IpAddr,
    client_id: String,
}

/// Counts a token request under its address and claimed client id (Basic, form or JSON; the
/// empty id when none), before the body is parsed for real.
async fn limit_per_client(
    State(limit): State<RateLimit<ClientKey>>,
    request: Request,
    next: Next,
) -> Response {
    let Some(address) = rate_limit::client_key(&request) else {
        return next.run(request).await;
    };
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_TOKEN_BODY).await else {
        return Error::new(
            ProblemType::PayloadTooLarge,
            format!("A token request body has at most {MAX_TOKEN_BODY} bytes."),
        )
        .with_oauth("invalid_request")
        .into_response();
    };
    let client_id = claimed_client_id(&parts.headers, &bytes);
    if let Err(refused) = limit.check(&ClientKey { address, client_id }) {
        return refused.into_response();
    }
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

/// The client id a token request names, unverified: from Basic, a form body or a JSON body.
fn claimed_client_id(headers: &HeaderMap, body: &[u8]) -> String {
    let from_basic = || basic_credentials(headers).ok().flatten().map(|(id, _)| id);
    let from_form = || {
        form_urlencoded::parse(body)
            .find(|(name, _)| name == "client_id")
            .map(|(_, id)| id.into_owned())
    };
    let from_json = || {
        serde_json::from_slice::<serde_json::Value>(body)
            .ok()?
            .get("client_id")?
            .as_str()
            .map(str::to_owned)
    };
    from_basic()
        .or_else(from_form)
        .or_else(from_json)
        .unwrap_or_default()
        .chars()
        .take(MAX_KEYED_CLIENT_ID)
        .collect()
}

/// The one `grant_type` of `POST /oauth/token` (documents the field, which is read as text so
/// another value is answered `unsupported-grant-type` rather than a validation error).
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
enum ClientCredentialsGrant {
    ClientCredentials,
}

/// The one `grant_type` of `POST /v1/oauth/token`, as `ClientCredentialsGrant`.
#[derive(utoipa::ToSchema)]
#[schema(rename_all = "snake_case")]
#[allow(dead_code)]
enum AuthorizationCodeGrant {
    AuthorizationCode,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct ClientCredentialsRequest {
    /// Must be `client_credentials`.
    #[schema(required = true, inline, value_type = ClientCredentialsGrant)]
    grant_type: Option<String>,
    /// Here or in HTTP Basic.
    #[schema(nullable = false)]
    client_id: Option<String>,
    #[schema(nullable = false)]
    client_secret: Option<String>,
    /// Accepted and ignored: backend bearers carry no scopes.
    #[allow(dead_code)]
    #[schema(nullable = false)]
    scope: Option<String>,
}

/// OAuth 2.0 client credentials (RFC 6749 §4.4): a backend bearer for the partner backend, or
/// a gate bearer for a gate's (or a paired device's) credentials (docs/gate.md).
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
    if let Some(token) = gate_auth::gate_token(&state.authn, &client_id, &secret).await? {
        return Ok(bare_token(token));
    }
    let client = client_auth::authenticate(&state.authn, &client_id, &secret).await?;
    Ok(bare_token(client_auth::backend_token(
        &state.authn,
        &client,
    )?))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
struct CodeGrantRequest {
    /// `authorization_code` when sent.
    #[schema(inline, value_type = Option<AuthorizationCodeGrant>, nullable = false)]
    grant_type: Option<String>,
    /// The session code.
    #[schema(required = true, nullable = false, min_length = 1)]
    code: Option<String>,
    /// Here or in HTTP Basic.
    #[schema(nullable = false)]
    client_id: Option<String>,
    #[schema(nullable = false)]
    client_secret: Option<String>,
    #[schema(nullable = false)]
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
        &state.authn,
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
