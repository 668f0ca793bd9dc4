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
            .ends_with("&done=cancelled"));
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
