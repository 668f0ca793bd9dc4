//! At the gate (docs/gate.md): gates as credentials of their own kind, redeeming with every
//! refusal in its order, nonce replays, undo, and what the customer and the partner see.

use reqwest::Method;
use serde_json::{json, Value};

use crate::{
    checkout_fixtures::{count_events, events, shop, spawn_shop},
    gate_fixtures::{
        code, gate, gate_token, gate_with, nonce, order, paid_for, qr, scan, scan_as, undo,
    },
    helpers::TestApp,
};

#[tokio::test]
async fn a_gate_is_a_credential_of_its_own_kind() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    assert!(gate.client_id.starts_with("gate_"));
    assert!(gate.pairing_url.contains("/gate#pairing="));
    let read = app
        .admin_get_ok(&format!("/admin/v1/gates/{}", gate.gate_id))
        .await["data"]
        .clone();
    assert_eq!(read["early_minutes"], 30);
    assert_eq!(read["late_minutes"], 0);
    assert!(read.get("client_secret").is_none() && read.get("secret_hash").is_none());

    // A gate bearer reaches nothing but the gate's routes; a partner's reaches none of them.
    let backend = app.backend_token(&shop.partner.client).await;
    for token in [backend.as_str(), shop.partner.token.as_str()] {
        scan_as(&app, token, "ABCD-EFGH-JKMN", &nonce())
            .await
            .assert_problem(401, "token-invalid");
    }
    app.send(
        app.request(Method::GET, "/v2/events")
            .bearer_auth(&gate.token),
    )
    .await
    .assert_problem(401, "token-invalid");
    app.send(
        app.request(Method::GET, "/v2/me/fulfillment/orders")
            .bearer_auth(&gate.token)
            .header("x-campaign-id", &shop.partner.campaign),
    )
    .await
    .assert_problem(401, "token-invalid");

    // Revoked, its bearer and its credentials stop at once.
    assert_eq!(
        app.admin_delete(&format!("/admin/v1/gates/{}", gate.gate_id))
            .await
            .status,
        204
    );
    scan(&app, &gate, "ABCD-EFGH-JKMN")
        .await
        .assert_problem(401, "token-invalid");
    gate_token(&app, &gate.client_id, &gate.client_secret)
        .await
        .assert_problem(401, "client-authentication-failed");
    app.admin_put(
        &format!("/admin/v1/gates/{}", gate.gate_id),
        &json!({ "name": "Again" }),
    )
    .await
    .assert_problem(409, "conflict");
}

#[tokio::test]
async fn a_gate_names_only_its_merchants_products_and_sane_margins() {
    let (app, shop) = spawn_shop(None).await;
    let other = shop_elsewhere(&app).await;
    let path = format!("/admin/v1/merchants/{}/gates", shop.merchant);
    app.admin_post(
        &path,
        &json!({ "name": "East", "product_ids": [other.product] }),
    )
    .await
    .assert_invalid(&["product_ids"]);
    app.admin_post(&path, &json!({ "name": "", "early_minutes": 721 }))
        .await
        .assert_invalid(&["name", "early_minutes"]);
    app.admin_post(
        &format!("/admin/v1/merchants/{}/gates", uuid::Uuid::new_v4()),
        &json!({ "name": "Nowhere" }),
    )
    .await
    .assert_problem(404, "not-found");
}

async fn shop_elsewhere(app: &TestApp) -> crate::checkout_fixtures::Shop {
    shop(app, None).await
}

