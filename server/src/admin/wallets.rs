use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{crud::found, Admin};
use crate::{
    error::{Error, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath},
        openapi::{Problem400, Problem404},
    },
    state::AppState,
    store::{StoreError, Wallet, WalletInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_wallet, put_wallet))
}

/// Sets a customer's wallet balance in a campaign, creating the wallet when it has none.
#[utoipa::path(put, path = "/admin/v1/wallets/{customer_id}/{campaign_id}",
    params(("customer_id" = Uuid, Path), ("campaign_id" = Uuid, Path)), request_body = WalletInput,
    responses((status = 200, description = "Updated", body = inline(app::wire::Envelope<Wallet>)),
              (status = 201, description = "Created", body = inline(app::wire::Envelope<Wallet>)),
              Problem400,
              (status = 404, description = "No such customer or campaign", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn put_wallet(
    Admin(state): Admin,
    ApiPath((customer_id, campaign_id)): ApiPath<(Uuid, Uuid)>,
    ApiJson(input): ApiJson<WalletInput>,
) -> Result<Data<Wallet>> {
    let mut checks = Checks::default();
    checks.non_negative_amount("balance", input.balance);
    checks.currency("currency", &input.currency);
    checks.finish()?;
    match state
        .store
        .put_wallet(customer_id, campaign_id, &input)
        .await
    {
        Ok((wallet, true)) => Ok(Data::created(wallet)),
        Ok((wallet, false)) => Ok(Data::ok(wallet)),
        // The path names the wallet, so a missing owner is a missing resource, not bad input.
        Err(StoreError::MissingReference(field)) if field == "customer_id" => {
            Err(Error::not_found("The customer"))
        }
        Err(StoreError::MissingReference(field)) if field == "campaign_id" => {
            Err(Error::not_found("The campaign"))
        }
        Err(other) => Err(other.into()),
    }
}

/// Reads a customer's wallet in a campaign.
#[utoipa::path(get, path = "/admin/v1/wallets/{customer_id}/{campaign_id}",
    params(("customer_id" = Uuid, Path), ("campaign_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Wallet>)),
              Problem404))]
async fn get_wallet(
    Admin(state): Admin,
    ApiPath((customer_id, campaign_id)): ApiPath<(Uuid, Uuid)>,
) -> Result<Data<Wallet>> {
    found(
        state.store.wallet(customer_id, campaign_id).await?,
        "The wallet",
    )
}
