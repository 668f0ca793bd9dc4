//! `GET /v2/events`: the partner's events, oldest first, for partners that poll instead of
//! (or besides) receiving webhooks.

use app::wire::Envelope;
use axum::extract::State;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    auth::BackendClient,
    error::Result,
    events::CloudEvent,
    http::{
        cursor::{PageParams, Scope},
        envelope::Page,
        extract::ApiQuery,
        openapi::{Problem400, Problem401},
    },
    state::AppState,
    store::{EventRecord, FeedPosition},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_events))
}

/// Events of the checkouts the partner's sessions or requests created, as CloudEvents, oldest
/// first. The feed has no end: every page, the last and an empty one too, carries a
/// `next_token` to resume exactly after its last event, and no event that commits later is
/// ever placed before a token already handed out (docs/api-checkout.md, "Events").
#[utoipa::path(get, path = "/v2/events", tag = "events", security(("backend_bearer" = [])),
    params(PageParams),
    responses((status = 200, body = inline(Envelope<Vec<CloudEvent>>)),
              Problem400, Problem401))]
async fn list_events(
    client: BackendClient,
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Page<CloudEvent>> {
    let client_id = client.client_id;
    let limit = params.limit()?;
    let filters = format!("client_id={client_id}");
    let scope = Scope {
        endpoint: "v2/events",
        filters: &filters,
        limit,
    };
    let after: FeedPosition = match params.next_token.as_deref() {
        Some(token) => state.cursors.decode(&scope, token)?,
        None => FeedPosition::START,
    };
    let events = state
        .store
        .events_for_client(&client_id, after, limit)
        .await?;
    let resume_at = events.last().map_or(after, EventRecord::position);
    let source = state.config.base_url();
    Ok(Page {
        items: events
            .into_iter()
            .map(|e| {
                CloudEvent::new(
                    e.event_id,
                    &source,
                    &e.event_type,
                    e.occurred_at,
                    &e.subject,
                    e.data.0,
                )
            })
            .collect(),
        limit,
        next_token: Some(state.cursors.encode(&scope, &resume_at)),
    })
}
