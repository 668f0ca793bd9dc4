//! Bad input answered with the problem type the contract names for its field, and one country
//! list for the whole server (docs/api-checkout.md, "Express checkout: order of checks").

use serde_json::json;

use crate::{
    catalog_fixtures::merchant_body,
    checkout_fixtures::{basket, express, express_body, key, spawn_shop},
};

#[tokio::test]
async fn a_basket_line_that_does_not_parse_is_a_basket_line_problem_naming_its_field() {
    let (app, shop) = spawn_shop(Some(10)).await;
    let cases = [
        (json!(-1), "lines[0].quantity"),
        (json!(1.5), "lines[0].quantity"),
        (json!(1e12), "lines[0].quantity"),
        (json!(99_999_999_999u64), "lines[0].quantity"),
        (json!("2"), "lines[0].quantity"),
        (json!(null), "lines[0].quantity"),
    ];
    for (quantity, field) in cases {
        let mut body = express_body(&shop.product, 1);
        body["lines"][0]["quantity"] = quantity.clone();
        let problem = express(&app, &shop.partner.campaign, None, &key(), &body)
            .await
            .assert_problem(400, "checkout-basket-line-invalid");
        assert_eq!(problem["errors"][0]["field"], field, "quantity {quantity}");

        let mut reserve = basket(&shop.product, 1);
        reserve["lines"][0]["quantity"] = quantity.clone();
        let problem = shop
            .partner
            .post(&app, "/v2/checkouts", &reserve)
            .await
            .assert_problem(400, "checkout-basket-line-invalid");
        assert_eq!(problem["errors"][0]["field"], field, "quantity {quantity}");
    }
    // A product id that is not a UUID, and lines that are not a list of lines.
    let mut body = express_body(&shop.product, 1);
    body["lines"][0]["product_id"] = json!("not-a-uuid");
    let problem = express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_problem(400, "checkout-basket-line-invalid");
    assert_eq!(problem["errors"][0]["field"], "lines[0].product_id");
    body["lines"] = json!("two tickets");
    express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_problem(400, "checkout-basket-line-invalid");
    // A missing field stays the generic validation problem, naming the field.
    let mut body = express_body(&shop.product, 1);
    body["lines"][0].as_object_mut().unwrap().remove("quantity");
    let problem = express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_problem(400, "request-validation-failed");
    assert!(problem["errors"][0]["field"]
        .as_str()
        .unwrap()
        .contains("quantity"));
}

#[tokio::test]
async fn a_country_code_is_one_of_isos_for_merchants_and_customers_alike() {
    let (app, shop) = spawn_shop(Some(10)).await;
    // XX has the form of a code but is no country: refused for a merchant's address ...
    let mut input = merchant_body("Zoo", "Europe/Amsterdam");
    input["address"]["country"] = json!("XX");
    app.admin_post("/admin/v1/merchants", &input)
        .await
        .assert_invalid_first("address.country");
    // ... and for a customer's shipping address.
    let mut body = express_body(&shop.product, 1);
    body["shipping_address"] = json!({
        "street": "Plantage Kerklaan", "house_number": "38", "postal_code": "1018 CZ",
        "city": "Amsterdam", "country": "XX",
    });
    let problem = express(&app, &shop.partner.campaign, None, &key(), &body)
        .await
        .assert_problem(422, "checkout-billing-detail-rejected");
    assert_eq!(problem["errors"][0]["field"], "shipping_address.country");
    // A real country passes both.
    input["address"]["country"] = json!("BE");
    app.admin_post_created("/admin/v1/merchants", &input).await;
}
