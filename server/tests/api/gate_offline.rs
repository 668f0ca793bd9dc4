//! Offline at the gate (docs/gate.md, "Offline"): the signed QR token and the day's manifest,
//! verified against the served JWKS by code that shares nothing with the server's; uploads of
//! offline scans with a conflict kept; and exactly one entry of 200 racing scans.

use futures::future::join_all;
use reqwest::Method;
use serde_json::json;

use crate::{
    checkout_fixtures::{count_events, spawn_shop},
    gate_fixtures::{
        code, gate, jwks, nonce, paid_for, qr, scan, scan_as, upload, verified_claims,
    },
    helpers::spawn_app_with,
};

#[tokio::test]
async fn a_tickets_qr_token_verifies_against_the_jwks_and_not_after_a_flipped_bit() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let order = paid_for(&app, &shop, 0, 1).await;
    let token = qr(&order, 0);
    let keys = jwks(&app).await;
    let claims = verified_claims(&keys, &token).expect("the token verifies");
    assert_eq!(claims["tid"], order["tickets"][0]["ticket_id"]);
    assert_eq!(claims["code"], code(&order, 0).as_str());
    assert_eq!(claims["mid"], shop.merchant.as_str());
    assert_eq!(claims["pid"], shop.product.as_str());
    assert_eq!(claims["kind"], "day");
    // A day ticket: the day from its first instant to the next day's (23 to 25 hours).
    let span = claims["vu"].as_i64().unwrap() - claims["vf"].as_i64().unwrap();
    assert!((23 * 3600..=25 * 3600).contains(&span), "{span}");
    // Nothing about the person: only the ticket's own fields.
    let mut names: Vec<&str> = claims
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["code", "kind", "mid", "pid", "tid", "vf", "vu"]);

    // One flipped bit in the signature: neither our check nor the server's lets it in.
    let (head, signature) = token.rsplit_once('.').unwrap();
    let mut bytes = signature.as_bytes().to_vec();
    bytes[5] = if bytes[5] == b'A' { b'B' } else { b'A' };
    let flipped = format!("{head}.{}", String::from_utf8(bytes).unwrap());
    assert!(verified_claims(&keys, &flipped).is_none());
    scan(&app, &gate, &flipped)
        .await
        .assert_problem(404, "ticket-unknown");
    // The real one lets the visitor in.
    scan(&app, &gate, &token).await.assert_status(201);
    // The customer's list carries the same token as the order's own read.
    let listed = shop
        .partner
        .get_ok(&app, "/v2/me/fulfillment/orders?limit=5")
        .await;
    assert_eq!(listed["data"][0]["tickets"][0]["qr"], token.as_str());
}

#[tokio::test]
async fn the_manifest_lists_the_days_revoked_and_used_tickets_signed() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let order = paid_for(&app, &shop, 0, 3).await;
    scan(&app, &gate, &code(&order, 0)).await.assert_status(201);
    let order_id = order["order_id"].as_str().unwrap();
    app.admin_post(
        &format!("/admin/v1/orders/{order_id}/cancellation"),
        &json!({ "ticket_ids": [order["tickets"][1]["ticket_id"]] }),
    )
    .await
    .assert_status(200);
    let day = crate::partner_fixtures::today_in(crate::checkout_fixtures::ZONE);
    let response = app
        .send(
            app.request(
                Method::GET,
                &format!("/v2/gates/{}/manifest?date={day}", gate.gate_id),
            )
            .bearer_auth(&gate.token),
        )
        .await;
    assert_eq!(response.status, 200, "{}", response.text);
    assert_eq!(response.header("content-type"), Some("application/jose"));
    let claims = verified_claims(&jwks(&app).await, &response.text).expect("signed by us");
    let hash = |c: &str| server::gate::manifest::code_hash(c);
    assert_eq!(claims["gate_id"], gate.gate_id.as_str());
    assert_eq!(claims["date"], day.to_string());
    assert_eq!(claims["used"], json!([hash(&code(&order, 0))]));
    assert_eq!(claims["revoked"], json!([hash(&code(&order, 1))]));
    // What a device needs to judge without the server: the gate's merchant, products and
    // margins, and what the products are called.
    assert_eq!(claims["merchant_id"], shop.merchant.as_str());
    assert_eq!(
        claims.get("product_ids"),
        None,
        "the gate admits every product"
    );
    assert_eq!(
        (
            claims["early_minutes"].as_u64(),
            claims["late_minutes"].as_u64()
        ),
        (Some(30), Some(0))
    );
    let product = claims["products"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["product_id"] == shop.product.as_str())
        .expect("the ticket's product is named");
    assert!(
        product["title"].as_str().is_some_and(|t| !t.is_empty()),
        "{product}"
    );
    // Another gate's manifest is not this gate's to read.
    let other = gate_for_same(&app, &shop).await;
    app.send(
        app.request(
            Method::GET,
            &format!("/v2/gates/{}/manifest?date={day}", gate.gate_id),
        )
        .bearer_auth(&other),
    )
    .await
    .assert_problem(404, "not-found");
}

