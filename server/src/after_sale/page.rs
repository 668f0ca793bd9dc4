//! `/tickets/{order_id}/manage?key=…`: the customer's "manage your booking" page, linked from
//! the ticket page and keyed like it (docs/tickets.md, "Manage your booking"). Server-rendered,
//! no script: cancel chosen tickets, change the date, withdraw from the contract (EU), each in
//! two steps (a review that shows the refund, then a confirming POST with an Idempotency-Key
//! made at the review, so a double submit changes nothing twice). What each step offers and
//! refunds is what `after_sale` computes; the page only lays it out.
//!
//! The frame's order screen opens it in a panel (`host=` the embedding page's origin): then,
//! and only for a host the order's partner registered, it may be framed by the frame inside
//! that host, and runs one nonce-allowed script that tells the frame its height and what
//! changed (`host_messages`; docs/webframe.md, §17).

use app::wire::{CancellationRequest, Locale, RebookingRequest, WithdrawalRequest};
use axum::{
    body::Bytes,
    extract::{RawQuery, State},
    http::{header, HeaderValue, StatusCode},
    response::{Html, IntoResponse, Redirect, Response},
};
use chrono::{NaiveDate, Utc};
use uuid::Uuid;

use super::{
    change::{preview, Cancellation, Changed},
    page_view::{self, Framing, HostScript, Review, View},
    requests,
    terms::Percent,
    Actor, Reason,
};
use crate::{
    error::{Error, ProblemType, Result},
    http::extract::ApiPath,
    state::AppState,
    store::OrderRecord,
};

/// Where a dearer day's payment returns the customer: this page, saying the visit moved.
pub async fn after_paying(state: &AppState, order_id: Uuid) -> Result<String> {
    Ok(
        match crate::tickets::manage_url(&state.tickets, order_id).await? {
            Some(url) => format!("{url}&done=rebooked"),
            None => state.config.base_url(),
        },
    )
}

/// The order as its owner or its partner reads it: what it allows now, and once paid the
/// URL of this page, where those changes are made (the frame's order screen links to it).
pub async fn order_read(state: &AppState, order: OrderRecord) -> Result<app::wire::Order> {
    let paid = order.status.is_paid();
    let order_id = order.customer_order_id;
    let mut read = super::facts::order_now(&state.commerce, order, Utc::now()).await?;
    if paid {
        read.manage_url = crate::tickets::manage_url(&state.tickets, order_id).await?;
        crate::checkout::customer_copies::with_qr_tokens(&state.commerce, &mut read).await?;
    }
    Ok(read)
}

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route(
        "/tickets/{order_id}/manage",
        axum::routing::get(manage_page).post(make_change),
    )
}

/// The page's policy unframed: no script at all; its forms post to itself.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// How a page goes out: framed only by the host its framing names, and running only the
/// script that carries `nonce` (the host's messages).
#[derive(Debug, Default)]
struct Shown {
    framing: Option<Framing>,
    nonce: Option<String>,
}

fn kept_to_itself(response: Response, shown: &Shown) -> Response {
    let Some(framing) = &shown.framing else {
        return crate::http::keyed_page::kept_to_itself(response, HeaderValue::from_static(POLICY));
    };
    // The host is an exact origin (`framing_of`), so it is a valid header value.
    let script = shown
        .nonce
        .as_ref()
        .map(|nonce| format!("; script-src 'nonce-{nonce}'"))
        .unwrap_or_default();
    // Framed by the frame (this origin) inside the host's page: every ancestor must be allowed.
    let policy = format!(
        "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'self' {}; base-uri 'none'; form-action 'self'{script}",
        framing.host
    );
    let policy = HeaderValue::from_str(&policy).unwrap_or(HeaderValue::from_static(POLICY));
    let mut response = crate::http::keyed_page::kept_to_itself(response, policy);
    // `frame-ancestors` decides; the keyed pages' blanket DENY would contradict it.
    response.headers_mut().remove(header::X_FRAME_OPTIONS);
    response
}

/// The fields of the page's query or form, repeated `ticket`s kept.
#[derive(Debug, Default)]
struct Fields {
    key: Option<String>,
    review: Option<String>,
    action: Option<String>,
    tickets: Vec<Uuid>,
    date: Option<String>,
    slot: Option<String>,
    idem: Option<Uuid>,
    done: Option<String>,
    /// The change just made (its host messages, when framed).
    change: Option<Uuid>,
    host: Option<String>,
}

