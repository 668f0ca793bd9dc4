//! Settlement (docs/settlement.md): VAT, commission and the platform fee split on every line
//! at payment, the ledger entries sales, refunds and date changes book, who reads which, and
//! statements that add up, come as JSON or CSV, repeat byte for byte and verify.

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::{
    after_sale_fixtures::{cancel, customer_change, partner_change, tickets_in},
    checkout_fixtures::{key, pay, spawn_shop, visit_day},
    db_reads::try_execute,
    gate_fixtures::{jwks, verified_payload},
    partner_fixtures::{partner, shift},
    settlement_fixtures::{
        assert_balances, d, dec, entries, price_day, set_merchant, settle, settled_shop,
    },
    ticket_fixtures::paid_order,
};

#[tokio::test]
async fn a_paid_order_books_its_split_to_the_cent_and_only_its_partner_reads_it() {
    let (app, shop, backend) = settled_shop().await;
    let paid = paid_order(&app, &shop, "en-GB", 3).await;

    let all = entries(&app, &backend).await;
    assert_eq!(all.len(), 1, "{all:?}");
    let sale = &all[0];
    assert_eq!(sale["kind"], "sale");
    assert_eq!(sale["order_id"], paid.order_id.as_str());
    assert_eq!(sale["order_display_id"], paid.display_id.as_str());
    assert_eq!(sale["ticket_ids"].as_array().unwrap().len(), 3);
    assert_eq!(sale["merchant_id"], shop.merchant.as_str());
    assert_eq!(sale["currency"], "EUR");
    // 3 × 13.00 (12.50 and 0.50 booking costs): VAT 39 × 9 / 109 = 3.2202 → 3.22; net 35.78;
    // commission 10 % 3.578 → 3.58; fee 3 % 1.0734 → 1.07; the payout the rest.
    assert_eq!(sale["gross"], "39.00");
    assert_eq!(sale["net"], "35.78");
    assert_eq!(
        sale["tax"],
        json!([{ "name": "BTW 9%", "rate_percent": "9", "amount": "3.22" }])
    );
    assert_eq!(sale["commission"], "3.58");
    assert_eq!(sale["platform_fee"], "1.07");
    assert_eq!(sale["merchant_payout"], "31.13");
    assert_balances(sale);

    let entry_id = sale["entry_id"].as_str().unwrap();
    let one = app
        .send(
            app.request(Method::GET, &format!("/v2/settlement/entries/{entry_id}"))
                .bearer_auth(&backend),
        )
        .await
        .assert_status(200);
    assert_eq!(&one["data"], sale);

    // Another partner sees none of it, and the entry is not there for it.
    let other = partner(&app).await;
    let other_backend = app.backend_token(&other.client).await;
    assert!(entries(&app, &other_backend).await.is_empty());
    app.send(
        app.request(Method::GET, &format!("/v2/settlement/entries/{entry_id}"))
            .bearer_auth(&other_backend),
    )
    .await
    .assert_problem(404, "not-found");
    // A public bearer reaches none of it.
    app.send(
        app.request(Method::GET, "/v2/settlement/entries")
            .bearer_auth(&shop.partner.token),
    )
    .await
    .assert_problem(401, "token-invalid");

    // The operator filters by merchant and by time.
    let by_merchant = app
        .admin_get_ok(&format!(
            "/admin/v1/settlement/entries?merchant_id={}",
            shop.merchant
        ))
        .await;
    assert_eq!(by_merchant["data"].as_array().unwrap().len(), 1);
    let later = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let none = app
        .admin_get_ok(&format!(
            "/admin/v1/settlement/entries?from={}",
            later.replace('+', "%2B")
        ))
        .await;
    assert!(none["data"].as_array().unwrap().is_empty());

    // The ledger is never changed and never emptied, whoever asks the database.
    for sql in [
        "UPDATE ledger_entry SET gross = 0",
        "DELETE FROM ledger_entry",
    ] {
        let refused = try_execute(&app, sql).await;
        assert!(refused.is_err(), "{sql} was allowed");
    }
    assert_eq!(&entries(&app, &backend).await[0], sale);
}

