use axum::http::StatusCode;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    crud::{deleted, found},
    Admin,
};
use crate::{
    error::{Error, Result},
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    state::AppState,
    store::{normalize_voucher_code, Voucher, VoucherInput, VoucherKind, VoucherUpdate},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_voucher, list_vouchers))
        .routes(routes!(get_voucher, update_voucher, delete_voucher))
}

/// The query of the voucher list: an optional campaign filter and the page parameters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct VoucherListParams {
    /// Only this campaign's vouchers. Send the same value on every page.
    pub campaign_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    pub next_token: Option<String>,
}

fn normalize_and_validate(input: &mut VoucherInput) -> Result<()> {
    input.code = normalize_voucher_code(&input.code);
    let mut checks = Checks::default();
    checks.identifier("code", &input.code, 1, 64);
    match input.kind {
        VoucherKind::Percentage => checks.percentage("value", input.value),
        VoucherKind::Amount => checks.positive_amount("value", input.value),
    }
    if let Some(max) = input.max_redemptions {
        checks.check(
            max > 0,
            "max_redemptions",
            "out_of_range",
            "max_redemptions must be at least 1 (leave it out for no limit)",
        );
    }
    if let (Some(from), Some(until)) = (input.valid_from, input.valid_until) {
        checks.check(
            from < until,
            "valid_until",
            "before_valid_from",
            "valid_until must be later than valid_from",
        );
    }
    checks.finish()
}

/// Creates a voucher. The code is trimmed and upper-cased, and unique within its campaign.
#[utoipa::path(post, path = "/admin/v1/vouchers",
    request_body = VoucherInput,
    responses((status = 201, body = inline(app::wire::Envelope<Voucher>)),
              Problem400,
              (status = 409, description = "The code is taken in this campaign", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn create_voucher(
    Admin(state): Admin,
    ApiJson(mut input): ApiJson<VoucherInput>,
) -> Result<Data<Voucher>> {
    normalize_and_validate(&mut input)?;
    let voucher = state
        .store
        .create_voucher(crate::ids::random_id(), &input)
        .await?;
    Ok(Data::created(voucher))
}

/// Reads a voucher.
#[utoipa::path(get, path = "/admin/v1/vouchers/{voucher_id}",
    params(("voucher_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Voucher>)),
              Problem404))]
async fn get_voucher(
    Admin(state): Admin,
    ApiPath(voucher_id): ApiPath<Uuid>,
) -> Result<Data<Voucher>> {
    found(state.store.voucher(voucher_id).await?, "The voucher")
}

/// Replaces a voucher's writable fields; `redeemed` stays, and `max_redemptions` cannot go
/// below it.
#[utoipa::path(put, path = "/admin/v1/vouchers/{voucher_id}",
    params(("voucher_id" = Uuid, Path)), request_body = VoucherInput,
    responses((status = 200, body = inline(app::wire::Envelope<Voucher>)),
              Problem400, Problem404,
              (status = 409, description = "The code is taken in this campaign", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn update_voucher(
    Admin(state): Admin,
    ApiPath(voucher_id): ApiPath<Uuid>,
    ApiJson(mut input): ApiJson<VoucherInput>,
) -> Result<Data<Voucher>> {
    normalize_and_validate(&mut input)?;
    match state.store.update_voucher(voucher_id, &input).await? {
        VoucherUpdate::Updated(voucher) => Ok(Data::ok(voucher)),
        VoucherUpdate::NotFound => Err(Error::not_found("The voucher")),
        VoucherUpdate::BelowRedeemed(redeemed) => Err(Error::invalid_field(
            "max_redemptions",
            "below_redeemed",
            format!("max_redemptions must be at least {redeemed}, the redemptions already made"),
        )),
    }
}

/// Deletes a voucher that no checkout has used.
#[utoipa::path(delete, path = "/admin/v1/vouchers/{voucher_id}",
    params(("voucher_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"),
              Problem404,
              (status = 409, description = "The voucher has been used", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn delete_voucher(
    Admin(state): Admin,
    ApiPath(voucher_id): ApiPath<Uuid>,
) -> Result<StatusCode> {
    deleted(state.store.delete_voucher(voucher_id).await?, "The voucher")
}

/// Lists vouchers in id order, optionally of one campaign, paged by cursor.
#[utoipa::path(get, path = "/admin/v1/vouchers",
    params(VoucherListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Voucher>>)),
              Problem400))]
async fn list_vouchers(
    Admin(state): Admin,
    ApiQuery(query): ApiQuery<VoucherListParams>,
) -> Result<Page<Voucher>> {
    let filters = query
        .campaign_id
        .map(|id| format!("campaign_id={id}"))
        .unwrap_or_default();
    let page = PageParams {
        limit: query.limit,
        next_token: query.next_token,
    };
    paginate(
        &state.cursors,
        &page,
        "admin/vouchers",
        &filters,
        |v: &Voucher| v.voucher_id,
        |after, limit| state.store.list_vouchers(query.campaign_id, after, limit),
    )
    .await
}
