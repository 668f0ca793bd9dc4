//! The partner-facing API: thin handlers over the business logic modules.

mod merchant_accounts;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(merchant_accounts::router(state))
}
