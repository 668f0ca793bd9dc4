//! `POST /admin/v1/keys/jwt/rotate`: a new key signs the bearers from now on; the key it
//! replaces keeps verifying, so no session ends (docs/security.md, "Keys").

use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::Admin;
use crate::{
    error::{Error, ProblemType, Result},
    http::{envelope::Data, openapi::Problem409},
    keys::rotate_jwt_key,
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(rotate))
}

/// The outcome of a rotation.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Rotated {
    /// The key that signs from now on.
    pub kid: String,
    /// The key it replaced, which still verifies and stays in the JWKS.
    pub retired_kid: Option<String>,
}

/// Rotates the bearer signing key. Both keys are in `/.well-known/jwks.json` from now on;
/// other nodes take the new key when they first see a bearer signed with it.
#[utoipa::path(post, path = "/admin/v1/keys/jwt/rotate",
    responses((status = 200, body = inline(app::wire::Envelope<Rotated>)),
              Problem409))]
async fn rotate(Admin(state): Admin) -> Result<Data<Rotated>> {
    if state.config.jwt_key_file.is_some() {
        return Err(Error::new(
            ProblemType::Conflict,
            "The signing key comes from BOXOFFICE_JWT_KEY_FILE; rotate it by deploying a new file.",
        ));
    }
    let (kid, retired_kid) = rotate_jwt_key(&state.authn).await?;
    Ok(Data::ok(Rotated { kid, retired_kid }))
}
