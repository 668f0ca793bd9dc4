//! Booking questions (docs/api-checkout.md, "Booking questions"; docs/operator-catalog.md):
//! the operator defines them on a product, checkouts take answers once per booking or once
//! per ticket, a confirmation without a required one is refused by name, and the answers
//! follow the order to its reads, the ticket mail, the ticket page and the gate, but never
//! into events or logs.

use std::sync::{Arc, Mutex};

use reqwest::Method;
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedReceiver;

use crate::{
    checkout_fixtures::{customer, express_body, key, pay, shop, Shop, ZONE},
    gate_fixtures::{gate, scan},
    helpers::{error_fields, set_of, spawn_app, spawn_app_with, TestApp, TestResponse},
    partner_fixtures::today_in,
    smtp_server,
    ticket_fixtures::next_mail,
};

/// Each visitor's name (per ticket, required, personal) and the booking's diet (a choice,
/// optional), labelled in English and Dutch.
fn questions() -> Value {
    json!([
        {
            "question_id": "visitor_name",
            "label": { "en-GB": "Visitor's name", "nl-NL": "Naam van de bezoeker" },
            "input_type": "text",
            "required": true,
            "personal_data": true,
            "per": "ticket"
        },
        {
            "question_id": "diet",
            "label": { "en-GB": "Dietary needs", "nl-NL": "Dieetwensen" },
            "input_type": "select",
            "options": [
                { "value": "vegan", "label": { "en-GB": "Vegan", "nl-NL": "Veganistisch" } },
                { "value": "none", "label": { "en-GB": "None", "nl-NL": "Geen" } }
            ]
        }
    ])
}

/// `PUT /admin/v1/products/{product}` with its current fields and `questions`.
async fn ask(app: &TestApp, product: &str, questions: Value) -> TestResponse {
    crate::after_sale_fixtures::set_product_field(app, product, "questions", questions).await
}

/// The answers of two tickets' names and the booking's diet.
fn answers(first: &str, second: &str) -> Value {
    json!([
        { "question_id": "visitor_name", "line": 0, "ticket": 0, "value": first },
        { "question_id": "visitor_name", "line": 0, "ticket": 1, "value": second },
        { "question_id": "diet", "value": "vegan" }
    ])
}

/// Two of today's tickets bought in English in one call in the partner's session with
/// `answers`.
async fn buy_today(app: &TestApp, shop: &Shop, answers: Value) -> TestResponse {
    let mut body = express_body(&shop.product, 2);
    body["date"] = json!(today_in(ZONE).to_string());
    body["answers"] = answers;
    app.send(
        app.request(Method::POST, "/v2/checkouts/express")
            .bearer_auth(&shop.partner.token)
            .header("x-campaign-id", &shop.partner.campaign)
            .header("idempotency-key", key())
            .header("accept-language", "en-GB")
            .json(&body),
    )
    .await
}

#[tokio::test]
async fn questions_are_checked_by_the_operator_api_and_listed_in_the_reader_s_language() {
    let app = spawn_app().await;
    let shop = shop(&app, None).await;
    let refused = ask(
        &app,
        &shop.product,
        json!([
            { "question_id": "Name", "label": {}, "input_type": "text" },
            { "question_id": "diet", "label": { "en-GB": "Diet" }, "input_type": "select" },
            { "question_id": "diet", "label": { "en-GB": "Diet" }, "input_type": "text",
              "options": [{ "value": "x", "label": { "en-GB": "X" } }] }
        ]),
    )
    .await;
    assert_eq!(
        error_fields(&refused.assert_problem(400, "request-validation-failed")),
        set_of(&[
            "questions[0].question_id",
            "questions[0].label",
            "questions[1].options",
            "questions[2].question_id",
            "questions[2].options"
        ])
    );
    ask(&app, &shop.product, questions())
        .await
        .assert_status(200);

    for (language, name, vegan) in [
        ("en-GB", "Visitor's name", "Vegan"),
        ("nl-NL", "Naam van de bezoeker", "Veganistisch"),
        // No German label: Dutch, the default language, stands in.
        ("de-DE", "Naam van de bezoeker", "Veganistisch"),
    ] {
        let list = shop
            .partner
            .products_with(&app, &shop.merchant, &[("accept-language", language)])
            .await
            .assert_status(200);
        let asked = &list["data"][0]["questions"];
        assert_eq!(asked[0]["label"], name, "{language}");
        assert_eq!(asked[0]["per"], "ticket");
        assert_eq!(asked[0]["required"], true);
        assert_eq!(asked[1]["options"][0]["label"], vegan, "{language}");
        assert_eq!(asked[1]["required"], false);
        assert!(
            asked[0].get("personal_data").is_none(),
            "the operator's flag stays theirs"
        );
    }
}

