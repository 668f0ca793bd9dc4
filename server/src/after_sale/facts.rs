//! An order with everything the after-sale rules judge it by, read once: its checkout, lines
//! (with their frozen policies), tickets, refunds, slots and the merchant's zone.

use app::wire::{Order, TimeslotWindow};
use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{
    allocate::allocate,
    policy::visit_start,
    terms::{fees_in, quote, Held},
};
use crate::{
    checkout::{order_view::build, view::windows, Commerce},
    error::Result,
    store::{CheckoutLineRecord, CheckoutRecord, OrderRecord, RefundRecord, TicketRecord},
};

pub struct OrderFacts {
    pub order: OrderRecord,
    pub checkout: CheckoutRecord,
    pub lines: Vec<CheckoutLineRecord>,
    pub tickets: Vec<TicketRecord>,
    pub refunds: Vec<RefundRecord>,
    pub slots: Vec<TimeslotWindow>,
    pub zone: Tz,
    /// The payment that paid the order (its sale), which refunds go back through first.
    pub payment_id: Option<Uuid>,
    /// Every PAID payment of the order, oldest (the sale) first; after it, the differences
    /// of dearer days (`rebook_payment`).
    pub payments: Vec<crate::store::PaymentRecord>,
}

impl OrderFacts {
    pub async fn load(state: &Commerce, order: OrderRecord) -> Result<Self> {
        let store = state.store.as_ref();
        let ids = [order.customer_order_id];
        let checkout = store
            .checkout(order.checkout_id)
            .await?
            .ok_or_else(|| anyhow::anyhow!("order {} has no checkout", order.customer_order_id))?;
        let lines = store
            .lines_of_orders(&ids)
            .await?
            .into_iter()
            .map(|(_, l)| l)
            .collect();
        let tickets = store.tickets_of_orders(&ids).await?;
        let refunds = store.refunds_of_orders(&ids).await?;
        let slot_ids: Vec<Uuid> = tickets.iter().filter_map(|t| t.timeslot_id).collect();
        let slots = windows(store, order.merchant_id, &slot_ids).await?;
        let zone = match state
            .catalog
            .definitions
            .merchant(store, order.merchant_id)
            .await?
        {
            Some(m) => m.zone()?,
            None => chrono_tz::UTC,
        };
        let payment_id = store
            .payment_of_order(order.customer_order_id)
            .await?
            .filter(|p| p.status == app::wire::PaymentStatus::Paid)
            .map(|p| p.payment_id);
        let payments = store.paid_payments(order.customer_order_id).await?;
        Ok(Self {
            payment_id,
            payments,
            order,
            checkout,
            lines,
            tickets,
            refunds,
            slots,
            zone,
        })
    }

    /// What the order's buyer paid in all: by the payment provider and from the wallet, and
    /// the differences of dearer days its visit moved to (one paid for a move that could no
    /// longer be made was refunded whole, as a late payment, and does not count).
    pub fn paid(&self) -> Decimal {
        let differences: Decimal = self
            .payments
            .iter()
            .filter(|p| Some(p.payment_id) != self.payment_id)
            .filter(|p| {
                !self
                    .refunds
                    .iter()
                    .any(|r| r.payment_id == p.payment_id && r.ticket_ids.0.is_empty())
            })
            .map(|p| p.amount)
            .sum();
        self.checkout.total + self.checkout.wallet_applied + differences
    }

    /// What has been refunded so far, in all and to the wallet.
    pub fn refunded(&self) -> (Decimal, Decimal) {
        self.refunds
            .iter()
            .filter(|r| !r.ticket_ids.0.is_empty())
            .fold((Decimal::ZERO, Decimal::ZERO), |(all, wallet), r| {
                (all + r.amount + r.to_wallet, wallet + r.to_wallet)
            })
    }

    /// The part of a new refund of `refund` that goes back to the wallet: after it, the
    /// wallet has back its share of all refunded so far, `round_half_even(refunded ×
    /// wallet_applied / paid)`, so the parts of any history add up to what the wallet paid.
    pub fn wallet_part(&self, refund: Decimal) -> Decimal {
        let (before, wallet_before) = self.refunded();
        let paid = self.paid();
        if paid.is_zero() {
            return Decimal::ZERO;
        }
        let wallet_after = ((before + refund) * self.checkout.wallet_applied / paid)
            .round_dp_with_strategy(2, rust_decimal::RoundingStrategy::MidpointNearestEven);
        (wallet_after - wallet_before)
            .max(Decimal::ZERO)
            .min(refund)
    }

    fn line(&self, line_id: Uuid) -> Option<&CheckoutLineRecord> {
        self.lines.iter().find(|l| l.checkout_line_id == line_id)
    }

    /// A ticket's price before vouchers and wallet: its line's total per unit.
    pub fn price_of(line: &CheckoutLineRecord) -> Decimal {
        if line.quantity <= 0 {
            return Decimal::ZERO;
        }
        line.line_total / Decimal::from(line.quantity)
    }

    /// Each ticket as the policy sees it.
    pub fn held(&self) -> Vec<Held> {
        // Tickets issued before shares were stored get theirs as the payment would have
        // shared it: what was paid over the order's first tickets, by price.
        let legacy: Vec<&TicketRecord> = self
            .tickets
            .iter()
            .filter(|t| t.paid_share.is_none())
            .collect();
        let weights: Vec<Decimal> = legacy
            .iter()
            .map(|t| {
                self.line(t.checkout_line_id)
                    .map_or(Decimal::ZERO, Self::price_of)
            })
            .collect();
        let legacy_shares = allocate(self.paid(), &weights);
        self.tickets
            .iter()
            .map(|t| {
                let share = t.paid_share.map(|s| s.0).unwrap_or_else(|| {
                    legacy
                        .iter()
                        .position(|l| l.ticket_id == t.ticket_id)
                        .map_or(Decimal::ZERO, |i| legacy_shares[i])
                });
                let line = self.line(t.checkout_line_id);
                let policy = line
                    .and_then(|l| l.after_sale.as_ref())
                    .map(|p| p.0.clone())
                    .unwrap_or_default();
                let fees = line.map_or(Decimal::ZERO, |l| {
                    fees_in(
                        share,
                        l.booking_costs + l.visit_guarantee_cost,
                        Self::price_of(l),
                    )
                });
                let slot_start = t.timeslot_id.and_then(|id| {
                    self.slots
                        .iter()
                        .find(|w| w.timeslot_id == id)
                        .map(|w| w.start_time.with_timezone(&Utc))
                });
                let day = policy.dated.then_some(t.visit_date).flatten();
                let valid_until = (!policy.dated).then_some(t.valid_until).flatten();
                Held {
                    ticket_id: t.ticket_id,
                    status: t.status,
                    share,
                    fees,
                    start: visit_start(self.zone, slot_start, day, valid_until),
                    paid_at: t.created_at,
                    policy,
                }
            })
            .collect()
    }

    /// The order on the wire as it stands, with what it allows at `now`.
    pub fn view(&self, now: DateTime<Utc>) -> Order {
        let mut order = build(
            &self.order,
            &self.lines,
            &self.tickets,
            &self.refunds,
            &self.slots,
        );
        if self.order.status.is_paid() {
            order.after_sale = Some(quote(
                &self.held(),
                self.zone,
                now,
                &self.order.currency,
                self.order.shipped_on,
            ));
        }
        order
    }
}

/// The order `order` as its owner or partner reads it now.
pub async fn order_now(state: &Commerce, order: OrderRecord, now: DateTime<Utc>) -> Result<Order> {
    Ok(OrderFacts::load(state, order).await?.view(now))
}
