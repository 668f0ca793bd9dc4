//! The partner-facing API: thin handlers over the business logic modules.

mod availability;
pub(crate) mod checkouts;
mod events;
mod invoices;
mod me;
mod merchant_accounts;
mod merchant_search;
pub(crate) mod merchants;
mod oauth;
pub(crate) mod order_changes;
mod order_tickets;
mod orders;
mod partner_orders;
mod products;
mod redemptions;
mod sessions;
mod settlement;
pub(crate) mod token_request;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(merchant_accounts::router(state))
        .merge(oauth::router(state))
        .merge(sessions::router(state))
        .merge(me::router())
        .merge(merchants::router())
        .merge(merchant_search::router())
        .merge(products::router())
        .merge(availability::router())
        .merge(checkouts::router())
        .merge(orders::router())
        .merge(order_changes::router())
        .merge(partner_orders::router())
        .merge(order_tickets::router())
        .merge(invoices::router())
        .merge(events::router())
        .merge(redemptions::router())
        .merge(settlement::router())
}
