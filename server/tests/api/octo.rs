//! OCTO per merchant (docs/octo.md): a reseller (a partner client settling on account) reads
//! the supplier, products and availability, reserves, extends, confirms, reads, lists and
//! cancels bookings; every answer, for each combination of capabilities, validates against
//! the OCTO document's own schemas (`server/tests/octo/check.py`, jsonschema); two resellers
//! see only their own bookings; errors come in OCTO's shape.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{visit_day, Shop},
    helpers::{TestApp, TestResponse},
    settlement_fixtures::{entries, settled_shop},
};

/// One recorded answer, for the document's check.
struct Recorded {
    operation: &'static str,
    status: u16,
    capabilities: Vec<&'static str>,
    body: Value,
}

/// A reseller of the shop's merchant: its backend bearer and the answers it got.
pub struct Reseller<'a> {
    app: &'a TestApp,
    base: String,
    token: String,
    capabilities: Vec<&'static str>,
    recorded: Vec<Recorded>,
}

impl<'a> Reseller<'a> {
    pub fn new(app: &'a TestApp, shop: &Shop, token: String) -> Self {
        Self {
            app,
            base: format!("/octo/{}", shop.merchant),
            token,
            capabilities: Vec::new(),
            recorded: Vec::new(),
        }
    }

    /// Sends `method path` (under the merchant's base path) with `body`, records the answer
    /// as `operation`'s.
    pub async fn call(
        &mut self,
        operation: &'static str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> TestResponse {
        let mut request = self
            .app
            .request(method, &format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header("octo-capabilities", self.capabilities.join(", "))
            .header("accept-language", "en-GB");
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = self.app.send(request).await;
        let status = response.status.as_u16();
        assert_eq!(
            response.header("octo-capabilities").map(str::to_owned),
            (status == 200).then(|| self.capabilities.join(", ")),
            "{operation}: {}",
            response.text
        );
        self.recorded.push(Recorded {
            operation,
            status: if status == 200 { 200 } else { 400 },
            capabilities: self.capabilities.clone(),
            body: response.json(),
        });
        response
    }

    /// `POST /bookings/{uuid}/extend`.
    pub async fn extend(&mut self, uuid: &str) -> TestResponse {
        self.call(
            "Bookings_ExtendReservation",
            Method::POST,
            &format!("/bookings/{uuid}/extend"),
            Some(json!({})),
        )
        .await
    }

    /// `GET /bookings/{uuid}`, answered 200.
    pub async fn read(&mut self, uuid: &str) -> Value {
        self.call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{uuid}"),
            None,
        )
        .await
        .assert_status(200)
    }

