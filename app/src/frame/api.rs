//! The frame's client of the `/v2` API: the same calls a headless partner's frontend makes,
//! with the session's bearer, its campaign and the frame's language, one typed method per
//! endpoint. A 401 ends the session (the frame shows the expired screen and tells the host).
//! Screens read through `ui::load` and write through `Action`s over these methods.

use std::future::Future;

use chrono::NaiveDate;
use leptos::prelude::*;
use serde::{de::DeserializeOwned, Serialize};
use uuid::Uuid;

use super::{
    host::{self, Outgoing},
    session::{use_session, SessionState},
    url::encode,
};
use crate::{
    i18n::{use_i18n, Locale},
    wire::{
        CalendarEntry, Checkout, CheckoutRequest, ConfirmRequest, Envelope, IdentityExchange,
        IssuedToken, LoyaltyEntry, Me, Merchant, MerchantToken, OnboardingCode, OnboardingStatus,
        Order, OrderReceipt, PlacedOrder, Problem, ProblemType, Product, TimeslotEntry,
        TimeslotQuery,
    },
};

/// Why a call gave no data.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The API answered with a problem (other than an expired bearer).
    Problem(Problem),
    /// The bearer expired or was revoked: the session is over.
    Expired,
    /// No answer, or one that was not ours.
    Network,
}

impl ApiError {
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            ApiError::Problem(problem) => Some(problem),
            _ => None,
        }
    }

    /// The problem's type, when the API answered with one of ours.
    pub fn problem_type(&self) -> Option<ProblemType> {
        self.problem().and_then(Problem::problem_type)
    }

    /// Whether the API answered with this problem.
    pub fn is(&self, kind: ProblemType) -> bool {
        self.problem_type() == Some(kind)
    }
}

/// A handle on the API for this frame; cheap to copy into async blocks. Its public methods
/// are the frame's every call, one per endpoint, each returning `app::wire` types; nothing
/// else in the frame builds a request.
#[derive(Clone, Copy)]
pub struct Api {
    session: RwSignal<SessionState>,
    // Sent as Accept-Language; only the browser sends requests.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    locale: Signal<Locale>,
}

/// A page of a collection, with the cursor of the next (`meta.pagination.next_token`).
pub type Page<T> = Envelope<Vec<T>>;

impl Api {
    pub fn new() -> Self {
        let i18n = use_i18n();
        Self {
            session: use_session(),
            locale: Signal::derive(move || i18n.get_locale()),
        }
    }

    /// `GET /v2/merchants` (or `/v2/merchants/broadsearch?q=` for a search), a page.
    pub fn merchants(
        self,
        search: &str,
        limit: u32,
        next: Option<String>,
    ) -> impl Future<Output = Result<Page<Merchant>, ApiError>> {
        let search = search.trim();
        let path = if search.is_empty() {
            format!("/v2/merchants?limit={limit}")
        } else {
            // broadsearch also matches cities, categories and product titles.
            format!(
                "/v2/merchants/broadsearch?q={}&limit={limit}",
                encode(search)
            )
        };
        self.get(paged(path, next), whole)
    }

    /// `GET /v2/merchants/{merchant_id}`.
    pub fn merchant(self, merchant_id: Uuid) -> impl Future<Output = Result<Merchant, ApiError>> {
        self.get(format!("/v2/merchants/{merchant_id}"), data)
    }

    /// `GET /v2/merchants/{merchant_id}/products`.
    pub fn products(
        self,
        merchant_id: Uuid,
    ) -> impl Future<Output = Result<Vec<Product>, ApiError>> {
        self.get(format!("/v2/merchants/{merchant_id}/products"), data)
    }

    /// `GET /v2/products/{product_id}/calendar` from `from` to `until`, inclusive.
    pub fn calendar(
        self,
        product_id: Uuid,
        from: NaiveDate,
        until: NaiveDate,
    ) -> impl Future<Output = Result<Vec<CalendarEntry>, ApiError>> {
        let path = format!("/v2/products/{product_id}/calendar?from={from}&until={until}");
        self.get(path, data)
    }

