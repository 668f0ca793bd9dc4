//! A stored checkout as the API shows it.

use app::wire::{
    AppliedVoucher, Checkout, CheckoutLine, CheckoutTotals, Money, PaymentStatus, PaymentSummary,
    TimeslotWindow,
};
use chrono_tz::Tz;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::Commerce;
use crate::{
    error::Result,
    store::{CheckoutRecord, Store, Timeslot},
    time::in_zone,
};

pub fn window(slot: &Timeslot, zone: Tz) -> TimeslotWindow {
    TimeslotWindow {
        timeslot_id: slot.timeslot_id,
        start_time: in_zone(slot.start_time, zone),
        end_time: in_zone(slot.end_time, zone),
    }
}

/// The entry windows of `ids`, in the zone of the merchant.
pub async fn windows(
    store: &dyn Store,
    merchant_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<TimeslotWindow>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let zone = match store.merchant(merchant_id).await? {
        Some(m) => m.zone()?,
        None => chrono_tz::UTC,
    };
    Ok(store
        .timeslots_by_id(ids)
        .await?
        .iter()
        .map(|s| window(s, zone))
        .collect())
}

pub async fn checkout_view(state: &Commerce, c: &CheckoutRecord) -> Result<Checkout> {
    let lines = state.store.checkout_lines(c.checkout_id).await?;
    let vouchers = state.store.checkout_vouchers(c.checkout_id).await?;
    let order = state.store.order_of_checkout(c.checkout_id).await?;
    let payment = match &order {
        Some(o) => state.store.payment_of_order(o.customer_order_id).await?,
        None => None,
    };
    let slot_ids: Vec<Uuid> = lines.iter().filter_map(|l| l.timeslot_id).collect();
    let slots = windows(state.store.as_ref(), c.merchant_id, &slot_ids).await?;
    let money = |v: Decimal| Money::new(v, c.currency.clone());
    // Asked in the checkout's language, and numbered by the lines as listed here.
    let basket = super::answers::basket_of(state, &lines).await?;
    let questions = super::answers::questions(
        &super::answers::lines(&basket),
        c.locale.parse().unwrap_or_default(),
    );
    let products: Vec<Uuid> = lines.iter().map(|l| l.product_id).collect();
    let voucher_total: Decimal = vouchers.iter().map(|v| v.discount).sum();
    Ok(Checkout {
        checkout_id: c.checkout_id,
        status: c.status,
        campaign_id: c.campaign_id,
        merchant_id: c.merchant_id,
        visit_date: c.visit_date,
        flexible_date: c.flexible_date,
        lines: lines
            .iter()
            .map(|l| CheckoutLine {
                product_id: l.product_id,
                sku: l.sku.clone(),
                title: l.title.clone(),
                age_group: l.age_group.clone(),
                quantity: u32::try_from(l.quantity).unwrap_or(0),
                unit_price: money(l.unit_price),
                list_price: money(l.list_price),
                booking_costs: money(l.booking_costs),
                visit_guarantee_cost: money(l.visit_guarantee_cost),
                line_total: money(l.line_total),
                timeslot: l
                    .timeslot_id
                    .and_then(|id| slots.iter().find(|w| w.timeslot_id == id).cloned()),
            })
            .collect(),
        vouchers: vouchers
            .iter()
            .map(|v| AppliedVoucher {
                code: v.code.clone(),
                discount: money(v.discount),
            })
            .collect(),
        totals: CheckoutTotals {
            subtotal: money(c.subtotal),
            discount_total: money(c.discount_total),
            membership_discount: money((c.discount_total - voucher_total).max(Decimal::ZERO)),
            wallet_applied: money(c.wallet_applied),
            total: money(c.total),
        },
        requires_shipping_address: c.requires_shipping_address,
        expires_at: c.expires_at,
        hold_extended_at: c.hold_extended_at,
        attribution: c.attribution.as_ref().map(|a| a.0.clone()),
        external_reference: c.external_reference.clone(),
        order_id: order.as_ref().map(|o| o.customer_order_id),
        order_display_id: order.as_ref().map(|o| o.display_id.clone()),
        order_status: order.as_ref().map(|o| o.status),
        payment: payment.map(|p| PaymentSummary {
            payment_id: p.payment_id,
            payment_url: (p.status == PaymentStatus::Open)
                .then_some(p.payment_url)
                .flatten(),
            status: p.status,
        }),
        created_at: c.created_at,
        questions,
        answers: c.answers().iter().map(|a| a.as_sent(&products)).collect(),
    })
}