    pub async fn reserve(&mut self, product: &str, quantity: usize, extra: Value) -> Value {
        let mut body = json!({
            "productId": product,
            "optionId": "DEFAULT",
            "availabilityId": midnight_id(visit_day()),
            "unitItems": vec![json!({ "unitId": "adult" }); quantity],
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.call(
            "Bookings_BookingReservation",
            Method::POST,
            "/bookings",
            Some(body),
        )
        .await
        .assert_status(200)
    }

    pub async fn confirm(&mut self, uuid: &str, extra: Value) -> TestResponse {
        let mut body = json!({
            "contact": { "fullName": "Ada Lovelace", "emailAddress": "ada@example.com" },
        });
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        self.call(
            "Bookings_BookingConfirmation",
            Method::POST,
            &format!("/bookings/{uuid}/confirm"),
            Some(body),
        )
        .await
    }

    /// Every recorded answer validated against the OCTO document's schemas.
    pub fn assert_all_valid(&self) {
        let items: Vec<Value> = self
            .recorded
            .iter()
            .map(|r| {
                json!({
                    "operation": r.operation, "status": r.status,
                    "capabilities": r.capabilities, "body": r.body,
                })
            })
            .collect();
        let file = std::env::temp_dir().join(format!("octo-{}.json", uuid::Uuid::new_v4()));
        std::fs::write(&file, serde_json::to_vec(&items).unwrap()).unwrap();
        let python =
            std::env::var("BOXOFFICE_FACTURX_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/octo/check.py");
        let checked = std::process::Command::new(&python)
            .args([script, "--batch"])
            .arg(&file)
            .output()
            .unwrap_or_else(|e| panic!("{python}: {e}"));
        std::fs::remove_file(&file).ok();
        assert!(
            checked.status.success(),
            "the OCTO document refused answers ({python}; `.ci/install-tools stripe` installs jsonschema):\n{}{}",
            String::from_utf8_lossy(&checked.stdout),
            String::from_utf8_lossy(&checked.stderr)
        );
    }
}

/// The OCTO availability id of a day ticket's `day` at the shop (Europe/Amsterdam): its local
/// midnight with the offset of that moment.
pub fn midnight_id(day: chrono::NaiveDate) -> String {
    use chrono::TimeZone;
    chrono_tz::Europe::Amsterdam
        .from_local_datetime(&day.and_hms_opt(0, 0, 0).unwrap())
        .unwrap()
        .to_rfc3339()
}

/// Lets the shop's partner client settle on account (the operator API).
pub async fn on_account(app: &TestApp, shop: &Shop) {
    let client = app
        .state
        .store
        .partner_client_by_client_id(&shop.partner.client.client_id)
        .await
        .unwrap()
        .unwrap()
        .client;
    app.admin_put_ok(
        &format!("/admin/v1/clients/{}", client.partner_client_id),
        &json!({
            "name": client.name, "campaign_ids": client.campaign_ids,
            "frame_origins": client.frame_origins, "return_origins": client.return_origins,
            "settlement": "on_account",
        }),
    )
    .await;
}

#[tokio::test]
async fn a_reseller_books_confirms_reads_and_cancels_and_every_answer_is_octo_s_own() {
    let (app, shop, backend) = settled_shop().await;
    on_account(&app, &shop).await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    // Pictures, which `octo/content` shows as `media` (their JPEG).
    for owner in [
        format!("merchants/{}", shop.merchant),
        format!("products/{}", shop.product),
    ] {
        crate::catalog_images::add_picture(&app, &format!("/admin/v1/{owner}/images"), vec![])
            .await;
    }

    for capabilities in [
        vec![],
        vec!["octo/content"],
        vec!["octo/pricing"],
        vec!["octo/content", "octo/pricing", "octo/questions"],
    ] {
        r.capabilities = capabilities;
        r.call("Suppliers_get", Method::GET, "/supplier", None)
            .await
            .assert_status(200);
        r.call("Capabilities_get", Method::GET, "/capabilities/", None)
            .await
            .assert_status(200);
        let products = r
            .call("Products_GetProducts", Method::GET, "/products/", None)
            .await
            .assert_status(200);
        assert_eq!(products[0]["id"], shop.product);
        if r.capabilities.contains(&"octo/content") {
            let media = &products[0]["media"][0];
            assert_eq!(
                (&media["type"], &media["rel"]),
                (&json!("image/jpeg"), &json!("COVER"))
            );
            assert!(
                media["src"].as_str().unwrap().ends_with("/1280.jpg"),
                "{media}"
            );
            assert_eq!(media["caption"], "The elephants by the water");
            assert_eq!(products[0]["options"][0]["media"], products[0]["media"]);
        }
        r.call(
            "Products_GetProduct",
            Method::GET,
            &format!("/products/{}", shop.product),
            None,
        )
        .await
        .assert_status(200);
        let day = visit_day().to_string();
        let calendar = r
            .call(
                "Availabilities_AvailabilityCalendar",
                Method::POST,
                "/availability/calendar",
                Some(json!({ "productId": shop.product, "optionId": "DEFAULT",
                             "localDateStart": day, "localDateEnd": day })),
            )
            .await
            .assert_status(200);
        assert_eq!(calendar[0]["available"], true);
        let starts = r
            .call(
                "Availabilities_AvailabilityCheck",
                Method::POST,
                "/availability/",
                Some(json!({ "productId": shop.product, "optionId": "DEFAULT",
                             "localDate": day, "units": [{ "id": "adult", "quantity": 2 }] })),
            )
            .await
            .assert_status(200);
        assert_eq!(starts[0]["id"], midnight_id(visit_day()));
    }

    // Reserve (the reseller's own uuid), extend, confirm on account, read, list, cancel.
    let uuid = uuid::Uuid::new_v4().to_string();
    let held = r
        .reserve(
            &shop.product,
            2,
            json!({ "uuid": uuid, "resellerReference": "RES-1" }),
        )
        .await;
    assert_eq!(held["status"], "ON_HOLD");
    assert_eq!(held["uuid"], uuid);
    assert_eq!(held["unitItems"].as_array().unwrap().len(), 2);
    let again = r.reserve(&shop.product, 2, json!({ "uuid": uuid })).await;
    assert_eq!(again["id"], held["id"], "the same uuid is the same booking");
    let extended = r.extend(&uuid).await.assert_status(200);
    assert!(extended["utcExpiresAt"].as_str() > held["utcExpiresAt"].as_str());
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    assert_eq!(confirmed["status"], "CONFIRMED");
    let order_ref = confirmed["supplierReference"].as_str().unwrap().to_owned();
    for item in confirmed["unitItems"].as_array().unwrap() {
        let qr = &item["ticket"]["deliveryOptions"][0];
        assert_eq!(qr["deliveryFormat"], "QRCODE");
        assert!(qr["deliveryValue"].as_str().unwrap().len() > 20);
    }
    // Paid on account: the sale is in the partner's statement.
    let sales: Vec<Value> = entries(&app, &backend)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "sale" && e["order_display_id"] == json!(order_ref))
        .collect();
    assert!(!sales.is_empty(), "a sale entry for {order_ref}");

    let read = r
        .call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{uuid}"),
            None,
        )
        .await
        .assert_status(200);
    assert_eq!(read["status"], "CONFIRMED");
    for query in [
        "resellerReference=RES-1".to_owned(),
        format!("supplierReference={order_ref}"),
        format!("localDate={}", visit_day()),
    ] {
        let listed = r
            .call(
                "Bookings_GetBookings",
                Method::GET,
                &format!("/bookings?{query}"),
                None,
            )
            .await
            .assert_status(200);
        assert_eq!(listed.as_array().unwrap().len(), 1, "{query}");
    }
    // The date change of a confirmed booking: the partner's, new tickets on the next day.
    let next_day = visit_day().succ_opt().unwrap();
    let moved = r
        .call(
            "Bookings_BookingUpdate",
            Method::PATCH,
            &format!("/bookings/{uuid}"),
            Some(json!({ "availabilityId": midnight_id(next_day), "notes": "moved a day" })),
        )
        .await
        .assert_status(200);
    assert_eq!(moved["status"], "CONFIRMED");
    assert_eq!(moved["availabilityId"], midnight_id(next_day));
    assert_eq!(moved["notes"], "moved a day");
    assert_ne!(
        moved["unitItems"][0]["uuid"], confirmed["unitItems"][0]["uuid"],
        "new tickets"
    );
    let listed = r
        .call(
            "Bookings_GetBookings",
            Method::GET,
            &format!("/bookings?localDate={next_day}"),
            None,
        )
        .await
        .assert_status(200);
    assert_eq!(listed[0]["uuid"], uuid);
    let nowhere = r
        .call(
            "Bookings_BookingUpdate",
            Method::PATCH,
            &format!("/bookings/{uuid}"),
            Some(json!({ "availabilityId": "2020-01-01T09:30:00+01:00" })),
        )
        .await;
    assert_eq!(nowhere.json()["error"], "INVALID_AVAILABILITY_ID");

