//! What a customer does with a paid order's tickets besides the mail: the keyed ticket page,
//! the calendar file and asking for the mail again (docs/tickets.md).

use reqwest::Method;

use crate::{
    checkout_fixtures::{shop, visit_day, Shop},
    helpers::{spawn_app_with, TestApp},
    smtp_server,
    ticket_fixtures::{link_of_next_mail, mail_rows, paid_order, resend, wait_for_mails},
};

async fn app_and_shop() -> (TestApp, Shop) {
    let app = spawn_app_with(|c| c.worker_interval_ms = 50).await;
    let shop = shop(&app, Some(50)).await;
    (app, shop)
}

/// A public bearer of another customer of the shop's partner, in the same campaign.
async fn other_customer(app: &TestApp, shop: &Shop) -> String {
    let backend = app.backend_token(&shop.partner.client).await;
    let code = app
        .headless_code(&backend, "user-2", Some(&shop.partner.campaign))
        .await;
    app.exchange_code(&shop.partner.client, &code)
        .await
        .assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn the_ticket_page_opens_with_its_key_only_and_an_operator_resend_ends_the_old_key() {
    let (smtp_url, mut received) = smtp_server::start().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 50;
    })
    .await;
    let shop = shop(&app, Some(10)).await;
    let order = paid_order(&app, &shop, "en-GB", 2).await;
    let link = link_of_next_mail(&app, &mut received).await;

    let page = app.get(&link).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(order.codes.iter().all(|c| page.text.contains(c.as_str())));
    assert!(page.text.contains("<html lang=\"en-GB\""));
    assert!(page.text.contains("@media print"));
    assert_eq!(page.text.matches("src=\"data:image/png;base64,").count(), 2);
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert_eq!(page.header("x-robots-tag"), Some("noindex, nofollow"));
    assert_eq!(page.header("x-frame-options"), Some("DENY"));
    assert!(page
        .header("content-security-policy")
        .unwrap()
        .contains("frame-ancestors 'none'"));
    assert_eq!(page.header("cache-control"), Some("no-store"));
    assert!(
        !page.text.contains("Wallet"),
        "no wallet offered without settings"
    );

    let (path, key) = link.split_once("?key=").unwrap();
    let mut wrong = key.to_owned();
    wrong.replace_range(..1, if key.starts_with('0') { "1" } else { "0" });
    for refused in [
        format!("{path}?key={wrong}"),
        format!("{path}?key={}", &key[..key.len() - 1]),
        path.to_owned(),
        format!("/tickets/{}?key={key}", uuid::Uuid::new_v4()),
    ] {
        let response = app.get(&refused).await;
        response.assert_problem(404, "not-found");
        assert_eq!(
            response.header("referrer-policy"),
            Some("no-referrer"),
            "{refused}"
        );
    }

    // The operator's resend rotates the key: the old link ends, the new mail's link works.
    let resent = app
        .admin_post(
            &format!("/admin/v1/orders/{}/resend-tickets", order.order_id),
            &serde_json::json!({}),
        )
        .await;
    assert_eq!(resent.status, 202, "{}", resent.text);
    let new_link = link_of_next_mail(&app, &mut received).await;
    assert_ne!(new_link, link);
    app.get(&link).await.assert_problem(404, "not-found");
    assert_eq!(app.get(&new_link).await.status, 200);
    let rows = wait_for_mails(
        &app,
        &format!("?order_id={}&status=SENT", order.order_id),
        2,
    )
    .await;
    assert_eq!(rows[0]["kind"], "TICKETS_OPERATOR");
}

#[tokio::test]
async fn the_calendar_file_is_the_owners_only() {
    let (app, shop) = app_and_shop().await;
    let order = paid_order(&app, &shop, "de-DE", 1).await;
    let path = format!("/v2/me/fulfillment/orders/{}/calendar.ics", order.order_id);

    let own = shop.partner.get(&app, &path).await;
    assert_eq!(own.status, 200, "{}", own.text);
    assert_eq!(
        own.header("content-type"),
        Some("text/calendar; charset=utf-8")
    );
    let calendar: icalendar::Calendar = own.text.parse().expect("RFC 5545");
    use icalendar::Component;
    let event = calendar.components[0].as_event().unwrap();
    assert_eq!(event.get_summary(), Some("Besuch bei Zoo"));
    assert_eq!(
        event.get_end(),
        Some(icalendar::DatePerhapsTime::Date(
            visit_day().succ_opt().unwrap()
        )),
        "an all-day date ends the next day"
    );
    let uid = event.get_uid().unwrap().to_owned();
    assert!(uid.starts_with(&order.order_id), "{uid}");
    // Stable: the same file again names the same event.
    let again = shop.partner.get(&app, &path).await;
    let again: icalendar::Calendar = again.text.parse().unwrap();
    assert_eq!(
        again.components[0].as_event().unwrap().get_uid(),
        Some(uid.as_str())
    );

    let other = other_customer(&app, &shop).await;
    app.send(app.request(Method::GET, &path).bearer_auth(&other))
        .await
        .assert_problem(404, "not-found");
    app.get(&path).await.assert_problem(401, "token-invalid");
}

