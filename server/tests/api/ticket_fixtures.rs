//! Paid orders to mail tickets of, the ticket mails as the test SMTP server receives them
//! (parsed with `mail-parser`), and their QR images read back (`rqrr`).

use std::time::Duration;

use mail_parser::{MessageParser, MimeHeaders};
use reqwest::Method;
use serde_json::Value;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::{
    checkout_fixtures::{basket, confirm, pay, Shop},
    helpers::{TestApp, TestResponse},
};

/// A paid order of the shop's partner's customer.
pub struct PaidOrder {
    pub order_id: String,
    pub display_id: String,
    pub codes: Vec<String>,
}

/// Reserves `quantity` tickets in `language` (the checkout's language), confirms and settles
/// the payment with `action` (pay, decline, cancel); returns the order id and, when paid, the
/// ticket codes.
pub async fn order_in(
    app: &TestApp,
    shop: &Shop,
    language: &str,
    quantity: u32,
    action: &str,
) -> PaidOrder {
    let created = app
        .send(
            app.request(Method::POST, "/v2/checkouts")
                .bearer_auth(&shop.partner.token)
                .header("accept-language", language)
                .json(&basket(&shop.product, quantity)),
        )
        .await
        .assert_status(201)["data"]
        .clone();
    let checkout_id = created["checkout_id"].as_str().unwrap();
    let placed = confirm(app, shop, checkout_id).await.assert_status(200)["data"].clone();
    pay(app, placed["payment_url"].as_str().unwrap(), action).await;
    let order_id = placed["order_id"].as_str().unwrap().to_owned();
    let order = shop
        .partner
        .get_ok(app, &format!("/v2/me/fulfillment/orders/{order_id}"))
        .await;
    PaidOrder {
        order_id,
        display_id: placed["order_display_id"].as_str().unwrap().to_owned(),
        codes: order["data"]["tickets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["code"].as_str().unwrap().to_owned())
            .collect(),
    }
}

/// A paid order of `quantity` tickets in `language`.
pub async fn paid_order(app: &TestApp, shop: &Shop, language: &str, quantity: u32) -> PaidOrder {
    order_in(app, shop, language, quantity, "pay").await
}

/// A ticket mail as received, its parts taken apart.
#[derive(Debug)]
pub struct ReceivedMail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Inline images: Content-ID and bytes.
    pub images: Vec<(String, Vec<u8>)>,
    /// The `.ics` attachment.
    pub ics: String,
    pub content_types: Vec<String>,
}

/// The next message the test SMTP server receives (within 10 s), taken apart.
pub async fn next_mail(received: &mut UnboundedReceiver<String>) -> ReceivedMail {
    let raw = tokio::time::timeout(Duration::from_secs(10), received.recv())
        .await
        .expect("a mail in time")
        .expect("a message");
    parse_mail(&raw)
}

/// Asserts that no further message arrives within `wait`.
/// The ticket page link (a path with its key) of the mail `received` next, which must be in
/// English or Dutch.
pub async fn link_of_next_mail(app: &TestApp, received: &mut UnboundedReceiver<String>) -> String {
    let mail = next_mail(received).await;
    mail.text
        .lines()
        .find_map(|l| {
            l.strip_prefix("View your tickets online: ")
                .or_else(|| l.strip_prefix("Bekijk uw tickets online: "))
        })
        .expect("the ticket page link")
        .strip_prefix(&app.base_url)
        .unwrap()
        .to_owned()
}

pub async fn assert_no_more_mail(received: &mut UnboundedReceiver<String>, wait: Duration) {
    if let Ok(Some(raw)) = tokio::time::timeout(wait, received.recv()).await {
        panic!("one mail too many: {}", &raw[..raw.len().min(400)]);
    }
}

pub fn parse_mail(raw: &str) -> ReceivedMail {
    let message = MessageParser::default()
        .parse(raw.as_bytes())
        .expect("a MIME message");
    let mut images = Vec::new();
    let mut ics = String::new();
    let mut content_types = Vec::new();
    for part in message.parts.iter() {
        let Some(ct) = part.content_type() else {
            continue;
        };
        let kind = format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default());
        if kind == "image/png" {
            images.push((
                part.content_id().unwrap_or_default().to_owned(),
                part.contents().to_vec(),
            ));
        } else if kind == "text/calendar" {
            ics = String::from_utf8(part.contents().to_vec()).unwrap();
        }
        content_types.push(kind);
    }
    ReceivedMail {
        to: message
            .to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            .unwrap_or_default()
            .to_owned(),
        subject: message.subject().unwrap_or_default().to_owned(),
        text: message.body_text(0).unwrap_or_default().into_owned(),
        html: message.body_html(0).unwrap_or_default().into_owned(),
        images,
        ics,
        content_types,
    }
}

/// The text a QR image holds, read as a scanner would.
pub fn decode_qr(png_bytes: &[u8]) -> String {
    let decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buffer = vec![0; reader.output_buffer_size().expect("a size")];
    let info = reader.next_frame(&mut buffer).expect("a frame");
    let (width, height) = (info.width as usize, info.height as usize);
    assert_eq!(info.color_type, png::ColorType::Grayscale);
    let mut image =
        rqrr::PreparedImage::prepare_from_greyscale(width, height, |x, y| buffer[y * width + x]);
    let grids = image.detect_grids();
    assert_eq!(grids.len(), 1, "one QR code in the image");
    grids[0].decode().expect("a readable QR code").1
}

/// The mails of the app's outbox, as the operator API lists them.
pub async fn mail_rows(app: &TestApp, query: &str) -> Vec<Value> {
    app.admin_get_ok(&format!("/admin/v1/mails{query}")).await["data"]
        .as_array()
        .unwrap()
        .clone()
}

/// Waits until the operator API lists `count` mails matching `query` (10 s at most).
pub async fn wait_for_mails(app: &TestApp, query: &str, count: usize) -> Vec<Value> {
    for _ in 0..200 {
        let rows = mail_rows(app, query).await;
        if rows.len() >= count {
            return rows;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!(
        "no {count} mails for {query}: {:?}",
        mail_rows(app, "").await
    );
}

/// `POST /v2/me/fulfillment/orders/{order_id}/resend` with `token`.
pub async fn resend(app: &TestApp, token: &str, order_id: &str) -> TestResponse {
    app.send(
        app.request(
            Method::POST,
            &format!("/v2/me/fulfillment/orders/{order_id}/resend"),
        )
        .bearer_auth(token),
    )
    .await
}
