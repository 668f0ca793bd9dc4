//! What happens after a checkout is placed: payment succeeds (order PAID, tickets issued,
//! loyalty points earned, `orders.OrderPaid`), payment fails or runs out (order CANCELLED,
//! everything held released, `orders.OrderCancelled`), or an unconfirmed hold ends
//! (`checkouts.CheckoutExpired`).
//!
//! Each transition is one conditional status update inside the transaction that does its
//! work, so when two nodes (or a sweeper and a reader) race, exactly one does it: capacity,
//! vouchers and wallet are released exactly once.

use app::wire::{CheckoutStatus, LoyaltyKind, OrderStatus, PaymentStatus, Transition};
use chrono::{DateTime, Utc};
use rust_decimal::prelude::ToPrimitive;
use serde_json::json;
use uuid::Uuid;

use super::Commerce;
use crate::{
    display_code::crockford,
    error::{Error, ProblemType, Result},
    events::{EventType, NewEvent},
    providers::{Booking, BookingLine},
    store::{CheckoutLineRecord, CheckoutRecord, CheckoutTx, NewTicket, OrderRecord},
};

/// How a payment ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaymentOutcome {
    Paid,
    Declined,
    Cancelled,
    Expired,
}

impl PaymentOutcome {
    /// The payment's change of state this outcome makes.
    pub fn transition(self) -> Transition<PaymentStatus> {
        match self {
            PaymentOutcome::Paid => PaymentStatus::PAY,
            PaymentOutcome::Declined => PaymentStatus::DECLINE,
            PaymentOutcome::Cancelled => PaymentStatus::CANCEL,
            PaymentOutcome::Expired => PaymentStatus::EXPIRE,
        }
    }
}

fn booking_of(checkout: &CheckoutRecord, lines: &[CheckoutLineRecord]) -> Booking {
    Booking {
        checkout_id: checkout.checkout_id,
        lines: lines
            .iter()
            .map(|l| BookingLine {
                product_id: l.product_id,
                sku: l.sku.clone(),
                day: l.visit_date.unwrap_or(checkout.visit_date),
                availability_group_id: l.availability_group_id,
                timeslot_id: l.timeslot_id,
                quantity: u32::try_from(l.quantity).unwrap_or(0),
            })
            .collect(),
    }
}

/// Gives back what the checkout holds: the provider's booking, voucher redemptions and the
/// wallet amount. Called only after this transaction moved the checkout out of a holding
/// state, which makes it run once.
async fn release(
    state: &Commerce,
    tx: &mut dyn CheckoutTx,
    checkout: &CheckoutRecord,
    lines: &[CheckoutLineRecord],
) -> Result<()> {
    let provider = state
        .fulfillment
        .get(&checkout.provider)
        .ok_or_else(|| anyhow::anyhow!("no fulfilment provider named {:?}", checkout.provider))?;
    let mut vouchers = tx.release_checkout_vouchers(checkout.checkout_id).await?;
    vouchers.sort();
    for voucher_id in vouchers {
        tx.unredeem_voucher(voucher_id).await?;
    }
    if let (Some(customer), false) = (checkout.customer_id, checkout.wallet_applied.is_zero()) {
        let balance = tx.lock_wallet(customer, checkout.campaign_id).await?;
        tx.set_wallet_balance(
            customer,
            checkout.campaign_id,
            balance + checkout.wallet_applied,
        )
        .await?;
    }
    // Places last: the lock order of the reservation (reserve.rs), with the events already
    // written so a busy day's lock is held only for the give-back and the commit.
    tx.write_events().await?;
    provider
        .release(tx, &booking_of(checkout, lines))
        .await
        .map_err(anyhow::Error::from)?;
    Ok(())
}

/// Ends a RESERVED checkout whose hold ran out by `now`; `false` when it was not (confirmed
/// in time, or already expired by someone else).
pub async fn expire_reservation(
    state: &Commerce,
    checkout_id: Uuid,
    now: DateTime<Utc>,
) -> Result<bool> {
    let Some(checkout) = state.store.checkout(checkout_id).await? else {
        return Ok(false);
    };
    if checkout.status != CheckoutStatus::Reserved || checkout.expires_at > now {
        return Ok(false);
    }
    end_reservation(state, &checkout, Some(now), "hold_expired").await
}

