//! `GET /v2/me`: who a public bearer speaks for (like OIDC userinfo), so a frontend can check
//! its bearer and read the session's campaign and integrator parameters.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::http::openapi::Problem401;
use crate::{auth::PublicUser, http::envelope::Data, state::AppState};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(me))
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
struct Me {
    customer_id: Uuid,
    session_id: Uuid,
    client_id: String,
    campaign_id: Option<Uuid>,
    /// headless, webframe or identity.
    mode: String,
    #[schema(value_type = Object)]
    integrator_params: serde_json::Map<String, serde_json::Value>,
    expires_at: Option<DateTime<Utc>>,
}

/// The session of the public bearer.
#[utoipa::path(get, path = "/v2/me", tag = "credentials", security(("public_bearer" = [])),
    responses((status = 200, body = inline(app::wire::Envelope<Me>)),
              Problem401))]
async fn me(user: PublicUser) -> Data<Me> {
    let claims = user.claims;
    Data::ok(Me {
        customer_id: user.customer_id,
        session_id: user.session_id,
        client_id: claims.client_id,
        campaign_id: claims.campaign_id,
        mode: claims.mode,
        integrator_params: claims.integrator_params,
        expires_at: DateTime::from_timestamp(claims.registered.exp, 0),
    })
}
