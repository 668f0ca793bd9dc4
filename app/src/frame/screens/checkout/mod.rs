//! The checkout: the reservation's priced review, the time it is held, vouchers, the
//! customer's details (and the delivery address when the server asks for one), then the
//! payment page in the top window.

mod fields;
mod hold;
mod questions;
mod review;
mod voucher;

use chrono::{DateTime, Utc};
use leptos::prelude::*;
use leptos_router::{components::A, hooks::use_navigate, NavigateOptions};
use uuid::Uuid;

use crate::frame::ui::write::write;
use crate::{
    frame::{
        analytics::{Analytics, Basket},
        api::{checkout_path, Api, ApiError},
        host::{self, Outgoing},
        session::{use_draft, use_session, CustomerDraft},
        ui::{
            funnel,
            heading::ScreenTitle,
            load::{load, loaded, Decoded, Prefetch},
            route::id_param,
            words::problem_text,
        },
    },
    i18n::{t, td_string, use_i18n},
    wire::{
        Checkout, CheckoutRequest, CheckoutStatus, ConfirmRequest, FieldError, PlacedOrder,
        Prefill, ProblemType, ShippingAddress,
    },
};
use fields::{CountryField, Errors, Field};
use hold::{HoldTimer, PaymentHold};
use questions::Answers;
use review::Review;
use voucher::VoucherForm;

/// The newsletter a customer can opt in to from the frame.
const NEWSLETTER: &str = "campaign-news";

/// Starts reading the route's checkout (the route's `data()`, before the screen's code).
pub fn checkout_read() -> Prefetch {
    let api = Api::new();
    let checkout_id = id_param("checkout_id");
    load(move || {
        let id = checkout_id.get();
        async move {
            let Some(id) = id else { return Ok(None) };
            api.text(checkout_path(id)).await.map(Some)
        }
    })
}

#[component]
pub fn CheckoutScreen(read: Prefetch) -> impl IntoView {
    let i18n = use_i18n();
    let data = Decoded::<Checkout>::new(read);
    let message = RwSignal::new(None::<String>);
    view! {
        <ScreenTitle>{t!(i18n, checkout.title)}</ScreenTitle>
        <p class="form-message" role="status">{move || message.get()}</p>
        {loaded(data, not_found, move |checkout| view! { <CheckoutView checkout message/> }.into_any())}
    }
}

fn not_found() -> AnyView {
    let i18n = use_i18n();
    view! { <p class="notice">{t!(i18n, checkout.not_found)}</p> }.into_any()
}

#[component]
fn CheckoutView(checkout: Checkout, message: RwSignal<Option<String>>) -> impl IntoView {
    let i18n = use_i18n();
    let over = RwSignal::new(checkout.status != CheckoutStatus::Reserved);
    let placed = RwSignal::new(None::<PlacedOrder>);
    let paying_until = RwSignal::new(None::<DateTime<Utc>>);
    let status = checkout.status;
    let pay_link = checkout
        .payment
        .as_ref()
        .and_then(|p| p.payment_url.clone());
    if status == CheckoutStatus::Expired {
        host::post(&Outgoing::HoldExpired {
            checkout_id: checkout.checkout_id,
        });
    }
    // The places went back without a purchase: found so on opening, or the hold ran out here.
    let held = Basket::of_checkout(&checkout);
    Effect::new(move |was_over: Option<bool>| {
        let now_over = over.get();
        let ran_out = match was_over {
            None => status == CheckoutStatus::Expired,
            Some(before) => !before && now_over && placed.with_untracked(Option::is_none),
        };
        if ran_out {
            host::track(Analytics::RemoveFromCart(held.clone()));
        }
        now_over
    });
    // Where a checkout that is no longer held stands: paid, waiting for its payment (a reload
    // after confirming), or ended (expired, or its payment failed).
    let settled = {
        let checkout = checkout.clone();
        move || match (status, pay_link.clone()) {
            (CheckoutStatus::Paid, _) => view! {
                <div class="notice" role="status">
                    <p>{t!(i18n, after_payment.paid_title)}</p>
                    <A href="/frame/orders">{t!(i18n, nav.orders)}</A>
                </div>
            }
            .into_any(),
            (CheckoutStatus::Confirmed, Some(url)) => {
                let until = Signal::stored(Some(checkout.expires_at));
                view! { <PaymentStep url until/> }.into_any()
            }
            _ => view! { <TryAgain checkout=checkout.clone()/> }.into_any(),
        }
    };
    view! {
        <Review checkout=checkout.clone()/>
        {move || match (placed.get(), over.get()) {
            (Some(order), _) => {
                let until = paying_until.into();
                view! { <PaymentStep url=order.payment_url until/> }.into_any()
            }
            (None, false) => view! {
                <HoldTimer
                    checkout_id=checkout.checkout_id
                    until=checkout.expires_at
                    extended=checkout.hold_extended_at.is_some()
                    over
                />
                <VoucherForm checkout=checkout.clone() message/>
                <CustomerForm checkout=checkout.clone() placed paying_until/>
            }
            .into_any(),
            (None, true) => settled().into_any(),
        }}
    }
}

