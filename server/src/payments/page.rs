//! The payment page of a Stripe payment, `GET /pay/{payment_id}?key=…` (keyed as the
//! sandbox's, `crate::keyed`): the order and its amount, and Stripe's Payment Element, mounted
//! by `stripe-page.js`, which confirms with `stripe.confirmPayment` (3-D Secure and bank
//! redirects are Stripe.js's) and has Stripe send the customer back here. Back here, the page
//! asks Stripe where the payment stands and applies it (`super::apply`, as the webhook would),
//! then sends the customer on to the partner's return URL; a failed attempt is shown above the
//! form, and the customer tries again on the same PaymentIntent.
//!
//! The page is the server's own HTML, not the frame's app: Stripe's iframe is mounted into it
//! by Stripe.js, which a hydrating app would fight. Its script policy allows this origin and
//! Stripe.js's documented origins, no others (`policy`).

use app::wire::{Locale, Money, PaymentStatus};
use axum::{
    extract::{Request, State},
    http::{header, HeaderValue, StatusCode},
    middleware::Next,
    response::{Html, IntoResponse, Response},
};
use maud::{html, PreEscaped, DOCTYPE};
use uuid::Uuid;

use super::{apply, page_texts::texts};
use crate::{
    checkout::Commerce,
    error::Result,
    providers::{stripe::StripePayments, ProviderPaymentState},
    sandbox::pay::{key_matches, return_to, unknown},
    state::AppState,
    store::PaymentRecord,
};

/// Where the page's own script is served.
pub const SCRIPT_PATH: &str = "/payments/stripe-page.js";
/// The page's own script: mounts the Payment Element and confirms the payment.
pub const SCRIPT: &str = include_str!("stripe-page.js");

/// `GET /payments/stripe-page.js`.
pub async fn script() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/javascript; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=300"),
        ],
        SCRIPT,
    )
        .into_response()
}

/// The payment page's gate, before the frame renders anything: a missing or wrong key, an
/// unknown payment and a switched-off sandbox are one `404 not-found`; a Stripe payment's page
/// is answered here; a sandbox payment's goes on to the frame (`app::frame::screens::pay`).
pub async fn gate(State(state): State<AppState>, request: Request, next: Next) -> Response {
    // The page's methods only: any other reaches the router, which answers 405 with `Allow`.
    let page = matches!(
        *request.method(),
        axum::http::Method::GET | axum::http::Method::HEAD
    );
    let Some(rest) = request.uri().path().strip_prefix("/pay/").filter(|_| page) else {
        return next.run(request).await;
    };
    let query: Vec<(String, String)> =
        form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
    let param = |name: &str| {
        query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let Ok(payment_id) = rest.parse::<Uuid>() else {
        return unknown().into_response();
    };
    let key = param("key");
    if let (Some(stripe), Some(key)) = (&state.commerce.stripe, key) {
        if stripe.page_key_matches(payment_id, key) {
            match state.store.payment(payment_id).await {
                Ok(Some(payment)) if payment.provider == crate::providers::stripe::NAME => {
                    let returned = param("redirect_status").map(str::to_owned);
                    return stripe_page(&state.commerce, stripe, payment, returned)
                        .await
                        .unwrap_or_else(IntoResponse::into_response);
                }
                Ok(_) => {}
                Err(err) => return crate::error::Error::from(err).into_response(),
            }
        }
    }
    if !key_matches(&state, payment_id, key) {
        return unknown().into_response();
    }
    next.run(request).await
}

/// What the page shows of an open payment.
enum Form {
    /// The Payment Element, with the last attempt's failure when there was one.
    Pay {
        client_secret: String,
        last_error: Option<String>,
    },
    /// Back from Stripe with the payment not final yet (a bank's confirmation pending).
    Processing,
    /// Stripe did not answer.
    Unavailable,
}

async fn stripe_page(
    state: &Commerce,
    stripe: &StripePayments,
    mut payment: PaymentRecord,
    returned: Option<String>,
) -> Result<Response> {
    let mut form = Form::Unavailable;
    if payment.status == PaymentStatus::Open {
        let reference = payment.provider_ref.clone().unwrap_or_default();
        match state.payments.payment(&reference).await {
            Ok(at_provider) => match at_provider.state {
                ProviderPaymentState::Open { last_error } => {
                    form = match (returned.as_deref(), at_provider.client_secret) {
                        (Some("succeeded"), _) if last_error.is_none() => Form::Processing,
                        (_, Some(client_secret)) => Form::Pay {
                            client_secret,
                            last_error,
                        },
                        (_, None) => Form::Unavailable,
                    };
                }
                settled => {
                    apply(state, &payment, &settled).await?;
                    if let Some(now) = state.store.payment(payment.payment_id).await? {
                        payment = now;
                    }
                }
            },
            Err(err) => {
                tracing::warn!(error = ?err, payment_id = %payment.payment_id, "reading the payment at Stripe failed");
            }
        }
    }
    let back = return_to(&payment.return_url, payment.payment_id);
    if payment.status != PaymentStatus::Open && returned.is_some() {
        return Ok(kept_to_itself(
            (StatusCode::SEE_OTHER, [(header::LOCATION, back)]).into_response(),
            stripe,
        ));
    }
    let Some(order) = state.store.order(payment.customer_order_id).await? else {
        return Err(unknown());
    };
    let locale = match state.store.checkout(order.checkout_id).await? {
        Some(checkout) => checkout.locale.parse().unwrap_or_default(),
        None => Locale::default(),
    };
    let merchant = state
        .store
        .merchant(order.merchant_id)
        .await?
        .map(|m| m.localized(locale).name.to_owned())
        .unwrap_or_default();
    let amount = app::format::money(
        locale.tag().parse().unwrap_or_default(),
        &Money::new(payment.amount, payment.currency.clone()),
    );
    let html = render(&Page {
        locale,
        merchant: &merchant,
        order: &order.display_id,
        amount: &amount,
        status: payment.status,
        form: &form,
        back: &back,
        publishable_key: stripe
            .settings()
            .stripe_publishable_key
            .as_deref()
            .unwrap_or_default(),
        js_url: stripe.settings().stripe_js_url.as_str(),
        return_url: &stripe.page_url(payment.payment_id),
    });
    let status = if matches!(form, Form::Unavailable) && payment.status == PaymentStatus::Open {
        StatusCode::BAD_GATEWAY
    } else {
        StatusCode::OK
    };
    Ok(kept_to_itself((status, Html(html)).into_response(), stripe))
}

struct Page<'a> {
    locale: Locale,
    merchant: &'a str,
    order: &'a str,
    amount: &'a str,
    status: PaymentStatus,
    form: &'a Form,
    back: &'a str,
    publishable_key: &'a str,
    js_url: &'a str,
    return_url: &'a str,
}

