//! `/admin/v1/mails`: the mails of the outbox, of every kind, and how their delivery went (a
//! permanent failure stays FAILED with its error, for the operator to act on), and the
//! operator's resend of an order's tickets, which also rotates the order's ticket page key
//! (docs/operator-api.md). No recipient is listed: the address is personal, and a ticket mail's
//! is the order's at the moment of sending.

use app::wire::{MailKind, MailStatus};
use axum::http::StatusCode;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::Admin;
use crate::{
    error::{Error, Result},
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiPath, ApiQuery},
        openapi::{Problem400, Problem404, Problem409},
    },
    state::AppState,
    store::{MailFilter, MailRecord},
    tickets::resend,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_mails))
        .routes(routes!(resend_tickets))
}

/// A mail of the outbox and its delivery.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Mail {
    pub mail_id: Uuid,
    pub kind: MailKind,
    /// The order a ticket mail is about.
    pub order_id: Option<Uuid>,
    /// The merchant account a magic link is for.
    pub merchant_account_id: Option<Uuid>,
    pub status: MailStatus,
    pub attempts: i32,
    /// When a PENDING mail is tried next.
    pub next_attempt_at: DateTime<Utc>,
    /// The last attempt's error.
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

impl From<MailRecord> for Mail {
    fn from(r: MailRecord) -> Self {
        Self {
            mail_id: r.mail_id,
            kind: r.kind,
            order_id: r.customer_order_id,
            merchant_account_id: r.merchant_account_id,
            status: r.status,
            attempts: r.attempts,
            next_attempt_at: r.next_attempt_at,
            last_error: r.last_error,
            created_at: r.created_at,
            sent_at: r.sent_at,
        }
    }
}

/// The query of the mail list: optional filters and the page parameters.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MailListParams {
    /// Only mails of this kind. Send the same value on every page.
    kind: Option<MailKind>,
    /// Only mails in this state. Send the same value on every page.
    status: Option<MailStatus>,
    /// Only this order's mails. Send the same value on every page.
    order_id: Option<Uuid>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    limit: Option<u32>,
    /// Cursor from the previous page's `meta.pagination.next_token`.
    next_token: Option<String>,
}

/// The outbox's mails of every kind, newest first, paged by cursor: `?status=FAILED` lists
/// those given up.
#[utoipa::path(get, path = "/admin/v1/mails", params(MailListParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Mail>>)), Problem400))]
async fn list_mails(
    Admin(state): Admin,
    ApiQuery(query): ApiQuery<MailListParams>,
) -> Result<Page<Mail>> {
    let filter = MailFilter {
        kind: query.kind,
        status: query.status,
        order_id: query.order_id,
    };
    let filters = format!(
        "kind={}&status={}&order_id={}",
        filter.kind.map(MailKind::as_str).unwrap_or_default(),
        filter.status.map(MailStatus::as_str).unwrap_or_default(),
        filter.order_id.map(|id| id.to_string()).unwrap_or_default()
    );
    let page = PageParams {
        limit: query.limit,
        next_token: query.next_token,
    };
    let page = paginate(
        &state.cursors,
        &page,
        "admin/mails",
        &filters,
        |m: &MailRecord| (m.created_at, m.mail_id),
        |after, limit| state.store.mails(filter, after, limit),
    )
    .await?;
    Ok(Page {
        items: page.items.into_iter().map(Mail::from).collect(),
        limit: page.limit,
        next_token: page.next_token,
    })
}

/// The queued mail of an operator's resend.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Resent {
    pub mail_id: Uuid,
}

/// Sends an order's ticket mail again with a new ticket page key: links sent before stop
/// working (use it when a link leaked).
#[utoipa::path(post, path = "/admin/v1/orders/{order_id}/resend-tickets",
    params(("order_id" = Uuid, Path)),
    responses((status = 202, body = inline(app::wire::Envelope<Resent>)), Problem404, Problem409))]
async fn resend_tickets(
    Admin(state): Admin,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<(StatusCode, Data<Resent>)> {
    let mail_id = resend::by_operator(&state.tickets, order_id)
        .await?
        .ok_or_else(|| Error::not_found("The order"))?;
    Ok((StatusCode::ACCEPTED, Data::ok(Resent { mail_id })))
}