/// A hold that ran out: says so, and reserves the same choice again (the basket, its date and
/// time, its vouchers; the form keeps what was typed) in one step, or lets the customer choose
/// anew.
#[component]
fn TryAgain(checkout: Checkout) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let navigate = use_navigate();
    let problem = RwSignal::new(None::<String>);
    let merchant_href = format!("/frame/merchants/{}", checkout.merchant_id);
    let codes: Vec<String> = checkout.vouchers.iter().map(|v| v.code.clone()).collect();
    let request = CheckoutRequest {
        replaces: None,
        ..voucher::repriced(&checkout, codes)
    };
    let again = write(move |request: &CheckoutRequest| {
        let request = request.clone();
        let navigate = navigate.clone();
        async move {
            match api.reserve(&request).await {
                Ok(new) => {
                    funnel::reserved(&new);
                    navigate(
                        &format!("/frame/checkout/{}", new.checkout_id),
                        NavigateOptions {
                            replace: true,
                            ..Default::default()
                        },
                    )
                }
                Err(ApiError::Expired) => {}
                Err(error) => {
                    funnel::refused(&error);
                    problem.set(Some(problem_text(i18n.get_locale_untracked(), &error)))
                }
            }
        }
    });
    let busy = again.pending();
    view! {
        <div class="notice" role="alert">
            <p>{t!(i18n, checkout.hold_expired)}</p>
            <p>{t!(i18n, checkout.choice_kept)}</p>
            <p class="form-message" role="status">{move || problem.get()}</p>
            <button
                type="button"
                class="button primary wide"
                aria-disabled=move || busy.get().then_some("true")
                on:click=move |_| {
                    if !busy.get_untracked() {
                        problem.set(None);
                        again.dispatch_local(request.clone());
                    }
                }
            >
                {t!(i18n, checkout.try_again)}
            </button>
            <A href=merchant_href>{t!(i18n, checkout.start_again)}</A>
        </div>
    }
}

/// Where the payment provider sends the customer back: the partner page the frame was opened
/// from (its `return_url`), else the host's origin, else this frame's own return page. The
/// checkout travels as `boxoffice_checkout`; the provider adds `payment_id`.
fn return_url(checkout_id: Uuid) -> String {
    let session = use_session().get_untracked();
    let base = session
        .active()
        .and_then(|s| s.return_url.clone())
        .or_else(host::parent_origin_url)
        .unwrap_or_else(own_return_page);
    with_checkout(&base, checkout_id)
}

