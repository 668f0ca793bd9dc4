//! One outbox for every mail (docs/operating.md, "Background workers"): a merchant's magic
//! link and a customer's ticket mail are rows of the same table, sent by the same worker with
//! the same back-off, and listed together by `GET /admin/v1/mails`.

use std::{collections::BTreeSet, time::Duration};

use app::wire::{MailKind, MailStatus};
use serde_json::{json, Value};
use server::store::MailFilter;

use crate::{
    checkout_fixtures::shop,
    helpers::spawn_app_with,
    smtp_server,
    ticket_fixtures::{assert_no_more_mail, mail_rows, paid_order, wait_for_mails},
};

fn kinds(rows: &[Value]) -> BTreeSet<String> {
    rows.iter()
        .map(|r| r["kind"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_magic_link_and_a_ticket_mail_go_through_one_outbox_retried_after_an_smtp_failure() {
    let address = smtp_server::free_address().await;
    let app = spawn_app_with(|c| {
        c.smtp_url = Some(format!("smtp://{address}").into());
        c.worker_interval_ms = 50;
    })
    .await;
    let account = app
        .admin_post_created(
            "/prod/merchant-accounts",
            &json!({ "email": "owner@zoo.example", "legal_name": "Zoo Amersfoort B.V." }),
        )
        .await["data"]
        .clone();
    assert_eq!(account["magic_link_mail"], "FAILED");
    let shop = shop(&app, Some(10)).await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;

    // Both failed once and wait for their next attempt, listed side by side.
    let mut waiting = Vec::new();
    for _ in 0..200 {
        waiting = mail_rows(&app, "?status=PENDING").await;
        if waiting.len() == 2 && waiting.iter().all(|m| m["attempts"].as_i64() >= Some(1)) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        kinds(&waiting),
        ["MAGIC_LINK", "TICKETS"].map(String::from).into()
    );
    assert!(
        waiting.iter().all(|m| m["last_error"].is_string()),
        "{waiting:?}"
    );
    // The list names what a mail is about, never whom it goes to.
    let listed = app.admin_get_ok("/admin/v1/mails").await.to_string();
    assert!(!listed.contains("@"), "{listed}");

    // The server comes up; the back-off's wait is cut short, and the one worker sends both.
    let (_, mut received) = smtp_server::start_on(address).await;
    crate::db_reads::make_mails_due(&app).await;
    let mut recipients = BTreeSet::new();
    for _ in 0..2 {
        let raw = tokio::time::timeout(Duration::from_secs(10), received.recv())
            .await
            .expect("a mail in time")
            .expect("a message");
        let to = raw
            .lines()
            .find_map(|l| l.strip_prefix("To: "))
            .expect("a To header")
            .to_owned();
        if to.contains("ada@example.com") {
            assert!(raw.contains(&order.codes[0]), "the ticket mail");
        }
        recipients.insert(to);
    }
    assert_eq!(
        recipients,
        ["ada@example.com", "owner@zoo.example"]
            .map(String::from)
            .into()
    );
    let sent = wait_for_mails(&app, "?status=SENT", 2).await;
    assert_eq!(
        kinds(&sent),
        ["MAGIC_LINK", "TICKETS"].map(String::from).into()
    );
    assert_no_more_mail(&mut received, Duration::from_millis(800)).await;
    // Each attempt is counted by kind and outcome (docs/operating.md, "Metrics").
    let metrics = app.get("/metrics").await.text;
    for series in [
        r#"mail_attempts_total{kind="MAGIC_LINK",outcome="retried"}"#,
        r#"mail_attempts_total{kind="TICKETS",outcome="sent"}"#,
    ] {
        assert!(metrics.contains(series), "{series} in {metrics}");
    }

    // The filters: by kind, by order.
    let links = mail_rows(&app, "?kind=MAGIC_LINK").await;
    assert_eq!(links.len(), 1);
    assert_eq!(
        links[0]["merchant_account_id"],
        account["merchant_account_id"]
    );
    let of_order = mail_rows(&app, &format!("?order_id={}", order.order_id)).await;
    assert_eq!(kinds(&of_order), ["TICKETS"].map(String::from).into());
    app.admin_get("/admin/v1/mails?kind=POSTCARD")
        .await
        .assert_problem(400, "request-validation-failed");
}

/// The tables migration 0012 replaced, as their own migrations made them.
fn tables_before_0012(backend: &str) -> String {
    let (schema, ticket_mail) = if backend == "postgres" {
        (
            include_str!("../../migrations/postgres/0001_schema.sql"),
            include_str!("../../migrations/postgres/0008_ticket_mail.sql"),
        )
    } else {
        (
            include_str!("../../migrations/sqlite/0001_schema.sql"),
            include_str!("../../migrations/sqlite/0008_ticket_mail.sql"),
        )
    };
    let mail = &schema[schema.find("CREATE TABLE mail (").unwrap()..];
    let mail = &mail[..mail.find(");").unwrap() + 2];
    let ticket_mail = &ticket_mail[..ticket_mail.find("-- The ticket page's key").unwrap()];
    format!("{mail}\n{ticket_mail}")
}

/// Rows in both tables before migration 0012: a sent, a pending (under a live lease) and a
/// failed ticket mail; a magic link never tried (no SMTP), one sent and one failed.
#[tokio::test]
async fn migration_0012_moves_both_old_tables_into_the_outbox_losing_and_resending_nothing() {
    let app = spawn_app_with(|_| {}).await;
    let shop = shop(&app, Some(10)).await;
    let order = paid_order(&app, &shop, "en-GB", 1).await;
    let resent = crate::ticket_fixtures::resend(&app, &shop.partner.token, &order.order_id).await;
    assert_eq!(resent.status, 202, "{}", resent.text);
    app.admin_post(
        &format!("/admin/v1/orders/{}/resend-tickets", order.order_id),
        &json!({}),
    )
    .await;
    let mut accounts = Vec::new();
    for email in [
        "outbox@zoo.example",
        "sent@zoo.example",
        "failed@zoo.example",
    ] {
        let account = app
            .admin_post_created(
                "/prod/merchant-accounts",
                &json!({ "email": email, "legal_name": "Zoo B.V." }),
            )
            .await["data"]
            .clone();
        accounts.push(account["merchant_account_id"].as_str().unwrap().to_owned());
    }
    // The rows above, put back into the tables as they were before 0012, each in one state.
    crate::db_reads::run_script(
        &app,
        &format!(
            "CREATE TABLE mail_copy AS SELECT * FROM mail;
             DROP TABLE mail;
             {before}
             INSERT INTO ticket_mail (ticket_mail_id, customer_order_id, kind, status, attempts,
                 next_attempt_at, last_error, created_at, sent_at)
             SELECT mail_id, customer_order_id,
                    CASE kind WHEN 'TICKETS' THEN 'FIRST' WHEN 'TICKETS_RESEND' THEN 'RESEND'
                              ELSE 'OPERATOR' END,
                    CASE kind WHEN 'TICKETS' THEN 'SENT' WHEN 'TICKETS_RESEND' THEN 'PENDING'
                              ELSE 'FAILED' END,
                    CASE kind WHEN 'TICKETS_RESEND' THEN 0 ELSE 1 END,
                    next_attempt_at,
                    CASE kind WHEN 'TICKETS_OPERATOR' THEN '550 no such mailbox' END,
                    created_at,
                    CASE kind WHEN 'TICKETS' THEN created_at END
             FROM mail_copy WHERE kind <> 'MAGIC_LINK';
             UPDATE ticket_mail SET locked_until = '2999-01-01 00:00:00+00:00',
                 claim_id = ticket_mail_id WHERE kind = 'RESEND';
             INSERT INTO mail (mail_id, recipient, subject, body_text, status, created_at, sent_at)
             SELECT mail_id, recipient, subject, body_text,
                    CASE recipient WHEN 'sent@zoo.example' THEN 'SENT'
                                   WHEN 'failed@zoo.example' THEN 'FAILED' ELSE 'OUTBOX' END,
                    created_at,
                    CASE recipient WHEN 'sent@zoo.example' THEN created_at END
             FROM mail_copy WHERE kind = 'MAGIC_LINK';
             DROP TABLE mail_copy;
             DELETE FROM _sqlx_migrations WHERE version = 12;",
            before = tables_before_0012(app.backend()),
        ),
    )
    .await;

    // The next start migrates.
    let store = server::store::connect(&crate::catalog_fixtures::database_url(&app), Some(2))
        .await
        .expect("the store opens and migrates");
    let rows = store.mails(MailFilter::default(), None, 100).await.unwrap();
    let state = |kind: MailKind| {
        let row = rows.iter().find(|r| r.kind == kind).unwrap();
        (row.status, row.attempts, row.claim_id.is_some())
    };
    assert_eq!(rows.len(), 6, "{rows:?}");
    assert_eq!(state(MailKind::Tickets), (MailStatus::Sent, 1, false));
    assert_eq!(
        state(MailKind::TicketsResend),
        (MailStatus::Pending, 0, true)
    );
    assert_eq!(
        state(MailKind::TicketsOperator),
        (MailStatus::Failed, 1, false)
    );
    let links: Vec<_> = rows
        .iter()
        .filter(|r| r.kind == MailKind::MagicLink)
        .map(|r| (r.recipient.clone().unwrap(), r.status, r))
        .collect();
    assert_eq!(links.len(), 3);
    for (recipient, status, row) in &links {
        let i = ["outbox@", "sent@", "failed@"]
            .iter()
            .position(|p| recipient.starts_with(p))
            .unwrap();
        assert_eq!(row.merchant_account_id.unwrap().to_string(), accounts[i]);
        let expected = [MailStatus::Pending, MailStatus::Sent, MailStatus::Failed][i];
        assert_eq!(*status, expected, "{recipient}");
        // The link of a mail not sent (never tried, or failed) is its secret, removed if it is
        // sent; a mail sent before had it removed already.
        if i != 1 {
            let secret = row.secret.as_deref().expect("the unsent link's secret");
            assert!(
                secret.starts_with("http") && secret.contains("?code="),
                "{secret}"
            );
            assert!(row
                .body_text
                .as_deref()
                .unwrap()
                .ends_with(&format!("{secret}\n")));
        } else {
            assert_eq!(row.secret, None, "{recipient}");
        }
    }

    // Of all six, only the magic link never tried is due: nothing sent is sent again, the
    // leased one waits for its lease, the failed ones stay failed.
    let now = chrono::Utc::now();
    let due = store
        .claim_due_mails(now, now + chrono::Duration::minutes(2), 10)
        .await
        .unwrap();
    assert_eq!(due.len(), 1, "{due:?}");
    assert_eq!(due[0].recipient.as_deref(), Some("outbox@zoo.example"));
}
