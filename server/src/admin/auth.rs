use axum::{extract::FromRequestParts, http::request::Parts};
use secrecy::ExposeSecret;
use subtle::ConstantTimeEq;

use crate::{
    auth::bearer_token,
    error::{Error, ProblemType},
    state::AppState,
};

/// Proof that the request carries the operator token, with the state the operator's handler
/// works on. With no token configured the operator API does not exist, so it answers 404 as
/// for any unknown route.
pub struct Admin(pub AppState);

impl FromRequestParts<AppState> for Admin {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Error> {
        let Some(expected) = &state.config.admin_token else {
            return Err(Error::new(
                ProblemType::NotFound,
                "The operator API is disabled on this server.",
            ));
        };
        let given = bearer_token(&parts.headers).ok_or_else(|| {
            Error::new(
                ProblemType::TokenInvalid,
                "Send the operator token as a Bearer token.",
            )
        })?;
        if bool::from(given.as_bytes().ct_eq(expected.expose_secret().as_bytes())) {
            Ok(Admin(state.clone()))
        } else {
            Err(Error::new(
                ProblemType::TokenInvalid,
                "The operator token is not valid.",
            ))
        }
    }
}
