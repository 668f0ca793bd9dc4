//! Invoices for business buyers (docs/settlement.md, "Invoices for business buyers"): an
//! order bought with a `buyer {company_name, vat_id}` has an EN 16931 invoice of its sale and
//! a credit note for each refund, read from its ledger entries, so their totals are the
//! ledger's to the cent. `cii` writes them as UN/CEFACT CII XML.
//!
//! A document is never stored: it is the same each time it is read, because the entries it is
//! made of are never changed and the number and date come from them. The invoice states the
//! sale (the `sale` entries, at the payment's date); each refund is a credit note of its own
//! (its `refund` entries, or, for a cheaper date change, the change's negative `rebooking`
//! entries), numbered after the invoice in the order the refunds were booked.

use std::collections::{BTreeMap, HashMap};

use app::wire::{Buyer, EntryKind, LedgerEntry};
use chrono::NaiveDate;
use rust_decimal::Decimal;
use uuid::Uuid;

use super::cents;
use crate::{
    error::{Error, ProblemType, Result},
    store::{Address, Merchant, OrderChangeRecord, OrderRecord, Store},
    validate::{is_country, Checks},
};

/// 400 naming each field of a business buyer that does not fit.
pub fn check_buyer(checks: &mut Checks, buyer: &Buyer) {
    checks.text("buyer.company_name", buyer.company_name.trim(), 1, 200);
    super::terms::check_vat_id(checks, "buyer.vat_id", &buyer.vat_id);
}

/// The buyer as stored: its name trimmed.
pub fn normalized(buyer: &Buyer) -> Buyer {
    Buyer {
        company_name: buyer.company_name.trim().to_owned(),
        vat_id: buyer.vat_id.clone(),
    }
}

/// The country a VAT id's prefix names: its two letters, but `EL` is Greece and `XI`
/// Northern Ireland (the United Kingdom); `None` for a prefix that is no country (`EU`, the
/// non-union scheme).
pub fn country_of_vat_id(vat_id: &str) -> Option<String> {
    let prefix = vat_id.get(..2)?;
    let country = match prefix {
        "EL" => "GR",
        "XI" => "GB",
        other => other,
    };
    is_country(country).then(|| country.to_owned())
}

/// A party a document names.
#[derive(Debug, Clone, PartialEq)]
pub struct Party {
    pub name: String,
    pub vat_id: String,
    pub address: Option<Address>,
    /// ISO 3166-1 alpha-2, when known (the address's, else the VAT id's).
    pub country: Option<String>,
}

/// An invoice, or a credit note correcting one.
#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Invoice,
    CreditNote {
        invoice_number: String,
        invoice_date: NaiveDate,
    },
}

/// One product's line: its tickets and their money, positive on either kind of document.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub sku: String,
    pub title: String,
    pub tickets: usize,
    pub net: Decimal,
    pub rate_percent: Decimal,
    pub tax: Decimal,
}

/// The VAT of one rate over a document's lines.
#[derive(Debug, Clone, PartialEq)]
pub struct VatTotal {
    pub rate_percent: Decimal,
    pub basis: Decimal,
    pub tax: Decimal,
}

/// An invoice or credit note, ready to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub number: String,
    pub kind: Kind,
    pub issued_on: NaiveDate,
    pub currency: String,
    pub seller: Party,
    pub buyer: Party,
    /// The visit day: when the service is delivered.
    pub delivered_on: NaiveDate,
    pub order_display_id: String,
    pub lines: Vec<Line>,
}

impl Document {
    /// The VAT per rate, lowest rate first: sums of the lines' own amounts, each rounded when
    /// it was booked, so the document's VAT is the ledger's.
    pub fn vat_totals(&self) -> Vec<VatTotal> {
        let mut rates: BTreeMap<Decimal, (Decimal, Decimal)> = BTreeMap::new();
        for line in &self.lines {
            let (basis, tax) = rates.entry(line.rate_percent.normalize()).or_default();
            *basis += line.net;
            *tax += line.tax;
        }
        rates
            .into_iter()
            .map(|(rate_percent, (basis, tax))| VatTotal {
                rate_percent,
                basis: cents(basis),
                tax: cents(tax),
            })
            .collect()
    }

    pub fn net_total(&self) -> Decimal {
        cents(self.lines.iter().map(|l| l.net).sum())
    }

    pub fn tax_total(&self) -> Decimal {
        cents(self.lines.iter().map(|l| l.tax).sum())
    }

    /// What the buyer paid (an invoice) or was given back (a credit note).
    pub fn gross_total(&self) -> Decimal {
        self.net_total() + self.tax_total()
    }
}

/// Which document of an order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Which {
    Invoice,
    /// The credit note of the refund with this id (as the order's `refunds` name it).
    CreditNote(Uuid),
}

