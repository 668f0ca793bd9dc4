//! The sandbox payment provider's page (`/pay/{payment_id}?key=…`): the order and its amount
//! with Pay, Decline and Cancel. The choice is a plain form post, handled by the server, which
//! settles the payment and sends the customer to the partner's return URL; it works before
//! the WASM has loaded, too. The page's `key` (part of the payment URL) goes with every read
//! and post: without it the server shows and settles nothing.

use leptos::prelude::*;
use leptos_router::hooks::{use_params_map, use_query_map};
use uuid::Uuid;

use crate::{
    frame::{
        layout::Chrome,
        server::{read_payment, PaymentPage},
        ui::notice::Loading,
        ui::price::Amount,
    },
    i18n::{t, td_string, use_i18n, Locale},
    wire::PaymentStatus,
};

fn settled_text(locale: Locale, status: PaymentStatus) -> String {
    let status = match status {
        PaymentStatus::Paid => td_string!(locale, pay.status_PAID),
        PaymentStatus::Declined => td_string!(locale, pay.status_DECLINED),
        PaymentStatus::Cancelled => td_string!(locale, pay.status_CANCELLED),
        PaymentStatus::Expired => td_string!(locale, pay.status_EXPIRED),
        // Never shown: an open payment shows its choices instead.
        PaymentStatus::Open => td_string!(locale, pay.status_other),
    };
    td_string!(locale, pay.settled, status).to_string()
}

#[component]
pub fn PayScreen() -> impl IntoView {
    let i18n = use_i18n();
    let params = use_params_map();
    let query = use_query_map();
    let payment = move || {
        let id = params.with(|p| p.get("payment_id").and_then(|id| id.parse::<Uuid>().ok()));
        let key = query.with(|q| q.get("key"));
        id.zip(key)
    };
    let page = Resource::new(payment, |payment| async move {
        match payment {
            Some((id, key)) => read_payment(id, key).await,
            None => Ok(None),
        }
    });
    view! {
        <Chrome>
            <h1 class="screen-title">{t!(i18n, pay.title)}</h1>
            <p class="notice sandbox">{t!(i18n, pay.sandbox_note)}</p>
            <Suspense fallback=|| view! { <Loading/> }>
                {move || Suspend::new(async move {
                    match page.await {
                        Ok(Some(payment)) => view! { <PaymentForm payment/> }.into_any(),
                        _ => view! { <p class="notice" role="alert">{t!(i18n, pay.unknown)}</p> }.into_any(),
                    }
                })}
            </Suspense>
        </Chrome>
    }
}

#[component]
fn PaymentForm(payment: PaymentPage) -> impl IntoView {
    let i18n = use_i18n();
    let reference = payment.order_display_id.clone();
    let status = payment.status;
    let choices = if status == PaymentStatus::Open {
        view! {
            <form method="post" action=payment.action.clone() class="pay-choices">
                <button type="submit" name="action" value="pay" class="button primary">{t!(i18n, pay.pay)}</button>
                <button type="submit" name="action" value="decline" class="button secondary">{t!(i18n, pay.decline)}</button>
                <button type="submit" name="action" value="cancel" class="button secondary">{t!(i18n, pay.cancel)}</button>
            </form>
        }
        .into_any()
    } else {
        view! {
            <p>{move || settled_text(i18n.get_locale(), status)}</p>
            <a class="button secondary" href=payment.back_url.clone()>{t!(i18n, pay.back)}</a>
        }
        .into_any()
    };
    view! {
        <section class="card payment-card">
            <h2>{move || td_string!(i18n.get_locale(), pay.order, reference = reference.as_str()).to_string()}</h2>
            <p class="amount">
                {t!(i18n, pay.amount)} ": " <strong><Amount money=payment.amount.clone()/></strong>
            </p>
            {choices}
        </section>
    }
}
