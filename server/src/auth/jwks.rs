use axum::{extract::State, http::header, response::IntoResponse};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(jwks))
}

/// The public keys that verify Boxoffice bearers (JWK Set, Ed25519 OKP keys).
#[utoipa::path(get, path = "/.well-known/jwks.json", tag = "credentials",
    responses((status = 200, content_type = "application/jwk-set+json", body = Object)))]
async fn jwks(State(state): State<AppState>) -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "application/jwk-set+json"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        state.authn.tokens.jwks().to_string(),
    )
}
