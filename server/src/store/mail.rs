//! The outbox of mails as stored: one row per mail to send, of every kind (`MailKind`),
//! claimed by the mail worker (`mail/outbox.rs`) under a lease and marked with each attempt's
//! outcome. A row is written in the transaction that causes it: the payment's tickets by the
//! checkout (`TicketTx::write_ticket_mail`), a resend by `TicketMailStore::queue_ticket_mail`,
//! a magic link with its merchant account (`MerchantAccountStore::create_merchant_account`).

use app::wire::{MailKind, MailStatus};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;

/// A mail of the outbox.
#[derive(Clone, sqlx::FromRow)]
pub struct MailRecord {
    pub mail_id: Uuid,
    #[sqlx(try_from = "String")]
    pub kind: MailKind,
    /// The order a ticket mail is about (rendered from it when sent).
    pub customer_order_id: Option<Uuid>,
    /// The merchant account a magic link is for.
    pub merchant_account_id: Option<Uuid>,
    /// What a kind written whole holds (see [`MailContent`]).
    pub recipient: Option<String>,
    pub subject: Option<String>,
    pub body_text: Option<String>,
    pub secret: Option<String>,
    #[sqlx(try_from = "String")]
    pub status: MailStatus,
    pub attempts: i32,
    /// When a PENDING mail is tried next.
    pub next_attempt_at: DateTime<Utc>,
    /// The claim it is handed out under, while one holds it.
    pub claim_id: Option<Uuid>,
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
}

impl std::fmt::Debug for MailRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MailRecord")
            .field("mail_id", &self.mail_id)
            .field("kind", &self.kind)
            .field("customer_order_id", &self.customer_order_id)
            .field("merchant_account_id", &self.merchant_account_id)
            .field("status", &self.status)
            .field("attempts", &self.attempts)
            .field("next_attempt_at", &self.next_attempt_at)
            .field("claim_id", &self.claim_id)
            .field("created_at", &self.created_at)
            .field("sent_at", &self.sent_at)
            .finish_non_exhaustive()
    }
}

impl MailRecord {
    /// The content of a kind written whole, when the row holds it.
    pub fn content(&self) -> Option<MailContent> {
        Some(MailContent {
            recipient: self.recipient.clone()?,
            subject: self.subject.clone()?,
            body_text: self.body_text.clone()?,
            secret: self.secret.clone(),
        })
    }
}

/// A mail written whole when it is queued, because it cannot be made again when it is sent
/// (a magic link: its code is kept only hashed).
#[derive(Clone)]
pub struct MailContent {
    pub recipient: String,
    pub subject: String,
    pub body_text: String,
    /// The part of `body_text` that must not outlive the delivery (the link with its code):
    /// once the mail is sent, the row keeps the body without it.
    pub secret: Option<String>,
}

impl MailContent {
    /// The body as kept after delivery, when it carried a secret: the secret replaced by a
    /// note that it was there.
    pub fn delivered_body(&self) -> Option<String> {
        let secret = self.secret.as_deref().filter(|s| !s.is_empty())?;
        Some(
            self.body_text
                .replace(secret, "[removed once the mail was sent]"),
        )
    }
}

/// A mail to write into the outbox.
#[derive(Clone)]
pub struct NewMail {
    pub mail_id: Uuid,
    pub kind: MailKind,
    pub customer_order_id: Option<Uuid>,
    pub merchant_account_id: Option<Uuid>,
    pub content: Option<MailContent>,
    /// Written already claimed, for the writer to send at once after its commit: no worker
    /// takes it before the lease ends (when the writer died before sending it).
    pub claim: Option<MailClaim>,
}

impl NewMail {
    /// A mail of `kind` rendered from the order `order_id` when it is sent.
    pub fn of_order(kind: MailKind, order_id: Uuid) -> Self {
        Self {
            mail_id: crate::ids::time_ordered_id(),
            kind,
            customer_order_id: Some(order_id),
            merchant_account_id: None,
            content: None,
            claim: None,
        }
    }
}

/// A claim on a mail: who holds it, until when.
#[derive(Debug, Clone, Copy)]
pub struct MailClaim {
    pub claim_id: Uuid,
    pub until: DateTime<Utc>,
}

/// How one attempt at sending a mail ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MailOutcome {
    /// Sent; the row keeps `kept_body` as its body when given (the secret removed).
    Sent { kept_body: Option<String> },
    /// Not sent; tried again at `retry_at`, or never again (`FAILED`) without one.
    Failed {
        error: String,
        retry_at: Option<DateTime<Utc>>,
    },
}

/// Which mails a list shows.
#[derive(Debug, Clone, Copy, Default)]
pub struct MailFilter {
    pub kind: Option<MailKind>,
    pub status: Option<MailStatus>,
    pub order_id: Option<Uuid>,
}

#[async_trait::async_trait]
pub trait MailStore {
    /// Claims up to `limit` mails of the kinds this build knows, due by `now` and held by no
    /// live lease, leased until `lock_until` under one new claim id.
    async fn claim_due_mails(
        &self,
        now: DateTime<Utc>,
        lock_until: DateTime<Utc>,
        limit: u32,
    ) -> StoreResult<Vec<MailRecord>>;
    /// The mail `mail_id` while the claim `claim_id` holds it (a mail written claimed).
    async fn claimed_mail(&self, mail_id: Uuid, claim_id: Uuid) -> StoreResult<Option<MailRecord>>;
    /// Records an attempt's outcome, only while `claim_id` still holds the mail (a worker whose
    /// lease ran out records nothing); `false` when it no longer did.
    async fn record_mail_attempt(
        &self,
        mail_id: Uuid,
        claim_id: Uuid,
        outcome: &MailOutcome,
    ) -> StoreResult<bool>;
    /// Gives up a claim without an attempt (its lease is nearly over): due at once again.
    async fn release_mail(&self, mail_id: Uuid, claim_id: Uuid) -> StoreResult<()>;
    /// Mails newest first (by `created_at`, then id) that `filter` lets through, after the
    /// cursor position `after`.
    async fn mails(
        &self,
        filter: MailFilter,
        after: Option<(DateTime<Utc>, Uuid)>,
        limit: u32,
    ) -> StoreResult<Vec<MailRecord>>;
    /// The newest `limit` mails of the orders of customers a partner knows by `reference`
    /// (the demo mailbox: one demo shop visit's mails).
    async fn mails_of_reference(&self, reference: &str, limit: u32)
        -> StoreResult<Vec<MailRecord>>;
}
