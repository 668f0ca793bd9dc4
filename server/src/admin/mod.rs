//! The operator API under `/admin/v1`: configuration of campaigns, merchants, products,
//! availability, vouchers, partner clients, identity issuers, memberships, wallets, gates and
//! the rotation of the bearer signing key. On only
//! when `BOXOFFICE_ADMIN_TOKEN` is set.

mod after_sale;
mod auth;
mod availability;
mod calendar;
mod campaigns;
mod clients;
mod crud;
mod gates;
mod images;
mod issuers;
mod keys;
mod mails;
mod memberships;
mod merchants;
mod orders;
mod products;
mod settlement;
pub(crate) mod timeslots;
mod vouchers;
mod wallets;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub use auth::Admin;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(campaigns::router())
        .merge(clients::router())
        .merge(issuers::router())
        .merge(keys::router())
        .merge(mails::router())
        .merge(memberships::router())
        .merge(vouchers::router())
        .merge(wallets::router())
        .merge(merchants::router())
        .merge(orders::router())
        .merge(after_sale::router())
        .merge(availability::router())
        .merge(products::router())
        .merge(calendar::router())
        .merge(timeslots::router())
        .merge(gates::router())
        .merge(images::router())
        .merge(settlement::router())
}
