use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    crud::{found, id_filter},
    Admin,
};
use crate::{
    error::Result,
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    state::AppState,
    store::{Merchant, MerchantInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_merchant, list_merchants))
        .routes(routes!(get_merchant, update_merchant))
}

fn validate(input: &MerchantInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    checks.text("description", &input.description, 0, 5000);
    checks.text("category", &input.category, 1, 100);
    checks.text("address.street", &input.address.street, 1, 200);
    checks.text("address.postal_code", &input.address.postal_code, 1, 20);
    checks.text("address.city", &input.address.city, 1, 100);
    checks.country("address.country", &input.address.country);
    checks.in_range("location.latitude", input.location.latitude, -90.0, 90.0);
    checks.in_range(
        "location.longitude",
        input.location.longitude,
        -180.0,
        180.0,
    );
    checks.timezone("timezone", &input.timezone);
    checks.currency("currency", &input.currency);
    if let Some(url) = &input.image_url {
        checks.http_url("image_url", url);
    }
    if let Some(url) = &input.website {
        checks.http_url("website", url);
    }
    for (i, t) in input.translations.iter().enumerate() {
        checks.text(&format!("translations[{i}].name"), &t.name, 1, 200);
        checks.text(
            &format!("translations[{i}].description"),
            &t.description,
            0,
            5000,
        );
    }
    checks.distinct(input.translations.iter().map(|t| t.locale), |i| {
        format!("translations[{i}].locale")
    });
    check_settlement(input, &mut checks);
    checks.finish()
}

/// The merchant's VAT, seller identity and platform fee (docs/settlement.md).
fn check_settlement(input: &MerchantInput, checks: &mut Checks) {
    use crate::settlement::terms;
    if let Some(tax) = &input.tax {
        terms::check_tax(checks, tax);
    }
    if let Some(name) = &input.legal_name {
        checks.text("legal_name", name, 1, 200);
    }
    if let Some(vat_id) = &input.vat_id {
        terms::check_vat_id(checks, "vat_id", vat_id);
    }
    if let Some(address) = &input.legal_address {
        checks.text("legal_address.street", &address.street, 1, 200);
        checks.text("legal_address.postal_code", &address.postal_code, 1, 20);
        checks.text("legal_address.city", &address.city, 1, 100);
        checks.country("legal_address.country", &address.country);
    }
    if let Some(fee) = &input.platform_fee {
        terms::check_charge(checks, "platform_fee", fee, Some(&input.currency));
    }
}

/// Filters of the merchant list.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MerchantListParams {
    /// Only merchants with a product in this campaign.
    campaign_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    next_token: Option<String>,
}

/// Creates a merchant with its translations.
#[utoipa::path(post, path = "/admin/v1/merchants",
    request_body = MerchantInput,
    responses((status = 201, body = inline(app::wire::Envelope<Merchant>)),
              Problem400))]
async fn create_merchant(
    Admin(state): Admin,
    ApiJson(input): ApiJson<MerchantInput>,
) -> Result<Data<Merchant>> {
    validate(&input)?;
    let merchant = state
        .store
        .create_merchant(crate::ids::random_id(), &input)
        .await?;
    state.commerce.catalog.changed();
    Ok(Data::created(merchant))
}

/// A merchant as the operator reads it: the catalog record and its account at the payment
/// provider.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct MerchantRead {
    #[serde(flatten)]
    merchant: Merchant,
    /// The merchant's account at the configured payment provider (its latest), `null` when
    /// it has none: its payments then go to the platform's own account.
    payment_account: Option<PaymentAccount>,
}

/// A merchant's account at the payment provider.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
struct PaymentAccount {
    merchant_account_id: Uuid,
    /// `sandbox` or `stripe`.
    provider: String,
    status: app::wire::MerchantAccountStatus,
    /// Whether the provider lets the account take charges (Stripe's `charges_enabled`, from
    /// its `account.updated` events); while it is false, checkouts of the merchant are refused
    /// with `checkout-merchant-not-payable`.
    charges_enabled: bool,
}

/// Reads a merchant with all its translations and its payment account.
#[utoipa::path(get, path = "/admin/v1/merchants/{merchant_id}",
    params(("merchant_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<MerchantRead>)),
              Problem404))]
async fn get_merchant(
    Admin(state): Admin,
    ApiPath(merchant_id): ApiPath<Uuid>,
) -> Result<Data<MerchantRead>> {
    let merchant = state.store.merchant(merchant_id).await?;
    let account = match &merchant {
        Some(_) => {
            state
                .store
                .merchant_payment_account(merchant_id, state.commerce.payments.name())
                .await?
        }
        None => None,
    };
    found(
        merchant.map(|merchant| MerchantRead {
            merchant,
            payment_account: account.map(|a| PaymentAccount {
                merchant_account_id: a.merchant_account_id,
                provider: a.provider,
                status: a.status,
                charges_enabled: a.charges_enabled,
            }),
        }),
        "The merchant",
    )
}

/// Replaces a merchant's writable fields and its translations.
#[utoipa::path(put, path = "/admin/v1/merchants/{merchant_id}",
    params(("merchant_id" = Uuid, Path)), request_body = MerchantInput,
    responses((status = 200, body = inline(app::wire::Envelope<Merchant>)),
              Problem400, Problem404))]
async fn update_merchant(
    Admin(state): Admin,
    ApiPath(merchant_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<MerchantInput>,
) -> Result<Data<Merchant>> {
    validate(&input)?;
    let merchant = state.store.update_merchant(merchant_id, &input).await?;
    state.commerce.catalog.changed();
    found(merchant, "The merchant")
}

/// Lists merchants in id order, paged by cursor; optionally those in one campaign.
#[utoipa::path(get, path = "/admin/v1/merchants",
    params(MerchantListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Merchant>>)),
              Problem400))]
async fn list_merchants(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<MerchantListParams>,
) -> Result<Page<Merchant>> {
    let filters = id_filter("campaign_id", params.campaign_id);
    let page = PageParams {
        limit: params.limit,
        next_token: params.next_token,
    };
    paginate(
        &state.cursors,
        &page,
        "admin/merchants",
        &filters,
        |m: &Merchant| m.merchant_id,
        |after, limit| state.store.list_merchants(params.campaign_id, after, limit),
    )
    .await
}
