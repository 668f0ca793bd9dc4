//! The express checkout's yardstick (only with `BOXOFFICE_BENCH_BASELINE=1`): the writes of an
//! express checkout with none of its reads, checks or pricing. It claims the Idempotency-Key,
//! then in one transaction writes the checkout, confirmed, with its line and `CheckoutStarted`,
//! writes the order, payment and `CheckoutFulfillmentRegistered`, stores the response under
//! the key and, last, takes the capacity: the same statements in the same order, through the
//! same store and committed the same way (on SQLite in the writer's group commit), as
//! `POST /v2/checkouts/express`: the fastest this machine can durably commit those rows. The
//! benchmark reports the real endpoint as a share of it (docs/benchmarks.md).
//!
//! `PUT` names the product and day once (the lookup is not measured); every `POST` then books
//! that product as a guest.

use std::sync::{Arc, RwLock};

use axum::{
    extract::State,
    http::{header, HeaderMap, StatusCode},
    response::{IntoResponse, Response},
    Extension,
};
use chrono::{NaiveDate, Utc};
use rust_decimal::Decimal;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    api::checkouts::idempotency_key,
    checkout::{
        express::response_body,
        idempotency::{LOCK, RETENTION},
        place::{open_payment, place_order, Confirming},
        reserve::{started_event, HOLD},
    },
    error::{Error, ProblemType, Result},
    http::extract::ApiJson,
    state::AppState,
    store::{
        CustomerFields, IdempotencyClaim, IdempotentRequest, NewCheckout, NewCheckoutLine, Places,
    },
};

/// What `PUT` is told: the booking every `POST` makes.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct ExpressBaseline {
    pub campaign_id: Uuid,
    pub product_id: Uuid,
    pub visit_date: NaiveDate,
    pub quantity: u32,
    pub return_url: String,
}

/// The checkout every `POST` writes (with fresh ids), and the customer's return URL.
struct Prepared {
    checkout: NewCheckout,
    return_url: String,
}

/// One per router, so servers in one process keep their own.
type Held = Arc<RwLock<Option<Prepared>>>;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(express_baseline, set_express_baseline))
        .layer(Extension(Held::default()))
}

/// Benchmarks only: names the product, day and quantity `POST` books.
#[utoipa::path(put, path = "/bench/baseline/express", tag = "operations",
    request_body = ExpressBaseline, responses((status = 204), (status = 404)))]
async fn set_express_baseline(
    State(state): State<AppState>,
    Extension(held): Extension<Held>,
    ApiJson(baseline): ApiJson<ExpressBaseline>,
) -> Result<StatusCode> {
    if !(1..=100).contains(&baseline.quantity) {
        return Err(Error::invalid_field(
            "quantity",
            "out_of_range",
            "quantity must be 1 to 100",
        ));
    }
    let not_found = || Error::new(ProblemType::ProductNotFound, "No such product.");
    let product = state
        .store
        .product(baseline.product_id)
        .await?
        .ok_or_else(not_found)?;
    let merchant = state
        .store
        .merchant(product.merchant_id)
        .await?
        .ok_or_else(not_found)?;
    let quantity = Decimal::from(baseline.quantity);
    let line_total = quantity * (product.unit_price + product.booking_costs);
    let template = NewCheckout {
        checkout_id: Uuid::nil(),
        campaign_id: baseline.campaign_id,
        merchant_id: merchant.merchant_id,
        customer_id: None,
        partner_client_id: None,
        session_id: None,
        client_address: None,
        provider: product.provider.clone(),
        locale: "nl-NL".to_owned(),
        visit_date: baseline.visit_date,
        timeslot_id: None,
        flexible_date: false,
        currency: merchant.currency.clone(),
        subtotal: line_total,
        discount_total: Decimal::ZERO,
        wallet_applied: Decimal::ZERO,
        total: line_total,
        requires_shipping_address: false,
        voucher_codes: Vec::new(),
        external_reference: None,
        attribution: None,
        buyer: None,
        answers: Vec::new(),
        expires_at: Utc::now(),
        lines: vec![NewCheckoutLine {
            checkout_line_id: Uuid::nil(),
            product_id: product.product_id,
            availability_group_id: product.availability_group_id,
            timeslot_id: None,
            visit_date: baseline.visit_date,
            sku: product.sku.clone(),
            title: product.title.clone(),
            age_group: product.age_group.clone(),
            quantity: baseline.quantity,
            unit_price: product.unit_price,
            list_price: product.list_price,
            booking_costs: product.booking_costs,
            visit_guarantee_cost: Decimal::ZERO,
            line_total,
        }],
        vouchers: Vec::new(),
        confirmed: None,
    };
    *held.write().unwrap_or_else(|e| e.into_inner()) = Some(Prepared {
        checkout: template,
        return_url: baseline.return_url,
    });
    Ok(StatusCode::NO_CONTENT)
}

