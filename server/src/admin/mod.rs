//! The operator API under `/admin/v1`: configuration of campaigns, merchants, products,
//! availability, vouchers, partner clients and identity issuers. On only when
//! `BOXOFFICE_ADMIN_TOKEN` is set.

mod auth;
mod availability;
mod calendar;
mod campaigns;
mod merchants;
mod products;
pub(crate) mod timeslots;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub use auth::Admin;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(campaigns::router())
        .merge(merchants::router())
        .merge(availability::router())
        .merge(products::router())
        .merge(calendar::router())
        .merge(timeslots::router())
}
