//! A booking in OCTO's shape, read from what it is: its checkout, and once confirmed its order
//! and tickets (`after_sale::page::order_read`, the partner API's read). The status follows
//! them: ON_HOLD while reserved, EXPIRED when the hold or the payment ran out, CONFIRMED once
//! paid, CANCELLED when every ticket is cancelled (not moved), REDEEMED when every valid one
//! was let in at a gate. A unit item is a ticket once issued (its id the item's uuid, its
//! signed QR token the delivery value; a cancelled ticket only on a cancelled booking);
//! before, one per place held, under the reseller's uuids.

use app::wire::{CheckoutStatus, Order, OrderStatus, TicketStatus};
use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{json, Value};

use super::{
    availability::availability_id,
    catalog::{minor, unit_id, OPTION_ID},
    reseller::{Reseller, PRICING},
};
use crate::{
    store::{CheckoutLineRecord, CheckoutRecord, OctoBooking, OctoContact, Product},
    time::{day_start, in_zone},
};

fn utc(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Secs, true)
}

/// Everything a booking is read from.
pub struct Parts<'a> {
    pub booking: &'a OctoBooking,
    pub checkout: &'a CheckoutRecord,
    pub line: &'a CheckoutLineRecord,
    pub product: &'a Product,
    /// The order with its tickets and what it allows now, once placed.
    pub order: Option<&'a Order>,
    /// The start of the visit's timeslot, when it has one.
    pub slot_start: Option<DateTime<Utc>>,
    pub test_mode: bool,
    /// One ticket's OCTO pricing, when `octo/pricing` was asked for.
    pub unit_pricing: Option<Value>,
    /// The order's Apple Wallet passes (`tickets::apple_passes_url`), when configured.
    pub passes_url: Option<String>,
}

/// `pricing` (of one unit) times `quantity`: every amount in minor units, so exact.
fn times(pricing: &Value, quantity: i64) -> Value {
    let mut total = pricing.clone();
    let scale = |v: &Value| v.as_i64().map_or(Value::Null, |n| json!(n * quantity));
    for key in ["original", "retail", "net"] {
        total[key] = scale(&pricing[key]);
    }
    if let Some(taxes) = total["includedTaxes"].as_array_mut() {
        for tax in taxes {
            for key in ["original", "retail", "net"] {
                tax[key] = scale(&tax[key]);
            }
        }
    }
    total
}

fn contact(c: &OctoContact) -> Value {
    json!({
        "fullName": c.full_name.clone().or_else(|| match (&c.first_name, &c.last_name) {
            (Some(f), Some(l)) => Some(format!("{f} {l}")),
            _ => None,
        }),
        "firstName": c.first_name,
        "lastName": c.last_name,
        "emailAddress": c.email_address,
        "phoneNumber": c.phone_number,
        "locales": c.locales,
        "postalCode": c.postal_code,
        "country": c.country,
        "notes": c.notes,
    })
}

/// The booking's status and, once it ended, when.
fn status(p: &Parts) -> &'static str {
    if p.booking.cancelled_at.is_some() && p.order.is_none() {
        return "CANCELLED";
    }
    match (p.checkout.status, p.order) {
        (CheckoutStatus::Reserved, _) => "ON_HOLD",
        (CheckoutStatus::Expired, _) => "EXPIRED",
        (CheckoutStatus::Cancelled, _) => "CANCELLED",
        (_, Some(order)) => match order.status {
            OrderStatus::PendingPayment => "PENDING",
            OrderStatus::Cancelled => "CANCELLED",
            _ => {
                let standing: Vec<_> = order
                    .tickets
                    .iter()
                    .filter(|t| t.replaced_by.is_none())
                    .collect();
                if !standing.is_empty()
                    && standing.iter().all(|t| t.status == TicketStatus::Cancelled)
                {
                    "CANCELLED"
                } else if standing.iter().any(|t| t.status == TicketStatus::Used)
                    && standing.iter().all(|t| t.status != TicketStatus::Valid)
                {
                    "REDEEMED"
                } else {
                    "CONFIRMED"
                }
            }
        },
        (_, None) => "PENDING",
    }
}

/// How a ticket reaches the visitor: its QR code, and its Apple Wallet pass where the operator
/// configured Apple Wallet.
fn delivery_options(ticket: &app::wire::Ticket, passes_url: Option<&str>) -> Value {
    let mut options =
        vec![json!({ "deliveryFormat": "QRCODE", "deliveryValue": ticket.qr_content() })];
    if let Some(passes) = passes_url {
        options.push(json!({
            "deliveryFormat": "PKPASS_URL",
            "deliveryValue": format!("{passes}&ticket={}", ticket.ticket_id),
        }));
    }
    Value::Array(options)
}

