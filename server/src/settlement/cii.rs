//! An invoice or credit note (`invoice::Document`) as UN/CEFACT Cross Industry Invoice XML
//! (D16B), the syntax of EN 16931 that a Factur-X or ZUGFeRD PDF embeds, in the elements and
//! order the Factur-X EN 16931 schema sets out. Each element's business term (BT-…) is named
//! where it is written, for a reader holding the standard.
//!
//! Amounts are written with two decimals; quantities are tickets (unit code C62, "one"). A
//! line's price is its net amount for its quantity of tickets (BT-146 with BT-149), so the
//! price times the quantity is the line's amount exactly, whatever a ticket's share of a
//! discount was.

use std::io;

use quick_xml::{
    events::{BytesDecl, BytesText, Event},
    Writer,
};
use rust_decimal::Decimal;

use super::invoice::{Document, Kind, Party};

/// The EN 16931 specification identifier (BT-24), which also tells Factur-X readers the
/// profile.
const EN16931: &str = "urn:cen.eu:en16931:2017";

/// The document as CII XML, UTF-8.
pub fn xml(doc: &Document) -> Vec<u8> {
    let mut w = Writer::new_with_indent(Vec::new(), b' ', 2);
    write(&mut w, doc).expect("writing to a Vec does not fail");
    w.into_inner()
}

type W = Writer<Vec<u8>>;

fn write(w: &mut W, doc: &Document) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    w.create_element("rsm:CrossIndustryInvoice")
        .with_attributes([
            (
                "xmlns:rsm",
                "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
            ),
            (
                "xmlns:ram",
                "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
            ),
            (
                "xmlns:udt",
                "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
            ),
            (
                "xmlns:qdt",
                "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
            ),
        ])
        .write_inner_content(|w| {
            w.create_element("rsm:ExchangedDocumentContext")
                .write_inner_content(|w| {
                    w.create_element("ram:GuidelineSpecifiedDocumentContextParameter")
                        .write_inner_content(|w| text(w, "ram:ID", EN16931))?;
                    Ok::<_, io::Error>(())
                })?;
            exchanged_document(w, doc)?;
            w.create_element("rsm:SupplyChainTradeTransaction")
                .write_inner_content(|w| {
                    for (i, _) in doc.lines.iter().enumerate() {
                        line_item(w, doc, i)?;
                    }
                    agreement(w, doc)?;
                    delivery(w, doc)?;
                    settlement(w, doc)
                })?;
            Ok::<_, io::Error>(())
        })?;
    Ok(())
}

/// BT-1 number, BT-3 type (380 commercial invoice, 381 credit note), BT-2 issue date.
fn exchanged_document(w: &mut W, doc: &Document) -> io::Result<()> {
    w.create_element("rsm:ExchangedDocument")
        .write_inner_content(|w| {
            text(w, "ram:ID", &doc.number)?;
            let type_code = match doc.kind {
                Kind::Invoice => "380",
                Kind::CreditNote { .. } => "381",
            };
            text(w, "ram:TypeCode", type_code)?;
            date(w, "ram:IssueDateTime", doc.issued_on)?;
            // BT-22: which order it is, in the words of the ticket mail.
            w.create_element("ram:IncludedNote")
                .write_inner_content(|w| {
                    text(w, "ram:Content", &format!("Order {}", doc.order_display_id))
                })?;
            Ok(())
        })?;
    Ok(())
}

