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
        openapi::{Problem400, Problem404, Problem409},
    },
    state::AppState,
    store::{AvailabilityGroup, AvailabilityGroupInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_group, list_groups))
        .routes(routes!(get_group, update_group))
}

fn validate(input: &AvailabilityGroupInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    checks.finish()
}

/// Filters of the availability group list.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct GroupListParams {
    /// Only the groups of this merchant.
    merchant_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    next_token: Option<String>,
}

/// Creates an availability group: capacity shared by products of one merchant.
#[utoipa::path(post, path = "/admin/v1/availability-groups",
    request_body = AvailabilityGroupInput,
    responses((status = 201, body = inline(app::wire::Envelope<AvailabilityGroup>)),
              Problem400))]
async fn create_group(
    Admin(state): Admin,
    ApiJson(input): ApiJson<AvailabilityGroupInput>,
) -> Result<Data<AvailabilityGroup>> {
    validate(&input)?;
    let group = state
        .store
        .create_availability_group(crate::ids::random_id(), &input)
        .await?;
    state.commerce.catalog.changed();
    Ok(Data::created(group))
}

/// Reads an availability group.
#[utoipa::path(get, path = "/admin/v1/availability-groups/{availability_group_id}",
    params(("availability_group_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<AvailabilityGroup>)),
              Problem404))]
async fn get_group(
    Admin(state): Admin,
    ApiPath(group_id): ApiPath<Uuid>,
) -> Result<Data<AvailabilityGroup>> {
    found(
        state.store.availability_group(group_id).await?,
        "The availability group",
    )
}

/// Replaces an availability group's writable fields. Moving it to another merchant is a
/// conflict while products use it.
#[utoipa::path(put, path = "/admin/v1/availability-groups/{availability_group_id}",
    params(("availability_group_id" = Uuid, Path)), request_body = AvailabilityGroupInput,
    responses((status = 200, body = inline(app::wire::Envelope<AvailabilityGroup>)),
              Problem400, Problem404, Problem409))]
async fn update_group(
    Admin(state): Admin,
    ApiPath(group_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<AvailabilityGroupInput>,
) -> Result<Data<AvailabilityGroup>> {
    validate(&input)?;
    let group = state
        .store
        .update_availability_group(group_id, &input)
        .await?;
    state.commerce.catalog.changed();
    found(group, "The availability group")
}

/// Lists availability groups in id order, paged by cursor; optionally of one merchant.
#[utoipa::path(get, path = "/admin/v1/availability-groups",
    params(GroupListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<AvailabilityGroup>>)),
              Problem400))]
async fn list_groups(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<GroupListParams>,
) -> Result<Page<AvailabilityGroup>> {
    let filters = id_filter("merchant_id", params.merchant_id);
    let page = PageParams {
        limit: params.limit,
        next_token: params.next_token,
    };
    paginate(
        &state.cursors,
        &page,
        "admin/availability-groups",
        &filters,
        |g: &AvailabilityGroup| g.availability_group_id,
        |after, limit| {
            state
                .store
                .list_availability_groups(params.merchant_id, after, limit)
        },
    )
    .await
}