/// The booking as OCTO shows it.
pub fn booking(r: &Reseller, p: &Parts) -> Value {
    let zone = r.merchant.zone().unwrap_or(chrono_tz::UTC);
    let status = status(p);
    let c = p.booking.contact();
    let contact = contact(&c);
    let mut tickets: Vec<&app::wire::Ticket> = p
        .order
        .map(|o| {
            o.tickets
                .iter()
                .filter(|t| t.replaced_by.is_none())
                .collect()
        })
        .unwrap_or_default();
    // Units dropped from a booking that goes on (`update`) are no longer its units; a
    // cancelled booking shows them all, cancelled.
    if status != "CANCELLED" {
        tickets.retain(|t| t.status != TicketStatus::Cancelled);
    }
    // Where the tickets are now (a date change moved them); before there are any, where the
    // checkout holds its places.
    let ticketed = tickets
        .first()
        .filter(|_| !p.product.no_date)
        .and_then(|t| {
            t.timeslot
                .as_ref()
                .map(|w| w.start_time.with_timezone(&chrono::Utc))
                .or_else(|| t.visit_date.and_then(|day| day_start(zone, day)))
        });
    let start = ticketed.or(p.slot_start).or_else(|| {
        (!p.product.no_date)
            .then(|| day_start(zone, p.checkout.visit_date))
            .flatten()
    });
    let redeemed_at = tickets.iter().filter_map(|t| t.redeemed_at).max();
    let unit = unit_id(p.product);
    let item_status = |t: &app::wire::Ticket| match t.status {
        TicketStatus::Valid => "CONFIRMED",
        TicketStatus::Used => "REDEEMED",
        TicketStatus::Cancelled => "CANCELLED",
    };
    let unit_items: Vec<Value> = if tickets.is_empty() {
        let uuids = p
            .booking
            .unit_items
            .as_ref()
            .map(|u| u.0.clone())
            .unwrap_or_default();
        (0..p.line.quantity.max(0) as usize)
            .map(|i| {
                json!({
                    "uuid": uuids.get(i).copied().flatten(),
                    "resellerReference": null,
                    "supplierReference": null,
                    "unitId": unit,
                    "status": status,
                    "utcRedeemedAt": null,
                    "contact": contact,
                    "ticket": null,
                })
            })
            .collect()
    } else {
        tickets
            .iter()
            .map(|t| {
                json!({
                    "uuid": t.ticket_id,
                    "resellerReference": null,
                    "supplierReference": t.code,
                    "unitId": unit,
                    "status": item_status(t),
                    "utcRedeemedAt": t.redeemed_at.map(utc),
                    "contact": contact,
                    "ticket": {
                        "redemptionMethod": "DIGITAL",
                        "utcRedeemedAt": t.redeemed_at.map(utc),
                        "deliveryOptions": delivery_options(t, p.passes_url.as_deref()),
                    },
                })
            })
            .collect()
    };
    let cancellation = (status == "CANCELLED").then(|| {
        let refunded: i64 = p
            .order
            .map(|o| o.refunds.iter().map(|f| minor(f.amount.value)).sum())
            .unwrap_or(0);
        let paid = minor(p.checkout.total + p.checkout.wallet_applied);
        json!({
            "refund": if refunded <= 0 || paid == 0 { "NONE" } else if refunded >= paid { "FULL" } else { "PARTIAL" },
            "reason": null,
            "utcCancelledAt": utc(p.booking.cancelled_at.unwrap_or_else(|| p.order.map_or(p.checkout.updated_at, |o| o.last_mutation_date))),
        })
    });
    let cancellable = match status {
        "ON_HOLD" => true,
        "CONFIRMED" => p
            .order
            .and_then(|o| o.after_sale.as_ref())
            .is_some_and(|a| a.cancellable),
        _ => false,
    };
    let mut out = json!({
        "id": p.checkout.checkout_id,
        "uuid": p.booking.uuid,
        "testMode": p.test_mode,
        "resellerReference": p.booking.reseller_reference,
        "supplierReference": p.order.map(|o| o.order_display_id.clone()),
        "status": status,
        "utcCreatedAt": utc(p.booking.created_at),
        "utcUpdatedAt": utc(p.booking.updated_at.max(p.checkout.updated_at)),
        "utcExpiresAt": (status == "ON_HOLD").then(|| utc(p.checkout.expires_at)),
        "utcRedeemedAt": (status == "REDEEMED").then(|| redeemed_at.map(utc)).flatten(),
        "utcConfirmedAt": p.order.filter(|o| o.status.is_paid()).map(|o| utc(o.created_at)),
        "productId": p.product.product_id,
        "optionId": OPTION_ID,
        "cancellable": cancellable,
        "cancellation": cancellation,
        "freesale": false,
        "availabilityId": start.map(|s| availability_id(in_zone(s, zone))),
        "availability": null,
        "contact": contact,
        "notes": p.booking.notes,
        "deliveryMethods": ["TICKET"],
        "voucher": null,
        "unitItems": unit_items,
    });
    if let (true, Some(unit)) = (r.capabilities.has(PRICING), &p.unit_pricing) {
        let items = out["unitItems"].as_array().map_or(0, Vec::len);
        out["pricing"] = times(unit, i64::try_from(items).unwrap_or(0));
        if let Some(items) = out["unitItems"].as_array_mut() {
            for item in items {
                item["pricing"] = unit.clone();
            }
        }
    }
    out
}
