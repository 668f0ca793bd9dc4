//! `/tickets/{order_id}/manage?key=…`: the customer's "manage your booking" page, linked from
//! the ticket page and keyed like it (docs/tickets.md, "Manage your booking"). Server-rendered,
//! no script: cancel chosen tickets, change the date, withdraw from the contract (EU), each in
//! two steps (a review that shows the refund, then a confirming POST with an Idempotency-Key
//! made at the review, so a double submit changes nothing twice). What each step offers and
//! refunds is what `after_sale` computes; the page only lays it out.

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
    change::{preview, Cancellation},
    page_view::{self, Review, View},
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

pub fn router() -> axum::Router<AppState> {
    axum::Router::new().route(
        "/tickets/{order_id}/manage",
        axum::routing::get(manage_page).post(make_change),
    )
}

/// The page's script policy: none at all; its forms post to itself.
const POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

fn kept_to_itself(response: Response) -> Response {
    crate::http::keyed_page::kept_to_itself(response, HeaderValue::from_static(POLICY))
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
    kept_to_itself(match show(&state, order_id, fields).await {
        Ok(html) => Html(html).into_response(),
        Err(err) => err.into_response(),
    })
}

/// The page, or a review step of it.
async fn show(state: &AppState, order_id: Uuid, f: Fields) -> Result<String> {
    let order = keyed_order(state, order_id, f.key.as_deref()).await?;
    let locale = locale_of(state, &order).await?;
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
    let facts = super::facts::OrderFacts::load(&state.commerce, order).await?;
    let view = View {
        order: facts.view(now),
        locale,
        key,
        today: crate::time::local_date(facts.zone, now),
        zone: facts.zone,
        done: f.done,
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
    let refund = super::rebook::preview(
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
        refund,
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
    kept_to_itself(match change(&state, order_id, &f).await {
        Ok(done) => {
            let key: String =
                form_urlencoded::byte_serialize(f.key.unwrap_or_default().as_bytes()).collect();
            Redirect::to(&format!("/tickets/{order_id}/manage?key={key}&done={done}"))
                .into_response()
        }
        Err(err) => match refused_page(&state, order_id, &f, &err).await {
            Some(html) => (
                status_of(&err),
                [(header::CACHE_CONTROL, "no-store")],
                Html(html),
            )
                .into_response(),
            None => err.into_response(),
        },
    })
}

async fn change(state: &AppState, order_id: Uuid, f: &Fields) -> Result<&'static str> {
    let order = keyed_order(state, order_id, f.key.as_deref()).await?;
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
            requests::rebooking(commerce, order, Actor::Customer, request, Some(key), now).await?;
            Ok("rebooked")
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
async fn refused_page(state: &AppState, order_id: Uuid, f: &Fields, err: &Error) -> Option<String> {
    if status_of(err) == StatusCode::NOT_FOUND {
        return None;
    }
    let order = keyed_order(state, order_id, f.key.as_deref()).await.ok()?;
    let locale = locale_of(state, &order).await.ok()?;
    let facts = super::facts::OrderFacts::load(&state.commerce, order)
        .await
        .ok()?;
    let now = Utc::now();
    let view = View {
        order: facts.view(now),
        locale,
        key: f.key.clone().unwrap_or_default(),
        today: crate::time::local_date(facts.zone, now),
        zone: facts.zone,
        done: None,
    };
    let problem = page_view::Problem::Refused(said(err));
    Some(page_view::render(
        &view,
        Err(problem),
        crate::ids::random_id(),
    ))
}
