//! Sending the ticket mail again. The customer may ask three times per order an hour (the
//! payment's own mail and refused requests do not count); the count is in the database, so it
//! holds across nodes. An operator's resend has no limit and rotates the ticket page's key:
//! it is how a leaked link is ended, and the new mail carries the new link.

use app::wire::MailKind;
use chrono::{Duration, Utc};
use uuid::Uuid;

use super::{TicketPageKey, Tickets};
use crate::{
    error::{Error, ProblemType, Result},
    store::{OrderRecord, ResendLimit, ResendOutcome},
};

/// Resends a customer may ask for per order within [`WINDOW`].
pub const CUSTOMER_RESENDS: i64 = 3;
pub const WINDOW: Duration = Duration::hours(1);

/// What a customer's request to resend came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resend {
    Queued,
    /// Over the limit; the next request may come in this many seconds.
    Limited {
        retry_after_secs: u64,
    },
}

fn require_paid(order: &OrderRecord) -> Result<()> {
    if order.status.is_paid() {
        return Ok(());
    }
    Err(Error::new(
        ProblemType::Conflict,
        format!(
            "Order {} is {}; only a paid order has tickets to send.",
            order.customer_order_id, order.status
        ),
    ))
}

/// Queues one more ticket mail of the customer's `order`, within the limit.
pub async fn by_customer(state: &Tickets, order: &OrderRecord) -> Result<Resend> {
    require_paid(order)?;
    let now = Utc::now();
    let limit = ResendLimit {
        count: CUSTOMER_RESENDS,
        since: now - WINDOW,
        window: WINDOW,
    };
    match state
        .store
        .queue_ticket_mail(
            order.customer_order_id,
            MailKind::TicketsResend,
            Some(limit),
            None,
        )
        .await?
    {
        ResendOutcome::Queued(_) => Ok(Resend::Queued),
        ResendOutcome::Limited { until } => Ok(Resend::Limited {
            retry_after_secs: u64::try_from((until - now).num_seconds()).unwrap_or(0) + 1,
        }),
    }
}

/// Queues one more ticket mail of `order_id` for an operator, with a new ticket page key.
/// `None` when there is no such order.
pub async fn by_operator(state: &Tickets, order_id: Uuid) -> Result<Option<Uuid>> {
    let Some(order) = state.store.order(order_id).await? else {
        return Ok(None);
    };
    require_paid(&order)?;
    let nonce = TicketPageKey::new_nonce();
    match state
        .store
        .queue_ticket_mail(order_id, MailKind::TicketsOperator, None, Some(&nonce))
        .await?
    {
        ResendOutcome::Queued(id) => Ok(Some(id)),
        ResendOutcome::Limited { .. } => {
            Err(anyhow::anyhow!("an operator's resend has no limit").into())
        }
    }
}
