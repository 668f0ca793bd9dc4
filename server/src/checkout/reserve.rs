//! The reservation: inside one transaction vouchers are redeemed, the wallet is debited, the
//! priced checkout is written with its `checkouts.CheckoutStarted` event, and, last of all
//! before the commit, the provider holds the places. Anything failing rolls all of it back.
//!
//! Locks are taken in one global order by every transaction (vouchers by id, then the wallet;
//! places last, by the commit, in the order `store::backend` gives them), so Postgres row
//! locks cannot deadlock.

use app::wire::{CheckoutRequest, CheckoutStatus, Locale};
use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde_json::json;
use uuid::Uuid;

use super::Commerce;
use super::{
    holds::Holders,
    plan::Plan,
    pricing::{self, LineInput, PricingInput, VoucherInput, VoucherKind},
};
use crate::{
    error::{Error, ProblemType, Result},
    events::{EventType, NewEvent},
    providers::{Booking, BookingLine, FulfillmentError, FulfillmentProvider},
    store::{self, CheckoutTx, CustomerFields, NewCheckout, NewCheckoutLine, StoreError, Voucher},
};

/// How long a reservation holds its capacity (docs/api-checkout.md).
pub const HOLD: Duration = Duration::minutes(15);
/// What `POST /v2/checkouts/{checkout_id}/extend` adds to a reservation's hold, once.
pub const EXTENSION: Duration = Duration::minutes(10);

/// Who is buying: a signed-in customer (with the session's partner) or a guest, and the
/// client address the request came from.
#[derive(Debug, Clone, Copy, Default)]
pub struct Buyer {
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    pub session_id: Option<Uuid>,
    pub address: Option<std::net::IpAddr>,
}

/// What the reservation reads before its transaction begins: the transaction holds the write
/// lock (SQLite's one writer, Postgres's row locks) from its first write to its commit, so
/// reads that need no lock are done before it, and other buyers wait for writes alone.
struct Discounts {
    /// Vouchers that are valid now, in the order the codes were sent.
    vouchers: Vec<Voucher>,
    membership_percentage: Option<Decimal>,
    /// The wallet's balance as read then (zero for a guest); the transaction locks the wallet
    /// and uses the balance it finds.
    wallet_balance: Decimal,
}

async fn discounts(
    state: &Commerce,
    campaign_id: Uuid,
    plan: &Plan,
    codes: &[String],
    buyer: Buyer,
    now: DateTime<Utc>,
) -> Result<Discounts> {
    let mut vouchers: Vec<Voucher> = Vec::new();
    for code in codes {
        if let Some(v) = state.store.valid_voucher(campaign_id, code, now).await? {
            let for_merchant = v.merchant_id.is_none_or(|m| m == plan.merchant.merchant_id);
            if for_merchant && !vouchers.iter().any(|seen| seen.voucher_id == v.voucher_id) {
                vouchers.push(v);
            }
        }
    }
    let membership_percentage = match buyer.customer_id {
        Some(customer) => state
            .store
            .active_memberships(customer, campaign_id, plan.visit_date)
            .await?
            .into_iter()
            .map(|m| m.discount_percentage)
            .max(),
        None => None,
    };
    let wallet_balance = match buyer.customer_id {
        Some(customer) => state
            .store
            .wallet(customer, campaign_id)
            .await?
            .map_or(Decimal::ZERO, |w| w.balance),
        None => Decimal::ZERO,
    };
    Ok(Discounts {
        vouchers,
        membership_percentage,
        wallet_balance,
    })
}

/// The booking a provider holds for the lines of a plan.
pub fn booking(checkout_id: Uuid, plan: &Plan) -> Booking {
    Booking {
        checkout_id,
        lines: plan
            .lines
            .iter()
            .map(|l| BookingLine {
                product_id: l.product.product_id,
                sku: l.product.sku.clone(),
                day: l.day,
                availability_group_id: l.product.availability_group_id,
                timeslot_id: l.timeslot.as_ref().map(|s| s.timeslot_id),
                quantity: l.quantity,
            })
            .collect(),
    }
}

