//! What a customer receives of a paid order (docs/tickets.md): the ticket mail (written with
//! the payment, sent by the mail outbox, `mail/outbox.rs`, as [`render`] renders it), the
//! keyed ticket page (`page`), the calendar file (`calendar`) and resends (`resend`).

pub mod apple_wallet;
pub mod calendar;
pub mod facts;
pub mod google_wallet;
pub mod mail;
pub mod order_doc;
pub mod page;
pub mod page_key;
pub mod qr;
pub mod render;
pub mod resend;
pub mod texts;
pub mod vtimezone;

use std::sync::Arc;

pub use page_key::TicketPageKey;
use uuid::Uuid;

use crate::{config::Config, error::Result, store::Store};

/// What issuing a customer's tickets works with, as the router's state hands it over: the
/// ticket page's key and the wallet signers, with the store and settings behind them.
#[derive(Clone)]
pub struct Tickets {
    pub config: Arc<Config>,
    pub store: Arc<dyn Store>,
    /// Signs the tickets' QR tokens (`gate::code`), with the bearers' keys.
    pub tokens: crate::auth::TokenService,
    /// The key of the ticket pages' URLs (`/tickets/{order_id}?key=…`).
    pub ticket_pages: TicketPageKey,
    /// The operator's Google Wallet issuer, when configured.
    pub google_wallet: Option<google_wallet::GoogleWallet>,
    /// The operator's Apple Wallet pass signing, when configured.
    pub apple_wallet: Option<apple_wallet::AppleWallet>,
}

/// The order's ticket page URL with its current key, when the order has a ticket page.
pub async fn page_url(state: &Tickets, order_id: Uuid) -> Result<Option<String>> {
    keyed_url(state, order_id, "").await
}

/// The order's "manage your booking" page URL (`after_sale::page`), keyed like its ticket
/// page, when the order has one.
pub async fn manage_url(state: &Tickets, order_id: Uuid) -> Result<Option<String>> {
    keyed_url(state, order_id, "/manage").await
}

/// Where the order's tickets are saved to Apple Wallet (keyed like its ticket page; with
/// `&ticket={ticket_id}` added, one ticket's `.pkpass`), when the operator configured Apple
/// Wallet and the order has a ticket page.
pub async fn apple_passes_url(state: &Tickets, order_id: Uuid) -> Result<Option<String>> {
    if state.apple_wallet.is_none() {
        return Ok(None);
    }
    keyed_url(state, order_id, "/wallet/apple").await
}

async fn keyed_url(state: &Tickets, order_id: Uuid, below: &str) -> Result<Option<String>> {
    let Some(nonce) = state.store.ticket_page_nonce(order_id).await? else {
        return Ok(None);
    };
    Ok(Some(format!(
        "{}/tickets/{order_id}{below}?key={}",
        state.config.base_url(),
        state.ticket_pages.for_order(order_id, &nonce)
    )))
}

/// The host name that makes calendar UIDs globally unique.
pub fn uid_host(state: &Tickets) -> String {
    state
        .config
        .public_url
        .host_str()
        .unwrap_or("boxoffice")
        .to_owned()
}

/// The order's ticket mail as it is sent now, when the order is paid and has a ticket page.
pub async fn compose_mail(
    state: &Tickets,
    doc: &order_doc::OrderDoc,
) -> Result<Option<mail::TicketMail>> {
    let Some(url) = page_url(state, doc.order.order_id).await? else {
        return Ok(None);
    };
    Ok(Some(mail::compose(doc, &url, &uid_host(state))?))
}
