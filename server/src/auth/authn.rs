//! What checking and issuing credentials works with, as the router's state hands it over: our
//! token service, the per-node cache of what public bearers may do, the retail identity
//! verifier, and the store and settings behind them.

use std::sync::Arc;

use super::{cache::AuthCache, identity::IdentityVerifier, TokenService};
use crate::{config::Config, store::Store};

#[derive(Clone)]
pub struct Authn {
    pub config: Arc<Config>,
    pub store: Arc<dyn Store>,
    pub tokens: TokenService,
    /// Per-node cache of what public bearers may do: call `auth.revoked()` after a change
    /// that takes a right away (`auth::cache`).
    pub auth: Arc<AuthCache>,
    pub identity: Arc<IdentityVerifier>,
}

/// A state the bearer extractors can read [`Authn`] from. They borrow it where axum's
/// `FromRef` would clone it on every request.
pub trait HasAuthn: Send + Sync {
    fn authn(&self) -> &Authn;
}
