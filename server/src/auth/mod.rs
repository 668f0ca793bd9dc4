//! Credentials: our own bearer tokens and the extractors that demand them.

pub mod authn;
mod bearer;
pub mod cache;
pub mod codes;
pub mod extract;
pub mod identity;
pub mod jwks;
pub mod tokens;

pub use authn::{Authn, HasAuthn};
pub use bearer::bearer_token;
pub use extract::{BackendClient, GateUser, MaybePublicUser, MerchantUser, PublicUser};
pub use tokens::{Audience, TokenRejection, TokenService};