#[tokio::test]
async fn express_names_each_missing_required_answer_and_refuses_answers_it_cannot_take() {
    let app = spawn_app().await;
    let shop = shop(&app, None).await;
    ask(&app, &shop.product, questions())
        .await
        .assert_status(200);

    let missing = buy_today(
        &app,
        &shop,
        json!([{ "question_id": "diet", "value": "none" }]),
    )
    .await;
    assert_eq!(
        error_fields(&missing.assert_problem(422, "checkout-answer-required")),
        set_of(&[
            "lines[0].tickets[0].answers.visitor_name",
            "lines[0].tickets[1].answers.visitor_name"
        ])
    );
    let wrong = buy_today(
        &app,
        &shop,
        json!([
            { "question_id": "visitor_name", "line": 0, "ticket": 2, "value": "Cy" },
            { "question_id": "diet", "value": "carnivore" },
            { "question_id": "shoe_size", "value": "42" },
            { "question_id": "visitor_name", "line": 0, "value": "Bo" }
        ]),
    )
    .await;
    let problem = wrong.assert_problem(400, "request-validation-failed");
    assert_eq!(
        error_fields(&problem),
        set_of(&[
            "answers[0].ticket",
            "answers[1].value",
            "answers[2].question_id",
            "answers[3]"
        ])
    );
    assert!(
        !problem.to_string().contains("carnivore"),
        "a problem never repeats an answer: {problem}"
    );
    // Nothing was reserved by the refusals: no checkout, no order.
    let orders = shop.partner.get_ok(&app, "/v2/me/fulfillment/orders").await;
    assert_eq!(orders["data"].as_array().unwrap().len(), 0);
}

#[tokio::test]
async fn two_step_answers_given_at_the_reservation_are_completed_at_confirm() {
    let app = spawn_app().await;
    let shop = shop(&app, None).await;
    ask(&app, &shop.product, questions())
        .await
        .assert_status(200);
    let mut basket = crate::checkout_fixtures::basket(&shop.product, 2);
    basket["answers"] = json!([{ "question_id": "diet", "value": "none" }]);
    let checkout = shop
        .partner
        .post(&app, "/v2/checkouts", &basket)
        .await
        .assert_status(201)["data"]
        .clone();
    let asked: Vec<(String, Value)> = checkout["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            (
                q["question_id"].as_str().unwrap().to_owned(),
                q["line"].clone(),
            )
        })
        .collect();
    assert_eq!(
        asked,
        [
            ("diet".to_owned(), Value::Null),
            ("visitor_name".to_owned(), json!(0))
        ]
    );
    assert_eq!(
        checkout["answers"],
        json!([{ "question_id": "diet", "value": "none" }])
    );

    let path = format!(
        "/v2/checkouts/{}/confirm",
        checkout["checkout_id"].as_str().unwrap()
    );
    let refused = shop.partner.post(&app, &path, &customer()).await;
    refused.assert_problem(422, "checkout-answer-required");
    let mut confirm = customer();
    confirm["answers"] = answers("Ann Smith", "Bo Smith");
    let placed = shop
        .partner
        .post(&app, &path, &confirm)
        .await
        .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order = shop
        .partner
        .get_ok(
            &app,
            &format!(
                "/v2/me/fulfillment/orders/{}",
                placed["order_id"].as_str().unwrap()
            ),
        )
        .await["data"]
        .clone();
    // The confirmation's answers replaced the reservation's.
    assert_eq!(order["answers"][0]["value"], "vegan");
    let mut names: Vec<&str> = order["tickets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["answers"][0]["value"].as_str().unwrap())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["Ann Smith", "Bo Smith"]);
}

/// Every log line the server writes at any level while the guard lives, kept in memory: the
/// test's runtime runs on one thread, the server's tasks with it, and this subscriber is that
/// thread's (the binary's global one keeps only warnings).
fn captured_logs() -> (tracing::subscriber::DefaultGuard, Arc<Mutex<Vec<u8>>>) {
    let logs = Arc::new(Mutex::new(Vec::new()));
    let sink = logs.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_env_filter("info,server=trace")
        .with_writer(move || Sink(sink.clone()))
        .with_ansi(false)
        .finish();
    (tracing::subscriber::set_default(subscriber), logs)
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Every page of the partner's events feed, as its raw JSON text.
async fn events_text(app: &TestApp, shop: &Shop) -> String {
    crate::db_reads::wait_until_events_settle(app).await;
    let backend = app.backend_token(&shop.partner.client).await;
    let mut text = String::new();
    let mut path = "/v2/events?limit=100".to_owned();
    loop {
        let response = app
            .send(app.request(Method::GET, &path).bearer_auth(&backend))
            .await;
        let page = response.assert_status(200);
        text.push_str(&response.text);
        match page["meta"]["pagination"]["next_token"].as_str() {
            Some(token) if !page["data"].as_array().unwrap().is_empty() => {
                path = format!("/v2/events?limit=100&next_token={token}");
            }
            _ => return text,
        }
    }
}

async fn mailing_app() -> (TestApp, UnboundedReceiver<String>) {
    let (smtp_url, received) = smtp_server::start().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(smtp_url.into());
        c.worker_interval_ms = 50;
    })
    .await;
    (app, received)
}

