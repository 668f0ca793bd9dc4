//! A held checkout reserved again with another day, count or product (an OCTO reseller's
//! booking update, docs/octo.md): in one transaction the old hold ends
//! (`checkouts.CheckoutExpired`, reason `replaced`) and gives its places back, the new one is
//! reserved (`checkouts.CheckoutStarted`) with the old one's end and extension, and the caller
//! points its booking at it; the commit takes the new places. So the places the old hold had
//! count for the new one (a full day can still go from three places to two), and a failure
//! anywhere keeps the old hold as it was.

use app::wire::{CheckoutRequest, Locale};
use chrono::{DateTime, Utc};

use super::{
    create::{open, Holding, Open},
    lifecycle,
    reserve::Buyer,
    Commerce,
};
use crate::{
    error::{Error, ProblemType, Result},
    store::CheckoutRecord,
};

/// Reserves `request` in place of `old`, a RESERVED checkout of the same buyer, up to the
/// commit (see [`Open`]). `checkout-not-reserved` when `old` ended meanwhile (its hold ran
/// out, or another change replaced it first).
pub async fn rehold(
    state: &Commerce,
    old: &CheckoutRecord,
    buyer: Buyer,
    locale: Locale,
    request: &CheckoutRequest,
    now: DateTime<Utc>,
) -> Result<Open> {
    let request = CheckoutRequest {
        // The buyer's bounds leave the old hold out: it ends in this transaction.
        replaces: Some(old.checkout_id),
        ..request.clone()
    };
    let lines = state.store.checkout_lines(old.checkout_id).await?;
    let holding = Holding {
        until: Some(old.expires_at),
        freed: Some((lines.as_slice(), old.visit_date)),
    };
    let mut open = open(
        state,
        old.campaign_id,
        buyer,
        locale,
        &request,
        now,
        holding,
    )
    .await?;
    let checkout_id = open.checkout_id;
    let tx = open.tx();
    if let Some(at) = old.hold_extended_at {
        tx.carry_extension(checkout_id, at).await?;
    }
    if old.expires_at <= now || !lifecycle::end_in(state, tx, old, &lines, None, "replaced").await?
    {
        return Err(Error::new(
            ProblemType::CheckoutNotReserved,
            format!(
                "Checkout {} is no longer held: its hold ended or another change replaced it.",
                old.checkout_id
            ),
        ));
    }
    Ok(open)
}
