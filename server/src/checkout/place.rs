//! Placing the order of a confirmed checkout: its payment is opened at the provider first,
//! outside any transaction (`open_payment`); then, inside the caller's transaction, which made
//! the checkout CONFIRMED with the customer's fields (`confirm` moves a reservation there; the
//! express checkout writes it so), the order (PENDING_PAYMENT) and its payment are written
//! and `checkouts.CheckoutFulfillmentRegistered` is emitted (`place_order`).

use app::wire::{Attribution, CheckoutStatus, Money, PlacedOrder};
use chrono::{DateTime, Duration, Utc};
use rust_decimal::Decimal;
use serde_json::json;
use uuid::Uuid;

use super::Commerce;
use crate::{
    display_code::crockford,
    error::{Error, ProblemType, Result},
    events::{EventType, NewEvent},
    providers::PaymentRequest,
    store::{CheckoutTx, CustomerFields, NewOrder},
};

/// How long a payment stays open before the order is cancelled (docs/api-checkout.md). Going
/// to payment holds the checkout's places exactly as long, never longer: the confirmation
/// moves the checkout's `expires_at` to the payment's.
pub const PAYMENT_WINDOW: Duration = Duration::minutes(30);

/// The checkout being confirmed.
#[derive(Debug, Clone)]
pub struct Confirming {
    pub checkout_id: Uuid,
    pub campaign_id: Uuid,
    pub customer_id: Option<Uuid>,
    pub partner_client_id: Option<Uuid>,
    pub total: Decimal,
    pub currency: String,
    /// Where the customer came from, for the event.
    pub attribution: Option<Attribution>,
}

/// `BX-7K3M-9Q2P`: 8 Crockford base32 characters.
pub fn display_id() -> String {
    let code = crockford(8);
    format!("BX-{}-{}", &code[..4], &code[4..])
}

/// 409 `checkout-not-reserved`, saying what the checkout is `now` (its state, or how it changed).
pub fn not_reserved(checkout_id: Uuid, now: impl std::fmt::Display) -> Error {
    Error::new(
        ProblemType::CheckoutNotReserved,
        format!(
            "Checkout {checkout_id} is {now}; only a {} checkout whose hold has not ended can be confirmed.",
            CheckoutStatus::CONFIRM.from()
        ),
    )
}

/// The provider name of payments a partner owes (docs/octo.md, "Paying on account").
pub const ON_ACCOUNT: &str = "on_account";

/// A payment opened at the provider for an order not placed yet. It is opened before the
/// order's transaction begins, so the provider's round trip never holds SQLite's one writer or
/// a Postgres row; when the transaction then fails, the payment is never shown to anyone and
/// runs out at the provider unpaid (docs/api-checkout.md, "Payments").
#[derive(Debug, Clone)]
pub struct OpenedPayment {
    order_id: Uuid,
    display_id: String,
    payment_id: Uuid,
    payment_url: String,
    provider: &'static str,
    provider_ref: Option<String>,
    destination: Option<String>,
    amount: Decimal,
    currency: String,
}

impl OpenedPayment {
    /// A payment the partner owes rather than the customer pays (`on_account`): no provider,
    /// no page; settled as paid at once by `checkout::on_account`.
    pub fn on_account(amount: Decimal, currency: &str) -> Self {
        Self {
            order_id: crate::ids::random_id(),
            display_id: display_id(),
            payment_id: crate::ids::random_id(),
            payment_url: String::new(),
            provider: ON_ACCOUNT,
            provider_ref: None,
            destination: None,
            amount,
            currency: currency.to_owned(),
        }
    }

    /// A paid order's second payment (a dearer day's difference) that its partner owes.
    pub fn on_account_of(
        (order_id, display_id): (Uuid, String),
        amount: Decimal,
        currency: &str,
    ) -> Self {
        Self {
            order_id,
            display_id,
            ..Self::on_account(amount, currency)
        }
    }

    pub fn payment_id(&self) -> Uuid {
        self.payment_id
    }

    /// This payment as a paid order's second one, returning the customer to `return_url`.
    pub fn into_difference(
        self,
        return_url: String,
        expires_at: DateTime<Utc>,
    ) -> crate::store::NewDifferencePayment {
        crate::store::NewDifferencePayment {
            payment_id: self.payment_id,
            order_id: self.order_id,
            provider: self.provider.to_owned(),
            provider_ref: self.provider_ref,
            destination: self.destination,
            amount: self.amount,
            currency: self.currency,
            payment_url: self.payment_url,
            return_url,
            expires_at,
        }
    }
}

