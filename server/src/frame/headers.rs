//! The headers of every page the Leptos app serves (the frame under `/frame`, the sandbox
//! payment page, the merchant's onboarding page) and of its server functions:
//!
//! - never cached, never referred (a session code or a payment key is in the URL), no sniffing;
//! - `frame-ancestors`: under `/frame` the origins the partner registered, found from the
//!   `session_code` or (after the exchange) `client_id` in the query; every other page, whatever
//!   its query, `'none'`;
//! - a script policy: scripts only from this origin, WASM compiled, and the one inline script
//!   Leptos writes to start hydration carrying a nonce made for this response ([`CspNonce`],
//!   handed to Leptos by `frame.rs`); no plugins, no `<base>`.
//!
//! Under `/frame` it also hands the code's session to `first_page`, for the first
//! screen's data the page is rendered with.
//!
//! A policy that cannot be built (an origin that is no origin) is sent as `frame-ancestors
//! 'none'`: it fails closed, never open. Pages that are not the app's get `frame-ancestors
//! 'none'` from `http::framing`.

use std::sync::Arc;

use axum::{
    extract::{Request, State},
    http::{header, HeaderValue},
    middleware::Next,
    response::Response,
};
use rand::RngCore;

use super::{backend::client_of_session, first_page::first_page};
use crate::{
    auth::codes::code_hash,
    error::Error,
    state::AppState,
    store::{PartnerClient, Session},
    theme, validate,
};

/// The policy sent when the real one cannot be built: nobody frames the page, and no inline
/// script runs (so the page does not hydrate, which is the safe way to fail).
const FAIL_CLOSED: &str =
    "frame-ancestors 'none'; script-src 'self' 'wasm-unsafe-eval'; object-src 'none'; base-uri 'none'";

/// The nonce of one response's script policy, 128 random bits in hex.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CspNonce(pub Arc<str>);

impl CspNonce {
    pub fn new() -> Self {
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Self(hex::encode(bytes).into())
    }
}

impl Default for CspNonce {
    fn default() -> Self {
        Self::new()
    }
}

/// The gate's scanner, whose page carries its texts (`app::frame::screens::gate::texts`).
const GATE_PATH: &str = "/gate";

/// Whether `path` is one of the frame's own (which partners may frame).
fn is_frame_path(path: &str) -> bool {
    path == "/frame" || path.starts_with("/frame/")
}

/// The `Content-Security-Policy` of a page framed by `origins` (none: by nobody), whose inline
/// scripts carry `nonce`.
pub fn content_security_policy(origins: &[String], nonce: &CspNonce) -> HeaderValue {
    if !origins.iter().all(|o| validate::is_origin_pattern(o)) {
        return HeaderValue::from_static(FAIL_CLOSED);
    }
    let ancestors = if origins.is_empty() {
        "'none'".to_owned()
    } else {
        origins.join(" ")
    };
    let policy = format!(
        "frame-ancestors {ancestors}; script-src 'self' 'wasm-unsafe-eval' 'nonce-{}'; \
         object-src 'none'; base-uri 'none'",
        nonce.0
    );
    HeaderValue::from_str(&policy).unwrap_or_else(|_| HeaderValue::from_static(FAIL_CLOSED))
}

/// Sets the headers above on every response of the app's router.
pub async fn security_headers(
    State(state): State<AppState>,
    mut request: Request,
    next: Next,
) -> Response {
    let framed = is_frame_path(request.uri().path());
    if request.uri().path() == GATE_PATH {
        request
            .extensions_mut()
            .insert(app::frame::screens::gate::texts::GateTexts);
    }
    let framed_query = framed.then(|| request.uri().query().unwrap_or_default().to_owned());
    let nonce = CspNonce::new();
    request.extensions_mut().insert(nonce.clone());
    let (partner, session) = match framed_query {
        Some(query) => frame_partner(&state, &query).await.unwrap_or_else(|err| {
            tracing::warn!(error = ?err, "reading a frame's partner failed; framing refused");
            (None, None)
        }),
        None => (None, None),
    };
    let origins = partner
        .as_ref()
        .map(|client| client.frame_origins.clone())
        .unwrap_or_default();
    // The partner's look goes into the page's head as it is rendered (`frame.rs`).
    if let Some(look) = partner.as_ref().and_then(|client| client.theme.as_ref()) {
        request
            .extensions_mut()
            .insert(app::frame::ThemeStyle(theme::css::css(look)));
    }
    if let Some(session) = &session {
        match first_page(&state, request.uri(), request.headers(), session).await {
            Ok(Some(page)) => {
                request.extensions_mut().insert(page);
            }
            Ok(None) => {}
            Err(err) => tracing::warn!(error = ?err, "the frame's first page was not rendered"),
        }
    }
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        content_security_policy(&origins, &nonce),
    );
    response
}

/// The partner a frame page's query names (by its session code, or after the exchange by its
/// client id): whose origins may frame the page and whose look it has; and the code's session.
async fn frame_partner(
    state: &AppState,
    query: &str,
) -> Result<(Option<PartnerClient>, Option<Session>), Error> {
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        match key.as_ref() {
            "session_code" => {
                let Some(session) = state.store.session_by_code(&code_hash(&value)).await? else {
                    return Ok((None, None));
                };
                let client = client_of_session(state, &session).await?;
                return Ok((client, Some(session)));
            }
            "client_id" => {
                let client = state.store.partner_client_by_client_id(&value).await?;
                return Ok((client.map(|c| c.client), None));
            }
            _ => {}
        }
    }
    Ok((None, None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_names_the_origins_and_the_nonce_and_fails_closed() {
        let nonce = CspNonce::new();
        assert_eq!(nonce.0.len(), 32);
        assert_ne!(CspNonce::new(), nonce, "one per response");
        let framed = content_security_policy(
            &["https://shop.example".into(), "http://localhost:*".into()],
            &nonce,
        );
        assert_eq!(
            framed.to_str().unwrap(),
            format!(
                "frame-ancestors https://shop.example http://localhost:*; script-src 'self' \
                 'wasm-unsafe-eval' 'nonce-{}'; object-src 'none'; base-uri 'none'",
                nonce.0
            )
        );
        let alone = content_security_policy(&[], &nonce);
        assert!(alone
            .to_str()
            .unwrap()
            .starts_with("frame-ancestors 'none'; "));
        for broken in [
            "https://shop.example; script-src *",
            "https://shop.example\nx",
            "*",
            "https://a.example https://b.example",
        ] {
            assert_eq!(
                content_security_policy(&[broken.into()], &nonce),
                FAIL_CLOSED,
                "{broken:?}"
            );
        }
        assert!(!is_frame_path("/frames"));
        assert!(is_frame_path("/frame") && is_frame_path("/frame/orders"));
        assert!(!is_frame_path("/pay/x") && !is_frame_path("/prod/merchant/onboarding"));
    }
}