    /// `POST /v2/fulfillment/timeslots`.
    pub fn timeslots<'a>(
        self,
        query: &'a TimeslotQuery,
    ) -> impl Future<Output = Result<Vec<TimeslotEntry>, ApiError>> + 'a {
        self.post("/v2/fulfillment/timeslots".into(), query)
    }

    /// `POST /v2/checkouts`: reserves the basket.
    pub fn reserve<'a>(
        self,
        request: &'a CheckoutRequest,
    ) -> impl Future<Output = Result<Checkout, ApiError>> + 'a {
        self.post("/v2/checkouts".into(), request)
    }

    /// `GET /v2/checkouts/{checkout_id}`.
    pub fn checkout(self, checkout_id: Uuid) -> impl Future<Output = Result<Checkout, ApiError>> {
        self.get(checkout_path(checkout_id), data)
    }

    /// `DELETE /v2/checkouts/{checkout_id}`: gives a reservation up at once (204).
    pub async fn release(self, checkout_id: Uuid) -> Result<(), ApiError> {
        let path = format!("/v2/checkouts/{checkout_id}");
        self.answer::<()>("DELETE", path, None, Call::default())
            .await
            .map(|_| ())
    }

    /// `POST /v2/checkouts/{checkout_id}/confirm`: the customer's details; the order and
    /// its payment URL.
    pub fn confirm<'a>(
        self,
        checkout_id: Uuid,
        request: &'a ConfirmRequest,
    ) -> impl Future<Output = Result<PlacedOrder, ApiError>> + 'a {
        self.post(format!("/v2/checkouts/{checkout_id}/confirm"), request)
    }

    /// `POST /v2/checkouts/{checkout_id}/extend`: ten more minutes on the hold, once.
    pub fn extend(self, checkout_id: Uuid) -> impl Future<Output = Result<Checkout, ApiError>> {
        let path = format!("/v2/checkouts/{checkout_id}/extend");
        self.fetch("POST", path, Some(&EMPTY_BODY), Call::default(), data)
    }

    /// `GET /v2/me`: the session, with the customer fields its partner prefilled and locked.
    pub fn me(self) -> impl Future<Output = Result<Me, ApiError>> {
        self.get("/v2/me".into(), data)
    }

    /// `GET /v2/me/fulfillment/orders`, a page.
    pub fn orders(
        self,
        limit: u32,
        next: Option<String>,
    ) -> impl Future<Output = Result<Page<Order>, ApiError>> {
        self.get(orders_path(limit, next), whole)
    }

    /// `GET /v2/me/fulfillment/orders/{order_id}`.
    pub fn order(self, order_id: Uuid) -> impl Future<Output = Result<Order, ApiError>> {
        self.get(format!("/v2/me/fulfillment/orders/{order_id}"), data)
    }

    /// `GET /v2/me/fulfillment/orders/{order_id}/receipt`.
    pub fn receipt(self, order_id: Uuid) -> impl Future<Output = Result<OrderReceipt, ApiError>> {
        self.get(
            format!("/v2/me/fulfillment/orders/{order_id}/receipt"),
            data,
        )
    }

    /// `GET /v2/me/fulfillment/orders/{order_id}/calendar.ics`: the file's bytes, fetched
    /// with the bearer in its header, so a download never puts the bearer in a URL.
    pub async fn order_calendar(self, order_id: Uuid) -> Result<Vec<u8>, ApiError> {
        let path = format!("/v2/me/fulfillment/orders/{order_id}/calendar.ics");
        self.raw(path)
            .await?
            .binary()
            .await
            .map_err(|_| ApiError::Network)
    }

    /// `GET path` under the session, its body as text, undecoded: a lazy route's `data()`
    /// starts its read with this in the first load, and the screen's own code decodes it
    /// (`ui::load::Prefetch`), so the first load carries no decoding of it.
    pub async fn text(self, path: String) -> Result<String, ApiError> {
        self.raw(path)
            .await?
            .text()
            .await
            .map_err(|_| ApiError::Network)
    }

    /// `GET path` under the session: its 2xx response, undecoded.
    #[cfg(feature = "hydrate")]
    async fn raw(self, path: String) -> Result<gloo_net::http::Response, ApiError> {
        self.answer::<()>("GET", path, None, Call::default()).await
    }

    /// The server never runs the frame's API calls.
    #[cfg(not(feature = "hydrate"))]
    async fn raw(self, _path: String) -> Result<NoResponse, ApiError> {
        Err(ApiError::Network)
    }

    /// `POST /v2/me/fulfillment/orders/{order_id}/resend`: the ticket mail again (202).
    pub async fn resend_tickets(self, order_id: Uuid) -> Result<(), ApiError> {
        let path = format!("/v2/me/fulfillment/orders/{order_id}/resend");
        self.answer::<()>("POST", path, None, Call::default())
            .await
            .map(|_| ())
    }

    /// `GET /v2/me/loyalty/ledger/entries`, a page.
    pub fn ledger(
        self,
        limit: u32,
        next: Option<String>,
    ) -> impl Future<Output = Result<Page<LoyaltyEntry>, ApiError>> {
        self.get(ledger_path(limit, next), whole)
    }

    /// `POST /v1/session/identity` in `campaign_id` (the campaign the frame was opened for,
    /// before there is a session): the host's identity token for a public bearer.
    pub fn exchange_identity<'a>(
        self,
        campaign_id: Uuid,
        request: &'a IdentityExchange,
    ) -> impl Future<Output = Result<IssuedToken, ApiError>> + 'a {
        let call = Call {
            campaign: Some(campaign_id),
            ..Call::default()
        };
        self.fetch(
            "POST",
            "/v1/session/identity".into(),
            Some(request),
            call,
            data,
        )
    }

    /// `POST /{stage}/merchant-accounts/session/token`: a magic link's code for a merchant
    /// bearer (an OAuth-style answer, without the envelope).
    pub async fn merchant_token(
        self,
        stage: &str,
        request: &OnboardingCode,
    ) -> Result<MerchantToken, ApiError> {
        let path = format!("/{stage}/merchant-accounts/session/token");
        #[cfg(feature = "hydrate")]
        {
            let call = Call {
                anonymous: true,
                ..Call::default()
            };
            let response = self.answer("POST", path, Some(request), call).await?;
            response.json().await.map_err(|_| ApiError::Network)
        }
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = (path, request);
            Err(ApiError::Network)
        }
    }

    /// `GET /{stage}/merchant-accounts/onboarding` with the merchant's bearer.
    pub fn onboarding_status<'a>(
        self,
        stage: &str,
        token: &'a MerchantToken,
    ) -> impl Future<Output = Result<OnboardingStatus, ApiError>> + 'a {
        let path = format!(
            "/{stage}/merchant-accounts/onboarding?debtorCode={}",
            encode(&token.debtor_code)
        );
        let call = Call {
            bearer: Some(&token.access_token),
            ..Call::default()
        };
        self.fetch("GET", path, NO_BODY, call, data)
    }

    /// `GET path` under the session; `pick` takes what the caller wants of the envelope.
    fn get<T: DeserializeOwned, R>(
        self,
        path: String,
        pick: fn(Envelope<T>) -> R,
    ) -> impl Future<Output = Result<R, ApiError>> {
        self.fetch("GET", path, NO_BODY, Call::default(), pick)
    }

    /// `POST path` with a JSON body under the session, the envelope's data.
    fn post<'a, B: Serialize, T: DeserializeOwned + 'a>(
        self,
        path: String,
        body: &'a B,
    ) -> impl Future<Output = Result<T, ApiError>> + 'a {
        self.fetch("POST", path, Some(body), Call::default(), data)
    }

    /// Sends the call and reads the envelope of its 2xx answer, of which `pick` keeps what the
    /// caller wants. Every typed method above is this one future, so each endpoint adds
    /// only its envelope's decoding to the WASM, not a state machine of its own.
    #[cfg(feature = "hydrate")]
    async fn fetch<B: Serialize, T: DeserializeOwned, R>(
        self,
        method: &'static str,
        path: String,
        body: Option<&B>,
        call: Call<'_>,
        pick: fn(Envelope<T>) -> R,
    ) -> Result<R, ApiError> {
        let response = self.answer(method, path, body, call).await?;
        let envelope = response.json().await.map_err(|_| ApiError::Network)?;
        Ok(pick(envelope))
    }

    /// The server never runs the frame's API calls: its render shows each screen loading.
    #[cfg(not(feature = "hydrate"))]
    async fn fetch<B: Serialize, T: DeserializeOwned, R>(
        self,
        _method: &'static str,
        _path: String,
        _body: Option<&B>,
        _call: Call<'_>,
        _pick: fn(Envelope<T>) -> R,
    ) -> Result<R, ApiError> {
        Err(ApiError::Network)
    }

    /// Sends the call; its 2xx response, or the problem of any other (a 401 under the
    /// session's bearer ends the session).
    #[cfg(feature = "hydrate")]
    async fn answer<B: Serialize>(
        self,
        method: &str,
        path: String,
        body: Option<&B>,
        call: Call<'_>,
    ) -> Result<gloo_net::http::Response, ApiError> {
        use gloo_net::http::{Method, RequestBuilder};

        let session = self.session.get_untracked();
        let active = session.active().filter(|_| !call.anonymous);
        let method = match method {
            "POST" => Method::POST,
            "DELETE" => Method::DELETE,
            _ => Method::GET,
        };
        let mut request = RequestBuilder::new(&path)
            .method(method)
            .header("Accept", "application/json")
            .header(
                "Accept-Language",
                super::language::to_wire(self.locale.get_untracked()).tag(),
            );
        let bearer = call.bearer.or(active.map(|s| s.access_token.as_str()));
        if let Some(bearer) = bearer {
            request = request.header("Authorization", &format!("Bearer {bearer}"));
        }
        if let Some(campaign) = call.campaign.or_else(|| active.and_then(|s| s.campaign_id)) {
            request = request.header("x-campaign-id", &campaign.to_string());
        }
        let sent = match body {
            Some(body) => {
                request
                    .json(body)
                    .map_err(|_| ApiError::Network)?
                    .send()
                    .await
            }
            None => request.send().await,
        };
        let response = sent.map_err(|_| ApiError::Network)?;
        if response.ok() {
            return Ok(response);
        }
        if response.status() == 401 && active.is_some() && call.bearer.is_none() {
            self.end_session();
            return Err(ApiError::Expired);
        }
        match response.json::<Problem>().await {
            Ok(problem) => Err(ApiError::Problem(problem)),
            Err(_) => Err(ApiError::Network),
        }
    }

    /// The server never runs the frame's API calls.
    #[cfg(not(feature = "hydrate"))]
    async fn answer<B: Serialize>(
        self,
        _method: &str,
        _path: String,
        _body: Option<&B>,
        _call: Call<'_>,
    ) -> Result<(), ApiError> {
        Err(ApiError::Network)
    }

    /// The bearer is no longer accepted: forget it, show the expired screen, tell the host.
    pub fn end_session(self) {
        #[cfg(feature = "hydrate")]
        super::session::browser::forget_stored();
        self.session.set(SessionState::BearerExpired);
        host::post(&Outgoing::SessionExpired);
    }
}