#[tokio::test]
async fn refunds_and_date_changes_book_what_they_move_and_an_order_sums_to_paid_less_refunded() {
    let (app, shop, backend) = settled_shop().await;
    let cheap = shift(visit_day(), 1);
    let dear = shift(visit_day(), 2);
    price_day(&app, &shop.product, cheap, "10.50", 10).await;
    price_day(&app, &shop.product, dear, "14.50", 10).await;
    let paid = paid_order(&app, &shop, "en-GB", 3).await;
    let order = crate::after_sale_fixtures::order_of(&app, &shop, &paid.order_id).await;
    let valid = tickets_in(&order, "VALID");

    // One ticket cancelled in full: its own parts back.
    cancel(
        &app,
        &shop,
        &paid.order_id,
        &json!({ "ticket_ids": [valid[0]] }),
    )
    .await
    .assert_status(200);
    // One moved to a cheaper day (2.00 back), one to a dearer day (2.00 paid first).
    let move_to = |day: chrono::NaiveDate, ticket: &String| {
        let body = json!({ "date": day.to_string(), "ticket_ids": [ticket] });
        let (app, shop, order_id) = (&app, &shop, paid.order_id.clone());
        async move { customer_change(app, shop, &order_id, "rebooking", &body, &key()).await }
    };
    move_to(cheap, &valid[1]).await.assert_status(200);
    let asked = move_to(dear, &valid[2]).await.assert_status(202);
    pay(&app, asked["data"]["payment_url"].as_str().unwrap(), "pay").await;

    let all = entries(&app, &backend).await;
    let kinds: Vec<&str> = all.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["sale", "refund", "rebooking", "rebooking"],
        "{all:?}"
    );
    all.iter().for_each(assert_balances);
    let refund = &all[1];
    assert_eq!(refund["gross"], "-13.00");
    assert_eq!(refund["ticket_ids"], json!([valid[0]]));
    // The sale's 3.58 commission and 1.07 fee are shared 1.20 / 1.19 / 1.19 and 0.36 / 0.36 /
    // 0.35 over the tickets (largest remainder); a ticket's refund takes back its own.
    assert!(["-1.20", "-1.19"].contains(&refund["commission"].as_str().unwrap()));
    assert!(["-0.36", "-0.35"].contains(&refund["platform_fee"].as_str().unwrap()));
    let cheaper = &all[2];
    assert_eq!(cheaper["gross"], "-2.00");
    assert_ne!(
        cheaper["ticket_ids"],
        json!([valid[1]]),
        "it names the new ticket"
    );
    let dearer = &all[3];
    // 2.00 more (15.00 for 13.00): VAT 0.165 → 0.17, net 1.83, commission 0.183 → 0.18, fee
    // 0.0549 → 0.05.
    assert_eq!(dearer["gross"], "2.00");
    assert_eq!(dearer["net"], "1.83");
    assert_eq!(dearer["commission"], "0.18");
    assert_eq!(dearer["platform_fee"], "0.05");

    // What the order's entries add up to is what was paid (39.00 and 2.00) less what went
    // back (13.00 and 2.00).
    let sum: Decimal = all.iter().map(|e| dec(&e["gross"])).sum();
    assert_eq!(sum, d("26.00"));

    // Cancelling the dearer ticket now gives back its moved parts: the line is left with
    // the cheaper ticket's alone.
    let order = crate::after_sale_fixtures::order_of(&app, &shop, &paid.order_id).await;
    let moved = tickets_in(&order, "VALID");
    assert_eq!(moved.len(), 2);
    partner_change(&app, &backend, &paid.order_id, "cancellation", &json!({}))
        .await
        .assert_status(200);
    let all = entries(&app, &backend).await;
    let left = all.iter().fold(Decimal::ZERO, |s, e| s + dec(&e["gross"]));
    assert_eq!(left, Decimal::ZERO, "every ticket given back in full");
    for field in ["commission", "platform_fee", "merchant_payout", "net"] {
        let total: Decimal = all.iter().map(|e| dec(&e[field])).sum();
        assert_eq!(total, Decimal::ZERO, "{field} over {all:?}");
    }
}