    let cancelled = r
        .call(
            "Bookings_BookingCancellation",
            Method::POST,
            &format!("/bookings/{uuid}/cancel"),
            Some(json!({ "reason": "plans changed" })),
        )
        .await
        .assert_status(200);
    assert_eq!(cancelled["status"], "CANCELLED");
    assert_eq!(cancelled["cancellation"]["refund"], "FULL");

    // An ON_HOLD booking is always cancellable: released.
    let other = r.reserve(&shop.product, 1, json!({})).await;
    let released = r
        .call(
            "Bookings_BookingCancellation",
            Method::POST,
            &format!("/bookings/{}/cancel", other["uuid"].as_str().unwrap()),
            Some(json!({})),
        )
        .await
        .assert_status(200);
    assert_eq!(released["status"], "CANCELLED");
    assert_eq!(released["cancellation"]["refund"], "NONE");

    // Errors in OCTO's shape, each its document's.
    let wrong = r
        .call(
            "Products_GetProduct",
            Method::GET,
            &format!("/products/{}", uuid::Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(wrong.status, 400);
    assert_eq!(wrong.json()["error"], "INVALID_PRODUCT_ID");
    let unknown = r
        .call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{}", uuid::Uuid::new_v4()),
            None,
        )
        .await;
    assert_eq!(unknown.json()["error"], "INVALID_BOOKING_UUID");
    r.assert_all_valid();
}

#[tokio::test]
async fn resellers_see_only_their_own_bookings_and_only_on_account_ones_confirm() {
    let (app, shop, _) = settled_shop().await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut mine = Reseller::new(&app, &shop, token);
    let booking = mine.reserve(&shop.product, 1, json!({})).await;
    let uuid = booking["uuid"].as_str().unwrap().to_owned();
    // Paying by payment page, this reseller may not confirm on account.
    let refused = mine.confirm(&uuid, json!({})).await;
    assert_eq!(refused.status, 403);
    assert_eq!(refused.json()["error"], "FORBIDDEN");

    let rival = app.create_client("rival", &[&shop.partner.campaign]).await;
    let rival_token = app.backend_token(&rival).await;
    let mut theirs = Reseller::new(&app, &shop, rival_token);
    let hidden = theirs
        .call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{uuid}"),
            None,
        )
        .await;
    assert_eq!(hidden.status, 400);
    assert_eq!(hidden.json()["error"], "INVALID_BOOKING_UUID");
    let listed = theirs
        .call("Bookings_GetBookings", Method::GET, "/bookings", None)
        .await
        .assert_status(200);
    assert_eq!(listed, json!([]));
    // U+0000, which PostgreSQL's text cannot hold, is a bad request wherever a reseller sends
    // text: in the query and in a body.
    // (Sent unrecorded: OCTO's document declares no BAD_REQUEST, docs/octo.md "Errors".)
    let nul_query = app
        .send(
            app.request(
                Method::GET,
                &format!("/octo/{}/bookings?resellerReference=a%00b", shop.merchant),
            )
            .bearer_auth(&theirs.token),
        )
        .await;
    assert_eq!(nul_query.status, 400, "{}", nul_query.text);
    assert_eq!(nul_query.json()["error"], "BAD_REQUEST");
    let nul_body = app
        .send(
            app.request(Method::POST, &format!("/octo/{}/bookings", shop.merchant))
                .bearer_auth(&mine.token)
                .json(&json!({
                    "productId": shop.product, "optionId": "DEFAULT",
                    "availabilityId": midnight_id(visit_day()),
                    "unitItems": [{ "unitId": "adult" }], "resellerReference": "a\u{0}b",
                })),
        )
        .await;
    assert_eq!(nul_body.status, 400, "{}", nul_body.text);
    assert_eq!(nul_body.json()["error"], "BAD_REQUEST");

