//! The ticket mail (docs/tickets.md): written with the payment, one per paid order, in the
//! checkout's language, with its QR codes, calendar file and ticket page link, delivered once
//! by SMTP also when the server was down or two nodes race for it.

use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;

use crate::{
    checkout_fixtures::{shop, visit_day, Shop},
    helpers::{spawn_app_with, TestApp},
    smtp_server,
    ticket_fixtures::{
        assert_no_more_mail, decode_qr, mail_rows, next_mail, order_in, paid_order, wait_for_mails,
    },
};

/// An app whose workers look for work every 50 ms, mailing through a test SMTP server, with
/// a shop.
async fn shop_with_smtp() -> (TestApp, Shop, UnboundedReceiver<String>) {
    let (smtp_url, received) = smtp_server::start().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 50;
    })
    .await;
    let shop = shop(&app, Some(50)).await;
    (app, shop, received)
}

fn date_in(tag: &str) -> String {
    app::format::date_long(tag.parse().unwrap(), visit_day())
}

#[tokio::test]
async fn a_paid_order_gets_one_mail_with_its_qr_codes_calendar_and_page_link() {
    let (app, shop, mut received) = shop_with_smtp().await;
    let order = paid_order(&app, &shop, "en-GB", 2).await;
    let mail = next_mail(&mut received).await;

    assert_eq!(mail.to, "ada@example.com");
    assert_eq!(
        mail.subject,
        format!("Royal Zoo: your tickets for {}", date_in("en-GB"))
    );
    for kind in ["text/plain", "text/html", "text/calendar"] {
        assert!(
            mail.content_types.iter().any(|c| c == kind),
            "{kind} in {:?}",
            mail.content_types
        );
    }
    // Each QR image is referred to by cid: and holds its ticket's signed token (docs/gate.md).
    let keys = crate::gate_fixtures::jwks(&app).await;
    let mut decoded: Vec<String> = mail
        .images
        .iter()
        .map(|(_, png)| crate::gate_fixtures::printed_code_of(&keys, &decode_qr(png)))
        .collect();
    decoded.sort();
    let mut codes = order.codes.clone();
    codes.sort();
    assert_eq!(decoded, codes);
    for (cid, _) in &mail.images {
        assert!(
            mail.html.contains(&format!("src=\"cid:{cid}\"")),
            "{cid} in the HTML"
        );
    }
    // Nothing remote: no image, font or stylesheet from elsewhere.
    assert!(
        !mail.html.contains("src=\"http")
            && !mail.html.contains("@import")
            && !mail.html.contains("url(")
    );
    for part in [&mail.text, &mail.html] {
        assert!(part.contains(&order.display_id), "{part}");
        assert!(part.contains("€26.00"), "the server's total: {part}");
        assert!(part.contains(&date_in("en-GB")), "{part}");
        for code in &order.codes {
            assert!(part.contains(code.as_str()), "{code} as text");
        }
    }

    // The calendar file parses back: an all-day visit on the day.
    let calendar: icalendar::Calendar = mail.ics.parse().expect("an iCalendar file");
    let event = calendar.components[0].as_event().expect("a VEVENT");
    use icalendar::{Component, EventLike};
    assert_eq!(
        event.get_start(),
        Some(icalendar::DatePerhapsTime::Date(visit_day()))
    );
    assert_eq!(event.get_summary(), Some("Visit to Royal Zoo"));
    assert!(
        event.get_location().unwrap().contains("Amsterdam"),
        "{:?}",
        event.get_location()
    );

    // The link opens the order's ticket page.
    let link = mail
        .text
        .lines()
        .find_map(|l| l.strip_prefix("View your tickets online: "))
        .expect("the ticket page link");
    let page = app.get(link.strip_prefix(&app.base_url).unwrap()).await;
    assert_eq!(page.status, 200, "{}", page.text);
    assert!(order.codes.iter().all(|c| page.text.contains(c.as_str())));

    assert_no_more_mail(&mut received, Duration::from_millis(500)).await;
    let rows = mail_rows(&app, "").await;
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0]["kind"].as_str(), rows[0]["status"].as_str()),
        (Some("TICKETS"), Some("SENT"))
    );
    assert_eq!(rows[0]["order_id"], order.order_id.as_str());
}

