//! The customer's "manage your booking" page (docs/tickets.md): reached from the ticket page by
//! its key, it offers what the order allows, reviews a change with its refund, and confirms it
//! once however often the form is sent.

use reqwest::Method;
use serde_json::json;

use crate::{
    after_sale_fixtures::{generous, order_of, set_policy, tickets_in},
    checkout_fixtures::{basket, confirm, pay, spawn_shop, ZONE},
    helpers::TestApp,
    partner_fixtures::today_in,
    ticket_fixtures::paid_order,
};

/// The keyed path of `order_id`'s manage page.
async fn manage_path(app: &TestApp, order_id: &str) -> String {
    let id: uuid::Uuid = order_id.parse().unwrap();
    let nonce = app
        .state
        .store
        .ticket_page_nonce(id)
        .await
        .unwrap()
        .unwrap();
    let key = app.state.tickets.ticket_pages.for_order(id, &nonce);
    format!("/tickets/{order_id}/manage?key={key}")
}

/// The value of the hidden input `name` in `html`.
fn hidden(html: &str, name: &str) -> String {
    let at = html
        .find(&format!(r#"name="{name}" value=""#))
        .unwrap_or_else(|| panic!("no {name} in {html}"));
    let rest = &html[at + name.len() + 15..];
    rest[..rest.find('"').unwrap()].to_owned()
}

#[tokio::test]
async fn a_customer_reviews_and_confirms_a_cancellation_once_on_the_page() {
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let path = manage_path(&app, &paid.order_id).await;
    let page = app.get(&path).await;
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    assert!(page.text.contains("Cancel tickets") && page.text.contains("Change date"));
    assert!(
        !page.text.contains("Withdraw from contract here"),
        "a dated ticket has no withdrawal"
    );
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("form-action 'self'"));
    app.get(&path.replace("key=", "key=x"))
        .await
        .assert_problem(404, "not-found");

    let ticket = tickets_in(&order_of(&app, &shop, &paid.order_id).await, "VALID")[0].clone();
    let review = app
        .get(&format!("{path}&review=cancel&ticket={ticket}"))
        .await;
    assert!(review.text.contains("Refund: €13.00"), "{}", review.text);
    assert!(review.text.contains("Confirm cancellation"));
    let nothing = app.get(&format!("{path}&review=cancel")).await;
    assert!(nothing.text.contains("Choose at least one ticket."));

    let key = path.split("key=").nth(1).unwrap().to_owned();
    let form = [
        ("key", key.as_str()),
        ("action", "cancel"),
        ("ticket", ticket.as_str()),
        ("idem", &hidden(&review.text, "idem")),
    ];
    let manage = format!("/tickets/{}/manage", paid.order_id);
    for _ in 0..2 {
        let done = app
            .send(app.request(Method::POST, &manage).form(&form))
            .await;
        assert_eq!(done.status.as_u16(), 303, "{}", done.text);
        assert!(done
            .header("location")
            .unwrap()
            .contains("&done=cancelled&change="));
    }
    let order = order_of(&app, &shop, &paid.order_id).await;
    assert_eq!(
        tickets_in(&order, "CANCELLED"),
        std::slice::from_ref(&ticket),
        "once, however often sent"
    );
    let after = app.get(&format!("{path}&done=cancelled")).await;
    assert!(after.text.contains("Your tickets are cancelled."));
    assert!(
        after.text.contains("<s>"),
        "the cancelled ticket is struck through"
    );

    // Cancelling it again is refused on the page, with why.
    let again = [
        ("key", key.as_str()),
        ("action", "cancel"),
        ("ticket", ticket.as_str()),
        ("idem", "7d1f7c1e-32a6-4a52-9f35-5d9c1b0d9c11"),
    ];
    let refused = app
        .send(app.request(Method::POST, &manage).form(&again))
        .await;
    assert_eq!(refused.status.as_u16(), 409);
    assert!(refused.text.contains("role=\"alert\""), "{}", refused.text);
}

#[tokio::test]
async fn an_undated_product_offers_the_withdrawal_and_a_dutch_reader_reads_it_in_dutch() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let voucher = shop
        .partner
        .product(&app, &shop.merchant, "Gift card", |b| {
            b["no_date"] = json!(true);
            b["product_type"] = json!("VOUCHER");
            b["age_group"] = serde_json::Value::Null;
        })
        .await;
    let mut body = basket(voucher["product_id"].as_str().unwrap(), 1);
    body["date"] = json!(today_in(ZONE).to_string());
    let created = app
        .send(
            app.request(Method::POST, "/v2/checkouts")
                .bearer_auth(&shop.partner.token)
                .header("accept-language", "nl-NL")
                .json(&body),
        )
        .await
        .assert_status(201)["data"]
        .clone();
    let placed = confirm(&app, &shop, created["checkout_id"].as_str().unwrap())
        .await
        .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order_id = placed["order_id"].as_str().unwrap();
    let path = manage_path(&app, order_id).await;
    let page = app.get(&path).await;
    assert!(
        page.text.contains("Hier de overeenkomst herroepen"),
        "{}",
        page.text
    );
    let review = app.get(&format!("{path}&review=withdraw")).await;
    assert!(review.text.contains("Herroeping bevestigen"));
    let key = path.split("key=").nth(1).unwrap().to_owned();
    let form = [
        ("key", key.as_str()),
        ("action", "withdraw"),
        ("idem", &hidden(&review.text, "idem")),
    ];
    let done = app
        .send(
            app.request(Method::POST, &format!("/tickets/{order_id}/manage"))
                .form(&form),
        )
        .await;
    assert_eq!(done.status.as_u16(), 303, "{}", done.text);
    let after = app.get(&format!("{path}&done=withdrawn")).await;
    assert!(after.text.contains("Uw herroeping is ontvangen."));
    assert!(after.text.contains("Deze bestelling is geannuleerd."));
}

