//! The partner-facing API: thin handlers over the business logic modules.

mod me;
mod merchant_accounts;
mod oauth;
mod sessions;
mod token_request;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(merchant_accounts::router(state))
        .merge(oauth::router(state))
        .merge(sessions::router(state))
        .merge(me::router())
}
