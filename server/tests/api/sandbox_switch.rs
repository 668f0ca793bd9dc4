//! The sandbox payment provider can be switched off (`BOXOFFICE_SANDBOX_PAYMENTS=0`): its page
//! answers 404 and checkouts fail with the payment provider's problem.

use serde_json::Value;
use uuid::Uuid;

use crate::{
    checkout_fixtures::{express_one_as_guest, shop},
    helpers::spawn_app_with,
};

#[tokio::test]
async fn with_the_sandbox_switched_off_its_page_is_404_and_checkouts_fail_at_the_provider() {
    let app = spawn_app_with(|c| c.sandbox_payments = false).await;
    let shop = shop(&app, None).await;
    express_one_as_guest(&app, &shop)
        .await
        .assert_problem(502, "checkout-order-failed");
    let path = format!("/pay/{}?key={}", Uuid::new_v4(), "0".repeat(32));
    app.assert_not_found(&path).await;
    let posted: Value = app
        .post_form(&path, &[("action", "pay")])
        .await
        .assert_problem(404, "not-found");
    assert_eq!(posted["status"], 404);
}
