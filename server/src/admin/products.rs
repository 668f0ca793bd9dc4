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
    store::{Product, ProductFilter, ProductInput, TICKET, VALIDITY_PERIOD},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_product, list_products))
        .routes(routes!(get_product, update_product))
}

fn is_code(value: &str, allowed: impl Fn(u8) -> bool) -> bool {
    !value.is_empty() && value.len() <= 50 && value.bytes().all(allowed)
}

fn validate(input: &ProductInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("title", &input.title, 1, 200);
    checks.check(
        is_code(&input.product_type, |b| b.is_ascii_uppercase() || b == b'_'),
        "product_type",
        "code",
        "product_type must be an upper-case code such as TICKET",
    );
    checks.text("sku", &input.sku, 1, 100);
    match &input.age_group {
        Some(_) if input.product_type != TICKET => checks.fail(
            "age_group",
            "not_allowed",
            "age_group is only allowed when product_type is TICKET",
        ),
        Some(age_group) => checks.text("age_group", age_group, 1, 50),
        None => {}
    }
    checks.non_negative_amount("unit_price", input.unit_price);
    checks.non_negative_amount("list_price", input.list_price);
    checks.non_negative_amount("booking_costs", input.booking_costs);
    checks.non_negative_amount("visit_guarantee_cost", input.visit_guarantee_cost);
    checks.text("conditions", &input.conditions, 0, 10_000);
    let validity_period = match input.ticket_validity_type.as_deref() {
        None => false,
        Some(VALIDITY_PERIOD) => true,
        Some(_) => {
            checks.fail(
                "ticket_validity_type",
                "invalid",
                "ticket_validity_type must be VALIDITY_PERIOD or null",
            );
            false
        }
    };
    match (validity_period, input.ticket_validity_date) {
        (true, None) => checks.fail(
            "ticket_validity_date",
            "required",
            "ticket_validity_date is required when ticket_validity_type is VALIDITY_PERIOD",
        ),
        (false, Some(_)) if input.ticket_validity_type.is_none() => checks.fail(
            "ticket_validity_date",
            "not_allowed",
            "ticket_validity_date is only allowed when ticket_validity_type is VALIDITY_PERIOD",
        ),
        _ => {}
    }
    checks.check(
        is_code(&input.provider, |b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_'
        }),
        "provider",
        "code",
        "provider must be a lower-case provider name such as inventory",
    );
    checks.distinct(input.campaign_ids.iter(), |i| format!("campaign_ids[{i}]"));
    for (i, t) in input.translations.iter().enumerate() {
        checks.text(&format!("translations[{i}].title"), &t.title, 1, 200);
        checks.text(
            &format!("translations[{i}].conditions"),
            &t.conditions,
            0,
            10_000,
        );
    }
    checks.distinct(input.translations.iter().map(|t| t.locale), |i| {
        format!("translations[{i}].locale")
    });
    crate::after_sale::checks::check(input, &mut checks);
    crate::catalog::questions::check(&mut checks, input.questions.as_deref().unwrap_or_default());
    if let Some(commission) = &input.commission {
        crate::settlement::terms::check_charge(&mut checks, "commission", commission, None);
    }
    checks.finish()
}

/// Filters of the product list.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ProductListParams {
    /// Only the products of this merchant.
    merchant_id: Option<Uuid>,
    /// Only the products in this campaign.
    campaign_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    next_token: Option<String>,
}

/// Creates a product, with its translations, campaign membership and (when no
/// availability_group_id is given) a dedicated availability group.
#[utoipa::path(post, path = "/admin/v1/products",
    request_body = ProductInput,
    responses((status = 201, body = inline(app::wire::Envelope<Product>)),
              Problem400))]
async fn create_product(
    Admin(state): Admin,
    ApiJson(input): ApiJson<ProductInput>,
) -> Result<Data<Product>> {
    validate(&input)?;
    let product = state
        .store
        .create_product(crate::ids::random_id(), &input)
        .await?;
    state.commerce.catalog.changed();
    Ok(Data::created(product))
}

/// Reads a product with its translations and campaign membership.
#[utoipa::path(get, path = "/admin/v1/products/{product_id}",
    params(("product_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Product>)),
              Problem404))]
async fn get_product(
    Admin(state): Admin,
    ApiPath(product_id): ApiPath<Uuid>,
) -> Result<Data<Product>> {
    found(state.store.product(product_id).await?, "The product")
}

/// Replaces a product's writable fields, translations and campaign membership.
#[utoipa::path(put, path = "/admin/v1/products/{product_id}",
    params(("product_id" = Uuid, Path)), request_body = ProductInput,
    responses((status = 200, body = inline(app::wire::Envelope<Product>)),
              Problem400, Problem404))]
async fn update_product(
    Admin(state): Admin,
    ApiPath(product_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<ProductInput>,
) -> Result<Data<Product>> {
    validate(&input)?;
    let product = state.store.update_product(product_id, &input).await?;
    state.commerce.catalog.changed();
    found(product, "The product")
}

/// Lists products in id order, paged by cursor; optionally of one merchant or campaign.
#[utoipa::path(get, path = "/admin/v1/products",
    params(ProductListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Product>>)),
              Problem400))]
async fn list_products(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<ProductListParams>,
) -> Result<Page<Product>> {
    let filter = ProductFilter {
        merchant_id: params.merchant_id,
        campaign_id: params.campaign_id,
    };
    let filters = format!(
        "{}&{}",
        id_filter("merchant_id", filter.merchant_id),
        id_filter("campaign_id", filter.campaign_id)
    );
    let page = PageParams {
        limit: params.limit,
        next_token: params.next_token,
    };
    paginate(
        &state.cursors,
        &page,
        "admin/products",
        &filters,
        |p: &Product| p.product_id,
        |after, limit| state.store.list_products(filter, after, limit),
    )
    .await
}
