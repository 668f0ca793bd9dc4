//! The state every handler and server function shares.

use std::sync::Arc;

use axum::extract::FromRef;
use leptos::config::LeptosOptions;
use metrics_exporter_prometheus::PrometheusHandle;

use crate::{
    auth::{Authn, HasAuthn},
    catalog::{Catalog, CatalogReads},
    checkout::Commerce,
    config::Config,
    http::cursor::CursorSigner,
    mail::outbox::Outbox,
    providers::sandbox::{KycPageKey, PaymentPageKey},
    store::Store,
    tickets::Tickets,
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

/// The fields of [`AppState`]: what the router's handlers reach, grouped by what works with
/// it. A module takes its group (`Commerce`, `Authn`, `Tickets`), never the whole state.
pub struct Shared {
    pub config: Arc<Config>,
    pub store: Arc<dyn Store>,
    pub cursors: CursorSigner,
    /// Credentials: tokens, the bearer cache, the identity verifier.
    pub authn: Authn,
    /// The checkout and its orders: catalog copies, providers, customer copies.
    pub commerce: Commerce,
    /// What a customer receives of a paid order: the ticket page's key, wallet signers.
    pub tickets: Tickets,
    /// Every mail to send, and the worker's SMTP mailer.
    pub outbox: Outbox,
    /// The key of the sandbox payment page's URLs; `None` when the sandbox provider is off.
    pub sandbox_pay: Option<PaymentPageKey>,
    /// The key of the sandbox KYC page's URLs; `None` when the sandbox provider is off.
    pub sandbox_kyc: Option<KycPageKey>,
    pub metrics: PrometheusHandle,
    pub leptos: LeptosOptions,
}

impl AppState {
    /// The node's catalog copies with the store behind them, as the catalog's reads take them.
    pub fn reads(&self) -> (&Catalog, &dyn Store) {
        self.commerce.reads()
    }
}

impl AppState {
    /// What merchant onboarding works with, for one call.
    pub fn onboarding(&self) -> crate::onboarding::Onboarding<'_> {
        crate::onboarding::Onboarding {
            config: &self.config,
            store: self.store.as_ref(),
            tokens: &self.authn.tokens,
            payments: self.commerce.payments.as_ref(),
            outbox: &self.outbox,
        }
    }
}

impl AppState {
    /// What the gate works with, for one call.
    pub fn gates(&self) -> crate::gate::Gates<'_> {
        crate::gate::Gates {
            store: self.store.as_ref(),
            authn: &self.authn,
        }
    }
}

impl HasAuthn for AppState {
    fn authn(&self) -> &Authn {
        &self.authn
    }
}

impl CatalogReads for AppState {
    fn reads(&self) -> (&Catalog, &dyn Store) {
        self.commerce.reads()
    }
}

impl FromRef<AppState> for LeptosOptions {
    fn from_ref(state: &AppState) -> Self {
        state.leptos.clone()
    }
}

impl FromRef<AppState> for Tickets {
    fn from_ref(state: &AppState) -> Self {
        state.tickets.clone()
    }
}