/// Gives up a RESERVED checkout before its hold runs out, at its customer's request (a
/// repriced basket replaced it, or the customer left): its places, vouchers and wallet
/// amount go back at once. Releasing one that already ended changes nothing; one that is
/// confirmed is `checkout-not-reserved`.
pub async fn release_reservation(state: &Commerce, checkout: &CheckoutRecord) -> Result<()> {
    let checkout_id = checkout.checkout_id;
    if checkout.status == CheckoutStatus::Reserved
        && end_reservation(state, checkout, None, "released").await?
    {
        return Ok(());
    }
    // It ended before, or a confirm won the race: where does it stand now?
    let status = state
        .store
        .checkout(checkout_id)
        .await?
        .map_or(checkout.status, |c| c.status);
    if status == CheckoutStatus::Expired {
        return Ok(());
    }
    Err(Error::new(
        ProblemType::CheckoutNotReserved,
        format!("Checkout {checkout_id} is {status} and cannot be released."),
    ))
}

/// Moves a RESERVED checkout to EXPIRED and gives back what it holds, once. With
/// `expired_by`, only a hold that ran out by then moves (a confirm may have won the race).
async fn end_reservation(
    state: &Commerce,
    checkout: &CheckoutRecord,
    expired_by: Option<DateTime<Utc>>,
    reason: &str,
) -> Result<bool> {
    let lines = state.store.checkout_lines(checkout.checkout_id).await?;
    let mut tx = state.store.begin_checkout().await?;
    if !end_in(state, tx.as_mut(), checkout, &lines, expired_by, reason).await? {
        return Ok(false);
    }
    tx.commit().await?;
    state.catalog.capacity_changed();
    Ok(true)
}

/// [`end_reservation`]'s work inside `tx`, for a caller that reserves again in the same
/// transaction (`checkout::rehold`); `false`, having written nothing, when the checkout was
/// no longer RESERVED (or its hold had not run out by `expired_by`).
pub(super) async fn end_in(
    state: &Commerce,
    tx: &mut dyn CheckoutTx,
    checkout: &CheckoutRecord,
    lines: &[CheckoutLineRecord],
    expired_by: Option<DateTime<Utc>>,
    reason: &str,
) -> Result<bool> {
    let checkout_id = checkout.checkout_id;
    if !tx
        .transition_checkout(checkout_id, CheckoutStatus::EXPIRE, expired_by)
        .await?
    {
        return Ok(false);
    }
    tx.insert_event(&NewEvent {
        event_type: EventType::CheckoutExpired,
        subject: format!("checkouts/{checkout_id}"),
        campaign_id: checkout.campaign_id,
        partner_client_id: checkout.partner_client_id,
        data: json!({
            "checkout_id": checkout_id,
            "status": CheckoutStatus::EXPIRE.to(),
            "reason": reason,
        }),
    })
    .await?;
    release(state, tx, checkout, lines).await?;
    Ok(true)
}