#[tokio::test]
async fn answers_reach_the_order_reads_the_mail_the_ticket_page_and_the_gate_but_no_event_or_log() {
    let (_logging, logs) = captured_logs();
    let (app, mut received) = mailing_app().await;
    let shop = shop(&app, None).await;
    ask(&app, &shop.product, questions())
        .await
        .assert_status(200);
    // Unusual values, to be searched for below.
    let (ann, bo) = ("Annwyl Quixote-Zebedee", "Bodhrán Xylander");
    buy_today(
        &app,
        &shop,
        json!([{ "question_id": "diet", "value": "vegan" }]),
    )
    .await
    .assert_problem(422, "checkout-answer-required");
    let placed = buy_today(&app, &shop, answers(ann, bo))
        .await
        .assert_status(200)["data"]
        .clone();
    pay(&app, placed["payment_url"].as_str().unwrap(), "pay").await;
    let order_id = placed["order_id"].as_str().unwrap();

    let mine = shop
        .partner
        .get_ok(&app, &format!("/v2/me/fulfillment/orders/{order_id}"))
        .await["data"]
        .clone();
    assert_eq!(
        mine["answers"],
        json!([{ "question_id": "diet", "label": "Dietary needs", "value": "vegan", "choice": "Vegan" }])
    );
    let backend = app.backend_token(&shop.partner.client).await;
    let partners = app
        .send(
            app.request(Method::GET, &format!("/v2/orders/{order_id}"))
                .bearer_auth(&backend),
        )
        .await
        .assert_status(200)["data"]
        .clone();
    for read in [&mine, &partners] {
        let tickets = read["tickets"].as_array().unwrap();
        let mut names: Vec<&str> = tickets
            .iter()
            .map(|t| t["answers"][0]["value"].as_str().unwrap())
            .collect();
        names.sort_unstable();
        assert_eq!(names, [ann, bo]);
        assert_eq!(tickets[0]["answers"][0]["label"], "Visitor's name");
    }

    let mail = next_mail(&mut received).await;
    for part in [&mail.text, &mail.html] {
        // A choice is shown by its label, not its value.
        for value in [ann, bo, "Dietary needs", "Visitor's name", "Vegan"] {
            assert!(part.contains(value), "{value} in the mail: {part}");
        }
        assert!(
            !part.contains("vegan"),
            "the choice's value in the mail: {part}"
        );
    }
    let page_link = mail
        .text
        .lines()
        .find_map(|l| l.strip_prefix("View your tickets online: "))
        .expect("the ticket page link")
        .strip_prefix(&app.base_url)
        .unwrap()
        .to_owned();
    let page = app.get(&page_link).await;
    assert_eq!(page.status, 200);
    for value in [ann, bo, "Dietary needs", "Vegan"] {
        assert!(page.text.contains(value), "{value} on the ticket page");
    }

    let gate = gate(&app, &shop).await;
    let code = mine["tickets"][0]["code"].as_str().unwrap();
    let holder = mine["tickets"][0]["answers"][0]["value"].as_str().unwrap();
    let entry = scan(&app, &gate, code).await.assert_status(201)["data"].clone();
    assert_eq!(
        entry["answers"],
        json!([
            { "question_id": "diet", "label": "Dietary needs", "value": "vegan", "choice": "Vegan" },
            { "question_id": "visitor_name", "label": "Visitor's name", "value": holder }
        ])
    );

    let events = events_text(&app, &shop).await;
    assert!(
        events.contains("TicketRedeemed"),
        "the feed was read: {events}"
    );
    let logged = String::from_utf8_lossy(&logs.lock().unwrap()).into_owned();
    assert!(logged.contains(order_id), "the logs were captured");
    for value in [ann, bo] {
        assert!(!events.contains(value), "{value} in an event: {events}");
        assert!(!logged.contains(value), "{value} logged");
    }
}
