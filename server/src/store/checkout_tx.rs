//! The unit of work that changes checkouts and what they hold, [`CheckoutTx`]: all of it
//! commits or none of it does. On Postgres it is a transaction of its own; on SQLite a
//! savepoint in the writer's group commit, one transaction that several checkouts share, each
//! rolled back alone when it fails (`store/sqlite/group_commit.rs`). Its methods come in one
//! trait per concern (places, checkouts, vouchers, the wallet, orders and payments, tickets,
//! loyalty, the outbox, idempotency), each implemented in the file of that name under
//! `sql/checkout_tx/`.
//!
//! Concurrent transactions cannot oversell or overspend: a shared resource (a voucher's
//! redemptions, a wallet, a day's or a slot's places) is changed by one statement under the
//! database's lock on it, voucher redemptions and wallets by conditional updates, and places
//! at the commit by [`Backend::take_places_and_commit`], the no-oversell rule. Callers take
//! row locks in one order (vouchers by id, then the wallet; places come last, at the commit,
//! in an order of their own) so that two transactions never each hold what the other waits
//! for.
//!
//! [`Backend::take_places_and_commit`]: super::backend::Backend::take_places_and_commit

use app::wire::{CheckoutStatus, LoyaltyKind, OrderStatus, PaymentStatus, Transition};
use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{
    CustomerFields, Held, Holder, IdempotentRequest, NewCheckout, NewOrder, NewTicket, Places,
    StoreResult,
};
use crate::events::NewEvent;

/// One database transaction over checkouts and what they hold. Dropped without `commit`, it
/// rolls back: nothing it did is kept.
#[async_trait::async_trait]
pub trait CheckoutTx:
    PlacesTx
    + CheckoutRowTx
    + VoucherTx
    + WalletTx
    + OrderTx
    + TicketTx
    + LoyaltyTx
    + OutboxTx
    + IdempotencyTx
    + super::AfterSaleTx
    + super::GateTx
    + super::LedgerTx
    + super::OctoTx
    + Send
{
    /// Writes the events not written yet, takes the places asked for and commits. When fewer
    /// places are left than one take asks for, fails with [`StoreError::Short`] naming it,
    /// and keeps nothing.
    ///
    /// [`StoreError::Short`]: super::StoreError::Short
    async fn commit(self: Box<Self>) -> StoreResult<()>;
}

/// A day's or a slot's places.
#[async_trait::async_trait]
pub trait PlacesTx: Send {
    /// Asks for places: `commit` takes them, in the order asked, after everything else
    /// (`store::places` says why).
    fn take(&mut self, places: Places);
    async fn give_back_day(
        &mut self,
        group: Uuid,
        day: NaiveDate,
        quantity: u32,
    ) -> StoreResult<()>;
    async fn give_back_timeslot(&mut self, timeslot_id: Uuid, quantity: u32) -> StoreResult<()>;
}