async fn gate_for_same(
    app: &crate::helpers::TestApp,
    shop: &crate::checkout_fixtures::Shop,
) -> String {
    gate(app, shop).await.token
}

#[tokio::test]
async fn an_offline_upload_keeps_a_second_entry_as_a_conflict_and_answers_the_same_again() {
    let (app, shop) = spawn_shop(None).await;
    let (online, offline) = (gate(&app, &shop).await, gate(&app, &shop).await);
    let order = paid_for(&app, &shop, 0, 2).await;
    let next_week = paid_for(&app, &shop, 7, 1).await;
    // The first ticket went in online a minute ago; offline, it went in again two minutes ago
    // (earlier), and the second ticket went in once.
    let online_entry = scan(&app, &online, &code(&order, 0))
        .await
        .assert_status(201)["data"]
        .clone();
    let now = chrono::Utc::now();
    let at = |minutes: i64| (now - chrono::Duration::minutes(minutes)).to_rfc3339();
    let scans = json!([
        { "code": qr(&order, 0), "nonce": nonce(), "scanned_at": at(2) },
        { "code": qr(&order, 1), "nonce": nonce(), "scanned_at": at(1) },
        { "code": code(&next_week, 0), "nonce": nonce(), "scanned_at": at(1) },
        { "code": "ZZZZ-ZZZZ-ZZZZ", "nonce": nonce(), "scanned_at": at(1) },
    ]);
    let first = upload(&app, &offline, scans.clone())
        .await
        .assert_status(200);
    let results = first["data"]["results"].as_array().unwrap().clone();
    let statuses: Vec<&str> = results
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["CONFLICT", "REDEEMED", "REFUSED", "REFUSED"]);
    let conflict = &results[0]["problem"];
    assert!(conflict["type"]
        .as_str()
        .unwrap()
        .ends_with("ticket-already-redeemed"));
    // The earliest entry is the ticket's first.
    let first_at =
        chrono::DateTime::parse_from_rfc3339(conflict["first_redeemed_at"].as_str().unwrap())
            .unwrap();
    assert!(
        first_at
            < chrono::DateTime::parse_from_rfc3339(online_entry["redeemed_at"].as_str().unwrap())
                .unwrap()
    );
    assert!(results[2]["problem"]["type"]
        .as_str()
        .unwrap()
        .ends_with("ticket-not-valid-now"));
    assert!(results[3]["problem"]["type"]
        .as_str()
        .unwrap()
        .ends_with("ticket-unknown"));

    // The same upload again answers the same and keeps nothing twice.
    let again = upload(&app, &offline, scans).await.assert_status(200);
    let replayed: Vec<(String, String)> = again["data"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap().to_owned(),
                r["redemption_id"].to_string(),
            )
        })
        .collect();
    let original: Vec<(String, String)> = results
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap().to_owned(),
                r["redemption_id"].to_string(),
            )
        })
        .collect();
    assert_eq!(replayed, original);
    assert_eq!(
        count_events(&app, &shop, "tickets.RedemptionConflict").await,
        1
    );
    assert_eq!(count_events(&app, &shop, "tickets.TicketRedeemed").await, 2);

    // The operator sees the offline gate's entry and its conflict.
    let day = crate::partner_fixtures::today_in(crate::checkout_fixtures::ZONE);
    let listed = app
        .admin_get_ok(&format!(
            "/admin/v1/gates/{}/redemptions?date={day}",
            offline.gate_id
        ))
        .await["data"]
        .clone();
    let kinds: Vec<(&str, bool)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["status"].as_str().unwrap(),
                r["offline"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(kinds, [("CONFLICT", true), ("REDEEMED", true)]);

    // A scan dated in the future is refused whole, naming it.
    upload(
        &app,
        &offline,
        json!([{ "code": code(&order, 1), "nonce": nonce(), "scanned_at": (now + chrono::Duration::hours(1)).to_rfc3339() }]),
    )
    .await
    .assert_invalid(&["scans[0].scanned_at"]);
}

