use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::Result,
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiQuery},
        openapi::Problem400,
    },
    state::AppState,
    store::{Membership, MembershipInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(create_membership, list_memberships))
}

/// The query of the membership list: an optional customer filter and the page parameters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MembershipListParams {
    /// Only this customer's memberships. Send the same value on every page.
    pub customer_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    pub next_token: Option<String>,
}

/// Gives a customer a membership discount in a campaign.
#[utoipa::path(post, path = "/admin/v1/memberships",
    request_body = MembershipInput,
    responses((status = 201, body = inline(app::wire::Envelope<Membership>)),
              Problem400))]
async fn create_membership(
    Admin(state): Admin,
    ApiJson(mut input): ApiJson<MembershipInput>,
) -> Result<Data<Membership>> {
    input.name = input.name.trim().to_owned();
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    checks.percentage("discount_percentage", input.discount_percentage);
    checks.finish()?;
    let membership = state
        .store
        .create_membership(crate::ids::random_id(), &input)
        .await?;
    Ok(Data::created(membership))
}

/// Lists memberships in id order, optionally of one customer, paged by cursor.
#[utoipa::path(get, path = "/admin/v1/memberships",
    params(MembershipListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Membership>>)),
              Problem400))]
async fn list_memberships(
    Admin(state): Admin,
    ApiQuery(query): ApiQuery<MembershipListParams>,
) -> Result<Page<Membership>> {
    let filters = query
        .customer_id
        .map(|id| format!("customer_id={id}"))
        .unwrap_or_default();
    let page = PageParams {
        limit: query.limit,
        next_token: query.next_token,
    };
    paginate(
        &state.cursors,
        &page,
        "admin/memberships",
        &filters,
        |m: &Membership| m.membership_id,
        |after, limit| {
            state
                .store
                .list_memberships(query.customer_id, after, limit)
        },
    )
    .await
}