/// BG-25: one line per product sold (BT-126 id, BT-153 name, BT-155 SKU, BT-129 quantity,
/// BT-151/152 VAT category and rate, BT-131 net amount).
fn line_item(w: &mut W, doc: &Document, i: usize) -> io::Result<()> {
    let line = &doc.lines[i];
    let tickets = line.tickets.to_string();
    w.create_element("ram:IncludedSupplyChainTradeLineItem")
        .write_inner_content(|w| {
            w.create_element("ram:AssociatedDocumentLineDocument")
                .write_inner_content(|w| text(w, "ram:LineID", &(i + 1).to_string()))?;
            w.create_element("ram:SpecifiedTradeProduct")
                .write_inner_content(|w| {
                    text(w, "ram:SellerAssignedID", &line.sku)?;
                    text(w, "ram:Name", &line.title)
                })?;
            w.create_element("ram:SpecifiedLineTradeAgreement")
                .write_inner_content(|w| {
                    w.create_element("ram:NetPriceProductTradePrice")
                        .write_inner_content(|w| {
                            text(w, "ram:ChargeAmount", &amount(line.net))?;
                            w.create_element("ram:BasisQuantity")
                                .with_attribute(("unitCode", "C62"))
                                .write_text_content(BytesText::new(&tickets))?;
                            Ok::<_, io::Error>(())
                        })?;
                    Ok::<_, io::Error>(())
                })?;
            w.create_element("ram:SpecifiedLineTradeDelivery")
                .write_inner_content(|w| {
                    w.create_element("ram:BilledQuantity")
                        .with_attribute(("unitCode", "C62"))
                        .write_text_content(BytesText::new(&tickets))?;
                    Ok::<_, io::Error>(())
                })?;
            w.create_element("ram:SpecifiedLineTradeSettlement")
                .write_inner_content(|w| {
                    trade_tax(w, None, line.rate_percent)?;
                    w.create_element("ram:SpecifiedTradeSettlementLineMonetarySummation")
                        .write_inner_content(|w| {
                            text(w, "ram:LineTotalAmount", &amount(line.net))
                        })?;
                    Ok::<_, io::Error>(())
                })?;
            Ok::<_, io::Error>(())
        })?;
    Ok(())
}

/// BG-4 seller and BG-7 buyer.
fn agreement(w: &mut W, doc: &Document) -> io::Result<()> {
    w.create_element("ram:ApplicableHeaderTradeAgreement")
        .write_inner_content(|w| {
            party(w, "ram:SellerTradeParty", &doc.seller)?;
            party(w, "ram:BuyerTradeParty", &doc.buyer)
        })?;
    Ok(())
}

/// BT-27/44 name, BG-5/8 postal address (BT-40/55 country), BT-31/48 VAT id.
fn party(w: &mut W, element: &str, party: &Party) -> io::Result<()> {
    w.create_element(element).write_inner_content(|w| {
        text(w, "ram:Name", &party.name)?;
        if let Some(country) = &party.country {
            w.create_element("ram:PostalTradeAddress")
                .write_inner_content(|w| {
                    if let Some(address) = &party.address {
                        text(w, "ram:PostcodeCode", &address.postal_code)?;
                        text(w, "ram:LineOne", &address.street)?;
                        text(w, "ram:CityName", &address.city)?;
                    }
                    text(w, "ram:CountryID", country)
                })?;
        }
        w.create_element("ram:SpecifiedTaxRegistration")
            .write_inner_content(|w| {
                w.create_element("ram:ID")
                    .with_attribute(("schemeID", "VA"))
                    .write_text_content(BytesText::new(&party.vat_id))?;
                Ok::<_, io::Error>(())
            })?;
        Ok::<_, io::Error>(())
    })?;
    Ok(())
}

/// BT-72: the visit day is when the service is delivered.
fn delivery(w: &mut W, doc: &Document) -> io::Result<()> {
    w.create_element("ram:ApplicableHeaderTradeDelivery")
        .write_inner_content(|w| {
            w.create_element("ram:ActualDeliverySupplyChainEvent")
                .write_inner_content(|w| date(w, "ram:OccurrenceDateTime", doc.delivered_on))?;
            Ok::<_, io::Error>(())
        })?;
    Ok(())
}

