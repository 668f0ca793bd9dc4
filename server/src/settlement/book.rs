//! The ledger entries a sale, a refund and a date change book (docs/settlement.md, "The
//! ledger"), one per order line and cause, from the parts each ticket carries: a ticket's
//! refund takes back its own parts, so everything taken back over any history is exactly
//! what was sold.

use std::collections::BTreeMap;

use app::wire::EntryKind;
use chrono::{DateTime, Utc};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::{
    split::{part, per_ticket, split, LineMoney},
    Parts, Terms,
};
use crate::store::{
    CheckoutLineRecord, CheckoutRecord, NewLedgerEntry, NewTicket, OrderRecord, TicketRecord,
};

/// Who an order's entries belong to.
#[derive(Debug, Clone)]
pub struct Context {
    pub order_id: Uuid,
    pub order_display_id: String,
    pub campaign_id: Uuid,
    pub partner_client_id: Option<Uuid>,
    pub merchant_id: Uuid,
    pub currency: String,
    pub booked_at: DateTime<Utc>,
}

impl Context {
    pub fn of(order: &OrderRecord, checkout: &CheckoutRecord, now: DateTime<Utc>) -> Self {
        Self {
            order_id: order.customer_order_id,
            order_display_id: order.display_id.clone(),
            campaign_id: order.campaign_id,
            partner_client_id: checkout.partner_client_id,
            merchant_id: order.merchant_id,
            currency: order.currency.clone(),
            booked_at: now,
        }
    }

    fn entry(
        &self,
        kind: EntryKind,
        line: &CheckoutLineRecord,
        cause_id: Uuid,
        ticket_ids: Vec<Uuid>,
        parts: Parts,
    ) -> NewLedgerEntry {
        NewLedgerEntry {
            entry_id: crate::ids::time_ordered_id(),
            kind,
            booked_at: self.booked_at,
            order_id: self.order_id,
            order_display_id: self.order_display_id.clone(),
            checkout_line_id: line.checkout_line_id,
            cause_id,
            ticket_ids,
            sku: line.sku.clone(),
            product_id: line.product_id,
            merchant_id: self.merchant_id,
            campaign_id: self.campaign_id,
            partner_client_id: self.partner_client_id,
            currency: self.currency.clone(),
            parts,
        }
    }
}

/// What a payment books: each line's money (for `checkout_line.money`) and its `sale`
/// entry; each ticket gets its part of its line's. A line without tickets books nothing.
pub struct Sale {
    pub lines: Vec<(Uuid, serde_json::Value)>,
    pub entries: Vec<NewLedgerEntry>,
}

/// The sale of `lines` (each sold under the `terms` beside it) paid with `tickets`.
pub fn sale(
    ctx: &Context,
    lines: &[CheckoutLineRecord],
    terms: &[Terms],
    tickets: &mut [NewTicket],
) -> anyhow::Result<Sale> {
    let mut sale = Sale {
        lines: Vec::with_capacity(lines.len()),
        entries: Vec::with_capacity(lines.len()),
    };
    for (line, terms) in lines.iter().zip(terms) {
        let mine: Vec<&mut NewTicket> = tickets
            .iter_mut()
            .filter(|t| t.checkout_line_id == line.checkout_line_id)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let shares: Vec<Decimal> = mine.iter().map(|t| t.paid_share).collect();
        let parts = split(shares.iter().sum(), mine.len() as u32, terms);
        let ids = mine.iter().map(|t| t.ticket_id).collect();
        for (ticket, own) in mine.into_iter().zip(per_ticket(&parts, &shares)) {
            ticket.money = Some(own);
        }
        let money = LineMoney {
            terms: terms.clone(),
            parts: parts.clone(),
        };
        sale.lines
            .push((line.checkout_line_id, serde_json::to_value(money)?));
        sale.entries
            .push(ctx.entry(EntryKind::Sale, line, ctx.order_id, ids, parts));
    }
    Ok(sale)
}

/// The `refund` entries of giving back `amounts` (per ticket) of `tickets`, caused by the
/// refund `cause_id`: per line, each ticket's part taken back, negated. A ticket given back
/// nothing, or issued before settlement (no parts), books nothing.
pub fn refund(
    ctx: &Context,
    lines: &[CheckoutLineRecord],
    tickets: &[TicketRecord],
    amounts: &[(Uuid, Decimal)],
    cause_id: Uuid,
) -> Vec<NewLedgerEntry> {
    let mut per_line: BTreeMap<Uuid, (Vec<Uuid>, Parts)> = BTreeMap::new();
    for (ticket_id, amount) in amounts {
        let Some(ticket) = tickets.iter().find(|t| t.ticket_id == *ticket_id) else {
            continue;
        };
        let Some(own) = ticket.money.as_ref().map(|m| &m.0) else {
            continue;
        };
        if amount.is_zero() {
            continue;
        }
        let taken = part(own, (*amount).min(own.gross)).negated();
        let (ids, sum) = per_line.entry(ticket.checkout_line_id).or_default();
        ids.push(*ticket_id);
        sum.add(&taken);
    }
    entries(ctx, lines, EntryKind::Refund, cause_id, per_line)
}

/// A ticket's parts after a date change that makes its share `new_share`: a cheaper day takes
/// back its part of the difference, a dearer day's difference splits as a sale of no ticket
/// (a fixed commission or fee was taken with the ticket already).
pub fn moved(old: &Parts, new_share: Decimal, terms: &Terms) -> Parts {
    if new_share <= old.gross {
        old.plus(&part(old, old.gross - new_share).negated())
    } else {
        old.plus(&split(new_share - old.gross, 0, terms))
    }
}

/// The terms a line was sold under (none for a line sold before settlement).
pub fn terms_of_line(line: &CheckoutLineRecord) -> Option<&Terms> {
    line.money.as_ref().map(|m| &m.0.terms)
}

/// The `rebooking` entries of a date change (`cause_id`, the order change) that replaced each
/// old ticket by its new one: per line, the new tickets' parts less the old ones'. A move to
/// a day of the same price books nothing.
pub fn rebooking(
    ctx: &Context,
    lines: &[CheckoutLineRecord],
    moves: &[(&TicketRecord, &NewTicket)],
    cause_id: Uuid,
) -> Vec<NewLedgerEntry> {
    let mut per_line: BTreeMap<Uuid, (Vec<Uuid>, Parts)> = BTreeMap::new();
    for (old, new) in moves {
        let (Some(before), Some(after)) = (old.money.as_ref(), new.money.as_ref()) else {
            continue;
        };
        let (ids, sum) = per_line.entry(new.checkout_line_id).or_default();
        ids.push(new.ticket_id);
        sum.add(&after.plus(&before.0.negated()));
    }
    per_line.retain(|_, (_, sum)| {
        !(sum.gross.is_zero()
            && sum.tax.iter().all(|t| t.amount.is_zero())
            && sum.commission.is_zero()
            && sum.platform_fee.is_zero())
    });
    entries(ctx, lines, EntryKind::Rebooking, cause_id, per_line)
}

fn entries(
    ctx: &Context,
    lines: &[CheckoutLineRecord],
    kind: EntryKind,
    cause_id: Uuid,
    per_line: BTreeMap<Uuid, (Vec<Uuid>, Parts)>,
) -> Vec<NewLedgerEntry> {
    per_line
        .into_iter()
        .filter_map(|(line_id, (ids, parts))| {
            let line = lines.iter().find(|l| l.checkout_line_id == line_id)?;
            Some(ctx.entry(kind, line, cause_id, ids, parts))
        })
        .collect()
}