/// Applies a payment's outcome; `false` when the payment was no longer open (already
/// settled, by this request's twin or the sweeper).
pub async fn settle_payment(
    state: &Commerce,
    payment_id: Uuid,
    outcome: PaymentOutcome,
) -> Result<bool> {
    let Some(payment) = state.store.payment(payment_id).await? else {
        return Ok(false);
    };
    if payment.status != PaymentStatus::Open {
        return Ok(false);
    }
    // A paid order's second payment: a dearer day's difference, whose outcome moves the visit
    // or gives its held places back.
    if let Some(pending) = state.store.pending_rebooking(payment_id).await? {
        let outcome = outcome.transition();
        return crate::after_sale::rebook_payment::settle(state, &payment, pending, outcome).await;
    }
    let order = state
        .store
        .order(payment.customer_order_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("payment {payment_id} has no order"))?;
    let checkout = state
        .store
        .checkout(order.checkout_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("order {} has no checkout", order.customer_order_id))?;
    let lines = state.store.checkout_lines(checkout.checkout_id).await?;
    let campaign = state
        .store
        .campaign(checkout.campaign_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("checkout {} has no campaign", checkout.checkout_id))?;
    let products = line_products(state, &lines).await?;
    let merchant = state
        .catalog
        .definitions
        .merchant(state.store.as_ref(), checkout.merchant_id)
        .await?;
    let terms = line_terms(merchant.as_ref(), &products, &campaign, &checkout.currency);

    let mut tx = state.store.begin_checkout().await?;
    if !tx.settle_payment(payment_id, outcome.transition()).await? {
        return Ok(false);
    }
    let order_id = order.customer_order_id;
    if outcome == PaymentOutcome::Paid {
        tx.transition_order(order_id, OrderStatus::PAY).await?;
        tx.transition_checkout(checkout.checkout_id, CheckoutStatus::PAY, None)
            .await?;
        let mut tickets = issue_tickets(order_id, &checkout, &lines, &products);
        // What each line splits into and its `sale` entry, booked with the payment
        // (docs/settlement.md); each ticket carries its part, which its refund takes back.
        let sale = crate::settlement::book::sale(
            &crate::settlement::book::Context::of(&order, &checkout, Utc::now()),
            &lines,
            &terms,
            &mut tickets,
        )?;
        tx.insert_tickets(&tickets).await?;
        // The after-sale policy and the money of each line, frozen with the payment.
        tx.freeze_lines(&frozen_lines(&lines, &products, sale.lines))
            .await?;
        tx.book(&sale.entries).await?;
        // The ticket mail commits with the payment (the outbox): sent by
        // `tickets::delivery`, exactly one per order (a unique index), also after a crash.
        tx.write_ticket_mail(order_id, &crate::tickets::TicketPageKey::new_nonce())
            .await?;
        let points = (order.total * campaign.loyalty_points_per_unit)
            .floor()
            .to_i64()
            .unwrap_or(0);
        let mut balance = None;
        if let (Some(customer), true) = (order.customer_id, points > 0) {
            let description = format!("Order {}", order.display_id);
            balance = Some(
                tx.add_loyalty_entry(
                    customer,
                    checkout.campaign_id,
                    Some(order_id),
                    LoyaltyKind::Earn,
                    points,
                    &description,
                )
                .await?,
            );
        }
        let paid = json!({
            "total": app::wire::Money::new(order.total, order.currency.clone()),
            "tickets": tickets.len(),
            "loyalty_points": if balance.is_some() { points } else { 0 },
        });
        tx.insert_event(&settled(
            EventType::OrderPaid,
            OrderStatus::PAY.to(),
            &checkout,
            &order,
            payment_id,
            paid,
        ))
        .await?;
        tx.commit().await?;
        fulfil(state, order_id).await?;
    } else {
        tx.transition_order(order_id, OrderStatus::CANCEL).await?;
        let reason = json!({ "reason": outcome.transition().to() });
        tx.insert_event(&settled(
            EventType::OrderCancelled,
            OrderStatus::CANCEL.to(),
            &checkout,
            &order,
            payment_id,
            reason,
        ))
        .await?;
        if tx
            .transition_checkout(checkout.checkout_id, CheckoutStatus::CANCEL, None)
            .await?
        {
            release(state, tx.as_mut(), &checkout, &lines).await?;
        }
        tx.commit().await?;
        state.catalog.capacity_changed();
    }
    Ok(true)
}

/// The event of an order its payment settled (`status` PAID or CANCELLED), for the checkout's
/// partner: the order's references, then `details` particular to the outcome.
fn settled(
    event_type: EventType,
    status: OrderStatus,
    checkout: &CheckoutRecord,
    order: &OrderRecord,
    payment_id: Uuid,
    details: serde_json::Value,
) -> NewEvent {
    let mut data = json!({
        "order_id": order.customer_order_id,
        "order_display_id": order.display_id,
        "checkout_id": checkout.checkout_id,
        "payment_id": payment_id,
        "status": status,
        "attribution": checkout.attribution.as_deref(),
    });
    if let (Some(data), serde_json::Value::Object(details)) = (data.as_object_mut(), details) {
        data.extend(details);
    }
    NewEvent {
        event_type,
        subject: format!("orders/{}", order.customer_order_id),
        campaign_id: checkout.campaign_id,
        partner_client_id: checkout.partner_client_id,
        data,
    }
}

/// Tells the provider a paid order is final and marks it FULFILLED; a failure leaves it PAID
/// for the sweeper to try again.
pub async fn fulfil(state: &Commerce, order_id: Uuid) -> Result<()> {
    let Some(order) = state.store.order(order_id).await? else {
        return Ok(());
    };
    if order.status != OrderStatus::FULFIL.from() {
        return Ok(());
    }
    let Some(checkout) = state.store.checkout(order.checkout_id).await? else {
        return Ok(());
    };
    let lines = state.store.checkout_lines(checkout.checkout_id).await?;
    let Some(provider) = state.fulfillment.get(&checkout.provider) else {
        tracing::warn!(provider = %checkout.provider, %order_id, "no fulfilment provider for a paid order");
        return Ok(());
    };
    if let Err(err) = provider.confirm(&booking_of(&checkout, &lines)).await {
        tracing::warn!(error = %err, %order_id, "confirming the fulfilment failed; will retry");
        return Ok(());
    }
    let mut tx = state.store.begin_checkout().await?;
    tx.transition_order(order_id, OrderStatus::FULFIL).await?;
    tx.commit().await?;
    Ok(())
}

