use serde::{Deserialize, Serialize};

/// The success envelope every JSON response of the API uses: `{ "data": …, "meta": { … } }`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Envelope<T> {
    pub data: T,
    pub meta: Meta,
}

/// Response metadata; `item_count` and `pagination` appear only on paged collections.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Meta {
    /// Quote this when reporting a problem; it equals the `X-Correlation-Id` header.
    pub correlation_id: String,
    /// Server-side only, as `feed`: the frame pages by `pagination` alone.
    #[cfg(feature = "ssr")]
    pub item_count: Option<u64>,
    pub pagination: Option<Pagination>,
    /// On the event feed only: where to resume polling.
    #[cfg(feature = "ssr")]
    pub feed: Option<Feed>,
}

/// Where a poller of the event feed resumes (`GET /v2/events`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Feed {
    /// Send as `resume_token` on a later poll: the feed goes on exactly after this page's last
    /// event (an empty page's is the position it was asked from). Present on every page.
    pub resume_token: String,
}

/// Cursor pagination: the absence of `next_token` is the only end-of-collection signal.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Pagination {
    pub limit: u32,
    pub next_token: Option<String>,
}
