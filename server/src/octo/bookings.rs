//! OCTO's bookings over the checkout and the after-sale (docs/octo.md, "Bookings"): a
//! reservation is a checkout's (the same holds, bounds and places; the booking is written in
//! the hold's transaction), its extension the checkout's one extension, its confirmation a
//! confirmation on the reseller's account, its cancellation the after-sale cancellation under
//! the merchant's policy (a hold is released). Its changes are `update`'s.
//! The booking's uuid is the reseller's when it sends one (a retried reservation with the same
//! uuid is the same booking), else ours.

use app::wire::{Answer, BasketLine, CheckoutRequest, ManagedCancellationRequest};
use chrono::{Duration, Utc};
use serde::Deserialize;
use uuid::Uuid;

use super::{
    availability::visit_of,
    catalog::{sold_through_octo, unit_id, OPTION_ID},
    error::{OctoError, OctoResult},
    reseller::Reseller,
};
use crate::{
    checkout::{
        create::{open, Holding},
        extend::extend,
        lifecycle::release_reservation,
        on_account::{confirm_on_account, settle_open},
        read::Caller,
        reserve::Buyer,
    },
    state::AppState,
    store::{CheckoutLineRecord, CustomerFields, OctoBooking, OctoContact, Product, Settlement},
};

/// A reservation's longest hold, as a checkout's.
pub const HOLD_MINUTES: i64 = 15;

