//! The settlement ledger (docs/settlement.md): append-only entries, one per order line and
//! cause, written in the transaction of what causes them and read by statements.

use app::wire::{EntryKind, LedgerEntry};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::StoreResult;
use crate::settlement::split::Parts;

/// An entry to book.
#[derive(Debug, Clone)]
pub struct NewLedgerEntry {
    pub entry_id: Uuid,
    pub kind: EntryKind,
    pub booked_at: DateTime<Utc>,
    pub order_id: Uuid,
    pub order_display_id: String,
    pub checkout_line_id: Uuid,
    /// What caused it: the order (a sale), the refund, the order change (a rebooking). A
    /// cause books a line once.
    pub cause_id: Uuid,
    pub ticket_ids: Vec<Uuid>,
    pub sku: String,
    pub product_id: Uuid,
    pub merchant_id: Uuid,
    pub campaign_id: Uuid,
    pub partner_client_id: Option<Uuid>,
    pub currency: String,
    pub parts: Parts,
}

/// Which entries to read: all filters that are set apply.
#[derive(Debug, Clone, Default)]
pub struct LedgerFilter {
    pub partner_client_id: Option<Uuid>,
    pub merchant_id: Option<Uuid>,
    /// Booked at or after.
    pub from: Option<DateTime<Utc>>,
    /// Booked before.
    pub to: Option<DateTime<Utc>>,
}

/// Tickets cancelled without a replacement, counted per sku and currency.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct CancelledCount {
    pub sku: String,
    pub currency: String,
    pub tickets: i64,
}

#[async_trait::async_trait]
pub trait LedgerStore {
    /// Entries the filter admits, in booking order (entry ids are time-ordered), after
    /// `after`.
    async fn ledger_entries(
        &self,
        filter: &LedgerFilter,
        after: Option<Uuid>,
        limit: u32,
    ) -> StoreResult<Vec<LedgerEntry>>;
    async fn ledger_entry(&self, entry_id: Uuid) -> StoreResult<Option<LedgerEntry>>;
    /// An order's entries in booking order.
    async fn ledger_entries_of_order(&self, order_id: Uuid) -> StoreResult<Vec<LedgerEntry>>;
    /// What caused each of an order's entries, by entry id: the order (a sale), the refund,
    /// the order change (a rebooking). The invoices' credit notes are one per refund.
    async fn ledger_causes_of_order(&self, order_id: Uuid) -> StoreResult<Vec<(Uuid, Uuid)>>;
    /// Tickets of the filter's orders cancelled in its time range and not replaced by a date
    /// change, per sku and currency.
    async fn cancelled_tickets(&self, filter: &LedgerFilter) -> StoreResult<Vec<CancelledCount>>;
}

/// Booking, inside the checkout transaction.
#[async_trait::async_trait]
pub trait LedgerTx: Send {
    /// Books `entries` with the transaction's other writes.
    async fn book(&mut self, entries: &[NewLedgerEntry]) -> StoreResult<()>;
}
