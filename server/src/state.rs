//! The state every handler and server function shares.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use metrics_exporter_prometheus::PrometheusHandle;

use crate::{
    auth::{identity::IdentityVerifier, TokenService},
    catalog::Catalog,
    config::Config,
    http::cursor::CursorSigner,
    mail::Mailer,
    providers::{
        sandbox::{KycPageKey, PaymentPageKey},
        FulfillmentProviders, PaymentProvider,
    },
    store::Store,
};

#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub store: Arc<dyn Store>,
    /// Per-node catalog caches: call `catalog.changed()` after a catalog write and
    /// `catalog.capacity_changed()` after places are taken or given back.
    pub catalog: Arc<Catalog>,
    /// Per-node cache of what public bearers may do: call `auth.revoked()` after a change
    /// that takes a right away (`auth::cache`).
    pub auth: Arc<crate::auth::cache::AuthCache>,
    /// Per-node copies of a customer's orders and ledger entries as the API writes them
    /// (`checkout::customer_copies`).
    pub customer_copies: Arc<crate::checkout::customer_copies::CustomerCopies>,
    pub cursors: CursorSigner,
    pub tokens: TokenService,
    pub identity: Arc<IdentityVerifier>,
    pub mailer: Mailer,
    pub payments: Arc<dyn PaymentProvider>,
    /// The key of the sandbox payment page's URLs; `None` when the sandbox provider is off.
    pub sandbox_pay: Option<PaymentPageKey>,
    /// The key of the sandbox KYC page's URLs; `None` when the sandbox provider is off.
    pub sandbox_kyc: Option<KycPageKey>,
    /// The key of the ticket pages' URLs (`/tickets/{order_id}?key=…`).
    pub ticket_pages: crate::tickets::TicketPageKey,
    /// The operator's Google Wallet issuer, when configured.
    pub google_wallet: Option<crate::tickets::google_wallet::GoogleWallet>,
    /// The operator's Apple Wallet pass signing, when configured.
    pub apple_wallet: Option<crate::tickets::apple_wallet::AppleWallet>,
    /// Fulfilment providers by the name products carry.
    pub fulfillment: Arc<FulfillmentProviders>,
    pub metrics: PrometheusHandle,
    pub leptos: LeptosOptions,
}

impl AppState {
    /// The node's catalog copies with the store behind them, as the catalog's reads take them.
    pub fn reads(&self) -> (&Catalog, &dyn Store) {
        (&self.catalog, self.store.as_ref())
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}
