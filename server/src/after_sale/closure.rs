//! The merchant's bad day (docs/operator-catalog.md, "Cancelling a day"): a day of a product
//! (its availability group's day) or one of its slots is closed for sale, then every order
//! with valid tickets on it is cancelled with a full refund, its customer mailed and its
//! partner told (`orders.TicketsCancelled`, reason `MERCHANT_CLOSED`).
//!
//! The closure commits first, so no place on it can be sold while the orders are cancelled;
//! each order is then cancelled in its own transaction with its refund, mail and event. A
//! failure part-way leaves the rest valid and the day closed: asking again cancels what is
//! left (an order already cancelled has nothing valid on the day).

use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::{
    change::{cancel, Cancellation, Changed},
    terms::Percent,
    Reason,
};
use crate::{
    checkout::Commerce,
    error::{Error, ProblemType, Result},
};

/// What a closure did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct Closed {
    /// Orders whose tickets on the day (or slot) were cancelled now.
    pub orders_cancelled: u32,
    /// Refunds made for them.
    pub refunds: u32,
}

/// Closes `day` of `product_id` (or its slot `timeslot_id`) and cancels the orders on it.
pub async fn close(
    state: &Commerce,
    product_id: Uuid,
    day: NaiveDate,
    timeslot_id: Option<Uuid>,
    now: DateTime<Utc>,
) -> Result<Closed> {
    let store = state.store.as_ref();
    let product = store.product(product_id).await?.ok_or_else(|| {
        Error::new(
            ProblemType::ProductNotFound,
            format!("Product {product_id} was not found."),
        )
    })?;
    if let Some(slot_id) = timeslot_id {
        let slot = store.timeslots_by_id(&[slot_id]).await?.into_iter().next();
        if !slot.is_some_and(|s| {
            s.availability_group_id == product.availability_group_id && s.day == day
        }) {
            return Err(Error::invalid_field(
                "timeslot_id",
                "unknown",
                format!("timeslot {slot_id} is not a slot of this product on {day}"),
            ));
        }
    }
    let mut tx = store.begin_checkout().await?;
    tx.close_places(product.availability_group_id, day, timeslot_id)
        .await?;
    tx.commit().await?;
    state.catalog.capacity_changed();

    let mut closed = Closed::default();
    for order_id in store
        .orders_with_tickets_on(product_id, day, timeslot_id)
        .await?
    {
        let Some(order) = store.order(order_id).await? else {
            continue;
        };
        let tickets: Vec<Uuid> = store
            .tickets_of_orders(&[order_id])
            .await?
            .into_iter()
            .filter(|t| {
                t.product_id == product_id
                    && t.visit_date == Some(day)
                    && t.status == app::wire::TicketStatus::Valid
                    && (timeslot_id.is_none() || t.timeslot_id == timeslot_id)
            })
            .map(|t| t.ticket_id)
            .collect();
        if tickets.is_empty() {
            continue;
        }
        let change = Cancellation {
            ticket_ids: Some(tickets),
            reason: Reason::MerchantClosed,
            percent: Percent::Full,
            note: None,
        };
        match cancel(state, order, change, None, now).await {
            Ok(Changed::Done { refunded, .. }) => {
                closed.orders_cancelled += 1;
                closed.refunds += u32::from(refunded);
            }
            // A cancellation awaits no payment.
            Ok(Changed::Replayed(_) | Changed::AwaitsPayment(_)) => {}
            Err(err) => {
                tracing::warn!(%order_id, error = ?err, "cancelling an order of a closed day failed; closing the day again cancels what is left");
            }
        }
    }
    Ok(closed)
}