fn fields(text: &[u8]) -> Fields {
    let mut out = Fields::default();
    for (name, value) in form_urlencoded::parse(text) {
        let value = value.into_owned();
        match name.as_ref() {
            "key" => out.key = Some(value),
            "review" => out.review = Some(value),
            "action" => out.action = Some(value),
            "ticket" => out.tickets.extend(Uuid::parse_str(&value).ok()),
            "date" => out.date = Some(value).filter(|v| !v.is_empty()),
            "slot" => out.slot = Some(value).filter(|v| !v.is_empty()),
            "idem" => out.idem = Uuid::parse_str(&value).ok(),
            "done" => out.done = Some(value),
            "change" => out.change = Uuid::parse_str(&value).ok(),
            "host" => out.host = Some(value),
            _ => {}
        }
    }
    out
}

/// What a refusal says to the customer: its problem's detail (an internal fault's says only
/// its correlation id).
fn said(err: &Error) -> String {
    err.to_problem().detail
}

fn status_of(err: &Error) -> StatusCode {
    StatusCode::from_u16(err.kind().status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}

fn not_found() -> Error {
    Error::new(ProblemType::NotFound, "This page was not found.")
}

/// The order `key` opens (any status: a cancelled order still has its page), else 404.
async fn keyed_order(state: &AppState, order_id: Uuid, key: Option<&str>) -> Result<OrderRecord> {
    let nonce = state
        .store
        .ticket_page_nonce(order_id)
        .await?
        .ok_or_else(not_found)?;
    if !state
        .tickets
        .ticket_pages
        .verify(order_id, &nonce, key.ok_or_else(not_found)?)
    {
        return Err(not_found());
    }
    state.store.order(order_id).await?.ok_or_else(not_found)
}

/// The framing `f` asks for, when the partner whose session made the order registered
/// `host` as a frame origin; otherwise the page is shown unframed (and nobody may frame it).
async fn framing_of(state: &AppState, order: &OrderRecord, f: &Fields) -> Result<Option<Framing>> {
    let Some(host) = f.host.as_deref() else {
        return Ok(None);
    };
    if !url::Url::parse(host).is_ok_and(|url| url.origin().ascii_serialization() == host) {
        return Ok(None);
    }
    let client = match state.store.checkout(order.checkout_id).await? {
        Some(checkout) => match checkout.partner_client_id {
            Some(id) => state.store.partner_client(id).await?,
            None => None,
        },
        None => None,
    };
    Ok(client
        .and_then(|c| app::frame::host::allowed_origin(&c.frame_origins, [host]))
        .map(|host| Framing { host }))
}

/// The framed page's script, with the host's messages about the change `f` names, just
/// made to `order` (none on other steps).
async fn host_script(state: &AppState, order: &app::wire::Order, f: &Fields) -> Result<HostScript> {
    let mut messages = Vec::new();
    if let Some(change_id) = f.change.filter(|_| f.done.is_some()) {
        let changes = state.store.order_changes(order.order_id).await?;
        if let Some(change) = changes.iter().find(|c| c.order_change_id == change_id) {
            messages = super::host_messages::messages(order, change);
        }
    }
    Ok(HostScript {
        nonce: crate::frame::headers::CspNonce::new().0.to_string(),
        frame_origin: own_origin(state),
        messages: serde_json::to_value(messages).map_err(anyhow::Error::from)?,
    })
}

/// This service's origin: the frame's, which the framed page posts to.
fn own_origin(state: &AppState) -> String {
    state.config.public_url.origin().ascii_serialization()
}

async fn locale_of(state: &AppState, order: &OrderRecord) -> Result<Locale> {
    Ok(state
        .store
        .checkout(order.checkout_id)
        .await?
        .and_then(|c| c.locale.parse().ok())
        .unwrap_or_default())
}

async fn manage_page(
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    RawQuery(query): RawQuery,
) -> Response {
    let fields = fields(query.unwrap_or_default().as_bytes());
    let mut shown = Shown::default();
    let response = match show(&state, order_id, fields, &mut shown).await {
        Ok(html) => Html(html).into_response(),
        Err(err) => err.into_response(),
    };
    kept_to_itself(response, &shown)
}

/// The page, or a review step of it.
async fn show(state: &AppState, order_id: Uuid, f: Fields, shown: &mut Shown) -> Result<String> {
    let order = keyed_order(state, order_id, f.key.as_deref()).await?;
    let locale = locale_of(state, &order).await?;
    shown.framing = framing_of(state, &order, &f).await?;
    let now = Utc::now();
    let key = f.key.clone().unwrap_or_default();
    let review = match f.review.as_deref() {
        Some("cancel") if f.tickets.is_empty() => Err(page_view::Problem::ChooseTickets),
        Some("cancel") => {
            let request = Cancellation {
                ticket_ids: Some(f.tickets.clone()),
                reason: Reason::Customer,
                percent: Percent::Policy,
                note: None,
            };
            match preview(&state.commerce, order.clone(), &request, now).await {
                Ok(refund) => Ok(Some(Review::Cancel {
                    tickets: f.tickets.clone(),
                    refund,
                })),
                Err(err) => Err(page_view::Problem::Refused(said(&err))),
            }
        }
        Some("withdraw") => {
            let request = Cancellation {
                ticket_ids: None,
                reason: Reason::Withdrawal,
                percent: Percent::Full,
                note: None,
            };
            match preview(&state.commerce, order.clone(), &request, now).await {
                Ok(refund) => Ok(Some(Review::Withdraw { refund })),
                Err(err) => Err(page_view::Problem::Refused(said(&err))),
            }
        }
        Some("rebook") => rebook_review(state, &order, f.date.as_deref()).await,
        _ => Ok(None),
    };
    let pay_at = state
        .store
        .open_rebooking_payment(order.customer_order_id)
        .await?
        .and_then(|p| p.payment_url);
    let facts = super::facts::OrderFacts::load(&state.commerce, order).await?;
    let order = facts.view(now);
    let mut host_script = match &shown.framing {
        Some(_) => Some(host_script(state, &order, &f).await?),
        None => None,
    };
    // Just asked for: the frame's host takes the customer to the payment page.
    if let (Some(script), Some(url), Some("pay")) = (&mut host_script, &pay_at, f.done.as_deref()) {
        script.messages = serde_json::json!([{ "type": "boxoffice:redirect", "url": url }]);
    }
    shown.nonce = host_script.as_ref().map(|s| s.nonce.clone());
    let view = View {
        order,
        locale,
        key,
        today: crate::time::local_date(facts.zone, now),
        zone: facts.zone,
        done: f.done,
        framing: shown.framing.clone(),
        host_script,
        pay_at,
    };
    Ok(page_view::render(&view, review, crate::ids::random_id()))
}

/// The date-change review: the day's times when the product has slots, and what moving
/// refunds (a cheaper day's difference).
async fn rebook_review(
    state: &AppState,
    order: &OrderRecord,
    date: Option<&str>,
) -> std::result::Result<Option<Review>, page_view::Problem> {
    let refused = |err: Error| page_view::Problem::Refused(said(&err));
    let Some(date) = date.and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok()) else {
        return Err(page_view::Problem::ChooseDate);
    };
    let slots = super::rebook::times_on(&state.commerce, order, date, Utc::now())
        .await
        .map_err(refused)?;
    let first = match &slots {
        Some(slots) => match slots.iter().find(|s| s.available) {
            Some(slot) => slot.start_time.to_rfc3339(),
            None => return Err(page_view::Problem::NoTimes),
        },
        None => date.to_string(),
    };
    let request = RebookingRequest {
        date: first,
        ticket_ids: None,
    };
    let quote = super::rebook::preview(
        &state.commerce,
        order.clone(),
        Actor::Customer,
        &request,
        Utc::now(),
    )
    .await
    .map_err(refused)?;
    Ok(Some(Review::Rebook {
        date,
        slots: slots.unwrap_or_default(),
        refund: quote.refund,
        difference: quote.difference,
    }))
}

