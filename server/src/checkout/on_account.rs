//! Confirming a reservation on a partner's account (docs/octo.md, "Paying on account"): an
//! OCTO reseller whose client settles `on_account` confirms without a payment page. The order
//! is placed with a payment the partner owes (provider `on_account`), in the transaction of
//! the confirmation, and settled as paid at once: the same settlement a provider's payment gets
//! (tickets, the `sale` entries of the settlement ledger, the ticket mail, the events), so the
//! money is in the partner's statement like any other sale's. A crash between the two leaves
//! the payment open: the next confirm of the booking settles it (`settle_open`), and the
//! sweeper ends it with the payment window as it ends any other.

use app::wire::{Answer, CheckoutStatus, PlacedOrder};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{
    confirm::{confirmed_answers, place_confirmed},
    lifecycle::{settle_payment, PaymentOutcome},
    place::{not_reserved, OpenedPayment, ON_ACCOUNT},
    read, Commerce,
};
use crate::{error::Result, store::CustomerFields};

/// Confirms the reservation `checkout_id` for `fields` with `answers`, owed by its partner,
/// and settles it as paid; the placed order.
pub async fn confirm_on_account(
    state: &Commerce,
    checkout_id: Uuid,
    caller: read::Caller,
    mut fields: CustomerFields,
    answers: &[Answer],
    now: DateTime<Utc>,
) -> Result<PlacedOrder> {
    let checkout = read::visible(state, checkout_id, caller).await?;
    if checkout.status != CheckoutStatus::CONFIRM.from() {
        return Err(not_reserved(checkout_id, checkout.status));
    }
    fields.answers = confirmed_answers(state, &checkout, answers).await?;
    fields.partner_client_id = checkout.partner_client_id;
    let payment = OpenedPayment::on_account(checkout.total, &checkout.currency);
    let payment_id = payment.payment_id();
    let placed = place_confirmed(state, &checkout, &fields, payment, now).await?;
    settle_payment(state, payment_id, PaymentOutcome::Paid).await?;
    Ok(placed)
}

/// Settles the open on-account payment of the order `order_id`, when it has one (a crash
/// came between its confirmation and its settlement); `true` when it did.
pub async fn settle_open(state: &Commerce, order_id: Uuid) -> Result<bool> {
    match state.store.payment_of_order(order_id).await? {
        Some(p) if p.provider == ON_ACCOUNT && p.status == app::wire::PaymentStatus::Open => {
            settle_payment(state, p.payment_id, PaymentOutcome::Paid).await
        }
        _ => Ok(false),
    }
}
