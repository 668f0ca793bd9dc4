//! Ticket mails written on request (a resend; the payment's is written by the checkout,
//! `TicketTx`) into the one outbox of mails (`store/mail.rs`), and the nonce behind each
//! order's ticket page key. The rules (when a mail is written, how often a customer may ask
//! again) live in `crate::tickets`.

use app::wire::MailKind;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// What a request for one more mail of an order came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResendOutcome {
    Queued(Uuid),
    /// The order had as many resends of `kind` in the window as allowed; the oldest of them
    /// leaves the window at this instant.
    Limited {
        until: DateTime<Utc>,
    },
}

/// The limit on resends of one kind per order: at most `count` created after `since`.
#[derive(Debug, Clone, Copy)]
pub struct ResendLimit {
    pub count: i64,
    pub since: DateTime<Utc>,
    pub window: chrono::Duration,
}

#[async_trait::async_trait]
pub trait TicketMailStore {
    /// Writes one more mail of `order_id` of `kind`, unless `limit` says the order had enough
    /// of that kind lately. The count and the write are one transaction that first locks the
    /// order's row, so two nodes cannot both pass the limit. With `new_page_nonce`, the
    /// order's ticket page key is rotated in the same transaction.
    async fn queue_ticket_mail(
        &self,
        order_id: Uuid,
        kind: MailKind,
        limit: Option<ResendLimit>,
        new_page_nonce: Option<&[u8]>,
    ) -> StoreResult<ResendOutcome>;
    /// The nonce of the order's ticket page key, if the order has a ticket page.
    async fn ticket_page_nonce(&self, order_id: Uuid) -> StoreResult<Option<Vec<u8>>>;
}