#[tokio::test]
async fn statements_add_up_come_as_json_or_csv_repeat_byte_for_byte_and_verify() {
    let (app, shop, backend) = settled_shop().await;
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let order = crate::after_sale_fixtures::order_of(&app, &shop, &paid.order_id).await;
    cancel(
        &app,
        &shop,
        &paid.order_id,
        &json!({ "ticket_ids": [tickets_in(&order, "VALID")[0]] }),
    )
    .await
    .assert_status(200);
    let period = chrono::Utc::now().format("%Y-%m").to_string();
    let partner_id = app.admin_get_ok("/admin/v1/clients").await["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["client_id"] == shop.partner.client.client_id.as_str())
        .expect("the shop's client")["partner_client_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let statement = |accept: &'static str, party: String| {
        let app = &app;
        let period = period.clone();
        async move {
            app.send(
                app.request(
                    Method::GET,
                    &format!("/admin/v1/statements?party={party}&period={period}"),
                )
                .bearer_auth(crate::helpers::ADMIN_TOKEN)
                .header("accept", accept),
            )
            .await
        }
    };

    let json_doc = statement("application/json", "platform".into()).await;
    json_doc.assert_status(200);
    assert_eq!(json_doc.header("content-type"), Some("application/json"));
    let body = json_doc.json();
    assert_eq!(body["period"], period.as_str());
    assert_eq!(body["timezone"], "UTC");
    assert_eq!(body["entries"], 2);
    let row = &body["rows"][0];
    assert_eq!(row["tickets_sold"], 2);
    assert_eq!(row["tickets_cancelled"], 1);
    assert_eq!(row["gross_sales"], "26.00");
    assert_eq!(row["refunds"], "-13.00");
    let tax: Decimal = row["tax"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| dec(&t["amount"]))
        .sum();
    assert_eq!(
        dec(&row["gross_sales"]) + dec(&row["refunds"]),
        tax + dec(&row["commission"]) + dec(&row["platform_fee"]) + dec(&row["payout"])
    );
    assert_eq!(dec(&row["net"]), d("13.00") - tax);

    // The same request twice: the same bytes and the same signature, which verifies against
    // the JWKS over exactly these bytes and not over others.
    let again = statement("application/json", "platform".into()).await;
    assert_eq!(again.text, json_doc.text);
    let signature = json_doc.header("boxoffice-signature").unwrap().to_owned();
    assert_eq!(
        again.header("boxoffice-signature"),
        Some(signature.as_str())
    );
    let keys = jwks(&app).await;
    let attached = |body: &str| {
        use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
        let (head, sig) = signature.split_once("..").expect("a detached JWS");
        format!("{head}.{}.{sig}", URL_SAFE_NO_PAD.encode(body))
    };
    assert_eq!(
        verified_payload(&keys, &attached(&json_doc.text)).as_deref(),
        Some(json_doc.text.as_bytes())
    );
    assert!(verified_payload(&keys, &attached(&json_doc.text.replace("26.00", "26.01"))).is_none());

    // CSV says the same, a column per rate.
    let csv = statement("text/csv", "platform".into()).await;
    assert_eq!(csv.status.as_u16(), 200, "{}", csv.text);
    assert_eq!(csv.header("content-type"), Some("text/csv; charset=utf-8"));
    let lines: Vec<&str> = csv.text.lines().collect();
    assert_eq!(
        lines[0],
        "sku,currency,tickets_sold,tickets_cancelled,gross_sales,refunds,net,tax_9,commission,platform_fee,payout"
    );
    let expected = [
        row["sku"].as_str().unwrap(),
        "EUR",
        "2",
        "1",
        "26.00",
        "-13.00",
        row["net"].as_str().unwrap(),
        row["tax"][0]["amount"].as_str().unwrap(),
        row["commission"].as_str().unwrap(),
        row["platform_fee"].as_str().unwrap(),
        row["payout"].as_str().unwrap(),
    ]
    .join(",");
    assert_eq!(lines[1], expected);

    // The partner reads its own statement as the operator reads it, byte for byte; another
    // partner's has no rows; the merchant's holds the same money.
    let own = app
        .send(
            app.request(
                Method::GET,
                &format!("/v2/settlement/statements?period={period}"),
            )
            .bearer_auth(&backend),
        )
        .await;
    let as_operator = statement("application/json", format!("partner:{partner_id}")).await;
    assert_eq!(own.text, as_operator.text);
    assert_eq!(own.json()["rows"][0]["gross_sales"], "26.00");
    let stranger = statement(
        "application/json",
        format!("partner:{}", uuid::Uuid::new_v4()),
    )
    .await;
    assert_eq!(stranger.json()["rows"], json!([]));
    let merchant = statement("application/json", format!("merchant:{}", shop.merchant)).await;
    assert_eq!(merchant.json()["rows"], body["rows"]);

    // This month is still open; a month long past is closed and, here, empty: an entry is in
    // the month it was booked in and no other.
    assert_eq!(body["closed"], false);
    let past = app
        .send(
            app.request(
                Method::GET,
                "/admin/v1/statements?party=platform&period=2020-02",
            )
            .bearer_auth(crate::helpers::ADMIN_TOKEN),
        )
        .await
        .json();
    assert_eq!(past["closed"], true);
    assert_eq!(past["from"], "2020-02-01T00:00:00+00:00");
    assert_eq!(past["to"], "2020-03-01T00:00:00+00:00");
    assert_eq!(past["rows"], json!([]));

    // Bad parties and periods are refused naming the field.
    statement("application/json", "shop:1".into())
        .await
        .assert_invalid(&["party"]);
    app.send(
        app.request(
            Method::GET,
            "/admin/v1/statements?party=platform&period=2026-13",
        )
        .bearer_auth(crate::helpers::ADMIN_TOKEN),
    )
    .await
    .assert_invalid(&["period"]);
}

#[tokio::test]
async fn settlement_settings_are_checked_field_by_field() {
    let (app, shop) = spawn_shop(Some(5)).await;
    set_merchant(
        &app,
        &shop.merchant,
        json!({
            "tax": {
                "rates": [
                    { "name": "low", "rate_percent": "9" },
                    { "name": "high", "rate_percent": "121" }
                ]
            },
            "vat_id": "nl12"
        }),
    )
    .await
    .assert_invalid(&["tax.rates", "tax.rates[1].rate_percent", "vat_id"]);
    // A charge is a percent or a fixed amount, never both.
    set_merchant(
        &app,
        &shop.merchant,
        json!({ "platform_fee": { "percent": "3", "fixed": { "value": "1.00", "currency": "EUR" } } }),
    )
    .await
    .assert_invalid(&["platform_fee"]);
    set_merchant(
        &app,
        &shop.merchant,
        json!({ "platform_fee": { "fixed": { "value": "1.00", "currency": "USD" } } }),
    )
    .await
    .assert_invalid(&["platform_fee.fixed.currency"]);
    app.admin_put(
        &format!("/admin/v1/campaigns/{}", shop.partner.campaign),
        &json!({ "name": "Summer", "commission": { "percent": "100.5" } }),
    )
    .await
    .assert_invalid(&["commission.percent"]);
    // Nothing was changed by the refusals.
    let merchant = app
        .admin_get_ok(&format!("/admin/v1/merchants/{}", shop.merchant))
        .await;
    assert!(merchant["data"]["tax"].is_null());
}

#[tokio::test]
async fn many_cancellations_of_one_ticket_at_once_book_one_refund() {
    let (app, shop, backend) = settled_shop().await;
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let order = crate::after_sale_fixtures::order_of(&app, &shop, &paid.order_id).await;
    let ticket = tickets_in(&order, "VALID")[0].clone();
    let body = json!({ "ticket_ids": [ticket] });
    let answers = futures::future::join_all(
        (0..12).map(|_| partner_change(&app, &backend, &paid.order_id, "cancellation", &body)),
    )
    .await;
    let done = answers.iter().filter(|a| a.status.as_u16() == 200).count();
    assert_eq!(
        done,
        1,
        "{:?}",
        answers.iter().map(|a| a.status).collect::<Vec<_>>()
    );
    let all = entries(&app, &backend).await;
    let refunds: Vec<&Value> = all.iter().filter(|e| e["kind"] == "refund").collect();
    assert_eq!(refunds.len(), 1);
    assert_eq!(refunds[0]["gross"], "-13.00");
}

#[tokio::test]
async fn the_receipt_the_ticket_mail_and_the_ticket_page_show_the_vat_per_rate() {
    let (smtp_url, mut received) = crate::smtp_server::start().await;
    let app = crate::helpers::spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 50;
    })
    .await;
    let shop = crate::checkout_fixtures::shop(&app, Some(10)).await;
    settle(&app, &shop).await;
    let paid = paid_order(&app, &shop, "en-GB", 3).await;

    let vat = json!([{ "name": "BTW 9%", "rate_percent": "9", "net": "35.78", "tax": "3.22",
                       "gross": "39.00" }]);
    let path = format!("/v2/me/fulfillment/orders/{}/receipt", paid.order_id);
    let receipt = shop.partner.get_ok(&app, &path).await["data"].clone();
    assert_eq!(receipt["tax"], vat);
    let claims = crate::gate_fixtures::verified_claims(
        &jwks(&app).await,
        receipt["receipt"].as_str().unwrap(),
    )
    .expect("a receipt signed by the server");
    assert_eq!(claims["tax"], vat, "the signed payload says it too");

    let mail = crate::ticket_fixtures::next_mail(&mut received).await;
    for part in [&mail.text, &mail.html] {
        assert!(part.contains("of which BTW 9%"), "{part}");
        assert!(part.contains("Total without VAT"), "{part}");
        assert!(part.contains("3.22") && part.contains("35.78"), "{part}");
    }
    let link = mail
        .text
        .lines()
        .find_map(|l| l.strip_prefix("View your tickets online: "))
        .and_then(|l| l.strip_prefix(&app.base_url))
        .expect("the ticket page link")
        .to_owned();
    let page = app.get(&link).await;
    assert!(page.text.contains("of which BTW 9%") && page.text.contains("3.22"));
    // To look at them (docs/development.md, "Looking at mails"): the parts as received.
    if let Some(dir) = std::env::var_os("BOXOFFICE_PREVIEW_DIR") {
        let dir = std::path::Path::new(&dir);
        std::fs::write(dir.join("vat-mail.html"), &mail.html).unwrap();
        std::fs::write(dir.join("vat-mail.txt"), &mail.text).unwrap();
        std::fs::write(dir.join("vat-page.html"), &page.text).unwrap();
    }
}