/// How a call differs from one under the session: another campaign (the identity exchange,
/// before there is a session), another bearer (the merchant's), or none at all.
#[derive(Default, Clone, Copy)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
struct Call<'a> {
    campaign: Option<Uuid>,
    bearer: Option<&'a str>,
    anonymous: bool,
}

/// No request body.
const NO_BODY: Option<&()> = None;
/// The empty JSON object, for a POST that takes no input.
const EMPTY_BODY: EmptyBody = EmptyBody {};

#[derive(Serialize)]
struct EmptyBody {}

/// The envelope's `data`: what most calls want.
fn data<T>(envelope: Envelope<T>) -> T {
    envelope.data
}

/// The whole envelope: a page, with its cursor in `meta`.
fn whole<T>(envelope: Envelope<T>) -> Envelope<T> {
    envelope
}

/// What the server render's calls would have answered: never anything.
#[cfg(not(feature = "hydrate"))]
struct NoResponse;

#[cfg(not(feature = "hydrate"))]
impl NoResponse {
    async fn binary(self) -> Result<Vec<u8>, ()> {
        Err(())
    }

    async fn text(self) -> Result<String, ()> {
        Err(())
    }
}

/// An answer's text (`Api::text`) as the envelope it is; `None` when it is not one of ours.
pub fn decode<T: DeserializeOwned>(text: &str) -> Option<Envelope<T>> {
    serde_json::from_str(text).ok()
}

/// The path of `GET /v2/checkouts/{checkout_id}`.
pub fn checkout_path(checkout_id: Uuid) -> String {
    format!("/v2/checkouts/{checkout_id}")
}

/// The path of a page of `GET /v2/me/fulfillment/orders`.
pub fn orders_path(limit: u32, next: Option<String>) -> String {
    paged(format!("/v2/me/fulfillment/orders?limit={limit}"), next)
}

/// The path of a page of `GET /v2/me/loyalty/ledger/entries`.
pub fn ledger_path(limit: u32, next: Option<String>) -> String {
    paged(format!("/v2/me/loyalty/ledger/entries?limit={limit}"), next)
}

/// A collection's `path` (with its query), for the page after `next` when there is one.
fn paged(mut path: String, next: Option<String>) -> String {
    if let Some(token) = next {
        path.push_str(&format!("&next_token={}", encode(&token)));
    }
    path
}

impl Default for Api {
    fn default() -> Self {
        Self::new()
    }
}
