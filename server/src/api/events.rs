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
        cursor::{paginate, PageParams},
        envelope::Page,
        extract::ApiQuery,
        openapi::{Problem400, Problem401},
    },
    state::AppState,
    store::EventRecord,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_events))
}

/// Events of the partner's own sessions and of guests in its campaigns, as CloudEvents,
/// oldest first. Keep the last `next_token` only for the traversal: a new poll starts over
/// or walks on from the last page's token.
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
    let page = paginate(
        &state.cursors,
        &params,
        "v2/events",
        &format!("client_id={client_id}"),
        |e: &EventRecord| e.event_seq,
        |after, limit| state.store.events_for_client(&client_id, after, limit),
    )
    .await?;
    let source = state.config.base_url();
    Ok(Page {
        items: page
            .items
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
        limit: page.limit,
        next_token: page.next_token,
    })
}
