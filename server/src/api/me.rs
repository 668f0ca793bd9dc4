//! `GET /v2/me`: who a public bearer speaks for (like OIDC userinfo), so a frontend can check
//! its bearer and read the session's campaign and integrator parameters.

use app::wire::Me;
use axum::extract::State;
use chrono::DateTime;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::http::openapi::Problem401;
use crate::{
    auth::PublicUser, credentials::sessions::prefill, error::Result, http::envelope::Data,
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(me))
}

/// The session of the public bearer, with the customer fields its partner prefilled and
/// locked (docs/credentials.md, "Prefill and locked fields").
#[utoipa::path(get, path = "/v2/me", tag = "credentials", security(("public_bearer" = [])),
    responses((status = 200, body = inline(app::wire::Envelope<Me>)),
              Problem401))]
async fn me(State(state): State<AppState>, user: PublicUser) -> Result<Data<Me>> {
    let prefill = prefill(state.store.as_ref(), Some(user.session_id)).await?;
    let claims = user.claims;
    Ok(Data::ok(Me {
        customer_id: user.customer_id,
        session_id: user.session_id,
        client_id: claims.client_id,
        campaign_id: claims.campaign_id,
        mode: claims.mode.as_str().to_owned(),
        integrator_params: claims.integrator_params,
        expires_at: DateTime::from_timestamp(claims.registered.exp, 0),
        prefill,
    }))
}
