//! `POST /v2/checkouts/{checkout_id}/confirm`: the customer's details turn a reservation into
//! an order awaiting payment.

use app::wire::{Answer, CheckoutStatus, ConfirmRequest, PlacedOrder};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Commerce;
use super::{
    answers, customer,
    place::{not_reserved, open_payment, place_order, Confirming, OpenedPayment, PAYMENT_WINDOW},
    plan::shipping_address_required,
    read,
};
use crate::{
    error::Result,
    store::{CheckoutRecord, CustomerFields, StoredAnswer},
};

pub async fn confirm(
    state: &Commerce,
    checkout_id: Uuid,
    caller: read::Caller,
    request: &ConfirmRequest,
    now: DateTime<Utc>,
) -> Result<PlacedOrder> {
    let checkout = read::visible(state, checkout_id, caller).await?;
    if checkout.status != CheckoutStatus::CONFIRM.from() {
        return Err(not_reserved(checkout_id, checkout.status));
    }
    if checkout.requires_shipping_address && request.shipping_address.is_none() {
        return Err(shipping_address_required());
    }
    let mut fields = customer::validate(
        state,
        checkout.campaign_id,
        checkout.partner_client_id,
        request,
    )
    .await?;
    fields.answers = confirmed_answers(state, &checkout, &request.answers).await?;
    // The partner's locked fields are those of the session the checkout was made in.
    customer::check_locked(state, checkout.session_id, request).await?;
    let payment = open_payment(
        state,
        checkout.checkout_id,
        checkout.merchant_id,
        checkout.total,
        &checkout.currency,
    )
    .await?;
    place_confirmed(state, &checkout, &fields, payment, now).await
}

/// Confirms the reservation `checkout` for `fields` and places its order with `payment`, in
/// one transaction: the step a confirmation and a confirmation on account share.
pub(super) async fn place_confirmed(
    state: &Commerce,
    checkout: &CheckoutRecord,
    fields: &CustomerFields,
    payment: OpenedPayment,
    now: DateTime<Utc>,
) -> Result<PlacedOrder> {
    let checkout_id = checkout.checkout_id;
    let mut tx = state.store.begin_checkout().await?;
    // Going to payment holds the places for the payment window, as long as the payment.
    if !tx
        .confirm_checkout(checkout_id, fields, now, now + PAYMENT_WINDOW)
        .await?
    {
        return Err(not_reserved(checkout_id, "no longer reserved"));
    }
    let placed = place_order(
        tx.as_mut(),
        &Confirming {
            checkout_id,
            campaign_id: checkout.campaign_id,
            customer_id: checkout.customer_id,
            // A guest's checkout is attributed by its return URL (`customer::validate`).
            partner_client_id: fields.partner_client_id,
            total: checkout.total,
            currency: checkout.currency.clone(),
            attribution: checkout.attribution.clone().map(|a| a.0),
        },
        fields,
        payment,
        now,
    )
    .await?;
    tx.commit().await?;
    Ok(placed)
}

/// The answers the order keeps: those sent (checked against the checkout's lines, in the order
/// its read lists them), else the reservation's; `Err` when a required one is missing
/// (`checkout-answer-required`). `None` keeps the reservation's as they are.
pub async fn confirmed_answers(
    state: &Commerce,
    checkout: &CheckoutRecord,
    given: &[Answer],
) -> Result<Option<Vec<StoredAnswer>>> {
    let lines = state.store.checkout_lines(checkout.checkout_id).await?;
    let basket = answers::basket_of(state, &lines).await?;
    let lines = answers::lines(&basket);
    let sent = if given.is_empty() {
        None
    } else {
        Some(answers::resolve(&lines, given)?)
    };
    answers::require(&lines, sent.as_deref().unwrap_or(checkout.answers()))?;
    Ok(sent)
}