/// A confirmed change: done once per its key, then back to the page with what happened.
async fn make_change(
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let mut f = fields(&body);
    if f.key.is_none() {
        f.key = fields(query.unwrap_or_default().as_bytes()).key;
    }
    let mut shown = Shown::default();
    let response = match change(&state, order_id, &f, &mut shown).await {
        Ok((done, change)) => {
            let mut to = page_view::self_url(
                order_id,
                f.key.as_deref().unwrap_or_default(),
                shown.framing.as_ref(),
            );
            to.push_str(&format!("&done={done}"));
            if let Some(change) = change {
                to.push_str(&format!("&change={change}"));
            }
            Redirect::to(&to).into_response()
        }
        Err(err) => match refused_page(&state, order_id, &f, &mut shown, &err).await {
            Some(html) => (
                status_of(&err),
                [(header::CACHE_CONTROL, "no-store")],
                Html(html),
            )
                .into_response(),
            None => err.into_response(),
        },
    };
    kept_to_itself(response, &shown)
}

/// Makes the confirmed change: what it did, and the change row it wrote (the latest).
async fn change(
    state: &AppState,
    order_id: Uuid,
    f: &Fields,
    shown: &mut Shown,
) -> Result<(&'static str, Option<Uuid>)> {
    let order = keyed_order(state, order_id, f.key.as_deref()).await?;
    shown.framing = framing_of(state, &order, f).await?;
    let done = make(state, order, f).await?;
    let latest = state.store.order_changes(order_id).await?.pop();
    Ok((done, latest.map(|c| c.order_change_id)))
}