#[tokio::test]
async fn a_customer_may_have_the_mail_sent_again_three_times_an_hour() {
    let (app, shop) = app_and_shop().await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;
    let other = other_customer(&app, &shop).await;
    resend(&app, &other, &order.order_id)
        .await
        .assert_problem(404, "not-found");
    for _ in 0..3 {
        let response = resend(&app, &shop.partner.token, &order.order_id).await;
        assert_eq!(response.status, 202, "{}", response.text);
    }
    let refused = resend(&app, &shop.partner.token, &order.order_id).await;
    refused.assert_problem(429, "rate-limited");
    let wait: u64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((3500..=3601).contains(&wait), "{wait}");
    // The payment's mail and three resends; refused requests wrote nothing.
    let rows = mail_rows(&app, &format!("?order_id={}", order.order_id)).await;
    let mut kinds: Vec<&str> = rows.iter().map(|r| r["kind"].as_str().unwrap()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "TICKETS",
            "TICKETS_RESEND",
            "TICKETS_RESEND",
            "TICKETS_RESEND"
        ]
    );
}

/// The shop's product sold to another customer of its partner: the one `reference` names.
async fn shop_for(app: &TestApp, shop: &Shop, reference: &str) -> Shop {
    let client = &shop.partner.client;
    let backend = app.backend_token(client).await;
    let code = app
        .headless_code(&backend, reference, Some(&shop.partner.campaign))
        .await;
    let token = app.exchange_code(client, &code).await.assert_status(200)["data"]["access_token"]
        .as_str()
        .unwrap()
        .to_owned();
    Shop {
        partner: crate::partner_fixtures::Partner {
            campaign: shop.partner.campaign.clone(),
            client: crate::helpers::TestClient {
                client_id: client.client_id.clone(),
                secret: client.secret.clone(),
            },
            token,
        },
        merchant: shop.merchant.clone(),
        product: shop.product.clone(),
        group: shop.group.clone(),
    }
}

#[tokio::test]
async fn the_demo_mailbox_shows_a_visit_only_its_own_mails_in_demo_mode_only() {
    let app = spawn_app_with(|c| c.demo = true).await;
    let shop = shop(&app, Some(5)).await;
    let visit = format!("demo-visit-{}", uuid::Uuid::new_v4());
    let theirs = paid_order(&app, &shop_for(&app, &shop, &visit).await, "fr-FR", 1).await;
    let others = paid_order(&app, &shop, "en-GB", 1).await;

    let page = app.get(&format!("/demo/mail?visitor={visit}")).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert_eq!(page.header("referrer-policy"), Some("no-referrer"));
    assert!(
        page.text.contains("Zoo Émerveillé: vos billets pour le"),
        "{}",
        page.text
    );
    assert!(page.text.contains(&theirs.codes[0]));
    // The mail's own HTML with its QR image inlined, in a sandboxed frame.
    assert!(page.text.contains("sandbox=\"\""));
    assert!(page.text.contains("data:image/png;base64,"));
    // Another customer's mail, its codes and address, is not theirs to see.
    assert!(!page.text.contains(&others.codes[0]), "{}", page.text);
    assert!(!page.text.contains(&others.display_id), "{}", page.text);

    // Without a visit, or as another visit, nobody's mail shows.
    let stranger = format!("/demo/mail?visitor=demo-visit-{}", uuid::Uuid::new_v4());
    for path in ["/demo/mail", stranger.as_str()] {
        let page = app.get(path).await;
        assert_eq!(page.status, 200, "{}", page.text);
        for code in [&theirs.codes[0], &others.codes[0]] {
            assert!(!page.text.contains(code.as_str()), "{path}: {}", page.text);
        }
    }
    // Only a demo visit has a mailbox: no partner reference a visitor could choose.
    app.get("/demo/mail?visitor=user-1")
        .await
        .assert_problem(400, "request-validation-failed");

    app_and_shop()
        .await
        .0
        .get("/demo/mail")
        .await
        .assert_problem(404, "not-found");
}