#[tokio::test]
async fn opened_in_the_frame_the_page_is_framed_by_it_and_its_host_alone_and_tells_it_what_changed()
{
    let (app, shop) = spawn_shop(Some(10)).await;
    set_policy(&app, &shop.product, generous())
        .await
        .assert_status(200);
    let paid = paid_order(&app, &shop, "en-GB", 2).await;
    let order = order_of(&app, &shop, &paid.order_id).await;
    let manage_url = order["manage_url"]
        .as_str()
        .expect("the paid order names its page");
    let path = manage_path(&app, &paid.order_id).await;
    assert!(manage_url.ends_with(&path), "{manage_url} is {path}");
    assert_eq!(order["after_sale"]["cancellable"], true);

    // The frame opens it in its own iframe, naming the host page, an origin the partner
    // registered.
    let host = "http://localhost:5173";
    let framed = format!("{path}&host={}", urlencode(host));
    let page = app.get(&framed).await;
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    let policy = page.header("content-security-policy").unwrap().to_owned();
    assert!(
        policy.contains(&format!("frame-ancestors 'self' {host};")),
        "{policy}"
    );
    assert!(policy.contains("script-src 'nonce-"), "{policy}");
    assert!(page.text.contains(",m=[],"), "no message before a change");
    assert_eq!(page.header("x-frame-options"), None);
    assert!(
        !page.text.contains("Back to your tickets"),
        "the frame's own Close leads back"
    );

    // Nobody else frames it: an origin the partner did not register, or no origin at all.
    for host in [
        "https://evil.example",
        "localhost:5173",
        "http://localhost:5173/x",
    ] {
        let page = app.get(&format!("{path}&host={}", urlencode(host))).await;
        assert!(page
            .header("content-security-policy")
            .unwrap()
            .contains("frame-ancestors 'none'"));
        assert_eq!(page.header("x-frame-options"), Some("DENY"));
        assert!(!page.text.contains("<script"));
    }

    // The review and the confirmation stay framed; the page after it tells the frame.
    let ticket = tickets_in(&order, "VALID")[0].clone();
    let review = app
        .get(&format!("{framed}&review=cancel&ticket={ticket}"))
        .await;
    assert_eq!(hidden(&review.text, "host"), host);
    let key = path.split("key=").nth(1).unwrap().to_owned();
    let form = [
        ("key", key.as_str()),
        ("host", host),
        ("action", "cancel"),
        ("ticket", ticket.as_str()),
        ("idem", &hidden(&review.text, "idem")),
    ];
    let done = app
        .send(
            app.request(Method::POST, &format!("/tickets/{}/manage", paid.order_id))
                .form(&form),
        )
        .await;
    assert_eq!(done.status.as_u16(), 303, "{}", done.text);
    let location = done.header("location").unwrap().to_owned();
    assert!(
        location.contains(&format!("&host={}", urlencode(host))),
        "{location}"
    );
    let told = app.get(&location).await;
    let policy = told.header("content-security-policy").unwrap();
    let nonce = policy
        .split("script-src 'nonce-")
        .nth(1)
        .and_then(|rest| rest.split('\'').next())
        .unwrap_or_else(|| panic!("a nonce in {policy}"));
    assert!(told.text.contains(&format!(r#"<script nonce="{nonce}">"#)));
    let script = told.text.split(",m=").nth(1).unwrap();
    let messages: serde_json::Value =
        serde_json::from_str(&script[..script.find(",h=0;").unwrap()]).unwrap();
    assert_eq!(messages[0]["type"], "boxoffice:order-cancelled");
    assert_eq!(messages[0]["order_id"], paid.order_id.as_str());
    assert_eq!(messages[0]["ticket_ids"], json!([ticket]));
    assert_eq!(messages[0]["reason"], "CUSTOMER");
    assert_eq!(messages[0]["refund"]["value"], "13.00");
    assert_eq!(
        messages[1],
        json!({"type": "boxoffice:analytics", "name": "refund",
               "params": {"transaction_id": paid.order_id, "currency": "EUR", "value": 13.0}})
    );
    // To the frame around it (this service's origin), which passes them on to the host.
    let own = app.state.config.public_url.origin().ascii_serialization();
    assert!(
        told.text
            .contains(&format!("var o=\"{own}\",p=window.parent")),
        "posted to the frame alone: {}",
        told.text
    );
}

fn urlencode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[tokio::test]
async fn on_the_page_a_dearer_day_shows_the_difference_and_leads_to_its_payment() {
    let (app, shop, order_id, dear) = crate::after_sale_dearer::dearer_shop().await;
    let path = manage_path(&app, &order_id).await;
    let review = app.get(&format!("{path}&review=rebook&date={dear}")).await;
    assert!(review.text.contains("To pay now: €4.00"), "{}", review.text);
    assert!(review.text.contains("Confirm and pay the difference"));

    let host = "http://localhost:5173";
    let key = path.split("key=").nth(1).unwrap().to_owned();
    let dear = dear.to_string();
    let form = [
        ("key", key.as_str()),
        ("host", host),
        ("action", "rebook"),
        ("date", dear.as_str()),
        ("idem", &hidden(&review.text, "idem")),
    ];
    let asked = app
        .send(
            app.request(Method::POST, &format!("/tickets/{order_id}/manage"))
                .form(&form),
        )
        .await;
    assert_eq!(asked.status.as_u16(), 303, "{}", asked.text);
    let location = asked.header("location").unwrap().to_owned();
    assert!(location.contains("&done=pay"), "{location}");
    let page = app.get(&location).await;
    assert!(page.text.contains("Pay the difference to move your visit."));
    let payment_url = order_payment_url(&page.text);
    assert!(payment_url.contains("/pay/"), "{payment_url}");
    assert!(
        page.text.contains(r#"target="_top""#),
        "a payment page is never framed"
    );
    // In the frame, the host is asked to open it.
    assert!(
        page.text.contains(r#""type":"boxoffice:redirect""#),
        "{}",
        page.text
    );
    // Nothing moved yet.
    let order = order_of(&app, &shop, &order_id).await;
    assert_eq!(tickets_in(&order, "VALID").len(), 2);
    assert_eq!(tickets_in(&order, "CANCELLED").len(), 0);
}

/// The "Go to payment" link's address in a page.
fn order_payment_url(html: &str) -> String {
    let at = html
        .find(r#"class="button" href=""#)
        .expect("a payment link");
    let rest = &html[at + 21..];
    rest[..rest.find('"').unwrap()].replace("&amp;", "&")
}
