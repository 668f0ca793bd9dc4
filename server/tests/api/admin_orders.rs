//! `GET /admin/v1/orders/{order_id}`: the operator reads an order with its payment and the
//! refunds made of it.

use serde_json::json;
use uuid::Uuid;

use crate::{
    checkout_fixtures::{express_one_in_session, pay, spawn_shop},
    helpers::spawn_app,
};

#[tokio::test]
async fn the_operator_reads_an_order_with_its_payment_and_its_late_payments_refund() {
    let (app, shop) = spawn_shop(None).await;
    let placed = express_one_in_session(&app, &shop).await.assert_status(200)["data"].clone();
    let url = placed["payment_url"].as_str().unwrap();
    pay(&app, url, "decline").await;
    let order_id = placed["order_id"].as_str().unwrap();

    let read = app
        .admin_get_ok(&format!("/admin/v1/orders/{order_id}"))
        .await["data"]
        .clone();
    assert_eq!(read["order_display_id"], placed["order_display_id"]);
    assert_eq!(read["status"], "CANCELLED");
    assert_eq!(read["payment"]["provider"], "sandbox");
    assert_eq!(read["payment"]["status"], "DECLINED");
    assert_eq!(read["payment"]["provider_ref"], json!(null));
    assert_eq!(read["refunds"], json!([]));

    // The provider reports it paid after all: refunded in full, and the operator sees it.
    let payment_id: Uuid = url
        .split("/pay/")
        .nth(1)
        .and_then(|rest| rest.split('?').next())
        .unwrap()
        .parse()
        .unwrap();
    let payment = app.state.store.payment(payment_id).await.unwrap().unwrap();
    let applied = server::payments::apply(
        &app.state.commerce,
        &payment,
        &server::providers::ProviderPaymentState::Succeeded,
    )
    .await
    .unwrap();
    assert_eq!(applied, server::payments::Applied::LateRefunded);
    // Asked again (a duplicate report), nothing more is refunded.
    server::payments::apply(
        &app.state.commerce,
        &payment,
        &server::providers::ProviderPaymentState::Succeeded,
    )
    .await
    .unwrap();

    let read = app
        .admin_get_ok(&format!("/admin/v1/orders/{order_id}"))
        .await["data"]
        .clone();
    let refunds = read["refunds"].as_array().unwrap();
    assert_eq!(refunds.len(), 1, "{read}");
    assert_eq!(refunds[0]["reason"], "LATE_PAYMENT");
    assert_eq!(refunds[0]["status"], "SUCCEEDED");
    assert_eq!(refunds[0]["amount"], read["total"]);
    assert_eq!(refunds[0]["payment_id"], json!(payment_id));
    assert!(refunds[0]["provider_ref"]
        .as_str()
        .unwrap()
        .starts_with("sbx_re_"));
    assert_eq!(read["status"], "CANCELLED", "the order stays ended");
}

#[tokio::test]
async fn an_unknown_order_is_not_found_and_the_route_is_the_operators() {
    let app = spawn_app().await;
    let path = format!("/admin/v1/orders/{}", Uuid::new_v4());
    app.admin_get(&path).await.assert_problem(404, "not-found");
    app.get(&path).await.assert_status(401);
}
