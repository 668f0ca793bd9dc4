//! Where a refund goes back: its wallet part to the wallet, its provider part through the
//! payments the order was paid with, the sale's first and then its dearer days' differences
//! (`rebook_payment`), each never beyond what it took in less what went back through it
//! already, since a provider refuses to refund more than a payment's amount. Usually that is
//! one refund row; a refund larger than what is left of the sale's payment is written as one
//! row per payment, sharing the tickets, and read as one refund (`Refunded::combined`).

use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{facts::OrderFacts, Reason};
use crate::{
    error::Result,
    payments::refunds::status_name,
    providers::ProviderRefundState,
    store::{CheckoutTx, NewRefund, RefundRecord},
};

/// The rows one refund was written as, its wallet part on the first.
#[derive(Debug, Default)]
pub(super) struct Refunded {
    pub rows: Vec<RefundRecord>,
}

impl Refunded {
    /// The id the refund is known by: its first row's.
    pub fn primary_id(&self) -> Option<Uuid> {
        self.rows.first().map(|r| r.refund_id)
    }

    /// The refund as one: its first row with the amounts of all of them.
    pub fn combined(&self) -> Option<RefundRecord> {
        let mut rows = self.rows.iter();
        let mut one = rows.next()?.clone();
        for row in rows {
            one.amount += row.amount;
            one.to_wallet += row.to_wallet;
        }
        Some(one)
    }

    /// The rows the payment provider is to be asked for.
    pub fn into_pending(self) -> Vec<RefundRecord> {
        self.rows
            .into_iter()
            .filter(|r| r.status == status_name(ProviderRefundState::Pending))
            .collect()
    }
}

/// How the provider part `to_provider` goes back through the order's payments: oldest first,
/// each at most what it has left to refund. A cent the payments cannot take (never more than
/// rounding) stays on the first.
pub(super) fn route(facts: &OrderFacts, to_provider: Decimal) -> Result<Vec<(Uuid, Decimal)>> {
    let sale = facts.payment_id.ok_or_else(|| {
        anyhow::anyhow!("paid order {} has no paid payment", facts.order.display_id)
    })?;
    let mut parts: Vec<(Uuid, Decimal)> = Vec::new();
    let mut left = to_provider;
    for payment in &facts.payments {
        if left <= Decimal::ZERO {
            break;
        }
        let refunded: Decimal = facts
            .refunds
            .iter()
            .filter(|r| r.payment_id == payment.payment_id)
            .map(|r| r.amount)
            .sum();
        let take = left.min(payment.amount - refunded).max(Decimal::ZERO);
        if take > Decimal::ZERO {
            parts.push((payment.payment_id, take));
            left -= take;
        }
    }
    match parts.first_mut() {
        Some(first) => first.1 += left.max(Decimal::ZERO),
        None => parts.push((sale, to_provider.max(Decimal::ZERO))),
    }
    Ok(parts)
}

/// Writes the refund of `ids` (none when nothing comes back): each provider part PENDING
/// until the provider answers, SUCCEEDED at once when all of it goes to the wallet.
pub(super) async fn record_refund(
    tx: &mut dyn CheckoutTx,
    facts: &OrderFacts,
    ids: &[Uuid],
    refund: Decimal,
    to_wallet: Decimal,
    reason: Reason,
    now: DateTime<Utc>,
) -> Result<Refunded> {
    if refund <= Decimal::ZERO {
        return Ok(Refunded::default());
    }
    let mut rows = Vec::new();
    for (n, (payment_id, amount)) in route(facts, refund - to_wallet)?.into_iter().enumerate() {
        let to_wallet = if n == 0 { to_wallet } else { Decimal::ZERO };
        let status = status_name(if amount > Decimal::ZERO {
            ProviderRefundState::Pending
        } else {
            ProviderRefundState::Succeeded
        });
        let new = NewRefund {
            refund_id: crate::ids::time_ordered_id(),
            payment_id,
            order_id: facts.order.customer_order_id,
            reason: reason.as_str(),
            amount,
            currency: facts.order.currency.clone(),
            ticket_ids: ids.to_vec(),
            to_wallet,
            status,
        };
        tx.insert_refund(&new).await?;
        rows.push(RefundRecord {
            refund_id: new.refund_id,
            payment_id,
            customer_order_id: new.order_id,
            reason: new.reason.to_owned(),
            amount: new.amount,
            currency: new.currency,
            status: status.to_owned(),
            provider_ref: None,
            created_at: now,
            updated_at: now,
            ticket_ids: sqlx::types::Json(new.ticket_ids),
            to_wallet,
        });
    }
    Ok(Refunded { rows })
}