/// A provider's failure as the express error table names it.
pub fn fulfillment_problem(err: FulfillmentError) -> Error {
    match err {
        FulfillmentError::Unavailable(why) => Error::new(
            ProblemType::CheckoutProductNotFulfillable,
            format!("The products cannot be booked for that date: {why}. Offer another date."),
        ),
        FulfillmentError::Refused(why) => Error::new(
            ProblemType::CheckoutFulfillmentRequestRejected,
            format!("The provider refused the booking: {why}."),
        ),
        FulfillmentError::Failed(err) => {
            tracing::error!(error = ?err, "fulfilment reservation failed");
            Error::new(
                ProblemType::CheckoutFulfillmentReservationFailed,
                "The reservation at the provider failed; retry with the same Idempotency-Key.",
            )
        }
    }
}

/// Refuses a basket that `plan` already shows cannot be held, before any lock is taken or
/// anything written, when the provider's places are the ones the calendar shows. Under a rush
/// for the last places this keeps the refused from queueing for the write lock.
pub fn refuse_if_short(state: &Commerce, plan: &Plan) -> Result<()> {
    let ours = state
        .fulfillment
        .get(&plan.provider)
        .is_some_and(|p| p.capacity_is_ours());
    match plan.short_of_places() {
        Some(why) if ours => Err(fulfillment_problem(FulfillmentError::Unavailable(why))),
        _ => Ok(()),
    }
}

/// Everything a reservation reads before its transaction begins: the provider and the
/// discounts. Refuses a basket the plan shows cannot be held.
pub struct Prepared {
    provider: std::sync::Arc<dyn FulfillmentProvider>,
    discounts: Discounts,
    holders: Holders,
}

impl Prepared {
    /// What the customer will pay when every voucher read is still redeemable and the wallet
    /// holds what it held: the amount a payment is opened for before the transaction
    /// (`place::open_payment`), which `place::place_order` checks against the total written.
    pub fn expected_total(&self, plan: &Plan, r: &Reservation<'_>) -> Decimal {
        let all: Vec<Uuid> = self
            .discounts
            .vouchers
            .iter()
            .map(|v| v.voucher_id)
            .collect();
        let input = pricing_input(
            plan,
            &self.discounts,
            &all,
            self.discounts.wallet_balance,
            r,
        );
        pricing::quote(&input).total
    }
}

pub async fn prepare(state: &Commerce, plan: &Plan, r: &Reservation<'_>) -> Result<Prepared> {
    refuse_if_short(state, plan)?;
    let provider = state.fulfillment.get(&plan.provider).ok_or_else(|| {
        fulfillment_problem(FulfillmentError::Failed(anyhow::anyhow!(
            "no fulfilment provider named {:?}",
            plan.provider
        )))
    })?;
    let discounts = discounts(
        state,
        r.campaign_id,
        plan,
        &r.request.voucher_codes,
        r.buyer,
        r.now,
    )
    .await?;
    let b = r.buyer;
    let holders = Holders::of(
        state,
        b.partner_client_id,
        b.customer_id,
        b.session_id,
        b.address,
    )
    .await?;
    Ok(Prepared {
        provider: provider.clone(),
        discounts,
        holders,
    })
}

/// Writes the reservation of `plan` in `tx`, a transaction just begun: the first step of both
/// `POST /v2/checkouts` and the express checkout. The places are held last, by
/// [`Reserved::hold_and_commit`], after whatever else the caller writes.
pub async fn reserve_in(
    mut tx: Box<dyn CheckoutTx>,
    prepared: Prepared,
    plan: &Plan,
    r: &Reservation<'_>,
) -> Result<(Reserved, NewCheckout)> {
    let places = plan.lines.iter().map(|l| l.quantity).sum();
    prepared
        .holders
        .check(
            tx.as_mut(),
            plan.visit_date,
            places,
            r.request.replaces,
            r.now,
        )
        .await?;
    let address_key = prepared.holders.address_key.clone();
    let checkout = reserve(tx.as_mut(), plan, &prepared.discounts, address_key, r).await?;
    let reserved = Reserved {
        tx,
        provider: prepared.provider,
        booking: booking(r.checkout_id, plan),
    };
    Ok((reserved, checkout))
}