    // No bearer, or a customer's public one: OCTO's 401. An unknown merchant: 404.
    for bearer in [None, Some(shop.partner.token.as_str())] {
        let mut request = app.request(Method::GET, &format!("/octo/{}/supplier", shop.merchant));
        if let Some(bearer) = bearer {
            request = request.bearer_auth(bearer);
        }
        let answer = app.send(request).await;
        assert_eq!(answer.status, 401);
        assert_eq!(answer.json()["error"], "UNAUTHORIZED");
    }
    let nowhere = app
        .send(
            app.request(
                Method::GET,
                &format!("/octo/{}/supplier", uuid::Uuid::new_v4()),
            )
            .bearer_auth(&mine.token),
        )
        .await;
    assert_eq!(nowhere.status, 404);
    mine.assert_all_valid();
    theirs.assert_all_valid();
}

#[tokio::test]
async fn octo_booking_questions_are_answered_per_booking_and_per_unit_item() {
    let (app, shop, _) = settled_shop().await;
    on_account(&app, &shop).await;
    crate::after_sale_fixtures::set_product_field(
        &app,
        &shop.product,
        "questions",
        json!([{ "question_id": "visitor_name", "per": "ticket", "input_type": "text",
                 "required": true, "label": { "en-GB": "Visitor's name" } }]),
    )
    .await
    .assert_status(200);
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    r.capabilities = vec!["octo/questions"];
    let product = r
        .call(
            "Products_GetProduct",
            Method::GET,
            &format!("/products/{}", shop.product),
            None,
        )
        .await
        .assert_status(200);
    assert_eq!(
        product["options"][0]["units"][0]["questions"][0]["id"],
        "visitor_name"
    );
    let booking = r.reserve(&shop.product, 2, json!({})).await;
    let uuid = booking["uuid"].as_str().unwrap().to_owned();
    let missing = r.confirm(&uuid, json!({})).await;
    assert_eq!(missing.status, 400);
    assert_eq!(missing.json()["error"], "UNPROCESSABLE_ENTITY");
    let answered = r
        .confirm(
            &uuid,
            json!({ "unitItems": [
                { "unitId": "adult", "questionAnswers": [{ "questionId": "visitor_name", "value": "Ann" }] },
                { "unitId": "adult", "questionAnswers": [{ "questionId": "visitor_name", "value": "Bo" }] }
            ] }),
        )
        .await
        .assert_status(200);
    assert_eq!(answered["status"], "CONFIRMED");
    r.assert_all_valid();
}