/// 200 scans of one code at once, each with its own nonce, spread over two nodes on Postgres:
/// exactly one lets the visitor in.
#[tokio::test]
async fn two_hundred_racing_scans_of_one_ticket_let_it_in_exactly_once() {
    let first = spawn_app_with(|_| {}).await;
    let second = if first.backend() == "postgres" {
        Some(first.second_node(|_| {}).await)
    } else {
        None
    };
    let shop = crate::checkout_fixtures::shop(&first, None).await;
    let gate = gate(&first, &shop).await;
    let order = paid_for(&first, &shop, 0, 1).await;
    let ticket = code(&order, 0);
    let responses = join_all((0..200).map(|i| {
        let node = match (&second, i % 2) {
            (Some(second), 1) => second,
            _ => &first,
        };
        let (token, ticket) = (&gate.token, &ticket);
        async move { scan_as(node, token, ticket, &nonce()).await }
    }))
    .await;
    let created = responses.iter().filter(|r| r.status == 201).count();
    assert_eq!(created, 1, "exactly one entry");
    for refused in responses.iter().filter(|r| r.status != 201) {
        refused.assert_problem(409, "ticket-already-redeemed");
    }
    assert_eq!(
        count_events(&first, &shop, "tickets.TicketRedeemed").await,
        1
    );
}

#[tokio::test]
async fn the_calendar_file_carries_each_tickets_signed_qr_code() {
    use base64::{engine::general_purpose::STANDARD, Engine};
    let (app, shop) = spawn_shop(None).await;
    let order = paid_for(&app, &shop, 0, 2).await;
    let ics = app
        .send(
            app.request(
                Method::GET,
                &format!(
                    "/v2/me/fulfillment/orders/{}/calendar.ics",
                    order["order_id"].as_str().unwrap()
                ),
            )
            .bearer_auth(&shop.partner.token)
            .header("x-campaign-id", &shop.partner.campaign),
        )
        .await;
    assert_eq!(ics.status, 200, "{}", ics.text);
    // Lines folded at 75 octets are unfolded first (RFC 5545 §3.1).
    let unfolded = ics.text.replace("\r\n ", "").replace("\n ", "");
    let keys = jwks(&app).await;
    let mut codes: Vec<String> = unfolded
        .lines()
        .filter(|l| l.starts_with("ATTACH;"))
        .map(|l| {
            assert!(
                l.contains("FMTTYPE=image/png") && l.contains("VALUE=BINARY"),
                "{l}"
            );
            let png = STANDARD
                .decode(l.rsplit_once(':').unwrap().1.trim())
                .unwrap();
            crate::gate_fixtures::printed_code_of(&keys, &crate::ticket_fixtures::decode_qr(&png))
        })
        .collect();
    codes.sort();
    let mut expected = vec![code(&order, 0), code(&order, 1)];
    expected.sort();
    assert_eq!(codes, expected);
}

/// One scan sent many times at once (a scanner retrying on a bad connection), online and as
/// an offline upload: one entry, and every copy answers with it. The nonce's unique key is
/// met at the commit (the entry is written with the transaction's other writes), so the
/// copies that lose find the winner's entry.
#[tokio::test]
async fn one_scan_sent_many_times_at_once_is_one_entry() {
    let (app, shop) = spawn_shop(None).await;
    let gate = gate(&app, &shop).await;
    let order = paid_for(&app, &shop, 0, 2).await;
    let (online, offline) = (code(&order, 0), code(&order, 1));
    let same = nonce();
    let responses = join_all((0..20).map(|_| scan_as(&app, &gate.token, &online, &same))).await;
    let created: Vec<_> = responses.iter().filter(|r| r.status == 201).collect();
    assert_eq!(created.len(), 1, "one entry");
    let entry = created[0].json()["data"]["redemption_id"].clone();
    for copy in &responses {
        assert!(matches!(copy.status.as_u16(), 201 | 208), "{}", copy.text);
        assert_eq!(copy.json()["data"]["redemption_id"], entry);
    }

    let scan = json!([{ "code": offline, "nonce": nonce(), "scanned_at": chrono::Utc::now() }]);
    let uploads = join_all((0..10).map(|_| upload(&app, &gate, scan.clone()))).await;
    let first = uploads[0].json()["data"]["results"].clone();
    assert_eq!(first[0]["status"], "REDEEMED", "{first}");
    for copy in &uploads {
        assert_eq!(copy.status, 200, "{}", copy.text);
        assert_eq!(copy.json()["data"]["results"], first);
    }
    assert_eq!(count_events(&app, &shop, "tickets.TicketRedeemed").await, 2);
}