#[tokio::test]
async fn a_valid_ticket_is_let_in_once_and_a_retried_scan_is_the_same_entry() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let order_before = paid_for(&app, &shop, 0, 2).await;
    let order_id = order_before["order_id"].as_str().unwrap().to_owned();
    let first = nonce();
    let entered = scan_as(&app, &gate.token, &qr(&order_before, 0), &first)
        .await
        .assert_status(201)["data"]
        .clone();
    assert_eq!(entered["status"], "REDEEMED");
    assert_eq!(
        entered["ticket_id"],
        order_before["tickets"][0]["ticket_id"]
    );
    assert_eq!(entered["gate_id"], gate.gate_id.as_str());
    assert_eq!(
        entered["order_display_id"],
        order_before["order_display_id"]
    );
    assert_eq!(
        entered["product_title"],
        order_before["tickets"][0]["product_title"]
    );
    // The merchant's offset (Amsterdam: +01:00 or +02:00).
    let at = entered["redeemed_at"].as_str().unwrap();
    assert!(at.ends_with("+01:00") || at.ends_with("+02:00"), "{at}");

    // The same scan again, by its QR token or its printed code: the first answer.
    for again in [qr(&order_before, 0), code(&order_before, 0)] {
        let replay = scan_as(&app, &gate.token, &again, &first).await;
        assert_eq!(replay.status, 208, "{}", replay.text);
        assert_eq!(replay.json()["data"], entered);
    }
    // The nonce with another ticket's code is refused.
    scan_as(&app, &gate.token, &code(&order_before, 1), &first)
        .await
        .assert_problem(409, "nonce-reused");
    // The ticket under another nonce: used, when and where.
    let refused = scan(&app, &gate, &code(&order_before, 0))
        .await
        .assert_problem(409, "ticket-already-redeemed");
    assert_eq!(refused["first_redeemed_at"], entered["redeemed_at"]);
    assert_eq!(refused["gate_id"], gate.gate_id.as_str());

    // The customer's read and the partner's show the entry; the partner is told once.
    let after = order(&app, &shop, &order_id).await;
    assert_eq!(after["tickets"][0]["status"], "USED");
    assert!(after["tickets"][0]["redeemed_at"].is_string());
    assert_eq!(after["tickets"][1]["status"], "VALID");
    assert!(after["tickets"][1].get("redeemed_at").is_none());
    let backend = app.backend_token(&shop.partner.client).await;
    let partner_read = app
        .send(
            app.request(Method::GET, &format!("/v2/orders/{order_id}"))
                .bearer_auth(&backend),
        )
        .await
        .assert_status(200);
    assert_eq!(partner_read["data"]["tickets"][0]["status"], "USED");
    assert_eq!(count_events(&app, &shop, "tickets.TicketRedeemed").await, 1);
    let subject = format!(
        "tickets/{}",
        order_before["tickets"][0]["ticket_id"].as_str().unwrap()
    );
    assert!(events(&app, &shop)
        .await
        .contains(&("tickets.TicketRedeemed".to_owned(), subject)));

    // A used ticket is neither cancelled nor moved.
    let ticket_id = order_before["tickets"][0]["ticket_id"].clone();
    customer_change(
        &app,
        &shop,
        &order_id,
        "cancellation",
        json!({ "ticket_ids": [ticket_id] }),
    )
    .await
    .assert_problem(409, "ticket-not-cancellable");
    customer_change(
        &app,
        &shop,
        &order_id,
        "rebooking",
        json!({ "ticket_ids": [ticket_id], "date": crate::checkout_fixtures::visit_day().to_string() }),
    )
    .await
    .assert_problem(409, "order-not-rebookable");
}

/// A change the customer asks for, with a fresh Idempotency-Key.
async fn customer_change(
    app: &TestApp,
    shop: &crate::checkout_fixtures::Shop,
    order_id: &str,
    what: &str,
    body: Value,
) -> crate::helpers::TestResponse {
    app.send(
        app.request(
            Method::POST,
            &format!("/v2/me/fulfillment/orders/{order_id}/{what}"),
        )
        .bearer_auth(&shop.partner.token)
        .header("x-campaign-id", &shop.partner.campaign)
        .header("idempotency-key", crate::checkout_fixtures::key())
        .json(&body),
    )
    .await
}