/// `url` with `boxoffice_checkout` in its query (replacing one already there) and its fragment
/// kept: embed.js's default return URL is the page's `location.href`, and a parameter put after
/// its `#` would be part of the fragment, which the host page never reads. Written out rather
/// than with the `url` crate, which the WASM bundle does not otherwise carry.
fn with_checkout(url: &str, checkout_id: Uuid) -> String {
    const NAME: &str = "boxoffice_checkout";
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
    let mut pairs: Vec<String> = query
        .split('&')
        .filter(|pair| !pair.is_empty() && pair.split('=').next() != Some(NAME))
        .map(str::to_owned)
        .collect();
    pairs.push(format!("{NAME}={checkout_id}"));
    let mut out = format!("{path}?{}", pairs.join("&"));
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

fn own_return_page() -> String {
    #[cfg(feature = "hydrate")]
    if let Some(origin) = web_sys::window().and_then(|w| w.location().origin().ok()) {
        return format!("{origin}/frame/return");
    }
    "/frame/return".into()
}

/// Fills the draft with what the session's partner prefilled: a locked field always, any
/// other only where the customer has typed nothing yet.
fn apply_prefill(draft: CustomerDraft, prefill: &Prefill) {
    for (name, field) in [
        ("email", draft.email),
        ("first_name", draft.first_name),
        ("last_name", draft.last_name),
    ] {
        if let Some(value) = prefill.value(name) {
            if prefill.is_locked(name) || field.get_untracked().trim().is_empty() {
                field.set(value.to_owned());
            }
        }
    }
}

#[component]
fn CustomerForm(
    checkout: Checkout,
    placed: RwSignal<Option<PlacedOrder>>,
    paying_until: RwSignal<Option<DateTime<Utc>>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let errors: Errors = RwSignal::new(Vec::new());
    let problem = RwSignal::new(None::<String>);
    let draft = use_draft();
    let (email, first_name, last_name, newsletter) = (
        draft.email,
        draft.first_name,
        draft.last_name,
        draft.newsletter,
    );
    // The partner's prefill and locks, from the session (`GET /v2/me`).
    let prefill = load(move || async move { api.me().await.map(|me| Some(me.prefill)) });
    Effect::new(move |_| {
        if let Some(Ok(Some(prefill))) = prefill.get() {
            apply_prefill(draft, &prefill);
        }
    });
    let locks = Memo::new(move |_| match prefill.get() {
        Some(Ok(Some(prefill))) => prefill.locked,
        _ => Vec::new(),
    });
    let locked = move |name: &'static str| {
        Signal::derive(move || locks.with(|l| l.iter().any(|f| f == name)))
    };
    let street = RwSignal::new(String::new());
    let house_number = RwSignal::new(String::new());
    let postal_code = RwSignal::new(String::new());
    let city = RwSignal::new(String::new());
    let country = RwSignal::new("NL".to_owned());
    let needs_address = checkout.requires_shipping_address;
    let checkout_id = checkout.checkout_id;
    let basket = StoredValue::new(Basket::of_checkout(&checkout));
    let answers = Answers::of(&checkout);
    // The field names of the answers last sent, for the server's `answers[i]` errors.
    let sent_names = StoredValue::new(Vec::<String>::new());
    let confirming = write(move |request: &ConfirmRequest| {
        let request = request.clone();
        async move {
            let result = api.confirm(checkout_id, &request).await;
            let locale = i18n.get_locale_untracked();
            match result {
                Ok(order) => {
                    errors.set(Vec::new());
                    host::track(Analytics::AddShippingInfo(basket.get_value()));
                    host::track(Analytics::AddPaymentInfo(basket.get_value()));
                    open_payment(&order.payment_url);
                    placed.set(Some(order));
                    // Going to payment holds the places for the payment window: show it.
                    if let Ok(confirmed) = api.checkout(checkout_id).await {
                        paying_until.set(Some(confirmed.expires_at));
                    }
                }
                Err(ApiError::Expired) => {}
                Err(ApiError::Problem(p))
                    if !p.errors.is_empty()
                        || p.problem_type()
                            == Some(ProblemType::CheckoutShippingAddressRequired) =>
                {
                    let mut list = Answers::name_errors(p.errors.clone(), &sent_names.get_value());
                    if p.problem_type() == Some(ProblemType::CheckoutShippingAddressRequired) {
                        list.push(FieldError::new(
                            "shipping_address.street",
                            "shipping_required",
                            "",
                        ));
                    }
                    funnel::refused(&ApiError::Problem(p));
                    errors.set(list);
                    problem.set(Some(td_string!(locale, checkout.fix_errors).to_owned()));
                    focus_first_invalid();
                }
                Err(error) => {
                    funnel::refused(&error);
                    problem.set(Some(problem_text(locale, &error)))
                }
            }
        }
    });
    let busy = confirming.pending();
    let label = move |key: fn(crate::i18n::Locale) -> &'static str| {
        Signal::derive(move || key(i18n.get_locale()).to_owned())
    };

    let questions = (!answers.is_empty()).then(|| questions::questions(answers.clone(), errors));
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let (given, names) = answers.sent();
        sent_names.set_value(names);
        let request = ConfirmRequest {
            email: email.get_untracked().trim().to_owned(),
            first_name: first_name.get_untracked().trim().to_owned(),
            last_name: last_name.get_untracked().trim().to_owned(),
            return_url: return_url(checkout_id),
            shipping_address: needs_address.then(|| ShippingAddress {
                street: street.get_untracked().trim().to_owned(),
                house_number: house_number.get_untracked().trim().to_owned(),
                postal_code: postal_code.get_untracked().trim().to_owned(),
                city: city.get_untracked().trim().to_owned(),
                country: country.get_untracked(),
            }),
            newsletters: if newsletter.get_untracked() {
                vec![NEWSLETTER.to_owned()]
            } else {
                Vec::new()
            },
            #[cfg(feature = "ssr")]
            buyer: None,
            answers: given,
        };
        problem.set(None);
        confirming.dispatch_local(request);
    };

    let address = needs_address.then(|| view! {
        <fieldset class="address">
            <legend>{t!(i18n, checkout.address)}</legend>
            <p class="hint">{t!(i18n, checkout.address_help)}</p>
            <Field name="shipping_address.street" label=label(|l| td_string!(l, checkout.street)) value=street errors autocomplete="address-line1"/>
            <Field name="shipping_address.house_number" label=label(|l| td_string!(l, checkout.house_number)) value=house_number errors autocomplete="address-line2"/>
            <Field name="shipping_address.postal_code" label=label(|l| td_string!(l, checkout.postal_code)) value=postal_code errors autocomplete="postal-code"/>
            <Field name="shipping_address.city" label=label(|l| td_string!(l, checkout.city)) value=city errors autocomplete="address-level2"/>
            <CountryField value=country errors/>
        </fieldset>
    });

    view! {
        <form class="customer" novalidate=true on:submit=on_submit>
            <h2>{t!(i18n, checkout.details)}</h2>
            <p class="form-message" role="alert">{move || problem.get()}</p>
            <Field name="email" kind="email" autocomplete="email" label=label(|l| td_string!(l, checkout.email)) value=email errors locked=locked("email")/>
            <Field name="first_name" autocomplete="given-name" label=label(|l| td_string!(l, checkout.first_name)) value=first_name errors locked=locked("first_name")/>
            <Field name="last_name" autocomplete="family-name" label=label(|l| td_string!(l, checkout.last_name)) value=last_name errors locked=locked("last_name")/>
            {address}
            {questions}
            <label class="check">
                <input type="checkbox" prop:checked=move || newsletter.get() on:change=move |ev| newsletter.set(event_target_checked(&ev))/>
                <span>{t!(i18n, checkout.newsletter)}</span>
            </label>
            <button type="submit" class="button primary wide" aria-disabled=move || busy.get().then_some("true")>
                {move || if busy.get() { td_string!(i18n.get_locale(), checkout.paying) } else { td_string!(i18n.get_locale(), checkout.pay) }}
            </button>
        </form>
    }
}