/// An answer to a booking question as Ventrata's `octo/questions` sends it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QuestionAnswer {
    pub question_id: String,
    pub value: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnitItemBody {
    pub unit_id: String,
    #[serde(default)]
    pub uuid: Option<Uuid>,
    #[serde(default)]
    pub question_answers: Vec<QuestionAnswer>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReserveBody {
    #[serde(default)]
    pub uuid: Option<Uuid>,
    pub product_id: String,
    pub option_id: String,
    #[serde(default)]
    pub availability_id: Option<String>,
    #[serde(default)]
    pub expiration_minutes: Option<i64>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub reseller_reference: Option<String>,
    #[serde(default)]
    pub contact: Option<OctoContact>,
    pub unit_items: Vec<UnitItemBody>,
    #[serde(default)]
    pub question_answers: Vec<QuestionAnswer>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfirmBody {
    pub contact: OctoContact,
    #[serde(default)]
    pub reseller_reference: Option<String>,
    #[serde(default)]
    pub unit_items: Option<Vec<UnitItemBody>>,
    #[serde(default)]
    pub question_answers: Vec<QuestionAnswer>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExtendBody {
    #[serde(default)]
    pub expiration_minutes: Option<i64>,
}

/// What a reseller may send to change a booking; absent members change nothing.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpdateBody {
    #[serde(default)]
    pub reseller_reference: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
    #[serde(default)]
    pub contact: Option<OctoContact>,
    #[serde(default)]
    pub product_id: Option<String>,
    #[serde(default)]
    pub option_id: Option<String>,
    #[serde(default)]
    pub availability_id: Option<String>,
    #[serde(default)]
    pub expiration_minutes: Option<i64>,
    #[serde(default)]
    pub unit_items: Option<Vec<UnitItemBody>>,
    #[serde(default)]
    pub question_answers: Option<Vec<QuestionAnswer>>,
}

impl UpdateBody {
    /// Whether a held booking must be reserved again for it.
    pub fn changes_hold(&self) -> bool {
        self.product_id.is_some()
            || self.availability_id.is_some()
            || self.unit_items.is_some()
            || self.question_answers.is_some()
    }
}

/// The product of `id` that the reseller may book: the merchant's, in its campaign, sold
/// through OCTO; `INVALID_PRODUCT_ID` otherwise (another merchant's too: no leak).
pub async fn product_of(state: &AppState, r: &Reseller, id: &str) -> OctoResult<Product> {
    let invalid = || OctoError::invalid_product(id);
    let product_id: Uuid = id.parse().map_err(|_| invalid())?;
    let (product, _) =
        crate::catalog::products::product_in_campaign(state.reads(), product_id, r.campaign_id)
            .await
            .map_err(|_| invalid())?;
    if product.merchant_id != r.merchant.merchant_id || !sold_through_octo(&product) {
        return Err(invalid());
    }
    Ok(product)
}

/// Refuses an option other than the one every product has.
pub fn check_option(option_id: &str) -> OctoResult<()> {
    if option_id == OPTION_ID {
        Ok(())
    } else {
        Err(OctoError::invalid_option(option_id))
    }
}

/// The answers of a booking (`questionAnswers`) and of its unit items (per ticket, the
/// items in order), as a checkout takes them.
pub fn answers(booking: &[QuestionAnswer], items: &[UnitItemBody]) -> Vec<Answer> {
    let of_booking = booking.iter().map(|a| Answer {
        question_id: a.question_id.clone(),
        line: None,
        ticket: None,
        value: a.value.clone(),
    });
    let of_items = items.iter().enumerate().flat_map(|(i, item)| {
        item.question_answers.iter().map(move |a| Answer {
            question_id: a.question_id.clone(),
            line: Some(0),
            ticket: u32::try_from(i).ok(),
            value: a.value.clone(),
        })
    });
    of_booking.chain(of_items).collect()
}

/// The reseller's caller identity on a checkout: its partner client, no customer.
pub fn caller(r: &Reseller) -> Caller {
    Caller {
        customer_id: None,
        partner_client_id: Some(r.partner.partner_client_id),
    }
}

/// The reseller as a checkout's buyer: its partner client, no customer.
pub fn buyer(r: &Reseller) -> Buyer {
    Buyer {
        customer_id: None,
        partner_client_id: Some(r.partner.partner_client_id),
        session_id: None,
        address: None,
    }
}

/// `POST /bookings`: the booking held, ON_HOLD.
pub async fn reserve(state: &AppState, r: &Reseller, body: ReserveBody) -> OctoResult<Uuid> {
    if let Some(uuid) = body.uuid {
        if let Some(existing) = state
            .store
            .octo_booking(uuid)
            .await
            .map_err(crate::error::Error::from)?
        {
            return sent_again(&existing, r);
        }
    }
    let product = product_of(state, r, &body.product_id).await?;
    check_option(&body.option_id)?;
    let unit = unit_id(&product);
    if let Some(other) = body.unit_items.iter().find(|i| i.unit_id != unit) {
        return Err(OctoError::invalid_unit(&other.unit_id));
    }
    let quantity = u32::try_from(body.unit_items.len()).unwrap_or(u32::MAX);
    if quantity == 0 {
        return Err(OctoError::bad_request(
            "unitItems must hold at least one unit",
        ));
    }
    let zone = r.merchant.zone()?;
    let (day, date) = match (&body.availability_id, product.no_date) {
        (Some(id), _) => {
            visit_of(id, zone, &product).ok_or_else(|| OctoError::invalid_availability(id))?
        }
        (None, true) => {
            let today = crate::time::local_date(zone, Utc::now());
            (today, today.to_string())
        }
        (None, false) => return Err(OctoError::invalid_availability("")),
    };
    let request = CheckoutRequest {
        date,
        flexible_date: false,
        lines: vec![BasketLine {
            product_id: product.product_id,
            quantity,
        }],
        voucher_codes: Vec::new(),
        external_reference: body
            .reseller_reference
            .clone()
            .filter(|r| !r.trim().is_empty()),
        replaces: None,
        attribution: None,
        buyer: None,
        answers: answers(&body.question_answers, &body.unit_items),
    };
    let now = Utc::now();
    let holding = Holding {
        until: body
            .expiration_minutes
            .filter(|m| (1..HOLD_MINUTES).contains(m))
            .map(|m| now + Duration::minutes(m)),
        freed: None,
    };
    let mut open = open(
        &state.commerce,
        r.campaign_id,
        buyer(r),
        r.locale,
        &request,
        now,
        holding,
    )
    .await?;
    let uuid = body.uuid.unwrap_or_else(crate::ids::random_id);
    let booking = OctoBooking {
        uuid,
        checkout_id: open.checkout_id,
        partner_client_id: r.partner.partner_client_id,
        merchant_id: r.merchant.merchant_id,
        reseller_reference: body.reseller_reference,
        notes: body.notes,
        contact: body.contact.map(sqlx::types::Json),
        unit_items: Some(sqlx::types::Json(
            body.unit_items
                .iter()
                .map(|i| i.uuid.or_else(|| Some(crate::ids::random_id())))
                .collect(),
        )),
        local_date: day.to_string(),
        cancelled_at: None,
        created_at: now,
        updated_at: now,
    };
    let tx = open.tx();
    // The hold and its booking commit together; a copy of this reservation that won the
    // uuid meanwhile leaves this one uncommitted: nothing held for it.
    if !tx
        .insert_octo_booking(&booking)
        .await
        .map_err(crate::error::Error::from)?
    {
        drop(open);
        return copy_of(state, r, uuid).await;
    }
    open.commit(&state.commerce).await?;
    Ok(uuid)
}

/// A reservation whose uuid is `existing`'s: the same reservation sent again is the same
/// booking; another reseller's uuid is taken.
fn sent_again(existing: &OctoBooking, r: &Reseller) -> OctoResult<Uuid> {
    if existing.partner_client_id == r.partner.partner_client_id
        && existing.merchant_id == r.merchant.merchant_id
    {
        Ok(existing.uuid)
    } else {
        Err(OctoError::invalid_booking(&existing.uuid.to_string()))
    }
}

/// The booking `uuid` that a copy of this reservation wrote first. It may not be committed
/// yet (on SQLite the copy can share this request's group commit), so it is waited for, a
/// few seconds at most; a copy that failed leaves nothing, and the reseller sends it again.
async fn copy_of(state: &AppState, r: &Reseller, uuid: Uuid) -> OctoResult<Uuid> {
    for _ in 0..250 {
        if let Some(copy) = state
            .store
            .octo_booking(uuid)
            .await
            .map_err(crate::error::Error::from)?
        {
            return sent_again(&copy, r);
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    Err(OctoError::unprocessable(
        "A copy of this reservation was being made at the same time and did not complete; send it again.",
    ))
}

/// The booking's one line (an OCTO booking is of one product), to change it.
pub async fn line_of(state: &AppState, booking: &OctoBooking) -> OctoResult<CheckoutLineRecord> {
    let lines = state
        .store
        .checkout_lines(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?;
    lines
        .into_iter()
        .next()
        .ok_or_else(|| OctoError::unprocessable("The booking holds nothing to change."))
}

/// The reseller's booking `uuid` at this merchant; `INVALID_BOOKING_UUID` for any other
/// (another reseller's too: no leak).
pub async fn booking_of(state: &AppState, r: &Reseller, uuid: &str) -> OctoResult<OctoBooking> {
    let invalid = || OctoError::invalid_booking(uuid);
    let id: Uuid = uuid.parse().map_err(|_| invalid())?;
    state
        .store
        .octo_booking(id)
        .await
        .map_err(crate::error::Error::from)?
        .filter(|b| {
            b.partner_client_id == r.partner.partner_client_id
                && b.merchant_id == r.merchant.merchant_id
        })
        .ok_or_else(invalid)
}

/// `POST /bookings/{uuid}/extend`: the hold once longer, as a checkout's (by its 10 minutes,
/// or to `expirationMinutes` from now when that is sooner).
pub async fn extend_booking(
    state: &AppState,
    r: &Reseller,
    booking: &OctoBooking,
    body: ExtendBody,
) -> OctoResult<()> {
    let now = Utc::now();
    extend(&state.commerce, booking.checkout_id, caller(r), now).await?;
    // Asked for less than the extension gives: held that long.
    if let Some(minutes) = body.expiration_minutes.filter(|m| *m >= 1) {
        state
            .store
            .shorten_hold(booking.checkout_id, now + Duration::minutes(minutes))
            .await
            .map_err(crate::error::Error::from)?;
    }
    Ok(())
}

/// `POST /bookings/{uuid}/confirm`: confirmed on the reseller's account (403 `FORBIDDEN`
/// for a reseller that pays by payment page), with the contact as the customer.
pub async fn confirm(
    state: &AppState,
    r: &Reseller,
    mut booking: OctoBooking,
    body: ConfirmBody,
) -> OctoResult<()> {
    if r.partner.settlement != Settlement::OnAccount {
        return Err(OctoError::forbidden(
            "This reseller's bookings are paid by payment page: confirming on account needs the partner client's settlement on_account (ask the operator).",
        ));
    }
    // Confirmed before, its settlement perhaps cut short: settle it, and answer as it is.
    if let Some(order) = state
        .store
        .order_of_checkout(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?
    {
        settle_open(&state.commerce, order.customer_order_id).await?;
        return Ok(());
    }
    let c = &body.contact;
    let (first, last) = names(c).ok_or_else(|| {
        OctoError::unprocessable("contact needs firstName and lastName (or fullName)")
    })?;
    let email = c
        .email_address
        .clone()
        .filter(|e| crate::validate::is_email(e.trim()))
        .ok_or_else(|| {
            OctoError::unprocessable("contact.emailAddress must be a deliverable e-mail address")
        })?;
    let fields = CustomerFields {
        partner_client_id: Some(r.partner.partner_client_id),
        email: email.trim().to_owned(),
        first_name: first,
        last_name: last,
        return_url: String::new(),
        shipping_address: None,
        newsletters: Vec::new(),
        buyer: None,
        answers: None,
    };
    let items = body.unit_items.as_deref().unwrap_or_default();
    let given = answers(&body.question_answers, items);
    confirm_on_account(
        &state.commerce,
        booking.checkout_id,
        caller(r),
        fields,
        &given,
        Utc::now(),
    )
    .await?;
    booking.contact = Some(sqlx::types::Json(body.contact));
    if body.reseller_reference.is_some() {
        booking.reseller_reference = body.reseller_reference;
    }
    state
        .store
        .update_octo_booking(&booking)
        .await
        .map_err(crate::error::Error::from)?;
    Ok(())
}

/// A contact's first and last names: as given, else split from `fullName` at its last space.
fn names(c: &OctoContact) -> Option<(String, String)> {
    let clean = |s: &Option<String>| {
        s.as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    match (clean(&c.first_name), clean(&c.last_name)) {
        (Some(f), Some(l)) => Some((f, l)),
        _ => {
            let full = clean(&c.full_name)?;
            let (f, l) = full.rsplit_once(' ')?;
            Some((f.trim().to_owned(), l.trim().to_owned()))
        }
    }
}

/// `POST /bookings/{uuid}/cancel`: a hold released; a confirmed booking cancelled under the
/// merchant's policy, as the partner's after-sale cancellation (its refund is what the
/// reseller no longer owes). A policy that allows nothing is OCTO's `UNPROCESSABLE_ENTITY`
/// with the after-sale's reason.
pub async fn cancel(state: &AppState, r: &Reseller, booking: &OctoBooking) -> OctoResult<()> {
    let checkout =
        crate::checkout::read::visible(&state.commerce, booking.checkout_id, caller(r)).await?;
    let Some(order) = state
        .store
        .order_of_checkout(booking.checkout_id)
        .await
        .map_err(crate::error::Error::from)?
    else {
        if checkout.status == app::wire::CheckoutStatus::Reserved {
            release_reservation(&state.commerce, &checkout).await?;
            let mut booking = booking.clone();
            booking.cancelled_at = Some(Utc::now());
            state
                .store
                .update_octo_booking(&booking)
                .await
                .map_err(crate::error::Error::from)?;
            return Ok(());
        }
        return Err(OctoError::unprocessable(format!(
            "The booking is {} and cannot be cancelled.",
            checkout.status
        )));
    };
    crate::after_sale::requests::managed_cancellation(
        &state.commerce,
        order,
        crate::after_sale::Actor::Partner,
        ManagedCancellationRequest {
            ticket_ids: None,
            note: None,
            refund_percent: None,
        },
        None,
        Utc::now(),
    )
    .await?;
    Ok(())
}
