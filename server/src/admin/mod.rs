//! The operator API under `/admin/v1`: configuration of campaigns, merchants, products,
//! availability, vouchers, partner clients and identity issuers. On only when
//! `BOXOFFICE_ADMIN_TOKEN` is set.

mod auth;
mod campaigns;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub use auth::Admin;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().merge(campaigns::router())
}
