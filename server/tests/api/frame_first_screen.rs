//! The frame's first screen, rendered with its data (docs/webframe.md, "The first screen"): a
//! fresh webframe code's page carries the first page of its campaign's merchants as the API
//! answers it, without a bearer and without using the code up.

use serde_json::{json, Value};

use crate::{
    helpers::TestApp,
    partner_fixtures::{id_of, spawn_partner, Partner},
};

const AMS: &str = "Europe/Amsterdam";

async fn webframe_code(app: &TestApp, p: &Partner) -> String {
    let backend = app.backend_token(&p.client).await;
    let body = json!({ "integration": "webframe", "user": { "reference": "f-1" },
                       "campaign_id": p.campaign });
    app.session_code(&backend, body).await
}

/// The first page a frame page was rendered with, if any.
fn first_page(html: &str) -> Option<Value> {
    let open = r#"<script type="application/json" id="boxoffice-first-page""#;
    let start = html.find(open)?;
    let start = start + html[start..].find('>')? + 1;
    let end = start + html[start..].find("</script>")?;
    Some(serde_json::from_str(&html[start..end]).expect("the first page is JSON"))
}

#[tokio::test]
async fn a_fresh_code_opens_on_its_campaigns_merchants_as_the_api_answers_and_stays_unused() {
    let (app, p) = spawn_partner().await;
    for i in 0..12 {
        // `</script>` in a name must not end the data block early.
        p.merchant_with_product(&app, &format!("Zoo {i:02} </script>"), AMS)
            .await;
    }
    let code = webframe_code(&app, &p).await;

    let page = app.get(&format!("/frame?session_code={code}")).await;
    assert_eq!(page.status.as_u16(), 200, "{}", page.text);
    let html = &page.text;
    let first = first_page(html).expect("the page carries its first screen's data");
    for merchant in first["data"].as_array().unwrap() {
        let name = merchant["name"].as_str().unwrap();
        assert!(name.ends_with(" </script>"), "{name}");
        let shown = name.replace('<', "&lt;").replace('>', "&gt;");
        assert!(html.contains(&shown), "{name} is in the markup: {html}");
    }
    assert!(!html.contains("eyJ"), "no token of any kind is in the page");
    for language in ["nl-NL", "en-GB"] {
        let page = app
            .get(&format!("/frame?session_code={code}&locale={language}"))
            .await;
        let first = first_page(&page.text).unwrap();
        let api = p
            .get_in(&app, "/v2/merchants?limit=10", language)
            .await
            .assert_status(200);
        assert_eq!(first["data"], api["data"], "what GET /v2/merchants answers");
        assert_eq!(first["meta"]["item_count"], 10);
        assert_eq!(first["meta"]["pagination"]["limit"], 10);
    }

    // Its cursor is the API's: the frame reads the next page with it and its bearer.
    let token = first["meta"]["pagination"]["next_token"].as_str().unwrap();
    let next = p
        .get_in(
            &app,
            &format!("/v2/merchants?limit=10&next_token={token}"),
            "en-GB",
        )
        .await
        .assert_status(200);
    assert_eq!(next["data"].as_array().unwrap().len(), 2);

    // Rendering the page did not use the code: the frame redeems it once, as before.
    let exchanged = app
        .post_form("/frame/api/session", &[("code", &code)])
        .await;
    assert_eq!(exchanged.status.as_u16(), 200, "{}", exchanged.text);
    assert!(exchanged.json()["Ready"]["access_token"].is_string());
    let reloaded = app.get(&format!("/frame?session_code={code}")).await;
    assert_eq!(
        first_page(&reloaded.text),
        None,
        "a used code shows nothing"
    );
}

#[tokio::test]
async fn deep_links_other_screens_and_codes_that_are_no_fresh_webframe_code_show_no_list() {
    let (app, p) = spawn_partner().await;
    let (merchant, _) = p.merchant_with_product(&app, "Zoo", AMS).await;
    let code = webframe_code(&app, &p).await;
    let backend = app.backend_token(&p.client).await;
    let headless = app.headless_code(&backend, "h", Some(&p.campaign)).await;

    for path in [
        format!("/frame?session_code={code}&merchant_id={merchant}"),
        format!("/frame/orders?session_code={code}"),
        "/frame?session_code=unknown".to_owned(),
        format!("/frame?session_code={headless}"),
        "/frame".to_owned(),
    ] {
        let page = app.get(&path).await;
        assert_eq!(page.status.as_u16(), 200, "{path}: {}", page.text);
        assert_eq!(first_page(&page.text), None, "{path}");
    }
    assert!(first_page(&app.get(&format!("/frame?session_code={code}")).await.text).is_some());
}

#[tokio::test]
async fn an_address_without_a_merchants_id_is_no_deep_link_and_opens_on_the_list() {
    let (app, p) = spawn_partner().await;
    let (_, product) = p.merchant_with_product(&app, "Zoo", AMS).await;
    let code = webframe_code(&app, &p).await;

    // The frame stays on the list for these (`app::frame::deep_link`), so the page has it.
    for query in [
        format!("session_code={code}&merchant_id=0"),
        format!(
            "session_code={code}&product_id={}",
            id_of(&product, "product_id")
        ),
    ] {
        let page = app.get(&format!("/frame?{query}")).await;
        assert_eq!(page.status.as_u16(), 200, "{query}: {}", page.text);
        assert!(first_page(&page.text).is_some(), "{query}");
    }
}