async fn make(state: &AppState, order: OrderRecord, f: &Fields) -> Result<&'static str> {
    let key = f.idem.ok_or_else(|| {
        Error::invalid_field(
            "idem",
            "required",
            "the form's key is missing; review again",
        )
    })?;
    let now = Utc::now();
    let commerce = &state.commerce;
    match f.action.as_deref() {
        Some("cancel") => {
            let request = CancellationRequest {
                ticket_ids: Some(f.tickets.clone()),
                note: None,
            };
            requests::customer_cancellation(commerce, order, request, key, now).await?;
            Ok("cancelled")
        }
        Some("withdraw") => {
            requests::withdrawal(
                commerce,
                order,
                WithdrawalRequest::default(),
                Some(key),
                now,
            )
            .await?;
            Ok("withdrawn")
        }
        Some("rebook") => {
            let date =
                f.slot.clone().or(f.date.clone()).ok_or_else(|| {
                    Error::invalid_field("date", "required", "choose the new date")
                })?;
            let request = RebookingRequest {
                date,
                ticket_ids: None,
            };
            let return_url = after_paying(state, order.customer_order_id).await?;
            let changed = requests::rebooking(
                commerce,
                order,
                Actor::Customer,
                request,
                Some(key),
                return_url,
                now,
            )
            .await?;
            Ok(match changed {
                Changed::AwaitsPayment(_) => "pay",
                _ => "rebooked",
            })
        }
        _ => Err(Error::invalid_field(
            "action",
            "invalid",
            "action is cancel, withdraw or rebook",
        )),
    }
}

/// The page again with why a confirmed change was refused, when the order is one the key
/// opens (a wrong key stays a bare 404).
async fn refused_page(
    state: &AppState,
    order_id: Uuid,
    f: &Fields,
    shown: &mut Shown,
    err: &Error,
) -> Option<String> {
    if status_of(err) == StatusCode::NOT_FOUND {
        return None;
    }
    let order = keyed_order(state, order_id, f.key.as_deref()).await.ok()?;
    let locale = locale_of(state, &order).await.ok()?;
    let facts = super::facts::OrderFacts::load(&state.commerce, order)
        .await
        .ok()?;
    let now = Utc::now();
    let order = facts.view(now);
    // Nothing was changed: the script only sizes the frame.
    let host_script = shown.framing.as_ref().map(|_| HostScript {
        nonce: crate::frame::headers::CspNonce::new().0.to_string(),
        frame_origin: own_origin(state),
        messages: serde_json::Value::Array(Vec::new()),
    });
    shown.nonce = host_script.as_ref().map(|s| s.nonce.clone());
    let view = View {
        order,
        locale,
        key: f.key.clone().unwrap_or_default(),
        today: crate::time::local_date(facts.zone, now),
        zone: facts.zone,
        done: None,
        framing: shown.framing.clone(),
        host_script,
        pay_at: None,
    };
    let problem = page_view::Problem::Refused(said(err));
    Some(page_view::render(
        &view,
        Err(problem),
        crate::ids::random_id(),
    ))
}
