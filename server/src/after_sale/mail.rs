//! The mails about a change after the sale, rendered when sent from the change that names
//! them (`order_change.mail_id`) and the order as it then is, in the order's language: a cancellation (what
//! was cancelled, the refund and when it arrives), a withdrawal's acknowledgement (also the date
//! and time it was received, as the law asks) and a changed date (the ticket mail of the new
//! tickets, with the new `.ics`, under its own subject and first line).

use app::{
    format,
    wire::{MailKind, Money, Ticket},
};
use lettre::message::{Mailbox, MultiPart};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::texts::{texts, Texts};
use crate::{
    mail::{DeliveryError, Rendered},
    store::{MailRecord, OrderChangeRecord},
    tickets::{compose_mail, facts, order_doc, order_doc::OrderDoc, Tickets},
};

/// The mail of `mail` (a CANCELLATION, WITHDRAWAL or REBOOKING row), from `from`.
pub async fn change_mail(
    state: &Tickets,
    mail: &MailRecord,
    from: Mailbox,
) -> Result<Rendered, DeliveryError> {
    let transient = |what: &str, err: crate::error::Error| {
        DeliveryError::transient(format!("reading the {what} failed: {err}"))
    };
    let Some(order_id) = mail.customer_order_id else {
        return Err(DeliveryError::permanent("the mail names no order"));
    };
    let change = state
        .store
        .order_change_of_mail(mail.mail_id)
        .await
        .map_err(|e| transient("change", e.into()))?
        .ok_or_else(|| DeliveryError::permanent("the mail names no order change"))?;
    let doc = order_doc::load_any(state, order_id)
        .await
        .map_err(|e| transient("order", e))?
        .ok_or_else(|| DeliveryError::permanent("the order is gone"))?;
    let recipient = doc
        .recipient
        .clone()
        .ok_or_else(|| DeliveryError::permanent("the order has no e-mail address"))?;
    let to: Mailbox = recipient
        .parse()
        .map_err(|_| DeliveryError::permanent("the order's e-mail address is not valid"))?;
    let message = match mail.kind {
        MailKind::Rebooking => rebooked(state, doc, &change, from, to).await?,
        _ => {
            let refund = match change.refund_id {
                Some(id) => state
                    .store
                    .refund(id)
                    .await
                    .map_err(|e| transient("refund", e.into()))?,
                None => None,
            };
            let composed = compose_cancellation(&doc, &change, refund.as_ref());
            lettre::Message::builder()
                .from(from)
                .to(to)
                .subject(&composed.subject)
                .multipart(MultiPart::alternative_plain_html(
                    composed.text,
                    composed.html,
                ))
                .map_err(|e| DeliveryError::permanent(format!("composing failed: {e}")))?
        }
    };
    Ok(Rendered {
        message,
        recipient,
        kept_body: None,
    })
}

/// The changed-date mail: the ticket mail of the order's valid tickets, saying first that the
/// visit moved.
async fn rebooked(
    state: &Tickets,
    mut doc: OrderDoc,
    _change: &OrderChangeRecord,
    from: Mailbox,
    to: Mailbox,
) -> Result<lettre::Message, DeliveryError> {
    doc.order
        .tickets
        .retain(|t| t.status != app::wire::TicketStatus::Cancelled);
    let t = texts(doc.locale);
    let mut composed = compose_mail(state, &doc)
        .await
        .map_err(|e| DeliveryError::transient(format!("composing failed: {e}")))?
        .ok_or_else(|| DeliveryError::permanent("the order has no ticket page"))?;
    composed.subject = format!(
        "{}: {} {}",
        doc.merchant_name(),
        t.subject_rebooked,
        doc.order.order_display_id
    );
    composed.text = format!("{}\n\n{}", t.rebooked_intro, composed.text);
    composed.html = composed.html.replacen(
        "<div class=\"wrap\">",
        &format!(
            "<div class=\"wrap\"><div class=\"card\"><p><strong>{}</strong></p></div>",
            maud::html! { (t.rebooked_intro) }.into_string()
        ),
        1,
    );
    composed
        .message(from, to)
        .map_err(|e| DeliveryError::permanent(format!("composing failed: {e}")))
}