#[tokio::test]
async fn every_refusal_has_its_own_type_in_the_contracts_order() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let today = paid_for(&app, &shop, 0, 2).await;
    let next_week = paid_for(&app, &shop, 7, 1).await;

    // Unknown, and another merchant's: the same 404, nothing told about the other merchant.
    let elsewhere = shop_elsewhere(&app).await;
    let foreign = paid_for(&app, &elsewhere, 0, 1).await;
    for unknown in [
        "ZZZZ-ZZZZ-ZZZZ".to_owned(),
        code(&foreign, 0),
        qr(&foreign, 0),
        "not a code at all!".to_owned(),
    ] {
        scan(&app, &gate, &unknown)
            .await
            .assert_problem(404, "ticket-unknown");
    }

    // Not valid now: next week's ticket, with its window in the merchant's offset.
    let early = scan(&app, &gate, &code(&next_week, 0))
        .await
        .assert_problem(409, "ticket-not-valid-now");
    let from = early["valid_from"].as_str().unwrap();
    let until = early["valid_until"].as_str().unwrap();
    assert!(from.contains("T00:00:00+0"), "{from}");
    assert!(until.contains("T00:00:00+0"), "{until}");

    // A gate for another product only: the wrong gate.
    let other_product = shop
        .partner
        .product(&app, &shop.merchant, "Museum", |_| {})
        .await["product_id"]
        .clone();
    let side = gate_with(
        &app,
        &shop,
        json!({ "name": "Side door", "product_ids": [other_product] }),
    )
    .await;
    scan(&app, &side, &code(&today, 0))
        .await
        .assert_problem(409, "ticket-wrong-gate");

    // Cancelled comes before used: a cancelled ticket is refused as cancelled.
    let order_id = today["order_id"].as_str().unwrap();
    app.admin_post(
        &format!("/admin/v1/orders/{order_id}/cancellation"),
        &json!({ "ticket_ids": [today["tickets"][1]["ticket_id"]] }),
    )
    .await
    .assert_status(200);
    scan(&app, &gate, &code(&today, 1))
        .await
        .assert_problem(409, "ticket-cancelled");

    // Used comes before the wrong gate.
    scan(&app, &gate, &code(&today, 0)).await.assert_status(201);
    scan(&app, &side, &code(&today, 0))
        .await
        .assert_problem(409, "ticket-already-redeemed");
    // A scan that is no scan: 400 naming the field.
    scan_as(&app, &gate.token, &code(&today, 0), "short")
        .await
        .assert_invalid(&["nonce"]);
}

#[tokio::test]
async fn the_gate_that_let_a_ticket_in_can_undo_it_for_ten_minutes() {
    let (app, shop) = spawn_shop(None).await;
    let (gate_a, gate_b) = (gate(&app, &shop).await, gate(&app, &shop).await);
    let today = paid_for(&app, &shop, 0, 1).await;
    let entered = scan(&app, &gate_a, &code(&today, 0))
        .await
        .assert_status(201)["data"]
        .clone();
    let id = entered["redemption_id"].as_str().unwrap();
    undo(&app, &gate_b, id)
        .await
        .assert_problem(409, "redemption-not-undoable");
    let gone = undo(&app, &gate_a, id).await;
    assert_eq!(gone.status, 204, "{}", gone.text);
    undo(&app, &gate_a, id)
        .await
        .assert_problem(409, "redemption-not-undoable");
    undo(&app, &gate_a, &uuid::Uuid::new_v4().to_string())
        .await
        .assert_problem(404, "not-found");
    // Valid again: the next scan lets it in, at the other gate.
    let order_id = today["order_id"].as_str().unwrap();
    assert_eq!(
        order(&app, &shop, order_id).await["tickets"][0]["status"],
        "VALID"
    );
    scan(&app, &gate_b, &code(&today, 0))
        .await
        .assert_status(201);
    assert_eq!(
        count_events(&app, &shop, "tickets.RedemptionUndone").await,
        1
    );
    assert_eq!(count_events(&app, &shop, "tickets.TicketRedeemed").await, 2);

    // Past ten minutes, not even the gate that made it may undo it.
    let second = scan(&app, &gate_a, &code(&paid_for(&app, &shop, 0, 1).await, 0))
        .await
        .assert_status(201)["data"]["redemption_id"]
        .as_str()
        .unwrap()
        .to_owned();
    crate::db_reads::age_redemption(&app, second.parse().unwrap(), 11).await;
    undo(&app, &gate_a, &second)
        .await
        .assert_problem(409, "redemption-not-undoable");

    // The operator's list of the day: both entries of the first ticket (one undone) and the
    // second ticket's.
    let day = crate::partner_fixtures::today_in(crate::checkout_fixtures::ZONE);
    let listed = app
        .admin_get_ok(&format!(
            "/admin/v1/gates/{}/redemptions?date={day}",
            gate_a.gate_id
        ))
        .await["data"]
        .clone();
    let statuses: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["UNDONE", "REDEEMED"]);
}