/// Moves focus to the first field the server refused, once the errors are drawn.
fn focus_first_invalid() {
    #[cfg(feature = "hydrate")]
    request_animation_frame(|| {
        use wasm_bindgen::JsCast;
        let field = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.query_selector("[aria-invalid='true']").ok().flatten())
            .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
        if let Some(field) = field {
            let _ = field.focus();
        }
    });
}

/// The payment page never runs inside the iframe: the host opens it in its top window when
/// it hears `boxoffice:redirect`; a frame on its own goes there itself.
fn open_payment(url: &str) {
    host::post(&Outgoing::Redirect {
        url: url.to_owned(),
    });
    #[cfg(feature = "hydrate")]
    if !host::is_framed() {
        if let Some(window) = web_sys::window() {
            let _ = window.location().assign(url);
        }
    }
}

/// Shown once the order is placed: the host is taking the customer to the payment page; a
/// link opens it in the top window should the host not.
#[component]
fn PaymentStep(url: String, until: Signal<Option<DateTime<Utc>>>) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <section class="notice payment" aria-labelledby="payment-title">
            <h2 id="payment-title">{t!(i18n, payment.title)}</h2>
            <p>{t!(i18n, payment.help)}</p>
            {move || until.get().map(|until| view! { <PaymentHold until/> })}
            <a class="button primary wide" href=url target="_top" rel="noopener">{t!(i18n, payment.link)}</a>
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checkout_goes_into_the_query_and_the_fragment_stays() {
        let id = Uuid::from_u128(9);
        assert_eq!(
            with_checkout("https://shop.example/tickets#top", id),
            format!("https://shop.example/tickets?boxoffice_checkout={id}#top")
        );
        assert_eq!(
            with_checkout("https://shop.example/t?a=1&b=2#x?y=z", id),
            format!("https://shop.example/t?a=1&b=2&boxoffice_checkout={id}#x?y=z")
        );
        assert_eq!(
            with_checkout("https://shop.example/t", id),
            format!("https://shop.example/t?boxoffice_checkout={id}")
        );
        assert_eq!(
            with_checkout("https://shop.example/t?boxoffice_checkout=old&a=1#", id),
            format!("https://shop.example/t?a=1&boxoffice_checkout={id}#"),
            "one checkout, the new one; an empty fragment kept"
        );
        assert_eq!(
            with_checkout("https://shop.example/t?#f", id),
            format!("https://shop.example/t?boxoffice_checkout={id}#f")
        );
    }
}
