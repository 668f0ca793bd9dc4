//! Partner credentials (and gates', `gate_auth`): client authentication and backend bearers, sessions and their one-time
//! codes, the exchange of codes (by partners and by the hosted frame) and of retail partners'
//! identity tokens for public bearers. The HTTP handlers in `api/` and the frame's server
//! functions both call these, so every rule exists once.

pub mod client_auth;
pub mod gate_auth;
pub mod identity;
pub mod pkce;
pub mod sessions;

pub use app::wire::IssuedToken;