#[tokio::test]
async fn a_pairing_url_pairs_one_device_once_until_the_gate_is_revoked() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let code = gate
        .pairing_url
        .split("#pairing=")
        .nth(1)
        .unwrap()
        .to_owned();
    let pair = |code: String| {
        let app = &app;
        async move {
            app.send(
                app.request(Method::POST, "/v2/gate-pairings")
                    .json(&json!({ "pairing_code": code })),
            )
            .await
        }
    };
    let device = pair(code.clone()).await.assert_status(201)["data"].clone();
    assert_eq!(device["gate_id"], gate.gate_id.as_str());
    assert_eq!(device["timezone"], crate::checkout_fixtures::ZONE);
    pair(code).await.assert_problem(400, "gate-pairing-invalid");
    let (id, secret) = (
        device["client_id"].as_str().unwrap(),
        device["client_secret"].as_str().unwrap(),
    );
    assert!(id.starts_with("gdev_"));
    let token = gate_token(&app, id, secret).await.assert_status(200)["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    let today = paid_for(&app, &shop, 0, 1).await;
    let entered = scan_as(
        &app,
        &token,
        &crate::gate_fixtures::code(&today, 0),
        &nonce(),
    )
    .await
    .assert_status(201);
    assert_eq!(entered["data"]["gate_id"], gate.gate_id.as_str());
    // A new pairing URL replaces the unused one; revoking the gate ends the device.
    let again = app
        .admin_post(
            &format!("/admin/v1/gates/{}/pairing", gate.gate_id),
            &json!({}),
        )
        .await
        .assert_status(201);
    assert!(again["data"]["pairing_url"]
        .as_str()
        .unwrap()
        .contains("#pairing="));
    app.admin_delete(&format!("/admin/v1/gates/{}", gate.gate_id))
        .await;
    gate_token(&app, id, secret)
        .await
        .assert_problem(401, "client-authentication-failed");
    scan_as(&app, &token, "ABCD-EFGH-JKMN", &nonce())
        .await
        .assert_problem(401, "token-invalid");
}

/// A scan and a cancellation of one ticket at once: one of them wins, the other is refused,
/// never both (each is a conditional update of the ticket's state).
#[tokio::test]
async fn a_ticket_scanned_and_cancelled_at_once_is_either_let_in_or_cancelled() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    for _ in 0..3 {
        let today = paid_for(&app, &shop, 0, 1).await;
        let (order_id, ticket) = (
            today["order_id"].as_str().unwrap().to_owned(),
            today["tickets"][0]["ticket_id"].clone(),
        );
        let cancel_path = format!("/admin/v1/orders/{order_id}/cancellation");
        let cancel_body = json!({ "ticket_ids": [ticket] });
        let printed = code(&today, 0);
        let scans = (0..6).map(|_| scan(&app, &gate, &printed));
        let cancels = (0..6).map(|_| app.admin_post(&cancel_path, &cancel_body));
        let (scanned, cancelled) = futures::join!(
            futures::future::join_all(scans),
            futures::future::join_all(cancels)
        );
        let let_in = scanned.iter().filter(|r| r.status == 201).count();
        let gone = cancelled.iter().filter(|r| r.status == 200).count();
        assert_eq!(let_in + gone, 1, "exactly one wins");
        let status = order(&app, &shop, &order_id).await["tickets"][0]["status"].clone();
        if let_in == 1 {
            assert_eq!(status, "USED");
            for refused in cancelled.iter() {
                refused.assert_problem(409, "ticket-not-cancellable");
            }
        } else {
            assert_eq!(status, "CANCELLED");
            for refused in scanned.iter() {
                refused.assert_problem(409, "ticket-cancelled");
            }
        }
    }
}

/// Nodes keep a standing gate's credential for a moment (the auth cache): a revocation made
/// through one node reaches another within the cache's interval (docs/security.md).
#[tokio::test]
async fn a_gate_revoked_through_one_node_is_refused_by_another_within_the_interval() {
    let interval = |c: &mut server::config::Config| c.auth_revision_interval_ms = 400;
    let first = crate::helpers::spawn_app_with(interval).await;
    if first.backend() != "postgres" {
        eprintln!("two nodes share a Postgres database only; skipped on SQLite");
        return;
    }
    let second = first.second_node(interval).await;
    let shop = shop(&first, None).await;
    let gate = gate(&first, &shop).await;
    let today = paid_for(&first, &shop, 0, 2).await;
    // The second node has the credential in its cache now.
    scan_as(&second, &gate.token, &code(&today, 0), &nonce())
        .await
        .assert_status(201);
    assert_eq!(
        first
            .admin_delete(&format!("/admin/v1/gates/{}", gate.gate_id))
            .await
            .status,
        204
    );
    tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
    scan_as(&second, &gate.token, &code(&today, 1), &nonce())
        .await
        .assert_problem(401, "token-invalid");
}