#[tokio::test]
async fn prices_without_vat_are_shown_and_charged_with_vat_added_to_the_cent() {
    let (app, shop, backend) = settled_shop().await;
    set_merchant(
        &app,
        &shop.merchant,
        json!({
            "tax": {
                "prices_include_tax": false,
                "rates": [{ "name": "BTW 9%", "rate_percent": "9" }]
            },
            "vat_id": "NL123456789B01"
        }),
    )
    .await
    .assert_status(200);
    price_day(&app, &shop.product, visit_day(), "12.50", 20).await;

    // 12.50 + 9 % = 13.625 and 0.50 + 9 % = 0.545: each to the cent, half to even.
    let read = |path: String| {
        let request = app
            .request(Method::GET, &path)
            .bearer_auth(&shop.partner.token)
            .header("x-campaign-id", &shop.partner.campaign);
        async { app.send(request).await.assert_status(200) }
    };
    let products = read(format!("/v2/merchants/{}/products", shop.merchant)).await;
    let product = &products["data"][0];
    assert_eq!(product["booking_costs"]["value"], "0.54", "{product}");
    assert_eq!(product["unit_price"]["value"], "13.62");
    let calendar = read(format!(
        "/v2/products/{}/calendar?from={day}&until={day}",
        shop.product,
        day = visit_day()
    ))
    .await;
    assert_eq!(calendar["data"][0]["effective_price"]["value"], "13.62");
    assert_eq!(calendar["data"][0]["list_price"]["value"], "16.35");

    // What was shown is what is charged, and the split takes the VAT out of it again.
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    let order = shop
        .partner
        .get_ok(
            &app,
            &format!("/v2/me/fulfillment/orders/{}", paid.order_id),
        )
        .await;
    assert_eq!(order["data"]["total"]["value"], "14.16", "{order}");
    let sale = &entries(&app, &backend).await[0];
    assert_eq!(sale["gross"], "14.16");
    assert_eq!(sale["tax"][0]["amount"], "1.17");
    assert_eq!(sale["net"], "12.99");
    assert_balances(sale);
}