/// A reservation written in an open transaction whose places are not held yet. They are
/// taken last, by the commit, because a busy day's capacity row is the one lock every buyer
/// of that day waits for: held only for the take and the commit, buyers of one day overlap
/// everything else they write. Dropped, it rolls back.
pub struct Reserved {
    tx: Box<dyn CheckoutTx>,
    provider: std::sync::Arc<dyn FulfillmentProvider>,
    booking: Booking,
}

impl Reserved {
    /// The transaction, for what the caller adds (the order, the idempotent response).
    pub fn tx(&mut self) -> &mut dyn CheckoutTx {
        self.tx.as_mut()
    }

    /// Holds the places with the provider and commits everything, or keeps nothing. Our own
    /// places are taken by the commit (`store::places`), so that is where a sold-out day
    /// shows.
    pub async fn hold_and_commit(mut self) -> Result<()> {
        self.provider
            .reserve(self.tx.as_mut(), &self.booking)
            .await
            .map_err(fulfillment_problem)?;
        match self.tx.commit().await {
            Err(short @ StoreError::Short(_)) => Err(fulfillment_problem(short.into())),
            committed => Ok(committed?),
        }
    }
}

/// Everything the reservation needs besides the plan.
pub struct Reservation<'a> {
    /// The customer's fields when the checkout is confirmed in the same transaction (the
    /// express checkout): it is then written CONFIRMED at once.
    pub confirmed: Option<&'a CustomerFields>,
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub request: &'a CheckoutRequest,
    pub buyer: Buyer,
    pub locale: Locale,
    pub now: DateTime<Utc>,
    /// When an unconfirmed hold ends, other than `now` + [`HOLD`]: an OCTO reseller's shorter
    /// `expirationMinutes`, or the end of the hold a changed booking replaces
    /// (`checkout::rehold`). Its `checkouts.CheckoutStarted` says so.
    pub hold_until: Option<DateTime<Utc>>,
}

/// Redeems the vouchers, debits the wallet and writes the priced checkout inside `tx`;
/// returns what was written.
async fn reserve(
    tx: &mut dyn CheckoutTx,
    plan: &Plan,
    discounts: &Discounts,
    address_key: Option<String>,
    r: &Reservation<'_>,
) -> Result<NewCheckout> {
    // Redemptions are counted in id order (the lock order); exhausted vouchers are ignored
    // like invalid ones. Pricing applies them in the order the codes were sent.
    let mut by_id: Vec<&Voucher> = discounts.vouchers.iter().collect();
    by_id.sort_by_key(|v| v.voucher_id);
    let mut redeemed = Vec::new();
    for v in by_id {
        if tx.redeem_voucher(v.voucher_id).await? {
            redeemed.push(v.voucher_id);
        }
    }
    let wallet_balance = match r.buyer.customer_id {
        Some(customer) => tx.lock_wallet(customer, r.campaign_id).await?,
        None => Decimal::ZERO,
    };
    let quote = pricing::quote(&pricing_input(
        plan,
        discounts,
        &redeemed,
        wallet_balance,
        r,
    ));
    // A voucher that took nothing off (the tickets were already free) keeps its redemption.
    let mut unused: Vec<Uuid> = quote
        .voucher_discounts
        .iter()
        .filter(|(_, d)| d.is_zero())
        .map(|(id, _)| *id)
        .collect();
    unused.sort();
    for id in &unused {
        tx.unredeem_voucher(*id).await?;
    }
    if let (Some(customer), false) = (r.buyer.customer_id, quote.wallet_applied.is_zero()) {
        tx.set_wallet_balance(
            customer,
            r.campaign_id,
            wallet_balance - quote.wallet_applied,
        )
        .await?;
    }

    let timeslot_id = plan.timeslot().map(|s| s.timeslot_id);
    let checkout = NewCheckout {
        checkout_id: r.checkout_id,
        campaign_id: r.campaign_id,
        merchant_id: plan.merchant.merchant_id,
        customer_id: r.buyer.customer_id,
        partner_client_id: r.buyer.partner_client_id,
        session_id: r.buyer.session_id,
        client_address: address_key,
        provider: plan.provider.clone(),
        locale: r.locale.tag().to_owned(),
        visit_date: plan.visit_date,
        timeslot_id,
        flexible_date: r.request.flexible_date,
        currency: plan.merchant.currency.clone(),
        subtotal: quote.subtotal,
        discount_total: quote.discount_total,
        wallet_applied: quote.wallet_applied,
        total: quote.total,
        requires_shipping_address: plan.requires_shipping_address,
        voucher_codes: r.request.voucher_codes.clone(),
        external_reference: r.request.external_reference.clone(),
        attribution: r.request.attribution.clone().filter(|a| !a.is_empty()),
        buyer: r
            .request
            .buyer
            .as_ref()
            .map(crate::settlement::invoice::normalized),
        answers: plan.answers.clone(),
        // Confirmed at once (the express checkout), the places are held for the payment.
        expires_at: if r.confirmed.is_some() {
            r.now + super::place::PAYMENT_WINDOW
        } else {
            r.hold_until.unwrap_or(r.now + HOLD)
        },
        confirmed: r.confirmed.cloned(),
        lines: plan
            .lines
            .iter()
            .zip(&quote.lines)
            .map(|(l, q)| NewCheckoutLine {
                checkout_line_id: crate::ids::time_ordered_id(),
                product_id: l.product.product_id,
                availability_group_id: l.product.availability_group_id,
                timeslot_id: l.timeslot.as_ref().map(|s| s.timeslot_id),
                visit_date: l.day,
                sku: l.product.sku.clone(),
                title: l.title.clone(),
                age_group: l.product.age_group.clone(),
                quantity: l.quantity,
                unit_price: q.unit_price,
                list_price: q.list_price,
                booking_costs: q.booking_costs,
                visit_guarantee_cost: q.visit_guarantee_cost,
                line_total: q.line_total,
            })
            .collect(),
        vouchers: quote
            .voucher_discounts
            .iter()
            .filter(|(_, d)| !d.is_zero())
            .cloned()
            .collect(),
    };
    tx.insert_checkout(&checkout).await?;
    tx.insert_event(&started_event(&checkout)).await?;
    Ok(checkout)
}

