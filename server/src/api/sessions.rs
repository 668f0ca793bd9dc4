//! `/v1/session…`: starting sessions and exchanging their codes or identity tokens for public
//! bearers.

use axum::{extract::State, middleware, response::Response};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::token_request::no_store;
use crate::{
    auth::BackendClient,
    credentials::{
        identity::{self, IdentityExchange},
        sessions::{self, CodeExchange, StartSession, StartedSession},
        IssuedToken,
    },
    error::Result,
    http::{
        campaign::CampaignScope,
        envelope::Data,
        extract::ApiJson,
        openapi::{Problem400, Problem401, Problem403, Problem404, Problem429, Problem502},
        rate_limit::{self, RateLimit},
    },
    state::AppState,
};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let limit = RateLimit::per_minute(state.config.auth_rate_per_minute);
    OpenApiRouter::new()
        .routes(routes!(exchange_session_code))
        .routes(routes!(exchange_identity_token))
        .layer(middleware::from_fn_with_state(
            limit,
            rate_limit::middleware,
        ))
        .routes(routes!(start_session))
}

/// Starts a session for the partner's user; returns its one-time code (and frame_url in
/// webframe mode). Backend bearer only.
#[utoipa::path(post, path = "/v1/session", tag = "credentials", security(("backend_bearer" = [])),
    request_body = StartSession,
    responses((status = 201, body = inline(app::wire::Envelope<StartedSession>)),
              Problem400, Problem401, Problem403, Problem404))]
async fn start_session(
    client: BackendClient,
    State(state): State<AppState>,
    ApiJson(request): ApiJson<StartSession>,
) -> Result<Response> {
    let started = sessions::start(&state.authn, &client.client_id, request).await?;
    Ok(no_store(Data::created(started)))
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct SessionTokenRequest {
    session_code: String,
    client_id: String,
    client_secret: String,
    /// The PKCE verifier, when the session was started with a challenge.
    code_verifier: Option<String>,
}

/// Exchanges a session code (once) for a public bearer. Headless mode; the partner backend calls it.
#[utoipa::path(post, path = "/v1/session/token", tag = "credentials",
    request_body = SessionTokenRequest,
    responses((status = 200, body = inline(app::wire::Envelope<IssuedToken>)),
              Problem400, Problem401, Problem429))]
async fn exchange_session_code(
    State(state): State<AppState>,
    ApiJson(body): ApiJson<SessionTokenRequest>,
) -> Result<Response> {
    let token = sessions::exchange(
        &state.authn,
        CodeExchange {
            session_code: body.session_code,
            client_id: body.client_id,
            client_secret: body.client_secret,
            code_verifier: body.code_verifier,
        },
    )
    .await?;
    Ok(no_store(Data::ok(token)))
}

/// Exchanges a retail partner's identity token for a public bearer in the campaign of
/// `x-campaign-id` (the iframe handoff).
#[utoipa::path(post, path = "/v1/session/identity", tag = "credentials",
    params(("x-campaign-id" = uuid::Uuid, Header)),
    request_body = IdentityExchange,
    responses((status = 200, body = inline(app::wire::Envelope<IssuedToken>)),
              Problem400, Problem401, Problem404, Problem429, Problem502))]
async fn exchange_identity_token(
    State(state): State<AppState>,
    CampaignScope(campaign): CampaignScope,
    ApiJson(body): ApiJson<IdentityExchange>,
) -> Result<Response> {
    let token = identity::exchange(&state.authn, &campaign, body).await?;
    Ok(no_store(Data::ok(token)))
}
