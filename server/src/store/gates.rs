//! What the gate stores (docs/gate.md): a merchant's gates and the devices paired with them,
//! the tickets as a gate judges them, and the scans kept. The writes that let a visitor in or
//! take an entry back are `GateTx`, part of the checkout transaction, so the ticket's state,
//! the entry and the event that reports it commit together.

use app::wire::{RedemptionStatus, TicketStatus};
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{StoreError, StoreResult};

/// Minutes before a slot starts that a gate admits by default.
pub const DEFAULT_EARLY_MINUTES: u32 = 30;

/// A gate as the operator writes it.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct GateInput {
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub name: String,
    /// The products it admits, all of the merchant's; absent: every product of the merchant.
    #[serde(default)]
    #[schema(max_items = 200)]
    pub product_ids: Option<Vec<Uuid>>,
    /// How long before a slot starts its visitors are let in (default 30).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 720)]
    pub early_minutes: Option<u32>,
    /// How long after a slot ends its visitors are still let in (default 0).
    #[serde(default)]
    #[schema(minimum = 0, maximum = 720)]
    pub late_minutes: Option<u32>,
}

/// A gate as stored and read (never its secrets).
#[derive(Debug, Clone, Serialize, sqlx::FromRow, utoipa::ToSchema)]
pub struct Gate {
    pub gate_id: Uuid,
    pub merchant_id: Uuid,
    pub name: String,
    /// The products it admits; null: every product of the merchant.
    #[schema(value_type = Option<Vec<Uuid>>)]
    pub product_ids: Option<sqlx::types::Json<Vec<Uuid>>>,
    pub early_minutes: i32,
    pub late_minutes: i32,
    /// Its client id for `/oauth/token` (client credentials).
    pub client_id: String,
    /// When it was revoked: its bearers, devices and pairing stopped working.
    pub revoked_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl Gate {
    /// Whether the gate admits tickets of `product_id`.
    pub fn admits(&self, product_id: Uuid) -> bool {
        self.product_ids
            .as_ref()
            .is_none_or(|ids| ids.0.contains(&product_id))
    }
}

/// A gate's stored secrets: its client secret's hash and its pairing code's.
#[derive(Debug, Clone)]
pub struct GateSecrets {
    pub secret_hash: Vec<u8>,
    pub pairing_hash: Vec<u8>,
    pub pairing_expires_at: DateTime<Utc>,
}

/// A gate credential as presented at `/oauth/token`: the gate's own or a paired device's.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct GateCredential {
    #[sqlx(flatten)]
    pub gate: Gate,
    /// The hash of the secret that goes with the client id presented.
    pub credential_hash: Vec<u8>,
}

/// A ticket as a gate judges it, in one read: its state, its order, product and slot, and the
/// merchant whose zone its window is counted in.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ScannedTicket {
    pub ticket_id: Uuid,
    pub code: String,
    #[sqlx(try_from = "String")]
    pub status: TicketStatus,
    pub product_id: Uuid,
    pub visit_date: Option<NaiveDate>,
    pub valid_until: Option<NaiveDate>,
    pub created_at: DateTime<Utc>,
    pub redeemed_at: Option<DateTime<Utc>>,
    pub redemption_id: Option<Uuid>,
    /// The gate of the entry that used it.
    pub redeemed_by: Option<Uuid>,
    pub customer_order_id: Uuid,
    pub order_display_id: String,
    pub campaign_id: Uuid,
    pub partner_client_id: Option<Uuid>,
    pub merchant_id: Uuid,
    pub timezone: String,
    pub product_title: String,
    pub age_group: Option<String>,
    pub timeslot_id: Option<Uuid>,
    pub slot_start: Option<DateTime<Utc>>,
    pub slot_end: Option<DateTime<Utc>>,
    /// Its holder's answers to the per-ticket booking questions.
    #[sqlx(default)]
    pub answers: Option<sqlx::types::Json<Vec<super::StoredAnswer>>>,
    /// The order's answers (the per-booking ones are read from them).
    #[sqlx(default)]
    pub order_answers: Option<sqlx::types::Json<Vec<super::StoredAnswer>>>,
    /// The language the order was bought in: the answers' labels are read in it.
    #[sqlx(default)]
    pub locale: Option<String>,
}

/// A scan kept (table `redemption`).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct RedemptionRecord {
    pub redemption_id: Uuid,
    pub gate_id: Uuid,
    pub nonce: String,
    /// The ticket's printed code, or the code as sent when no ticket has it.
    pub code: String,
    pub ticket_id: Option<Uuid>,
    #[sqlx(try_from = "String")]
    pub status: RedemptionStatus,
    pub offline: bool,
    pub redeemed_at: DateTime<Utc>,
    pub local_date: NaiveDate,
    pub recorded_at: DateTime<Utc>,
    pub undone_at: Option<DateTime<Utc>>,
    /// The answer a retried scan gets again (`wire::Redemption`).
    pub answer: Option<sqlx::types::Json<serde_json::Value>>,
    /// The refusal or conflict told on upload (`wire::Problem`).
    pub problem: Option<sqlx::types::Json<serde_json::Value>>,
}

/// What an offline manifest lists of a day (docs/gate.md, "Offline"): the printed codes of
/// tickets cancelled or replaced, and of tickets used.
#[derive(Debug, Clone, Default)]
pub struct DayCodes {
    pub revoked: Vec<String>,
    pub used: Vec<String>,
    /// The products those tickets may be of, as an offline answer names them.
    pub products: Vec<app::wire::ManifestProduct>,
}