/// Benchmarks only: the express checkout's writes in one transaction, as a guest.
#[utoipa::path(post, path = "/bench/baseline/express", tag = "operations",
    params(("Idempotency-Key" = Uuid, Header)),
    responses((status = 200, content_type = "application/json", body = Object),
              (status = 409), (status = 422)))]
async fn express_baseline(
    State(state): State<AppState>,
    Extension(held): Extension<Held>,
    headers: HeaderMap,
) -> Result<Response> {
    let key = idempotency_key(&headers)?;
    let (mut checkout, return_url) = held
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|p| (p.checkout.clone(), p.return_url.clone()))
        .ok_or_else(|| Error::new(ProblemType::NotFound, "PUT /bench/baseline/express first."))?;
    let now = Utc::now();
    checkout.checkout_id = crate::ids::random_id();
    checkout.expires_at = now + HOLD;
    for line in &mut checkout.lines {
        line.checkout_line_id = crate::ids::time_ordered_id();
    }
    let campaign_id = checkout.campaign_id;
    let payment = open_payment(
        &state.commerce,
        checkout.checkout_id,
        checkout.merchant_id,
        checkout.total,
        &checkout.currency,
    )
    .await?;
    let claim = IdempotentRequest {
        campaign_id,
        key,
        request_hash: key.as_bytes().to_vec(),
        customer_id: None,
        lock_until: now + LOCK,
        expires_at: now + RETENTION,
        owner: crate::ids::random_id(),
    };
    let claimed = state.store.claim_and_begin(&claim, now).await?;
    let IdempotencyClaim::Claimed(mut tx) = claimed else {
        return Err(Error::new(
            ProblemType::IdempotencyKeyReused,
            "Use a new key.",
        ));
    };
    let fields = CustomerFields {
        partner_client_id: None,
        email: "ada@example.com".to_owned(),
        first_name: "Ada".to_owned(),
        last_name: "Lovelace".to_owned(),
        return_url,
        shipping_address: None,
        newsletters: Vec::new(),
        buyer: None,
        answers: None,
    };
    checkout.confirmed = Some(fields.clone());
    let attempt = async {
        tx.insert_checkout(&checkout).await?;
        tx.insert_event(&started_event(&checkout)).await?;
        let placed = place_order(
            tx.as_mut(),
            &Confirming {
                checkout_id: checkout.checkout_id,
                campaign_id,
                customer_id: None,
                partner_client_id: None,
                total: checkout.total,
                currency: checkout.currency.clone(),
                attribution: None,
            },
            &fields,
            payment,
            now,
        )
        .await?;
        let body = response_body(placed)?;
        tx.complete_idempotency(&claim, 200, &body, now).await?;
        // Places last, taken by the commit, as the express checkout holds them
        // (checkout/reserve.rs); a short one fails the commit with a 422.
        for line in &checkout.lines {
            tx.take(Places::Day {
                group: line.availability_group_id,
                day: line.visit_date,
                quantity: line.quantity,
            });
        }
        tx.commit().await?;
        Ok::<_, Error>(body)
    };
    match attempt.await {
        Ok(body) => Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response()),
        Err(err) => {
            state
                .store
                .release_idempotency_key(campaign_id, key, claim.owner)
                .await?;
            Err(err)
        }
    }
}
