//! Each kind of mail rendered for sending, from its outbox row: the one place a new kind is
//! added (a `MailKind` variant in app/src/wire/status.rs, and its arm here).

use app::wire::MailKind;
use lettre::{message::Mailbox, Message};

use super::{DeliveryError, Rendered};
use crate::{
    store::MailRecord,
    tickets::{self, Tickets},
};

/// The mail `mail` as it is sent now, from `from`.
pub async fn render(
    tickets: &Tickets,
    mail: &MailRecord,
    from: Mailbox,
) -> Result<Rendered, DeliveryError> {
    match mail.kind {
        MailKind::MagicLink => written_whole(mail, from),
        MailKind::Tickets | MailKind::TicketsResend | MailKind::TicketsOperator => {
            let order_id = mail
                .customer_order_id
                .ok_or_else(|| DeliveryError::permanent("the ticket mail names no order"))?;
            tickets::render::ticket_mail(tickets, order_id, from).await
        }
        MailKind::Cancellation | MailKind::Withdrawal | MailKind::Rebooking => {
            crate::after_sale::mail::change_mail(tickets, mail, from).await
        }
    }
}

/// A plain-text mail the row holds whole; once sent, the row keeps it without its secret.
fn written_whole(mail: &MailRecord, from: Mailbox) -> Result<Rendered, DeliveryError> {
    let content = mail
        .content()
        .ok_or_else(|| DeliveryError::permanent("the mail holds no text"))?;
    let to: Mailbox = content
        .recipient
        .parse()
        .map_err(|_| DeliveryError::permanent("the recipient's address is not valid"))?;
    let message = Message::builder()
        .from(from)
        .to(to)
        .subject(&content.subject)
        .body(content.body_text.clone())
        .map_err(|err| DeliveryError::permanent(format!("composing failed: {err}")))?;
    Ok(Rendered {
        message,
        kept_body: content.delivered_body(),
        recipient: content.recipient,
    })
}
