//! Orders as the customer sees them: items, and tickets once paid.

use app::wire::{Money, Order, OrderItem, Ticket};
use uuid::Uuid;

use super::view::windows;
use crate::{
    error::Result,
    store::{OrderRecord, Store},
};

/// The wire form of `orders`, with their lines and tickets read in two queries.
pub async fn order_views(store: &dyn Store, orders: &[OrderRecord]) -> Result<Vec<Order>> {
    let ids: Vec<Uuid> = orders.iter().map(|o| o.customer_order_id).collect();
    let lines = store.lines_of_orders(&ids).await?;
    let tickets = store.tickets_of_orders(&ids).await?;
    let mut out = Vec::with_capacity(orders.len());
    for order in orders {
        let money = |v| Money::new(v, order.currency.clone());
        let own_lines: Vec<_> = lines
            .iter()
            .filter(|(id, _)| *id == order.customer_order_id)
            .map(|(_, l)| l)
            .collect();
        let own_tickets: Vec<_> = tickets
            .iter()
            .filter(|t| t.customer_order_id == order.customer_order_id)
            .collect();
        let slot_ids: Vec<Uuid> = own_tickets.iter().filter_map(|t| t.timeslot_id).collect();
        let slots = windows(store, order.merchant_id, &slot_ids).await?;
        out.push(Order {
            order_id: order.customer_order_id,
            order_display_id: order.display_id.clone(),
            checkout_id: order.checkout_id,
            status: order.status,
            merchant_id: order.merchant_id,
            visit_date: order.visit_date,
            total: money(order.total),
            items: own_lines
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
            tickets: own_tickets
                .iter()
                .map(|t| {
                    let line = own_lines
                        .iter()
                        .find(|l| l.checkout_line_id == t.checkout_line_id);
                    Ticket {
                        ticket_id: t.ticket_id,
                        code: t.code.clone(),
                        product_title: line.map(|l| l.title.clone()).unwrap_or_default(),
                        age_group: line.and_then(|l| l.age_group.clone()),
                        visit_date: t.visit_date,
                        timeslot: t
                            .timeslot_id
                            .and_then(|id| slots.iter().find(|w| w.timeslot_id == id).cloned()),
                        valid_until: t.valid_until,
                        status: t.status,
                    }
                })
                .collect(),
            attribution: order.attribution.as_ref().map(|a| a.0.clone()),
            created_at: order.created_at,
            last_mutation_date: order.last_mutation_date,
        });
    }
    Ok(out)
}
