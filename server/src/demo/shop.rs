//! `/demo/shop`: a partner page for trying the hosted frame on a fresh server. It plays the
//! demo partner's website: its script opens a webframe session for the visitor (as a partner's
//! backend does with `POST /v1/session`) and embeds the frame with `embed.js`. Served only in
//! demo mode (`BOXOFFICE_DEMO=1`).
//!
//! Every visit is its own customer: the page's script makes a random reference
//! `demo-visit-<uuid>` and keeps it in the tab's `sessionStorage` (so a reload, and the way
//! back from the payment page, stay the same customer), and asks `POST /demo/shop/session` for
//! a code for it. The endpoint takes no other form of reference, so nobody can open a session
//! as a customer of their choosing, and both routes are limited per client address
//! (`BOXOFFICE_AUTH_RATE_PER_MINUTE`, like the other session endpoints). The page links to the
//! visit's own demo mailbox (`/demo/mail?visitor=…`, `demo/mail.rs`).

use axum::{
    extract::State,
    http::header,
    middleware,
    response::{Html, IntoResponse, Response},
};
use html_escape::encode_double_quoted_attribute;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    api::token_request::no_store,
    credentials::sessions::{self, Integration, SessionUser, StartSession, StartedSession},
    demo::{DEMO_CAMPAIGN, DEMO_CLIENT_ID},
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiQuery},
        openapi::{Problem400, Problem404, Problem429},
        rate_limit::{self, RateLimit},
    },
    state::AppState,
};

/// What every demo visitor's reference starts with; the rest is a UUID.
const VISITOR_PREFIX: &str = "demo-visit-";

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let limit = RateLimit::per_minute(state.config.auth_rate_per_minute);
    OpenApiRouter::new()
        .routes(routes!(demo_shop))
        .routes(routes!(demo_session))
        .layer(middleware::from_fn_with_state(
            limit,
            rate_limit::middleware,
        ))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct ShopQuery {
    /// Open this merchant directly.
    merchant_id: Option<uuid::Uuid>,
    /// With `merchant_id`: open this product directly.
    product_id: Option<uuid::Uuid>,
    /// Set by the payment provider on the way back; accepted here, read by embed.js.
    #[allow(dead_code)]
    payment_id: Option<uuid::Uuid>,
    /// Set by the frame on the way back; accepted here, read by embed.js.
    #[allow(dead_code)]
    boxoffice_checkout: Option<uuid::Uuid>,
}

#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct DemoSessionRequest {
    /// The visit's own reference, `demo-visit-<uuid>`, made by the page's script.
    #[schema(
        pattern = "^demo-visit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"
    )]
    visitor: String,
}

/// The demo partner, or 404 when the server is not in demo mode or has no demo data.
async fn demo_mode(state: &AppState) -> Result<()> {
    let seeded = state
        .store
        .partner_client_by_client_id(DEMO_CLIENT_ID)
        .await?
        .is_some();
    if state.config.demo && seeded {
        Ok(())
    } else {
        Err(Error::new(
            ProblemType::NotFound,
            "The demo shop is on only in demo mode, with the demo data seeded.",
        ))
    }
}

/// The demo partner's shop page with the frame embedded (demo mode only).
#[utoipa::path(get, path = "/demo/shop", tag = "demo",
    params(ShopQuery),
    responses((status = 200, content_type = "text/html", body = String),
              Problem400, Problem404, Problem429))]
