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

/// What every handler shares, behind one `Arc`: axum hands each extractor its own copy of the
/// state, and a copy is then one count taken on one shared cell, where a struct of these
/// fields was some twenty, each a cache line the two cores passed to and fro (a few per cent
/// of a cached read's time in `perf`, docs/benchmarks.md).
#[derive(Clone)]
pub struct AppState(Arc<Shared>);

impl AppState {
    pub fn new(shared: Shared) -> Self {
        Self(Arc::new(shared))
    }
}

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// For changing the state before it is shared (a test swapping a provider before the node
/// serves); once a copy is out, a change would reach only one holder, so it panics.
impl std::ops::DerefMut for AppState {
    fn deref_mut(&mut self) -> &mut Shared {
        Arc::get_mut(&mut self.0).expect("the state is changed only before it is shared")
    }
}

/// The fields of [`AppState`].
pub struct Shared {
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