/// Stripe.js's name of a locale (docs.stripe.com/js/appendix/supported_locales).
fn stripe_locale(locale: Locale) -> &'static str {
    match locale {
        Locale::NlNl => "nl",
        Locale::EnGb => "en-GB",
        Locale::DeDe => "de",
        Locale::FrFr => "fr",
    }
}

fn render(page: &Page<'_>) -> String {
    let t = texts(page.locale);
    html! {
        (DOCTYPE)
        html lang=(page.locale.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex, nofollow";
                meta name="referrer" content="no-referrer";
                link rel="icon" href="data:,";
                title { (t.title) " – " (page.order) }
                style { (PreEscaped(PAGE_CSS)) }
            }
            body {
                main {
                    h1 { (t.title) }
                    section.summary {
                        @if !page.merchant.is_empty() { p.merchant { strong { (page.merchant) } } }
                        p { (t.order) " " strong { (page.order) } }
                        p { (t.amount) ": " strong.amount { (page.amount) } }
                    }
                    @match (page.status, page.form) {
                        (PaymentStatus::Open, Form::Pay { client_secret, last_error }) => {
                            form #payment-form
                                data-publishable-key=(page.publishable_key)
                                data-client-secret=(client_secret)
                                data-return-url=(page.return_url)
                                data-locale=(stripe_locale(page.locale))
                                data-paying=(t.paying)
                                data-failed=(t.failed_attempt) {
                                p #payment-message .error role="alert" {
                                    @if let Some(error) = last_error { (t.failed_attempt) " " (error) }
                                }
                                div #payment-element {}
                                button #pay type="submit" disabled { (t.pay) " " (page.amount) }
                            }
                            noscript { p.error { (t.needs_javascript) } }
                            p.note { (t.secure_note) }
                            p { a href=(page.back) { (t.back) } }
                            script src=(page.js_url) {}
                            script src=(SCRIPT_PATH) {}
                        }
                        (PaymentStatus::Open, Form::Processing) => {
                            p role="status" { (t.processing) }
                            a.button href=(page.back) { (t.back) }
                        }
                        (PaymentStatus::Open, Form::Unavailable) => {
                            p.error role="alert" { (t.provider_unavailable) }
                        }
                        (PaymentStatus::Paid, _) => {
                            p role="status" { (t.settled_paid) }
                            a.button href=(page.back) { (t.back) }
                        }
                        _ => {
                            p role="status" { (t.settled_ended) }
                            a.button href=(page.back) { (t.back) }
                        }
                    }
                }
            }
        }
    }
    .into_string()
}

/// The script policy: this origin's script and Stripe.js's origins (the configured URLs' in
/// their place when set), nothing else; framed by nobody; never cached, referred or indexed.
pub fn policy(stripe: &StripePayments) -> String {
    let settings = stripe.settings();
    let js = settings.stripe_js_url.origin().ascii_serialization();
    let api = settings.stripe_api_base.origin().ascii_serialization();
    format!(
        "default-src 'self'; script-src 'self' {js}; frame-src {js} https://hooks.stripe.com; \
         connect-src {api}; img-src 'self' data:; style-src 'self' 'unsafe-inline'; \
         object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    )
}

fn kept_to_itself(response: Response, stripe: &StripePayments) -> Response {
    let policy = HeaderValue::from_str(&policy(stripe))
        .unwrap_or_else(|_| HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'"));
    crate::http::keyed_page::kept_to_itself(response, policy)
}

const PAGE_CSS: &str = "
:root { color-scheme: light; }
body { margin: 0; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  line-height: 1.5; background: #f4f4f5; color: #18181b; }
main { max-width: 560px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.6rem; margin: 8px 0 16px; }
section.summary, form { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 0 0 16px; }
section.summary p { margin: 4px 0; }
.amount { font-size: 1.15rem; }
#payment-message { margin: 0 0 12px; }
#payment-element { margin: 0 0 20px; min-height: 40px; }
.merchant { font-size: 1.1rem; }
button, a.button { display: inline-block; width: 100%; box-sizing: border-box; font: inherit;
  font-weight: 600; font-size: 1.05rem; padding: 12px 16px; border-radius: 6px; border: 0;
  background: #1d4ed8; color: #fff; text-align: center; text-decoration: none; cursor: pointer; }
button:disabled { background: #93a3c8; cursor: progress; }
button:focus-visible, a.button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
.error { color: #b91c1c; font-weight: 600; }
.error:empty { display: none; }
.note { color: #52525b; font-size: .9rem; }
";
