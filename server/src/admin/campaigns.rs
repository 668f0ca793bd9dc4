use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{crud::found, Admin};
use crate::{
    error::Result,
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    state::AppState,
    store::{Campaign, CampaignInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_campaign, list_campaigns))
        .routes(routes!(get_campaign, update_campaign))
}

fn validate(input: &CampaignInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    checks.non_negative_amount("loyalty_points_per_unit", input.loyalty_points_per_unit);
    if let Some(commission) = &input.commission {
        crate::settlement::terms::check_charge(&mut checks, "commission", commission, None);
    }
    checks.finish()
}

/// Creates a campaign.
#[utoipa::path(post, path = "/admin/v1/campaigns",
    request_body = CampaignInput,
    responses((status = 201, body = inline(app::wire::Envelope<Campaign>)),
              Problem400))]
async fn create_campaign(
    Admin(state): Admin,
    ApiJson(input): ApiJson<CampaignInput>,
) -> Result<Data<Campaign>> {
    validate(&input)?;
    let campaign = state
        .store
        .create_campaign(crate::ids::random_id(), &input)
        .await?;
    Ok(Data::created(campaign))
}

/// Reads a campaign.
#[utoipa::path(get, path = "/admin/v1/campaigns/{campaign_id}",
    params(("campaign_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Campaign>)),
              Problem404))]
async fn get_campaign(
    Admin(state): Admin,
    ApiPath(campaign_id): ApiPath<Uuid>,
) -> Result<Data<Campaign>> {
    found(state.store.campaign(campaign_id).await?, "The campaign")
}

/// Replaces a campaign's writable fields.
#[utoipa::path(put, path = "/admin/v1/campaigns/{campaign_id}",
    params(("campaign_id" = Uuid, Path)), request_body = CampaignInput,
    responses((status = 200, body = inline(app::wire::Envelope<Campaign>)),
              Problem404))]
async fn update_campaign(
    Admin(state): Admin,
    ApiPath(campaign_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<CampaignInput>,
) -> Result<Data<Campaign>> {
    validate(&input)?;
    let campaign = state.store.update_campaign(campaign_id, &input).await?;
    state.commerce.catalog.changed();
    found(campaign, "The campaign")
}

/// Lists campaigns in id order, paged by cursor.
#[utoipa::path(get, path = "/admin/v1/campaigns",
    params(PageParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Campaign>>)),
              Problem400))]
async fn list_campaigns(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Page<Campaign>> {
    paginate(
        &state.cursors,
        &params,
        "admin/campaigns",
        "",
        |c: &Campaign| c.campaign_id,
        |after, limit| state.store.list_campaigns(after, limit),
    )
    .await
}