async fn demo_shop(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ShopQuery>,
) -> Result<Response> {
    demo_mode(&state).await?;
    let options = serde_json::json!({
        "merchantId": query.merchant_id,
        "productId": query.product_id,
    });
    // JSON inside a <script>: `<` escaped so no text can close the element.
    let options = options.to_string().replace('<', "\\u003c");
    let page = format!(
        r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo partner shop</title>
<style>body{{margin:0;font-family:system-ui,sans-serif;background:#f4f1ea;color:#1b1f24}}
header{{padding:1rem;background:#2d2a26;color:#fff}}main{{max-width:52rem;margin:0 auto;padding:1rem}}
#tickets{{background:#fff;border-radius:.5rem;overflow:hidden}}</style>
</head>
<body>
<header><strong>Demo partner</strong>: a partner's page with the Boxoffice frame inside ·
<a id="mailbox" href="/demo/mail" style="color:#fff">your ticket mails</a></header>
<main>
<h1>Day out tickets</h1>
<div id="tickets"></div>
</main>
<script src="{embed}"></script>
<script>{script}</script>
</body>
</html>"#,
        embed = encode_double_quoted_attribute(&format!("{}/embed.js", state.config.base_url())),
        script = SHOP_SCRIPT.replace("OPTIONS", &options),
    );
    Ok(([(header::CACHE_CONTROL, "no-store")], Html(page)).into_response())
}

/// The page's script: this visit's reference (made once per tab), a fresh code for it, and
/// the frame mounted with it.
const SHOP_SCRIPT: &str = r#"(function () {
  // crypto.randomUUID exists only in secure contexts (https, loopback).
  function uuid() {
    if (crypto.randomUUID) return crypto.randomUUID();
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 15) | 64;
    b[8] = (b[8] & 63) | 128;
    var h = Array.prototype.map.call(b, function (x) { return (x + 256).toString(16).slice(1); }).join('');
    return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join('-');
  }
  var key = 'boxoffice-demo-visitor', visitor = null;
  try { visitor = sessionStorage.getItem(key); } catch (e) { /* storage blocked */ }
  if (!/^demo-visit-[0-9a-f-]{36}$/.test(visitor || '')) {
    visitor = 'demo-visit-' + uuid();
    try { sessionStorage.setItem(key, visitor); } catch (e) { /* one page view only */ }
  }
  // The demo mailbox shows this visit's mails only (`demo/mail.rs`).
  document.getElementById('mailbox').href = '/demo/mail?visitor=' + encodeURIComponent(visitor);
  fetch('/demo/shop/session', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ visitor: visitor })
  }).then(function (r) {
    if (!r.ok) throw new Error('demo session: HTTP ' + r.status);
    return r.json();
  }).then(function (body) {
    var options = OPTIONS;
    options.frameUrl = body.data.frame_url;
    options.sessionCode = body.data.session_code;
    Boxoffice.mount('#tickets', options);
  }).catch(function (err) {
    document.getElementById('tickets').textContent = 'The demo shop could not open a session: ' + err.message;
  });
})();"#;

/// Opens a webframe session of the demo partner for one visit of the demo shop (demo mode
/// only). The visitor reference must be `demo-visit-<uuid>`.
#[utoipa::path(post, path = "/demo/shop/session", tag = "demo",
    request_body = DemoSessionRequest,
    responses((status = 201, body = inline(app::wire::Envelope<StartedSession>)),
              Problem400, Problem404, Problem429))]
async fn demo_session(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<DemoSessionRequest>,
) -> Result<Response> {
    demo_mode(&state).await?;
    let visitor = visitor_reference(&request.visitor)?;
    let started = sessions::start(
        &state.authn,
        DEMO_CLIENT_ID,
        StartSession {
            integration: Integration::Webframe,
            user: SessionUser {
                reference: visitor,
                email: None,
                first_name: None,
                last_name: None,
                locale: None,
                locked: Vec::new(),
            },
            campaign_id: Some(DEMO_CAMPAIGN),
            code_challenge: None,
            code_challenge_method: None,
        },
    )
    .await?;
    // A response with a one-time code in it is never cached.
    Ok(no_store(Data::created(started)))
}

/// `demo-visit-<uuid>` in its one spelling (lower-case, hyphenated), or a 400 naming `visitor`.
pub(crate) fn visitor_reference(text: &str) -> Result<String> {
    text.strip_prefix(VISITOR_PREFIX)
        .and_then(|rest| uuid::Uuid::try_parse(rest).ok())
        .map(|id| format!("{VISITOR_PREFIX}{}", id.hyphenated()))
        .filter(|spelled| spelled == text)
        .ok_or_else(|| {
            Error::invalid_field(
                "visitor",
                "invalid",
                "A demo visitor is `demo-visit-` followed by a UUID the page made for this visit.",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visitor_is_a_demo_visit_with_a_uuid_and_nothing_else() {
        let id = crate::ids::random_id();
        let visitor = format!("demo-visit-{id}");
        assert_eq!(visitor_reference(&visitor).unwrap(), visitor);
        for refused in [
            "demo-visitor".to_owned(),
            "f-1".to_owned(),
            format!("demo-visit-{}", id.simple()),
            format!("demo-visit-{}", id.to_string().to_uppercase()),
            format!("Demo-visit-{id}"),
            format!("demo-visit-{id}x"),
            format!(" demo-visit-{id}"),
        ] {
            assert!(visitor_reference(&refused).is_err(), "{refused}");
        }
    }
}
