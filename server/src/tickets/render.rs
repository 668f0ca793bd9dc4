//! The ticket mail of an outbox row (`mail/render.rs`), rendered when it is sent from the order
//! as it is then, so the row holds no copy of it: the address, the tickets and the ticket page
//! link are those of the moment of sending.

use lettre::message::Mailbox;
use uuid::Uuid;

use super::{compose_mail, order_doc, Tickets};
use crate::mail::{DeliveryError, Rendered};

/// The ticket mail of `order_id`, from `from`; a permanent error when the order cannot have
/// one (not paid, no address, no ticket page).
pub async fn ticket_mail(
    state: &Tickets,
    order_id: Uuid,
    from: Mailbox,
) -> Result<Rendered, DeliveryError> {
    let doc = match order_doc::load(state, order_id).await {
        Ok(Some(doc)) => doc,
        Ok(None) => return Err(DeliveryError::permanent("the order is not paid")),
        Err(err) => {
            return Err(DeliveryError::transient(format!(
                "reading the order failed: {err}"
            )))
        }
    };
    let Some(recipient) = doc.recipient.clone() else {
        return Err(DeliveryError::permanent("the order has no e-mail address"));
    };
    let Ok(to) = recipient.parse::<Mailbox>() else {
        return Err(DeliveryError::permanent(
            "the order's e-mail address is not valid",
        ));
    };
    let composed = match compose_mail(state, &doc).await {
        Ok(Some(composed)) => composed,
        Ok(None) => return Err(DeliveryError::permanent("the order has no ticket page")),
        Err(err) => return Err(DeliveryError::transient(format!("composing failed: {err}"))),
    };
    let message = composed
        .message(from, to)
        .map_err(|err| DeliveryError::permanent(format!("composing failed: {err}")))?;
    Ok(Rendered {
        message,
        recipient,
        kept_body: None,
    })
}
