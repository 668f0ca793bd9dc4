//! Back from the payment page: `/frame/return?checkout_id=…&payment_id=…` (or the
//! partner's `boxoffice_checkout`) reads the checkout until the payment is settled, then shows
//! the tickets, or a way to try again.

use std::time::Duration;

use leptos::prelude::*;
use leptos_router::{components::A, hooks::use_query_map};
use uuid::Uuid;

use crate::{
    frame::{
        analytics::{Analytics, Basket},
        api::{Api, ApiError},
        host::{self, Outgoing},
        ui::{
            heading::ScreenTitle,
            load::{load, loaded},
            notice::Loading,
            tickets::{TicketActions, TicketList},
        },
    },
    i18n::{t, td_string, use_i18n},
    wire::{Checkout, CheckoutStatus, Order, OrderStatus, PaymentStatus, ProblemType, ReceiptLine},
};

/// How often, and how many times, the checkout is read while the payment settles.
const POLL_EVERY: Duration = Duration::from_millis(1500);
const POLLS: u32 = 40;

#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    Paid(Box<Order>),
    Failed {
        merchant_id: Uuid,
    },
    Pending,
    Missing,
    /// The checkout is not this session's customer's (or does not exist: the API does not
    /// tell the two apart, so nobody learns whether another's order exists).
    NotYours,
}

/// What a checkout says about its payment.
fn outcome_of(checkout: &Checkout) -> Outcome {
    let payment = checkout.payment.as_ref().map(|p| p.status);
    let failed = !matches!(
        payment,
        None | Some(PaymentStatus::Open | PaymentStatus::Paid)
    );
    if matches!(
        checkout.status,
        CheckoutStatus::Cancelled | CheckoutStatus::Expired
    ) || failed
    {
        return Outcome::Failed {
            merchant_id: checkout.merchant_id,
        };
    }
    Outcome::Pending
}

async fn read(api: Api, checkout_id: Uuid, payment_id: Option<Uuid>) -> Result<Outcome, ApiError> {
    let checkout = match api.checkout(checkout_id).await {
        Ok(checkout) => checkout,
        Err(error) if error.is(ProblemType::CheckoutNotFound) => return Ok(Outcome::NotYours),
        Err(error) => return Err(error),
    };
    let paid_for = checkout.payment.as_ref().map(|p| p.payment_id);
    if payment_id.is_some() && paid_for != payment_id {
        return Ok(Outcome::Missing);
    }
    let paid = checkout.status == CheckoutStatus::Paid
        || checkout.order_status.is_some_and(OrderStatus::is_paid);
    match (paid, checkout.order_id) {
        (true, Some(order_id)) => {
            let order = api.order(order_id).await?;
            // Tickets are issued with the payment; until they are there, keep waiting.
            Ok(if order.tickets.is_empty() {
                Outcome::Pending
            } else {
                Outcome::Paid(Box::new(order))
            })
        }
        _ => Ok(outcome_of(&checkout)),
    }
}

/// Posts `boxoffice:order-paid` with the order's receipt, which the host's page can verify
/// (a browser message alone proves nothing); without the receipt if it cannot be read.
async fn tell_host(api: Api, order: Order) {
    let receipt = api.receipt(order.order_id).await.ok();
    let lines = match &receipt {
        Some(r) => r.lines.clone(),
        None => order.items.iter().map(ReceiptLine::from).collect(),
    };
    host::track(Analytics::Purchase {
        transaction_id: order.order_id,
        basket: Basket::of_order(&order),
    });
    host::post(&Outgoing::OrderPaid {
        order_id: order.order_id,
        order_display_id: order.order_display_id,
        total: order.total,
        lines,
        receipt: receipt.map(|r| r.receipt),
    });
}

#[component]
pub fn ReturnScreen() -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let query = use_query_map();
    let ids = Memo::new(move |_| {
        query.with(|q| {
            let checkout = q
                .get("checkout_id")
                .or_else(|| q.get("boxoffice_checkout"))
                .and_then(|id| id.parse::<Uuid>().ok());
            let payment = q.get("payment_id").and_then(|id| id.parse::<Uuid>().ok());
            (checkout, payment)
        })
    });
    let attempt = RwSignal::new(0u32);
    let told = RwSignal::new(false);
    let state = load(move || {
        attempt.track();
        let (checkout, payment) = ids.get();
        async move {
            let Some(checkout) = checkout else {
                return Ok(None);
            };
            read(api, checkout, payment).await.map(Some)
        }
    });
    // Poll while the payment is open; tell the host once it is paid.
    Effect::new(move |_| match state.get().and_then(Result::ok).flatten() {
        Some(Outcome::Pending) if attempt.get_untracked() < POLLS => {
            set_timeout(move || attempt.update(|n| *n += 1), POLL_EVERY);
        }
        Some(Outcome::Paid(order)) if !told.get_untracked() => {
            told.set(true);
            leptos::task::spawn_local(tell_host(api, *order));
        }
        _ => {}
    });
    loaded(state, missing, move |outcome| {
        match outcome {
        Outcome::Pending if attempt.get() < POLLS => {
            view! { <ScreenTitle>{t!(i18n, after_payment.checking)}</ScreenTitle> <Loading/> }.into_any()
        }
        Outcome::Pending => view! {
            <ScreenTitle>{t!(i18n, after_payment.pending_title)}</ScreenTitle>
            <p>{t!(i18n, after_payment.pending_help)}</p>
            <A href="/frame/orders">{t!(i18n, nav.orders)}</A>
        }
        .into_any(),
        Outcome::Missing => missing(),
        Outcome::NotYours => view! {
            <ScreenTitle>{t!(i18n, after_payment.not_yours_title)}</ScreenTitle>
            <p>{t!(i18n, after_payment.not_yours_help)}</p>
            <A href="/frame/orders">{t!(i18n, nav.orders)}</A>
        }
        .into_any(),
        Outcome::Failed { merchant_id } => view! {
            <ScreenTitle>{t!(i18n, after_payment.failed_title)}</ScreenTitle>
            <p>{t!(i18n, after_payment.failed_help)}</p>
            <A href=format!("/frame/merchants/{merchant_id}") attr:class="button primary">{t!(i18n, common.retry)}</A>
        }
        .into_any(),
        Outcome::Paid(order) => {
            let reference = order.order_display_id.clone();
            view! {
                <ScreenTitle>{t!(i18n, after_payment.paid_title)}</ScreenTitle>
                <p class="order-ref">
                    {move || td_string!(i18n.get_locale(), after_payment.order_ref, reference = reference.as_str()).to_string()}
                </p>
                <h2>{t!(i18n, after_payment.tickets_title)}</h2>
                <TicketList tickets=order.tickets/>
                <TicketActions order_id=order.order_id/>
            }
            .into_any()
        }
    }
    })
}

/// No checkout in the address, or one whose payment is not the one named.
fn missing() -> AnyView {
    let i18n = use_i18n();
    view! { <ScreenTitle>{t!(i18n, after_payment.missing)}</ScreenTitle> }.into_any()
}
