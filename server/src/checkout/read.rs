//! Reading a checkout: who may see it, and expiry applied on read so a reader never sees a
//! hold that has ended (the sweeper does the same in the background).

use app::wire::{Checkout, CheckoutStatus, PaymentStatus};
use chrono::Utc;
use uuid::Uuid;

use super::Commerce;
use super::{
    lifecycle::{expire_reservation, settle_payment, PaymentOutcome},
    view::checkout_view,
};
use crate::{
    error::{Error, ProblemType, Result},
    store::CheckoutRecord,
};

fn not_found(checkout_id: Uuid) -> Error {
    Error::new(
        ProblemType::CheckoutNotFound,
        format!("Checkout {checkout_id} was not found."),
    )
}

/// Who acts on a checkout: a bearer's customer and its session's partner client (none for an
/// identity session), or a guest (both `None`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Caller {
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
}

/// The checkout `checkout_id`, when `caller` may see it: a checkout made under a bearer
/// only by that customer, a guest's by anyone holding its id (a random UUIDv4). Others get the
/// same 404 as a checkout that does not exist. Every operation on a checkout after its
/// reservation starts here, so this is where a session's partner client must still be allowed
/// the checkout's campaign (403 `forbidden`): a client removed from the campaign can neither
/// read, extend, confirm nor release the reservations its customers made before.
pub async fn visible(
    state: &Commerce,
    checkout_id: Uuid,
    caller: Caller,
) -> Result<CheckoutRecord> {
    let checkout = state
        .store
        .checkout(checkout_id)
        .await?
        .ok_or_else(|| not_found(checkout_id))?;
    if checkout.customer_id.is_some() && checkout.customer_id != caller.customer_id {
        return Err(not_found(checkout_id));
    }
    if let Some(client) = caller.partner_client_id {
        let store = state.store.as_ref();
        state
            .auth
            .require_campaign(store, client, checkout.campaign_id)
            .await?;
    }
    let now = Utc::now();
    let mut changed = false;
    if checkout.status == CheckoutStatus::Reserved && checkout.expires_at <= now {
        changed |= expire_reservation(state, checkout_id, now).await?;
    }
    if checkout.status == CheckoutStatus::Confirmed {
        if let Some(order) = state.store.order_of_checkout(checkout_id).await? {
            if let Some(payment) = state
                .store
                .payment_of_order(order.customer_order_id)
                .await?
            {
                // A payment at an external provider is ended there first, by the sweeper
                // (`payments::expire`), never on a read's time.
                if payment.status == PaymentStatus::Open
                    && payment.expires_at <= now
                    && payment.provider_ref.is_none()
                {
                    changed |=
                        settle_payment(state, payment.payment_id, PaymentOutcome::Expired).await?;
                }
            }
        }
    }
    if changed {
        return state
            .store
            .checkout(checkout_id)
            .await?
            .ok_or_else(|| not_found(checkout_id));
    }
    Ok(checkout)
}

/// The API view of a checkout this request just wrote.
pub async fn view_of(state: &Commerce, checkout_id: Uuid) -> Result<Checkout> {
    let checkout = state
        .store
        .checkout(checkout_id)
        .await?
        .ok_or_else(|| not_found(checkout_id))?;
    checkout_view(state, &checkout).await
}
