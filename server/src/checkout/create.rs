//! `POST /v2/checkouts`: reserve a basket and return the priced review.

use app::wire::{Checkout, CheckoutRequest, Locale};
use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::Commerce;
use super::{
    basket,
    plan::plan,
    read,
    reserve::{self, Buyer, Reservation},
};
use crate::error::Result;

pub async fn create(
    state: &Commerce,
    campaign_id: Uuid,
    buyer: Buyer,
    locale: Locale,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Checkout> {
    basket::check_request(request)?;
    let plan = plan(state, campaign_id, locale, request, now).await?;
    let checkout_id = crate::ids::random_id();
    let reservation = Reservation {
        confirmed: None,
        checkout_id,
        campaign_id,
        request,
        buyer,
        locale,
        now,
    };
    let prepared = reserve::prepare(state, &plan, &reservation).await?;
    let tx = state.store.begin_checkout().await?;
    let (reserved, _) = reserve::reserve_in(tx, prepared, &plan, &reservation).await?;
    reserved.hold_and_commit().await?;
    state.catalog.capacity_changed();
    read::view_of(state, checkout_id).await
}
