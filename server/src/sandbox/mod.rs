//! Pages of the built-in sandbox payment provider, served by this server so that payments and
//! KYC work end to end on one machine. A real provider hosts these itself.

mod kyc;
mod page;
pub mod pay;

use utoipa_axum::router::OpenApiRouter;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .merge(kyc::router())
        .merge(pay::router())
}