#[tokio::test]
async fn the_mail_speaks_the_checkouts_language_with_its_money_and_dates() {
    let (app, shop, mut received) = shop_with_smtp().await;
    let cases = [
        (
            "nl-NL",
            "Zoo: uw tickets voor",
            "€\u{a0}13,00",
            "Bedankt voor uw bestelling!",
        ),
        (
            "en-GB",
            "Royal Zoo: your tickets for",
            "€13.00",
            "Thank you for your order!",
        ),
        (
            "de-DE",
            "Zoo: Ihre Tickets für",
            "13,00\u{a0}€",
            "Vielen Dank für Ihre Bestellung!",
        ),
        (
            "fr-FR",
            "Zoo Émerveillé: vos billets pour le",
            "13,00\u{a0}€",
            "Merci pour votre commande !",
        ),
    ];
    for (tag, subject, money, greeting) in cases {
        paid_order(&app, &shop, tag, 1).await;
        let mail = next_mail(&mut received).await;
        assert_eq!(mail.subject, format!("{subject} {}", date_in(tag)), "{tag}");
        for part in [&mail.text, &mail.html] {
            assert!(part.contains(money), "{tag}: {money} in {part}");
            assert!(part.contains(&date_in(tag)), "{tag}: the date in {part}");
            assert!(part.contains(greeting), "{tag}: {greeting} in {part}");
        }
        assert!(
            mail.html.contains(&format!("<html lang=\"{tag}\"")),
            "{tag}"
        );
    }
}

#[tokio::test]
async fn a_declined_or_cancelled_payment_mails_nothing() {
    let (app, shop, mut received) = shop_with_smtp().await;
    order_in(&app, &shop, "en-GB", 1, "decline").await;
    order_in(&app, &shop, "en-GB", 1, "cancel").await;
    assert_no_more_mail(&mut received, Duration::from_millis(800)).await;
    assert!(mail_rows(&app, "").await.is_empty());
    // A paid one after them is mailed, once.
    let paid = paid_order(&app, &shop, "en-GB", 1).await;
    next_mail(&mut received).await;
    let rows = wait_for_mails(&app, "?status=SENT", 1).await;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["order_id"], paid.order_id.as_str());
}

#[tokio::test]
async fn a_mail_the_smtp_server_was_down_for_is_delivered_once_when_it_is_back() {
    let address = smtp_server::free_address().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(format!("smtp://{address}").into());
        c.worker_interval_ms = 50;
    })
    .await;
    let shop = shop(&app, Some(10)).await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;
    // The attempt fails and is kept for later.
    let mut failed = Vec::new();
    for _ in 0..200 {
        failed = mail_rows(&app, "?status=PENDING").await;
        if failed
            .first()
            .is_some_and(|m| m["attempts"].as_i64() > Some(0))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(failed[0]["attempts"].as_i64() >= Some(1));
    assert!(failed[0]["last_error"].as_str().is_some());

    // The server comes up; the back-off's wait is cut short.
    let (_, mut received) = smtp_server::start_on(address).await;
    crate::db_reads::make_mails_due(&app).await;
    let mail = next_mail(&mut received).await;
    assert!(mail.text.contains(&order.codes[0]));
    wait_for_mails(&app, "?status=SENT", 1).await;
    assert_no_more_mail(&mut received, Duration::from_millis(800)).await;
}

#[tokio::test]
async fn two_nodes_send_each_ticket_mail_once() {
    let (smtp_url, mut received) = smtp_server::start().await;
    let first = spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 20;
    })
    .await;
    if first.backend() != "postgres" {
        eprintln!("two nodes share a Postgres database only; skipped on SQLite");
        return;
    }
    let second = first.second_node(|_| {}).await;
    let shop = shop(&first, Some(20)).await;
    for _ in 0..4 {
        paid_order(&first, &shop, "en-GB", 1).await;
    }
    for _ in 0..4 {
        next_mail(&mut received).await;
    }
    assert_no_more_mail(&mut received, Duration::from_secs(1)).await;
    assert_eq!(wait_for_mails(&second, "?status=SENT", 4).await.len(), 4);
}