#[async_trait::async_trait]
pub trait GateStore {
    /// Writes a new gate of `merchant_id`; `MissingReference` for an unknown merchant,
    /// `InvalidReference` naming `product_ids` for a product not the merchant's.
    async fn create_gate(
        &self,
        gate_id: Uuid,
        merchant_id: Uuid,
        client_id: &str,
        input: &GateInput,
        secrets: &GateSecrets,
    ) -> StoreResult<Gate>;
    async fn gate(&self, gate_id: Uuid) -> StoreResult<Option<Gate>>;
    /// The merchant's gates, oldest first.
    async fn gates_of_merchant(&self, merchant_id: Uuid) -> StoreResult<Vec<Gate>>;
    /// Replaces a gate's writable fields; `None` when there is no such gate.
    async fn update_gate(&self, gate_id: Uuid, input: &GateInput) -> StoreResult<Option<Gate>>;
    /// Revokes a gate (once; later calls change nothing); `false` when there is no such gate.
    async fn revoke_gate(&self, gate_id: Uuid, now: DateTime<Utc>) -> StoreResult<bool>;
    /// Gives a standing gate a new pairing code (the old one stops working); `false` when
    /// there is no such gate or it is revoked.
    async fn set_gate_pairing(
        &self,
        gate_id: Uuid,
        pairing_hash: &[u8],
        expires_at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Uses the pairing code whose hash this is, once and before it ends: the standing gate
    /// it pairs with, after recording the device's credential; `None` otherwise.
    async fn pair_gate_device(
        &self,
        pairing_hash: &[u8],
        device_client_id: &str,
        device_secret_hash: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<Option<Gate>>;
    /// The gate whose client id (its own or a paired device's) this is, with that
    /// credential's secret hash; revoked gates included (the caller refuses them).
    async fn gate_credential(&self, client_id: &str) -> StoreResult<Option<GateCredential>>;
    /// The ticket with this printed code, as a gate judges it.
    /// Lets a ticket in as one statement where the database can (PostgreSQL): the ticket VALID
    /// → USED by its conditional update, and the entry, the order's version and the event
    /// written only when that update changed it; `Some(false)` when the ticket was not VALID,
    /// `None` where the database cannot (SQLite), and the caller uses the transaction. A second
    /// scan of one gate under one nonce fails with a unique violation ([`nonce_taken`]).
    async fn let_in_at_once(&self, entry: &LetIn<'_>) -> StoreResult<Option<bool>>;
    async fn ticket_by_code(&self, code: &str) -> StoreResult<Option<ScannedTicket>>;
    /// The ticket with this id, as a gate judges it.
    async fn ticket_to_scan(&self, ticket_id: Uuid) -> StoreResult<Option<ScannedTicket>>;
    async fn redemption(&self, redemption_id: Uuid) -> StoreResult<Option<RedemptionRecord>>;
    /// The scan `gate_id` kept under `nonce`.
    async fn redemption_by_nonce(
        &self,
        gate_id: Uuid,
        nonce: &str,
    ) -> StoreResult<Option<RedemptionRecord>>;
    /// The gate's entries, undos and conflicts whose visitors went in on `day` (the merchant's
    /// calendar), in that order; refused uploads are not listed.
    async fn redemptions_of_day(
        &self,
        gate_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Vec<RedemptionRecord>>;
    /// The printed codes of the merchant's tickets for `day` (undated ones valid then
    /// included) of `products` (all of the merchant's when `None`) that are revoked or used.
    async fn day_codes(
        &self,
        merchant_id: Uuid,
        products: Option<&[Uuid]>,
        day: NaiveDate,
    ) -> StoreResult<DayCodes>;
}

/// What letting a ticket in writes: the scan kept, the order whose version moves, the event.
#[derive(Debug, Clone, Copy)]
pub struct LetIn<'a> {
    pub record: &'a RedemptionRecord,
    pub ticket_id: Uuid,
    pub order_id: Uuid,
    pub event: &'a crate::events::NewEvent,
}

/// The writes at the gate, inside the checkout transaction.
#[async_trait::async_trait]
pub trait GateTx: Send {
    /// Lets the ticket's holder in: VALID → USED with the entry; `false` when it was not
    /// VALID (another scan, or a cancellation, came first).
    async fn use_ticket(
        &mut self,
        ticket_id: Uuid,
        redemption_id: Uuid,
        at: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Makes a used ticket's first entry `at` when that is earlier (an offline entry uploaded
    /// after a later one).
    async fn move_first_entry(&mut self, ticket_id: Uuid, at: DateTime<Utc>) -> StoreResult<()>;
    /// Keeps a scan, sent with the transaction's other queued writes (on PostgreSQL one
    /// statement with them, before the commit): a second scan of one gate under one nonce
    /// fails the commit with a unique violation, which [`nonce_taken`] reads as the
    /// `Conflict` it is.
    async fn insert_redemption(&mut self, scan: &RedemptionRecord) -> StoreResult<()>;
    /// Takes a standing entry back: the redemption UNDONE and its ticket VALID again; `false`
    /// when it no longer stands.
    async fn undo_redemption(
        &mut self,
        redemption_id: Uuid,
        ticket_id: Uuid,
        now: DateTime<Utc>,
    ) -> StoreResult<bool>;
}

/// A commit's failure as the gate reads it: the nonce's unique key taken (another copy of the
/// scan was kept first) is a `Conflict`; anything else stands.
pub fn nonce_taken(err: StoreError) -> StoreError {
    match err {
        StoreError::Database(err) => {
            StoreError::classify(err, "a scan of this gate under this nonce")
        }
        other => other,
    }
}
