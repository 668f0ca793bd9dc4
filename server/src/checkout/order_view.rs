//! Orders as the customer and the partner see them: items, tickets once paid, refunds, and
//! (read one at a time) what the order allows now (`after_sale::quote`).

use app::wire::{Money, Order, OrderItem, OrderRefund, TimeslotWindow};
use uuid::Uuid;

use super::view::windows;
use crate::{
    error::Result,
    store::{CheckoutLineRecord, OrderRecord, RefundRecord, Store, TicketRecord},
};

/// The wire form of `orders`, with their lines, tickets and refunds read in a few queries.
/// `after_sale` is left out: it changes with the clock (`after_sale::facts::order_now`).
pub async fn order_views(store: &dyn Store, orders: &[OrderRecord]) -> Result<Vec<Order>> {
    let ids: Vec<Uuid> = orders.iter().map(|o| o.customer_order_id).collect();
    let lines = store.lines_of_orders(&ids).await?;
    let tickets = store.tickets_of_orders(&ids).await?;
    let refunds = store.refunds_of_orders(&ids).await?;
    let mut out = Vec::with_capacity(orders.len());
    for order in orders {
        let id = order.customer_order_id;
        let own_lines: Vec<CheckoutLineRecord> = lines
            .iter()
            .filter(|(o, _)| *o == id)
            .map(|(_, l)| l.clone())
            .collect();
        let own_tickets: Vec<TicketRecord> = tickets
            .iter()
            .filter(|t| t.customer_order_id == id)
            .cloned()
            .collect();
        let own_refunds: Vec<RefundRecord> = refunds
            .iter()
            .filter(|r| r.customer_order_id == id)
            .cloned()
            .collect();
        let slot_ids: Vec<Uuid> = own_tickets.iter().filter_map(|t| t.timeslot_id).collect();
        let slots = windows(store, order.merchant_id, &slot_ids).await?;
        out.push(build(order, &own_lines, &own_tickets, &own_refunds, &slots));
    }
    Ok(out)
}

/// One order on the wire from what is stored of it.
pub fn build(
    order: &OrderRecord,
    lines: &[CheckoutLineRecord],
    tickets: &[TicketRecord],
    refunds: &[RefundRecord],
    slots: &[TimeslotWindow],
) -> Order {
    let money = |v| Money::new(v, order.currency.clone());
    let locale = order.locale();
    Order {
        order_id: order.customer_order_id,
        order_display_id: order.display_id.clone(),
        checkout_id: order.checkout_id,
        status: order.status,
        merchant_id: order.merchant_id,
        visit_date: order.visit_date,
        total: money(order.total),
        items: lines
            .iter()
            .map(|l| OrderItem {
                product_id: l.product_id,
                sku: l.sku.clone(),
                title: l.title.clone(),
                age_group: l.age_group.clone(),
                quantity: u32::try_from(l.quantity).unwrap_or(0),
                line_total: money(l.line_total),
            })
            .collect(),
        tickets: tickets
            .iter()
            .map(|t| {
                let line = lines
                    .iter()
                    .find(|l| l.checkout_line_id == t.checkout_line_id);
                app::wire::Ticket {
                    ticket_id: t.ticket_id,
                    code: t.code.clone(),
                    qr: None,
                    product_id: t.product_id,
                    product_title: line.map(|l| l.title.clone()).unwrap_or_default(),
                    age_group: line.and_then(|l| l.age_group.clone()),
                    visit_date: t.visit_date,
                    timeslot: t
                        .timeslot_id
                        .and_then(|id| slots.iter().find(|w| w.timeslot_id == id).cloned()),
                    valid_until: t.valid_until,
                    status: t.status,
                    redeemed_at: t.redeemed_at,
                    replaced_by: t.replaced_by,
                    answers: t
                        .answers
                        .as_ref()
                        .map(|a| super::answers::given(&a.0, locale))
                        .unwrap_or_default(),
                }
            })
            .collect(),
        attribution: order.attribution.as_ref().map(|a| a.0.clone()),
        created_at: order.created_at,
        last_mutation_date: order.last_mutation_date,
        after_sale: None,
        manage_url: None,
        refunds: refunds.iter().filter_map(wire_refund).collect(),
        answers: order
            .answers
            .as_ref()
            .map(|a| super::answers::given(&super::answers::of_booking(&a.0), locale))
            .unwrap_or_default(),
    }
}

/// A refund of tickets as the order shows it; a late payment's (no tickets: its order never
/// had any) is the operator's to read.
pub fn wire_refund(r: &RefundRecord) -> Option<OrderRefund> {
    if r.ticket_ids.0.is_empty() {
        return None;
    }
    let money = |v| Money::new(v, r.currency.clone());
    Some(OrderRefund {
        refund_id: r.refund_id,
        ticket_ids: r.ticket_ids.0.clone(),
        amount: money(r.amount + r.to_wallet),
        to_wallet: money(r.to_wallet),
        to_provider: money(r.amount),
        status: r.status.clone(),
        created_at: r.created_at,
    })
}