/// The checkout row and its lines.
#[async_trait::async_trait]
pub trait CheckoutRowTx: Send {
    async fn insert_checkout(&mut self, checkout: &NewCheckout) -> StoreResult<()>;
    /// What each of `holders` holds at `now`: its open checkouts (reserved and unexpired, or
    /// confirmed and awaiting payment) and their places, in total and for `day`, leaving out
    /// the checkout `except`. Each holder stays locked until the transaction ends, so two
    /// reservations of one holder are counted one after the other (`checkout::holds`).
    async fn held_by(
        &mut self,
        holders: &[Holder],
        day: NaiveDate,
        except: Option<Uuid>,
        now: DateTime<Utc>,
    ) -> StoreResult<Vec<Held>>;
    /// Makes the change when the checkout is in its `from` state (and, when `expired_by` is
    /// given, its hold ended by then); `false` when it was not: another request got there first.
    async fn transition_checkout(
        &mut self,
        checkout_id: Uuid,
        change: Transition<CheckoutStatus>,
        expired_by: Option<DateTime<Utc>>,
    ) -> StoreResult<bool>;
    /// Moves a RESERVED checkout whose hold has not ended to CONFIRMED with the customer's
    /// fields, its places now held `until` the payment window ends; `false` when it is not
    /// RESERVED or its hold ended.
    async fn confirm_checkout(
        &mut self,
        checkout_id: Uuid,
        fields: &CustomerFields,
        now: DateTime<Utc>,
        until: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Moves the end of a RESERVED checkout's hold to `until`, once: `false` when it is not
    /// RESERVED, its hold ended by `now`, or it was extended before.
    async fn extend_hold(
        &mut self,
        checkout_id: Uuid,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> StoreResult<bool>;
    /// Marks a RESERVED checkout's hold as extended at `at`, in the transaction that
    /// reserves it in place of an extended one (`checkout::rehold`): it cannot be extended
    /// again.
    async fn carry_extension(&mut self, checkout_id: Uuid, at: DateTime<Utc>) -> StoreResult<()>;
}

/// Voucher redemptions.
#[async_trait::async_trait]
pub trait VoucherTx: Send {
    /// Counts one redemption; `false` when the voucher has none left.
    async fn redeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<bool>;
    async fn unredeem_voucher(&mut self, voucher_id: Uuid) -> StoreResult<()>;
    /// Marks the checkout's voucher redemptions released; returns the vouchers that were not.
    async fn release_checkout_vouchers(&mut self, checkout_id: Uuid) -> StoreResult<Vec<Uuid>>;
}

/// The customer's wallet in a campaign.
#[async_trait::async_trait]
pub trait WalletTx: Send {
    /// Locks the customer's wallet in the campaign and returns its balance (zero when none).
    async fn lock_wallet(&mut self, customer_id: Uuid, campaign_id: Uuid) -> StoreResult<Decimal>;
    /// Sets the balance of a wallet locked by `lock_wallet`.
    async fn set_wallet_balance(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        balance: Decimal,
    ) -> StoreResult<()>;
}

/// Orders and their payments.
#[async_trait::async_trait]
pub trait OrderTx: Send {
    /// Inserts the order with its first payment.
    async fn insert_order(&mut self, order: &NewOrder) -> StoreResult<()>;
    /// Makes the change when the order is in its `from` state; `false` when it was not.
    async fn transition_order(
        &mut self,
        order_id: Uuid,
        change: Transition<OrderStatus>,
    ) -> StoreResult<bool>;
    /// Makes the change (from OPEN) when the payment is still in its `from` state; `false`
    /// when it was not.
    async fn settle_payment(
        &mut self,
        payment_id: Uuid,
        change: Transition<PaymentStatus>,
    ) -> StoreResult<bool>;
    /// Writes a refund (PENDING) decided in this transaction; a second late-payment refund of
    /// the same payment is a `Conflict` (a unique index).
    async fn insert_refund(&mut self, refund: &super::NewRefund) -> StoreResult<()>;
}

/// Tickets of a paid order.
#[async_trait::async_trait]
pub trait TicketTx: Send {
    async fn insert_tickets(&mut self, tickets: &[NewTicket]) -> StoreResult<()>;
    /// Writes the order's ticket mail (pending, due now) and its ticket page's key nonce, so
    /// they commit with the payment: a crash after the commit still sends the mail.
    async fn write_ticket_mail(&mut self, order_id: Uuid, page_nonce: &[u8]) -> StoreResult<()>;
}

/// The customer's loyalty ledger.
#[async_trait::async_trait]
pub trait LoyaltyTx: Send {
    /// Appends a loyalty entry after the account's last one; returns the balance after it. A
    /// negative entry takes no more than the balance (none at all when it is zero).
    async fn add_loyalty_entry(
        &mut self,
        customer_id: Uuid,
        campaign_id: Uuid,
        order_id: Option<Uuid>,
        kind: LoyaltyKind,
        points: i64,
        description: &str,
    ) -> StoreResult<i64>;
}

/// The outbox: events that commit or roll back with the change they report.
#[async_trait::async_trait]
pub trait OutboxTx: Send {
    /// Adds `event` to the outbox with this transaction's other changes; returns its id. Events
    /// are written together, by `write_events` or at the latest by `commit`.
    async fn insert_event(&mut self, event: &NewEvent) -> StoreResult<Uuid>;
    /// Writes the events added so far, in the order they were added (a handful of statements
    /// for any number). Call it before taking a contended place, so the place's lock is not
    /// held while they are written.
    async fn write_events(&mut self) -> StoreResult<()>;
}

/// The idempotency key the transaction's request claimed.
#[async_trait::async_trait]
pub trait IdempotencyTx: Send {
    /// Stores the success of the key `request` claimed with the change it made, so the two
    /// commit together. When a retry took the claim over meanwhile (`request.owner` no longer
    /// holds it), the transaction fails with [`StoreError::Conflict`] and keeps nothing.
    ///
    /// [`StoreError::Conflict`]: super::StoreError::Conflict
    async fn complete_idempotency(
        &mut self,
        request: &IdempotentRequest,
        status: u16,
        body: &[u8],
        now: DateTime<Utc>,
    ) -> StoreResult<()>;
}