/// The pricing of `plan` with the vouchers of `redeemed` and the wallet's `wallet_balance`.
fn pricing_input(
    plan: &Plan,
    discounts: &Discounts,
    redeemed: &[Uuid],
    wallet_balance: Decimal,
    r: &Reservation<'_>,
) -> PricingInput {
    PricingInput {
        lines: plan
            .lines
            .iter()
            .map(|l| LineInput {
                product_id: l.product.product_id,
                quantity: l.quantity,
                unit_price: l.unit_price,
                list_price: l.list_price,
                booking_costs: l.product.booking_costs,
                visit_guarantee_cost: l.product.visit_guarantee_cost,
            })
            .collect(),
        flexible_date: r.request.flexible_date,
        vouchers: discounts
            .vouchers
            .iter()
            .filter(|v| redeemed.contains(&v.voucher_id))
            .map(|v| VoucherInput {
                voucher_id: v.voucher_id,
                kind: match v.kind {
                    store::VoucherKind::Percentage => VoucherKind::Percentage,
                    store::VoucherKind::Amount => VoucherKind::Amount,
                },
                value: v.value,
            })
            .collect(),
        membership_percentage: discounts.membership_percentage,
        wallet_balance,
    }
}

/// `checkouts.CheckoutStarted` for a checkout just reserved.
pub fn started_event(checkout: &NewCheckout) -> NewEvent {
    NewEvent {
        event_type: EventType::CheckoutStarted,
        subject: format!("checkouts/{}", checkout.checkout_id),
        campaign_id: checkout.campaign_id,
        partner_client_id: checkout.partner_client_id,
        data: json!({
            "checkout_id": checkout.checkout_id,
            "merchant_id": checkout.merchant_id,
            "status": CheckoutStatus::Reserved,
            "visit_date": checkout.visit_date,
            "timeslot_id": checkout.timeslot_id,
            "external_reference": checkout.external_reference,
            "attribution": checkout.attribution,
            "expires_at": checkout.expires_at,
            "lines": checkout.lines.iter().map(|l| json!({
                "product_id": l.product_id, "sku": l.sku, "quantity": l.quantity,
            })).collect::<Vec<_>>(),
            "total": app::wire::Money::new(checkout.total, checkout.currency.clone()),
        }),
    }
}