/// BT-5 currency, BG-23 VAT breakdown, BG-22 totals (paid in full when ordered: the amount due
/// is zero), and for a credit note BG-3 the invoice it corrects.
fn settlement(w: &mut W, doc: &Document) -> io::Result<()> {
    let currency = doc.currency.as_str();
    w.create_element("ram:ApplicableHeaderTradeSettlement")
        .write_inner_content(|w| {
            text(w, "ram:InvoiceCurrencyCode", currency)?;
            for vat in doc.vat_totals() {
                trade_tax(w, Some((vat.tax, vat.basis)), vat.rate_percent)?;
            }
            let net = amount(doc.net_total());
            let gross = amount(doc.gross_total());
            w.create_element("ram:SpecifiedTradeSettlementHeaderMonetarySummation")
                .write_inner_content(|w| {
                    text(w, "ram:LineTotalAmount", &net)?;
                    text(w, "ram:TaxBasisTotalAmount", &net)?;
                    w.create_element("ram:TaxTotalAmount")
                        .with_attribute(("currencyID", currency))
                        .write_text_content(BytesText::new(&amount(doc.tax_total())))?;
                    text(w, "ram:GrandTotalAmount", &gross)?;
                    text(w, "ram:TotalPrepaidAmount", &gross)?;
                    text(w, "ram:DuePayableAmount", &amount(Decimal::ZERO))
                })?;
            if let Kind::CreditNote {
                invoice_number,
                invoice_date,
            } = &doc.kind
            {
                w.create_element("ram:InvoiceReferencedDocument")
                    .write_inner_content(|w| {
                        text(w, "ram:IssuerAssignedID", invoice_number)?;
                        w.create_element("ram:FormattedIssueDateTime")
                            .write_inner_content(|w| {
                                w.create_element("qdt:DateTimeString")
                                    .with_attribute(("format", "102"))
                                    .write_text_content(BytesText::new(&ymd(*invoice_date)))?;
                                Ok::<_, io::Error>(())
                            })?;
                        Ok::<_, io::Error>(())
                    })?;
            }
            Ok::<_, io::Error>(())
        })?;
    Ok(())
}

/// A VAT of category S (standard) or Z (zero rated) at `rate`; with `amounts` (tax, basis)
/// the document's breakdown (BT-117, BT-116), without them a line's (BT-151, BT-152).
fn trade_tax(w: &mut W, amounts: Option<(Decimal, Decimal)>, rate: Decimal) -> io::Result<()> {
    w.create_element("ram:ApplicableTradeTax")
        .write_inner_content(|w| {
            if let Some((tax, _)) = amounts {
                text(w, "ram:CalculatedAmount", &amount(tax))?;
            }
            text(w, "ram:TypeCode", "VAT")?;
            if let Some((_, basis)) = amounts {
                text(w, "ram:BasisAmount", &amount(basis))?;
            }
            text(
                w,
                "ram:CategoryCode",
                if rate.is_zero() { "Z" } else { "S" },
            )?;
            text(
                w,
                "ram:RateApplicablePercent",
                &rate.normalize().to_string(),
            )
        })?;
    Ok(())
}

/// `<element>text</element>`, the text escaped.
fn text(w: &mut W, element: &str, value: &str) -> io::Result<()> {
    w.create_element(element)
        .write_text_content(BytesText::new(value))?;
    Ok(())
}

/// A date as CII writes it: `<udt:DateTimeString format="102">YYYYMMDD</…>`.
fn date(w: &mut W, element: &str, day: chrono::NaiveDate) -> io::Result<()> {
    w.create_element(element).write_inner_content(|w| {
        w.create_element("udt:DateTimeString")
            .with_attribute(("format", "102"))
            .write_text_content(BytesText::new(&ymd(day)))?;
        Ok::<_, io::Error>(())
    })?;
    Ok(())
}

fn ymd(day: chrono::NaiveDate) -> String {
    day.format("%Y%m%d").to_string()
}

/// Two decimals, as every CII amount here is written.
fn amount(value: Decimal) -> String {
    let mut v = super::cents(value);
    v.rescale(2);
    v.to_string()
}