/// The document `which` of `order`: 404 when the order was bought without a business buyer
/// or has no such refund, 409 while it is unpaid or when its merchant has not given what an
/// invoice must state (its VAT settings and VAT id).
pub async fn document(store: &dyn Store, order: &OrderRecord, which: Which) -> Result<Document> {
    let order_id = order.customer_order_id;
    let checkout = store
        .checkout(order.checkout_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("order {order_id} has no checkout"))?;
    let Some(buyer) = checkout.buyer.map(|b| b.0) else {
        return Err(Error::new(
            ProblemType::NotFound,
            format!(
                "Order {} was bought without a business buyer, so it has no invoice.",
                order.display_id
            ),
        ));
    };
    let entries = store.ledger_entries_of_order(order_id).await?;
    let sale: Vec<&LedgerEntry> = entries
        .iter()
        .filter(|e| e.kind == EntryKind::Sale)
        .collect();
    let Some(&first_sale) = sale.first() else {
        return Err(Error::new(
            ProblemType::Conflict,
            format!(
                "Order {} is {}; only a paid order has an invoice.",
                order.display_id, order.status
            ),
        ));
    };
    let merchant = store
        .merchant(order.merchant_id)
        .await?
        .ok_or_else(|| anyhow::anyhow!("order {order_id} has no merchant"))?;
    let zone = merchant.zone()?;
    let day = |entry: &LedgerEntry| entry.booked_at.with_timezone(&zone).date_naive();
    let seller = seller(&merchant, &entries)?;
    let buyer = Party {
        country: country_of_vat_id(&buyer.vat_id),
        name: buyer.company_name,
        vat_id: buyer.vat_id,
        address: None,
    };
    let titles: BTreeMap<Uuid, String> = store
        .checkout_lines(order.checkout_id)
        .await?
        .into_iter()
        .map(|l| (l.product_id, l.title))
        .collect();
    let invoice_date = day(first_sale);
    let (number, kind, issued_on, booked) = match which {
        Which::Invoice => (order.display_id.clone(), Kind::Invoice, invoice_date, sale),
        Which::CreditNote(refund_id) => {
            let causes: HashMap<Uuid, Uuid> = store
                .ledger_causes_of_order(order_id)
                .await?
                .into_iter()
                .collect();
            let changes = store.order_changes(order_id).await?;
            let notes = credit_notes(&entries, &causes, &changes);
            let Some(n) = notes.iter().position(|(refund, _)| *refund == refund_id) else {
                return Err(Error::new(
                    ProblemType::NotFound,
                    format!("Order {} has no refund {refund_id}.", order.display_id),
                ));
            };
            let cause = notes[n].1;
            let booked: Vec<&LedgerEntry> = entries
                .iter()
                .filter(|e| causes.get(&e.entry_id) == Some(&cause))
                .collect();
            (
                format!("{}-CN{}", order.display_id, n + 1),
                Kind::CreditNote {
                    invoice_number: order.display_id.clone(),
                    invoice_date,
                },
                day(booked[0]),
                booked,
            )
        }
    };
    let sign = if kind == Kind::Invoice {
        Decimal::ONE
    } else {
        Decimal::NEGATIVE_ONE
    };
    let lines = booked
        .iter()
        .map(|e| Line {
            sku: e.sku.clone(),
            title: titles
                .get(&e.product_id)
                .cloned()
                .unwrap_or_else(|| e.sku.clone()),
            tickets: e.ticket_ids.len(),
            net: sign * e.net,
            rate_percent: e.tax[0].rate_percent,
            tax: sign * e.tax.iter().map(|t| t.amount).sum::<Decimal>(),
        })
        .collect();
    Ok(Document {
        number,
        kind,
        issued_on,
        currency: first_sale.currency.clone(),
        seller,
        buyer,
        delivered_on: order.visit_date,
        order_display_id: order.display_id.clone(),
        lines,
    })
}

/// The merchant as the seller an invoice names: 409 without the VAT settings (every entry
/// taxed) and VAT id an invoice must state.
fn seller(merchant: &Merchant, entries: &[LedgerEntry]) -> Result<Party> {
    let settlement = &merchant.settlement;
    let (Some(vat_id), true) = (
        settlement.vat_id.clone(),
        entries.iter().all(|e| !e.tax.is_empty()),
    ) else {
        return Err(Error::new(
            ProblemType::Conflict,
            format!(
                "{} has not given the VAT settings and VAT id an invoice states; ask the operator.",
                merchant.name
            ),
        ));
    };
    // The registered address, else the visiting one.
    let address = settlement
        .legal_address
        .as_ref()
        .map_or_else(|| merchant.address.clone(), |a| a.0.clone());
    Ok(Party {
        name: settlement
            .legal_name
            .clone()
            .unwrap_or_else(|| merchant.name.clone()),
        vat_id,
        country: Some(address.country.clone()),
        address: Some(address),
    })
}

/// Each refund with a credit note, in booking order, with the cause its entries were booked
/// under (`causes`, by entry id): the refund itself, or the cheaper date change that gave the
/// money back.
fn credit_notes(
    entries: &[LedgerEntry],
    causes: &HashMap<Uuid, Uuid>,
    changes: &[OrderChangeRecord],
) -> Vec<(Uuid, Uuid)> {
    let mut notes: Vec<(Uuid, Uuid)> = Vec::new();
    for entry in entries {
        let Some(&cause) = causes.get(&entry.entry_id) else {
            continue;
        };
        let refund = match entry.kind {
            EntryKind::Sale => None,
            EntryKind::Refund => Some(cause),
            EntryKind::Rebooking if entry.gross.is_sign_negative() => changes
                .iter()
                .find(|c| c.order_change_id == cause)
                .and_then(|c| c.refund_id),
            EntryKind::Rebooking => None,
        };
        if let Some(refund) = refund {
            if !notes.iter().any(|(r, _)| *r == refund) {
                notes.push((refund, cause));
            }
        }
    }
    notes
}