/// Each line's product as it is when the order is paid (`None`: deleted since).
async fn line_products(
    state: &Commerce,
    lines: &[CheckoutLineRecord],
) -> Result<Vec<Option<crate::store::Product>>> {
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        out.push(state.store.product(line.product_id).await?);
    }
    Ok(out)
}

/// The settlement terms each line is sold under (`settlement::terms::terms_of`); a line
/// whose product or merchant is gone since splits into payout alone.
fn line_terms(
    merchant: Option<&crate::store::Merchant>,
    products: &[Option<crate::store::Product>],
    campaign: &crate::store::Campaign,
    currency: &str,
) -> Vec<crate::settlement::Terms> {
    products
        .iter()
        .map(|product| match (merchant, product) {
            (Some(merchant), Some(product)) => {
                crate::settlement::terms::terms_of(merchant, product, campaign, currency)
            }
            _ => crate::settlement::Terms::default(),
        })
        .collect()
}

/// What each line keeps from its payment: its after-sale policy (when its product is still
/// there) and its `money` (`settlement::book::Sale::lines`).
fn frozen_lines(
    lines: &[CheckoutLineRecord],
    products: &[Option<crate::store::Product>],
    mut money: Vec<(Uuid, serde_json::Value)>,
) -> Vec<crate::store::FrozenLine> {
    lines
        .iter()
        .zip(products)
        .map(|(line, product)| {
            let after_sale = product.as_ref().and_then(|product| {
                serde_json::to_value(crate::after_sale::Frozen::of(
                    product.after_sale.as_ref().map(|p| &p.0),
                    product.physical_product,
                    product.no_date,
                ))
                .ok()
            });
            let money = money
                .iter()
                .position(|(id, _)| *id == line.checkout_line_id)
                .map(|at| money.swap_remove(at).1);
            crate::store::FrozenLine {
                checkout_line_id: line.checkout_line_id,
                after_sale,
                money,
            }
        })
        .collect()
}

/// One ticket per unit, each with a unique code (`XXXX-XXXX-XXXX`, 60 random bits; the
/// unique index is the backstop), its last valid day (the product's validity date when it has
/// one, else the visit date) and its share of what was paid after vouchers and wallet
/// (`after_sale::allocate`, by price), which its refund is computed from, and its holder's
/// answers to the per-ticket questions.
fn issue_tickets(
    order_id: Uuid,
    checkout: &CheckoutRecord,
    lines: &[CheckoutLineRecord],
    products: &[Option<crate::store::Product>],
) -> Vec<NewTicket> {
    let units: Vec<(usize, u32, rust_decimal::Decimal)> = lines
        .iter()
        .enumerate()
        .flat_map(|(i, line)| {
            let price = crate::after_sale::facts::OrderFacts::price_of(line);
            let quantity = u32::try_from(line.quantity).unwrap_or(0);
            (0..quantity).map(move |n| (i, n, price))
        })
        .collect();
    let weights: Vec<_> = units.iter().map(|(_, _, price)| *price).collect();
    let shares =
        crate::after_sale::allocate::allocate(checkout.total + checkout.wallet_applied, &weights);
    units
        .iter()
        .zip(shares)
        .map(|((i, n, _), paid_share)| {
            let line = &lines[*i];
            let valid_until = products[*i]
                .as_ref()
                .and_then(|p| p.ticket_validity_date)
                .or(line.visit_date)
                .or(Some(checkout.visit_date));
            let code = crockford(12);
            NewTicket {
                ticket_id: crate::ids::random_id(),
                order_id,
                checkout_line_id: line.checkout_line_id,
                product_id: line.product_id,
                code: format!("{}-{}-{}", &code[..4], &code[4..8], &code[8..]),
                visit_date: line.visit_date,
                timeslot_id: line.timeslot_id,
                valid_until,
                paid_share,
                money: None,
                answers: crate::checkout::answers::of_ticket(
                    checkout.answers(),
                    line.product_id,
                    *n,
                ),
            }
        })
        .collect()
}
