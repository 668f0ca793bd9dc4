//! Ticket mails as stored: one row per mail to send (the payment's, and each resend), claimed
//! by a delivery worker under a lease; and the nonce behind each order's ticket page key.
//! The rules (when a mail is written, how often a customer may ask again) live in
//! `crate::tickets`.

use app::wire::MailStatus;
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// A ticket mail row.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TicketMailRecord {
    pub ticket_mail_id: Uuid,
    pub customer_order_id: Uuid,
    /// `FIRST` (the payment's), `RESEND` (the customer's) or `OPERATOR`.
    pub kind: String,
    /// `PENDING`, `SENT` or `FAILED` (for good).
    #[sqlx(try_from = "String")]
    pub status: MailStatus,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub claim_id: Option<Uuid>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

/// How one attempt at sending a ticket mail ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailOutcome {
    Sent,
    /// Not sent; tried again at `retry_at`, or never again (`FAILED`) without one.
    Failed {
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
}

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
    /// Claims up to `limit` pending mails due by `now` that no live lease holds, leased until
    /// `lock_until` under one new claim id.
    async fn claim_due_ticket_mails(
        &self,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>>;
    /// Records an attempt's outcome, only while `claim_id` still holds the mail (a worker whose
    /// lease ran out records nothing); `false` when it no longer did.
    async fn record_ticket_mail(
        &self,
        ticket_mail_id: Uuid,
        claim_id: Uuid,
        outcome: &MailOutcome,
    ) -> StoreResult<bool>;
    /// Gives up a claim without an attempt (the worker is stopping).
    async fn release_ticket_mail(&self, ticket_mail_id: Uuid, claim_id: Uuid) -> StoreResult<()>;
    /// Mails newest first (by `created_at`, then id), of one status and/or one order when
    /// given, after the cursor position `after`.
    async fn ticket_mails(
        &self,
        status: Option<MailStatus>,
        order_id: Option<Uuid>,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>>;
    /// The newest `limit` mails of the orders of customers a partner knows by `reference`
    /// (the demo mailbox: one demo shop visit's mails).
    async fn ticket_mails_of_reference(
        &self,
        reference: &str,
        limit: u32,
    ) -> StoreResult<Vec<TicketMailRecord>>;
    /// Writes one more mail of `order_id` of `kind`, unless `limit` says the order had enough
    /// of that kind lately. The count and the write are one transaction that first locks the
    /// order's row, so two nodes cannot both pass the limit. With `new_page_nonce`, the
    /// order's ticket page key is rotated in the same transaction.
    async fn queue_ticket_mail(
        &self,
        order_id: Uuid,
        kind: &str,
        limit: Option<ResendLimit>,
        new_page_nonce: Option<&[u8]>,
    ) -> StoreResult<ResendOutcome>;
    /// The nonce of the order's ticket page key, if the order has a ticket page.
    async fn ticket_page_nonce(&self, order_id: Uuid) -> StoreResult<Option<Vec<u8>>>;
}
