//! The definitions a checkout reads (products, merchants, campaigns, partner clients) are
//! kept per node; an operator's change through the admin API is seen by the next checkout on
//! that node at once.

use serde_json::{json, Value};

use crate::{
    catalog_fixtures::product_body,
    checkout_fixtures::{basket, express, express_body, key, spawn_shop, Shop},
    helpers::TestApp,
};

async fn total_of_one_ticket(app: &TestApp, shop: &Shop) -> Value {
    shop.partner
        .post(app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_status(201)["data"]["totals"]["total"]["value"]
        .clone()
}

#[tokio::test]
async fn a_product_change_is_priced_by_the_next_checkout() {
    let (app, shop) = spawn_shop(Some(10)).await;
    assert_eq!(
        total_of_one_ticket(&app, &shop).await,
        "13.00",
        "12.50 + 0.50"
    );

    let mut body = product_body(&shop.merchant, "Zoo");
    body["campaign_ids"] = json!([shop.partner.campaign]);
    body["availability_group_id"] = json!(shop.group);
    body["booking_costs"] = json!("1.00");
    app.admin_put_ok(&format!("/admin/v1/products/{}", shop.product), &body)
        .await;
    assert_eq!(
        total_of_one_ticket(&app, &shop).await,
        "13.50",
        "the new booking costs"
    );
}

#[tokio::test]
async fn a_partner_clients_new_origins_and_campaigns_apply_at_once() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let mut elsewhere = express_body(&shop.product, 1);
    elsewhere["return_url"] = json!("https://tickets.example/done");
    let problem = express(&app, &shop.partner.campaign, None, &key(), &elsewhere)
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"][0]["code"], "origin-not-allowed");
    total_of_one_ticket(&app, &shop).await;

    let client = app
        .stored_client(&shop.partner.client.client_id)
        .await
        .client;
    let path = format!("/admin/v1/clients/{}", client.partner_client_id);
    app.admin_put_ok(
        &path,
        &json!({ "name": "Shop", "campaign_ids": [shop.partner.campaign],
                 "return_origins": ["http://localhost:*", "https://tickets.example"] }),
    )
    .await;
    express(&app, &shop.partner.campaign, None, &key(), &elsewhere)
        .await
        .assert_status(200);

    // Taken off the campaign, the client's sessions may not check out in it any more, and its
    // origins are no longer a guest's return origins there.
    app.admin_put_ok(&path, &json!({ "name": "Shop", "campaign_ids": [] }))
        .await;
    shop.partner
        .post(&app, "/v2/checkouts", &basket(&shop.product, 1))
        .await
        .assert_problem(403, "forbidden");
    let problem = express(&app, &shop.partner.campaign, None, &key(), &elsewhere)
        .await
        .assert_problem(400, "request-validation-failed");
    assert_eq!(problem["errors"][0]["code"], "origin-not-allowed");
}