/// `POST /octo/…/bookings` or `…/confirm` as the shop's reseller, unrecorded (for races).
async fn send_octo(
    app: &TestApp,
    shop: &Shop,
    token: &str,
    path: &str,
    body: Value,
) -> TestResponse {
    app.send(
        app.request(Method::POST, &format!("/octo/{}{path}", shop.merchant))
            .bearer_auth(token)
            .json(&body),
    )
    .await
}

#[tokio::test]
async fn copies_of_a_reservation_hold_once_and_copies_of_a_confirmation_sell_once() {
    let (app, shop, backend) = settled_shop().await;
    on_account(&app, &shop).await;
    let token = app.backend_token(&shop.partner.client).await;
    let uuid = uuid::Uuid::new_v4().to_string();
    let reservation = json!({
        "uuid": uuid, "productId": shop.product, "optionId": "DEFAULT",
        "availabilityId": midnight_id(visit_day()),
        "unitItems": [{ "unitId": "adult" }, { "unitId": "adult" }],
    });
    let held = futures::future::join_all(
        (0..10).map(|_| send_octo(&app, &shop, &token, "/bookings", reservation.clone())),
    )
    .await;
    let ids: std::collections::BTreeSet<String> = held
        .iter()
        .map(|r| r.assert_status(200)["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 1, "one booking for one uuid");
    assert_eq!(
        crate::checkout_fixtures::reserved_on_visit_day(&app, &shop).await,
        2,
        "its places held once"
    );

    let confirmation =
        json!({ "contact": { "fullName": "Ada Lovelace", "emailAddress": "ada@example.com" } });
    let path = format!("/bookings/{uuid}/confirm");
    let confirmed = futures::future::join_all(
        (0..10).map(|_| send_octo(&app, &shop, &token, &path, confirmation.clone())),
    )
    .await;
    let mut orders = std::collections::BTreeSet::new();
    for answer in &confirmed {
        // A copy that lost the race reads the booking as the winner left it, or is told the
        // hold is no longer there to confirm; none places a second order.
        if answer.status == 200 {
            orders.insert(
                answer.json()["supplierReference"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            );
        } else {
            assert_eq!(
                answer.json()["error"],
                "UNPROCESSABLE_ENTITY",
                "{}",
                answer.text
            );
        }
    }
    let booking = app
        .send(
            app.request(
                Method::GET,
                &format!("/octo/{}/bookings/{uuid}", shop.merchant),
            )
            .bearer_auth(&token),
        )
        .await
        .assert_status(200);
    assert_eq!(booking["status"], "CONFIRMED");
    let order_ref = booking["supplierReference"].as_str().unwrap().to_owned();
    orders.remove("");
    assert!(orders.iter().all(|o| *o == order_ref), "{orders:?}");
    let sales = entries(&app, &backend)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "sale")
        .count();
    assert_eq!(sales, 1, "one line sold once");
}

#[tokio::test]
async fn a_booking_let_in_at_the_gate_is_redeemed_and_no_longer_cancellable() {
    let (app, shop, _) = settled_shop().await;
    on_account(&app, &shop).await;
    let token = app.backend_token(&shop.partner.client).await;
    let mut r = Reseller::new(&app, &shop, token);
    let today = crate::partner_fixtures::today_in(crate::checkout_fixtures::ZONE);
    let booking = r
        .reserve(
            &shop.product,
            1,
            json!({ "availabilityId": midnight_id(today) }),
        )
        .await;
    let uuid = booking["uuid"].as_str().unwrap().to_owned();
    let confirmed = r.confirm(&uuid, json!({})).await.assert_status(200);
    let code = confirmed["unitItems"][0]["supplierReference"]
        .as_str()
        .unwrap()
        .to_owned();
    let gate = crate::gate_fixtures::gate(&app, &shop).await;
    crate::gate_fixtures::scan(&app, &gate, &code)
        .await
        .assert_status(201);

    let redeemed = r
        .call(
            "Bookings_GetBooking",
            Method::GET,
            &format!("/bookings/{uuid}"),
            None,
        )
        .await
        .assert_status(200);
    assert_eq!(redeemed["status"], "REDEEMED");
    assert!(redeemed["utcRedeemedAt"].is_string());
    assert_eq!(redeemed["unitItems"][0]["status"], "REDEEMED");
    assert_eq!(redeemed["cancellable"], false);
    let refused = r
        .call(
            "Bookings_BookingCancellation",
            Method::POST,
            &format!("/bookings/{uuid}/cancel"),
            Some(json!({})),
        )
        .await;
    assert_eq!(refused.status, 400);
    assert_eq!(refused.json()["error"], "UNPROCESSABLE_ENTITY");
    r.assert_all_valid();
}
