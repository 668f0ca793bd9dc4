//! `POST /v2/checkouts/express`: reserve and confirm in one call, exactly once per
//! Idempotency-Key. It reads as its contract: validate → plan → open the payment → claim the
//! key → reserve (the holds checked first) → place → complete the key.
//!
//! The checks come in the order of the express error table (docs/api-checkout.md, "Express
//! checkout: order of checks"): the bearer, the key and the campaign are the handler's; here
//! the basket's shape (400, reading nothing), the customer's fields (400, then 422), the key's
//! claim (208 replay, 409), the basket's products, date and time (400), the shipping address
//! (400), price and capacity (422), the providers (422/502). The plan, which only reads, comes before the claim so that
//! a request bound to fail writes nothing (`idempotency`). Everything after the claim runs in
//! one transaction that also stores the success under the key: a failure keeps nothing,
//! releases the key (on SQLite the claim is part of that transaction and goes with it), and a
//! retry with the same key re-attempts cleanly.

use app::wire::{Envelope, ExpressCheckoutRequest, Locale, PlacedOrder};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Commerce;
use super::{
    basket, customer,
    idempotency::{Claimed, IdempotencyKey},
    place::{open_payment, place_order, Confirming},
    plan::{self, shipping_address_required, Plan, ReadDay},
    reserve::{self, Buyer, Prepared, Reservation},
};
use crate::{error::Result, http::envelope};

/// The response body to send, and whether it is a replay of an earlier success.
#[derive(Debug)]
pub enum Express {
    Placed(Vec<u8>),
    Replayed(Vec<u8>),
}

/// The success as it is answered and stored under the key (replays send these bytes).
pub fn response_body(placed: PlacedOrder) -> Result<Vec<u8>> {
    let body = serde_json::to_vec(&Envelope {
        data: placed,
        meta: envelope::meta(),
    })
    .map_err(anyhow::Error::from)?;
    Ok(body)
}

pub async fn express(
    state: &Commerce,
    campaign_id: Uuid,
    buyer: Buyer,
    locale: Locale,
    key: Uuid,
    request: ExpressCheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Express> {
    // Validate: what depends on the request alone.
    let key = IdempotencyKey::new(campaign_id, key, &request, buyer.customer_id, now);
    let has_address = request.shipping_address.is_some();
    let (basket_request, customer_request) = request.split();
    basket::check_request(&basket_request)?;
    let fields = customer::validate(
        state,
        campaign_id,
        buyer.partner_client_id,
        &customer_request,
    )
    .await?;
    customer::check_locked(state, buyer.session_id, &customer_request).await?;
    // The checkout is the partner's the fields attribute it to (a guest's by its return URL).
    let buyer = Buyer {
        partner_client_id: fields.partner_client_id,
        ..buyer
    };
    let reservation = Reservation {
        confirmed: Some(&fields),
        checkout_id: crate::ids::random_id(),
        campaign_id,
        request: &basket_request,
        buyer,
        locale,
        now,
        hold_until: None,
    };

    // Plan, reading only, and open the payment at the provider for the planned total,
    // outside any transaction. A failure of either before the claim is answered as the
    // claim-first order would: a retry of an earlier success is replayed. Whether the key has
    // a record is read with the plan's first day (`seen`), so a buyer refused for a sold-out
    // day costs one query, not two.
    let mut seen = None;
    let ready = async {
        let (plan, prepared) =
            plan_express(state, &reservation, has_address, &key, &mut seen).await?;
        let total = prepared.expected_total(&plan, &reservation);
        let payment = open_payment(
            state,
            reservation.checkout_id,
            plan.merchant.merchant_id,
            total,
            &plan.merchant.currency,
        )
        .await?;
        Ok::<_, crate::error::Error>((plan, prepared, payment))
    };
    let (plan, prepared, payment) = match ready.await {
        Ok(ready) => ready,
        Err(refusal) => {
            let replay = key.refused_before_claim(state, refusal, seen, now).await?;
            return Ok(Express::Replayed(replay));
        }
    };

    // Claim the key; the transaction begins on the connection that claimed it.
    let tx = match key.claim_and_begin(state, now).await? {
        Claimed::Begun(tx) => tx,
        Claimed::Replay(body) => return Ok(Express::Replayed(body)),
    };

    // Reserve, place, complete the key: one transaction, committed with the places taken.
    let attempt = async {
        let (mut reserved, checkout) =
            reserve::reserve_in(tx, prepared, &plan, &reservation).await?;
        let confirming = Confirming {
            checkout_id: reservation.checkout_id,
            campaign_id,
            customer_id: buyer.customer_id,
            partner_client_id: buyer.partner_client_id,
            total: checkout.total,
            currency: checkout.currency,
            attribution: checkout.attribution,
        };
        let placed = place_order(reserved.tx(), &confirming, &fields, payment, now).await?;
        let body = response_body(placed)?;
        key.complete(reserved.tx(), &body, now).await?;
        reserved.hold_and_commit().await?;
        Ok(body)
    };
    match attempt.await {
        Ok(body) => {
            state.catalog.capacity_changed();
            Ok(Express::Placed(body))
        }
        Err(err) => {
            // Where the claim was part of the transaction, the failure undid it too.
            if !state.store.claim_ends_with_its_checkout() {
                key.release(state).await;
            }
            Err(err)
        }
    }
}

/// The plan of an express basket and what its reservation reads, with the shipping address
/// checked where the error table puts it: after the products, date and time, before prices.
/// The plan's first day is read with whether `key` has a record, which lands in `seen`.
async fn plan_express(
    state: &Commerce,
    reservation: &Reservation<'_>,
    has_address: bool,
    key: &IdempotencyKey,
    seen: &mut Option<bool>,
) -> Result<(Plan, Prepared)> {
    let r = reservation;
    let resolved = plan::resolve(state, r.campaign_id, r.request, r.now).await?;
    if resolved.requires_shipping_address && !has_address {
        return Err(shipping_address_required());
    }
    let answers = resolved.answers(&r.request.answers, true)?;
    let mut read = None;
    if let Some((product_id, day)) = resolved.first_day() {
        let (priced, key_seen) = state
            .store
            .day_and_key_seen(product_id, day, r.campaign_id, key.key())
            .await?;
        *seen = Some(key_seen);
        read = Some(ReadDay {
            product_id,
            day,
            priced,
        });
    }
    let mut plan = resolved.price(state, read, r.locale, r.now).await?;
    plan.answers = answers;
    let prepared = reserve::prepare(state, &plan, r).await?;
    Ok((plan, prepared))
}