/// Opens the payment of checkout `checkout_id`'s order of `amount` at the payment provider:
/// with a provider that pays merchants' own accounts (Stripe), to the merchant's account when
/// it has one, and refused with 409 `checkout-merchant-not-payable` when that account cannot
/// take charges yet.
pub async fn open_payment(
    state: &Commerce,
    checkout_id: Uuid,
    merchant_id: Uuid,
    amount: Decimal,
    currency: &str,
) -> Result<OpenedPayment> {
    let order = (crate::ids::random_id(), display_id());
    open_payment_of(state, order, checkout_id, merchant_id, amount, currency).await
}

/// Opens a payment of `amount` for the order `(order_id, display_id)`: a new order's, or a
/// paid order's second one (a dearer date change's difference, `after_sale::rebook_payment`).
pub async fn open_payment_of(
    state: &Commerce,
    (order_id, display_id): (Uuid, String),
    checkout_id: Uuid,
    merchant_id: Uuid,
    amount: Decimal,
    currency: &str,
) -> Result<OpenedPayment> {
    let destination = if state.payments.pays_merchant_accounts() {
        match state
            .store
            .merchant_payment_account(merchant_id, state.payments.name())
            .await?
        {
            Some(account) if !account.charges_enabled => {
                return Err(Error::new(
                    ProblemType::CheckoutMerchantNotPayable,
                    "The merchant's payment account cannot take payments yet (its onboarding at the payment provider is not complete).",
                ))
            }
            Some(account) => Some(account.provider_account_id),
            None => None,
        }
    } else {
        None
    };
    let payment_id = crate::ids::random_id();
    let opened = match state
        .payments
        .create_payment(&PaymentRequest {
            payment_id,
            order_id,
            order_display_id: display_id.clone(),
            checkout_id,
            amount,
            currency: currency.to_owned(),
            destination: destination.clone(),
        })
        .await
    {
        Ok(Some(opened)) => opened,
        Ok(None) => {
            return Err(Error::new(
                ProblemType::CheckoutOrderEmptyRedirect,
                "The payment provider gave no payment URL; retry with the same Idempotency-Key.",
            ))
        }
        Err(err) => {
            tracing::error!(error = ?err, "creating the payment failed");
            return Err(Error::new(
                ProblemType::CheckoutOrderFailed,
                "The order could not be placed with the payment provider; retry with the same Idempotency-Key.",
            ));
        }
    };
    Ok(OpenedPayment {
        order_id,
        display_id,
        payment_id,
        payment_url: opened.url.to_string(),
        provider: state.payments.name(),
        provider_ref: opened.provider_ref,
        destination,
        amount,
        currency: currency.to_owned(),
    })
}

/// Writes the order of the checkout `c` with `payment`, opened for its total, in `tx`. A
/// payment opened for another amount (the basket's discounts changed between the payment
/// and the transaction: a voucher ran out, the wallet was spent) is refused with a 409 and
/// nothing is kept; a retry with the same Idempotency-Key prices the basket afresh.
pub async fn place_order(
    tx: &mut dyn CheckoutTx,
    c: &Confirming,
    fields: &CustomerFields,
    payment: OpenedPayment,
    now: DateTime<Utc>,
) -> Result<PlacedOrder> {
    if payment.amount != c.total || payment.currency != c.currency {
        return Err(Error::new(
            ProblemType::Conflict,
            "The basket's discounts changed while the order was placed (a voucher ran out or the wallet was spent); retry with the same Idempotency-Key.",
        ));
    }
    let OpenedPayment {
        order_id,
        display_id,
        payment_id,
        payment_url,
        provider,
        provider_ref,
        destination,
        ..
    } = payment;
    tx.insert_order(&NewOrder {
        order_id,
        display_id: display_id.clone(),
        checkout_id: c.checkout_id,
        campaign_id: c.campaign_id,
        customer_id: c.customer_id,
        total: c.total,
        currency: c.currency.clone(),
        payment_id,
        payment_provider: provider.to_owned(),
        payment_provider_ref: provider_ref,
        payment_destination: destination,
        payment_url: payment_url.clone(),
        return_url: fields.return_url.clone(),
        payment_expires_at: now + PAYMENT_WINDOW,
    })
    .await?;
    tx.insert_event(&NewEvent {
        event_type: EventType::CheckoutFulfillmentRegistered,
        subject: format!("checkouts/{}", c.checkout_id),
        campaign_id: c.campaign_id,
        partner_client_id: c.partner_client_id,
        data: json!({
            "checkout_id": c.checkout_id,
            "order_id": order_id,
            "order_display_id": display_id,
            "payment_id": payment_id,
            "status": CheckoutStatus::CONFIRM.to(),
            "total": Money::new(c.total, c.currency.clone()),
            "attribution": c.attribution,
        }),
    })
    .await?;
    Ok(PlacedOrder {
        checkout_id: c.checkout_id,
        order_id,
        order_display_id: display_id,
        payment_url,
    })
}
