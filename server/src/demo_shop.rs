//! `GET /demo/shop`: a partner page for trying the hosted frame on a fresh server. It plays the
//! demo partner's website: opens a webframe session for a visitor (as a partner's backend does
//! with `POST /v1/session`) and embeds the frame with `embed.js`. Served only in demo mode.

use axum::{
    extract::State,
    http::header,
    response::{Html, IntoResponse, Response},
};
use html_escape::encode_double_quoted_attribute;
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    credentials::sessions::{self, Integration, SessionUser, StartSession},
    demo::{DEMO_CAMPAIGN, DEMO_CLIENT_ID},
    error::{Error, ProblemType, Result},
    http::extract::ApiQuery,
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(demo_shop))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[serde(deny_unknown_fields)]
struct ShopQuery {
    /// The visitor's reference at the demo partner (their orders and points); default `demo-visitor`.
    user: Option<String>,
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

/// The demo partner's shop page with the frame embedded (demo mode only).
#[utoipa::path(get, path = "/demo/shop", tag = "demo",
    params(ShopQuery),
    responses((status = 200, content_type = "text/html", body = String),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn demo_shop(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<ShopQuery>,
) -> Result<Response> {
    let demo_partner = state
        .store
        .partner_client_by_client_id(DEMO_CLIENT_ID)
        .await?;
    if !state.config.demo || demo_partner.is_none() {
        return Err(Error::new(
            ProblemType::NotFound,
            "The demo shop is on only in demo mode, with the demo data seeded.",
        ));
    }
    let started = sessions::start(
        &state,
        DEMO_CLIENT_ID,
        StartSession {
            integration: Integration::Webframe,
            user: SessionUser {
                reference: query.user.unwrap_or_else(|| "demo-visitor".into()),
                email: None,
                first_name: None,
                last_name: None,
                locale: None,
            },
            campaign_id: Some(DEMO_CAMPAIGN),
            code_challenge: None,
            code_challenge_method: None,
        },
    )
    .await?;
    let options = serde_json::json!({
        "frameUrl": started.frame_url,
        "sessionCode": started.session_code,
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
<header><strong>Demo partner</strong>: a partner's page with the Boxoffice frame inside</header>
<main>
<h1>Day out tickets</h1>
<div id="tickets"></div>
</main>
<script src="{embed}"></script>
<script>Boxoffice.mount('#tickets', {options});</script>
</body>
</html>"#,
        embed = encode_double_quoted_attribute(&format!("{}/embed.js", state.config.base_url())),
    );
    // A page with a one-time code in it is never cached.
    Ok(([(header::CACHE_CONTROL, "no-store")], Html(page)).into_response())
}
