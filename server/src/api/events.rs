//! `GET /v2/events`: the partner's events, oldest first, for partners that poll instead of
//! (or besides) receiving webhooks.

use app::wire::{Envelope, Feed, Meta, Pagination};
use axum::{extract::State, Json};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    auth::BackendClient,
    error::{Error, Result},
    events::CloudEvent,
    http::{
        cursor::{PageParams, Scope},
        envelope,
        extract::ApiQuery,
        openapi::{Problem400, Problem401},
    },
    state::AppState,
    store::{EventRecord, FeedPosition},
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_events))
}

/// The query of the feed: a page's continuation (`next_token`) or a poll's resumption
/// (`resume_token`), one or neither.
#[derive(Debug, Clone, Default, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct FeedParams {
    /// Events per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// `meta.pagination.next_token` of the previous page: more events that exist now.
    next_token: Option<String>,
    /// `meta.feed.resume_token` of an earlier page: where to resume polling later.
    resume_token: Option<String>,
}

/// Events of the checkouts the partner's sessions or requests created, as CloudEvents, oldest
/// first. Like every collection, a page has `meta.pagination.next_token` only when more
/// events exist now, so a pager stops at the end. Every page also has
/// `meta.feed.resume_token`: polled later with it, the feed goes on exactly after the page's
/// last event, and no event that commits later is ever placed before a token already handed
/// out (docs/api-checkout.md, "Events").
#[utoipa::path(get, path = "/v2/events", tag = "events", security(("backend_bearer" = [])),
    params(FeedParams),
    responses((status = 200, body = inline(Envelope<Vec<CloudEvent>>)),
              Problem400, Problem401))]
async fn list_events(
    client: BackendClient,
    State(state): State<AppState>,
    ApiQuery(params): ApiQuery<FeedParams>,
) -> Result<Json<Envelope<Vec<CloudEvent>>>> {
    let client_id = client.client_id;
    let limit = PageParams {
        limit: params.limit,
        next_token: None,
    }
    .limit()?;
    let filters = format!("client_id={client_id}");
    let scope = Scope {
        endpoint: "v2/events",
        filters: &filters,
        limit,
    };
    // Both tokens are positions in the feed, made alike (so a token from before the two were
    // told apart still works as either).
    let token = match (params.next_token, params.resume_token) {
        (Some(_), Some(_)) => {
            return Err(Error::invalid_field(
                "resume_token",
                "conflict",
                "send next_token or resume_token, not both",
            ))
        }
        (next, resume) => next.or(resume),
    };
    let after: FeedPosition = match token.as_deref() {
        Some(token) => state.cursors.decode(&scope, token)?,
        None => FeedPosition::START,
    };
    // One more than a page, to know whether another page exists now.
    let mut events = state
        .store
        .events_for_client(&client_id, after, limit + 1)
        .await?;
    let more = events.len() > limit as usize;
    events.truncate(limit as usize);
    let resume_at = events.last().map_or(after, EventRecord::position);
    let resume_token = state.cursors.encode(&scope, &resume_at);
    let source = state.config.base_url();
    let items: Vec<CloudEvent> = events
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
        .collect();
    let meta = Meta {
        item_count: Some(items.len() as u64),
        pagination: Some(Pagination {
            limit,
            next_token: more.then(|| resume_token.clone()),
        }),
        feed: Some(Feed { resume_token }),
        ..envelope::meta()
    };
    Ok(Json(Envelope { data: items, meta }))
}
