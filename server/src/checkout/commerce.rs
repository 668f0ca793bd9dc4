//! What the checkout and its orders work with, as the router's state hands it over: the
//! store, the catalog copies it reprices and invalidates, the providers, and the node's copies
//! of customers' orders. Each lives here once, so a test that swaps a provider before the node
//! serves swaps it for every checkout.

use std::sync::Arc;

use crate::{
    auth::cache::AuthCache,
    catalog::Catalog,
    config::Config,
    keyed::PurposeKey,
    providers::{stripe::StripePayments, FulfillmentProviders, PaymentProvider},
    store::Store,
};

use super::customer_copies::CustomerCopies;

#[derive(Clone)]
pub struct Commerce {
    pub config: Arc<Config>,
    pub store: Arc<dyn Store>,
    /// Per-node catalog caches: call `catalog.changed()` after a catalog write and
    /// `catalog.capacity_changed()` after places are taken or given back.
    pub catalog: Arc<Catalog>,
    /// Fulfilment providers by the name products carry.
    pub fulfillment: Arc<FulfillmentProviders>,
    pub payments: Arc<dyn PaymentProvider>,
    /// The same provider as `payments` when it is Stripe: its payment page, webhook and KYC
    /// pages need what only Stripe has (keys, Stripe.js).
    pub stripe: Option<Arc<StripePayments>>,
    /// What public bearers may do (`auth::cache`): a session's partner client must still be
    /// allowed a checkout's campaign on every operation on it (`read::visible`).
    pub auth: Arc<AuthCache>,
    /// Per-node copies of a customer's orders and ledger entries as the API writes them.
    pub customer_copies: Arc<CustomerCopies>,
    /// The key of a buyer's address as a checkout keeps it (`holds`).
    pub hold_addresses: PurposeKey,
    /// Signs the QR tokens of the tickets the customer's reads show (`gate::code`).
    pub ticket_tokens: crate::auth::TokenService,
}

impl Commerce {
    /// The node's catalog copies with the store behind them, as the catalog's reads take them.
    pub fn reads(&self) -> (&Catalog, &dyn Store) {
        (&self.catalog, self.store.as_ref())
    }
}
