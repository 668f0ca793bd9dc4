//! Everything the ticket mail, the ticket page and the calendar file show of one paid order,
//! read once: the order as the customer's API shows it (tickets, totals), its merchant, the
//! language and address of its checkout, and the products' conditions.

use app::wire::{Locale, Order};
use uuid::Uuid;

use super::Tickets;
use crate::{checkout::order_view::order_views, error::Result, store::Merchant};

/// A paid order with what its documents show.
#[derive(Debug, Clone)]
pub struct OrderDoc {
    pub order: Order,
    /// The language the checkout was made in (its request's `Accept-Language`, which the frame
    /// sets to the customer's chosen language).
    pub locale: Locale,
    pub merchant: Merchant,
    pub zone: chrono_tz::Tz,
    /// The checkout's e-mail address, else the signed-in customer's.
    pub recipient: Option<String>,
    /// Each product's title and conditions in the order's language, once per product.
    pub conditions: Vec<(String, String)>,
    /// The VAT in what the order's tickets cost now, per rate (docs/settlement.md).
    pub vat: Vec<app::wire::VatRow>,
}

impl OrderDoc {
    /// The order's name in the order's language, for subjects and summaries.
    pub fn merchant_name(&self) -> &str {
        self.merchant.localized(self.locale).name
    }

    /// One line of the merchant's address.
    pub fn address(&self) -> String {
        let a = &self.merchant.address;
        format!("{}, {} {}, {}", a.street, a.postal_code, a.city, a.country)
    }

    /// The frame's formatting locale for the order's language (`app::format`).
    pub fn format_locale(&self) -> app::i18n::Locale {
        self.locale.tag().parse().unwrap_or_default()
    }
}

/// The documents' view of `order_id`, when it is a paid (or fulfilled) order, with its
/// valid and used tickets (a cancelled ticket is in no document but its cancellation mail).
pub async fn load(state: &Tickets, order_id: Uuid) -> Result<Option<OrderDoc>> {
    let doc = load_any(state, order_id).await?;
    Ok(doc.filter(|d| d.order.status.is_paid()).map(|mut d| {
        d.order
            .tickets
            .retain(|t| t.status != app::wire::TicketStatus::Cancelled);
        d
    }))
}

/// The documents' view of `order_id` with every ticket it ever had, paid or not (the mails
/// about a change after the sale also speak of an order all of whose tickets were cancelled).
pub async fn load_any(state: &Tickets, order_id: Uuid) -> Result<Option<OrderDoc>> {
    let Some(record) = state.store.order(order_id).await? else {
        return Ok(None);
    };
    let Some(checkout) = state.store.checkout(record.checkout_id).await? else {
        return Ok(None);
    };
    let Some(merchant) = state.store.merchant(record.merchant_id).await? else {
        return Ok(None);
    };
    let locale: Locale = checkout.locale.parse().unwrap_or_default();
    let zone = merchant.zone()?;
    let mut recipient = checkout.email.clone().filter(|e| !e.is_empty());
    if let (None, Some(customer)) = (&recipient, record.customer_id) {
        recipient = state
            .store
            .customer(customer)
            .await?
            .and_then(|c| c.email)
            .filter(|e| !e.is_empty());
    }
    let mut views = order_views(state.store.as_ref(), std::slice::from_ref(&record)).await?;
    let mut order = views.remove(0);
    crate::gate::code::attach(&state.tokens, zone, &mut order)?;
    let mut conditions: Vec<(String, String)> = Vec::new();
    let mut seen: Vec<Uuid> = Vec::new();
    for item in &order.items {
        if seen.contains(&item.product_id) {
            continue;
        }
        seen.push(item.product_id);
        if let Some(product) = state.store.product(item.product_id).await? {
            let text = product.localized(locale).conditions.trim().to_owned();
            if !text.is_empty() {
                conditions.push((item.title.clone(), text));
            }
        }
    }
    let entries = state
        .store
        .ledger_entries_of_order(record.customer_order_id)
        .await?;
    Ok(Some(OrderDoc {
        order,
        locale,
        merchant,
        zone,
        recipient,
        conditions,
        vat: crate::settlement::vat::of_entries(&entries),
    }))
}