/// A cancellation or withdrawal mail, composed.
#[derive(Debug, Clone)]
pub struct ChangeMail {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The refund as the mail states it: all of it, then its parts.
struct RefundLines {
    total: String,
    parts: Vec<String>,
    to_provider: bool,
}

fn refund_lines(
    doc: &OrderDoc,
    t: &Texts,
    refund: Option<&crate::store::RefundRecord>,
) -> Option<RefundLines> {
    let refund = refund?;
    let locale = doc.format_locale();
    let money = |v| format::money(locale, &Money::new(v, refund.currency.clone()));
    let mut parts = Vec::new();
    if refund.to_wallet > rust_decimal::Decimal::ZERO {
        parts.push(format!("{} {}", money(refund.to_wallet), t.to_wallet));
    }
    if refund.amount > rust_decimal::Decimal::ZERO {
        parts.push(format!("{} {}", money(refund.amount), t.to_provider));
    }
    Some(RefundLines {
        total: money(refund.amount + refund.to_wallet),
        parts,
        to_provider: refund.amount > rust_decimal::Decimal::ZERO,
    })
}

/// The cancellation (or withdrawal) mail of `change`.
pub fn compose_cancellation(
    doc: &OrderDoc,
    change: &OrderChangeRecord,
    refund: Option<&crate::store::RefundRecord>,
) -> ChangeMail {
    let t = texts(doc.locale);
    let withdrawal = change.kind == super::ChangeKind::Withdrawal.as_str();
    let tickets: Vec<&Ticket> = doc
        .order
        .tickets
        .iter()
        .filter(|ticket| change.ticket_ids.0.contains(&ticket.ticket_id))
        .collect();
    let received = withdrawal.then(|| {
        let at = change.created_at.with_timezone(&doc.zone);
        format!(
            "{} {}, {}",
            t.withdrawal_received,
            format::date_long(doc.format_locale(), at.date_naive()),
            at.format("%H:%M %Z")
        )
    });
    let subject = format!(
        "{}: {} {}",
        doc.merchant_name(),
        if withdrawal {
            t.subject_withdrawal
        } else {
            t.subject_cancelled
        },
        doc.order.order_display_id
    );
    let intro = if withdrawal {
        t.withdrawal_intro
    } else {
        t.cancelled_intro
    };
    let refund = refund_lines(doc, t, refund);
    let mut text = format!("{intro}\n");
    if let Some(received) = &received {
        text = format!("{received}.\n\n{text}");
    }
    for ticket in &tickets {
        text.push('\n');
        for (label, value) in facts::ticket_facts(doc, ticket) {
            text.push_str(&format!("{label}: {value}\n"));
        }
    }
    text.push('\n');
    match &refund {
        Some(r) => {
            text.push_str(&format!("{}: {}\n", t.refund, r.total));
            for part in &r.parts {
                text.push_str(&format!("  {part}\n"));
            }
            if r.to_provider {
                text.push_str(&format!("\n{}\n", t.refund_arrives));
            }
        }
        None => text.push_str(&format!("{}\n", t.no_refund)),
    }
    text.push_str(&format!("\n{}: {}\n", t.order, doc.order.order_display_id));
    let html = html_part(
        doc,
        t,
        &subject,
        intro,
        received.as_deref(),
        &tickets,
        refund.as_ref(),
    )
    .into_string();
    ChangeMail {
        subject,
        text,
        html,
    }
}

fn html_part(
    doc: &OrderDoc,
    t: &Texts,
    subject: &str,
    intro: &str,
    received: Option<&str>,
    tickets: &[&Ticket],
    refund: Option<&RefundLines>,
) -> Markup {
    html! {
        (DOCTYPE)
        html lang=(doc.locale.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                title { (subject) }
                style { (PreEscaped(crate::tickets::mail::MAIL_CSS)) }
            }
            body {
                div.wrap {
                    div.card {
                        h1 { (doc.merchant_name()) }
                        @if let Some(received) = received { p { strong { (received) "." } } }
                        p { (intro) }
                        dl { dt { (t.order) } dd { (doc.order.order_display_id) } }
                    }
                    @for ticket in tickets {
                        div.card {
                            h2 { (ticket.product_title) " – " (t.cancelled_tickets) }
                            dl {
                                @for (label, value) in facts::ticket_facts(doc, ticket).into_iter().skip(1) {
                                    dt { (label) }
                                    dd { (value) }
                                }
                            }
                        }
                    }
                    div.card {
                        @match refund {
                            Some(r) => {
                                h2 { (t.refund) ": " (r.total) }
                                @if !r.parts.is_empty() { ul { @for part in &r.parts { li { (part) } } } }
                                @if r.to_provider { p.muted { (t.refund_arrives) } }
                            }
                            None => { p { (t.no_refund) } }
                        }
                    }
                }
            }
        }
    }
}
