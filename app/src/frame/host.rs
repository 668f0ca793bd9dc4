//! The frame's side of the host protocol (docs/webframe.md, messages): messages to the embedding page go
//! only to its exact origin, found among the partner's registered frame origins; messages from
//! it are accepted only from that origin. Never `*`.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::analytics::Analytics;
use crate::wire::origin_matches;

/// A message to the embedding page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum Outgoing {
    /// The frame is interactive and listening.
    #[serde(rename = "boxoffice:ready")]
    Ready,
    /// The frame document's height in CSS pixels, so the host can size the iframe to it.
    #[serde(rename = "boxoffice:resize")]
    Resize { height: u32 },
    /// The host must open `url` in its top window (the payment page).
    #[serde(rename = "boxoffice:redirect")]
    Redirect { url: String },
    /// The order is paid: what was bought (no personal data) and `receipt`, a JWS over it
    /// the host's page verifies with the server's JWKS (docs/webframe.md, "The receipt").
    #[serde(rename = "boxoffice:order-paid")]
    OrderPaid {
        order_id: Uuid,
        order_display_id: String,
        total: crate::wire::Money,
        lines: Vec<crate::wire::ReceiptLine>,
        /// Left out when the receipt could not be read.
        #[serde(skip_serializing_if = "Option::is_none")]
        receipt: Option<String>,
    },
    /// The session code or the bearer expired: the host reopens the frame with a fresh code.
    #[serde(rename = "boxoffice:session-expired")]
    SessionExpired,
    /// The reservation's hold ran out and its places went back; the frame keeps the
    /// customer's choice and offers to reserve it again.
    #[serde(rename = "boxoffice:hold-expired")]
    HoldExpired { checkout_id: Uuid },
    /// A step of the purchase funnel for the host's analytics (`frame::analytics`).
    #[serde(rename = "boxoffice:analytics")]
    Analytics(Analytics),
    /// Tickets of an order were cancelled or withdrawn from, on the manage page the frame's
    /// order screen opened in a panel (that server-rendered page posts this and the next one
    /// to the frame, which passes them on: `forward`; so they are not in the WASM). `reason`
    /// is the event's (`CUSTOMER`, `WITHDRAWAL`).
    #[cfg(feature = "ssr")]
    #[serde(rename = "boxoffice:order-cancelled")]
    OrderCancelled {
        order_id: Uuid,
        order_display_id: String,
        change_id: Uuid,
        ticket_ids: Vec<Uuid>,
        reason: String,
        refund: Option<crate::wire::Money>,
    },
    /// The visit moved: `ticket_ids` were replaced by `new_ticket_ids`, for `to`.
    #[cfg(feature = "ssr")]
    #[serde(rename = "boxoffice:order-rebooked")]
    OrderRebooked {
        order_id: Uuid,
        order_display_id: String,
        change_id: Uuid,
        ticket_ids: Vec<Uuid>,
        new_ticket_ids: Vec<Uuid>,
        to: VisitAt,
        refund: Option<crate::wire::Money>,
    },
}

/// Where a moved visit now is: its day, and its slot when the product has slots.
#[cfg(feature = "ssr")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct VisitAt {
    pub date: Option<chrono::NaiveDate>,
    pub timeslot_id: Option<Uuid>,
}

/// A message from the embedding page.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "type")]
pub enum Incoming {
    /// A retail partner's identity token for the identity bearer exchange.
    #[serde(rename = "boxoffice:identity-token")]
    IdentityToken { token: String },
    /// Switch the frame's language (`nl-NL`, `en-GB`, `de-DE` or `fr-FR`).
    #[serde(rename = "boxoffice:locale")]
    Locale { locale: String },
}

/// The first of `candidates` that one of the partner's `patterns` allows.
pub fn allowed_origin<'a>(
    patterns: &[String],
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<String> {
    candidates
        .into_iter()
        .find(|origin| patterns.iter().any(|p| origin_matches(p, origin)))
        .map(str::to_owned)
}

/// Posts a step of the purchase funnel to the host's analytics (nothing when no host is
/// connected).
pub fn track(event: Analytics) {
    post(&Outgoing::Analytics(event));
}

#[cfg(feature = "hydrate")]
pub use browser::{connect, forward, is_framed, listen, parent_origin_url, post};

/// Without a browser there is no host to talk to.
#[cfg(not(feature = "hydrate"))]
pub fn post(_message: &Outgoing) {}

/// Without a browser there is no host.
#[cfg(not(feature = "hydrate"))]
pub fn parent_origin_url() -> Option<String> {
    None
}

#[cfg(feature = "hydrate")]
mod browser {
    use std::cell::RefCell;

    use wasm_bindgen::{closure::Closure, JsCast};

    use super::{allowed_origin, Incoming, Outgoing};

    thread_local! {
        /// The embedding page's exact origin, once known and allowed.
        static PARENT: RefCell<Option<String>> = const { RefCell::new(None) };
        static LAST_HEIGHT: RefCell<u32> = const { RefCell::new(0) };
        static LISTENING: RefCell<bool> = const { RefCell::new(false) };
        static OBSERVER: RefCell<Option<web_sys::ResizeObserver>> = const { RefCell::new(None) };
    }

    /// The embedding page's origin: `location.ancestorOrigins` (Chromium, WebKit), else the
    /// referrer's origin (the frame's first load comes from the host page).
    fn parent_candidates(window: &web_sys::Window) -> Vec<String> {
        let mut candidates = Vec::new();
        // web-sys has no binding for `ancestorOrigins` (Firefox lacks it), so it is read by name.
        let first_ancestor = js_sys::Reflect::get(&window.location(), &"ancestorOrigins".into())
            .ok()
            .filter(|list| !list.is_undefined())
            .and_then(|list| js_sys::Reflect::get(&list, &0.into()).ok())
            .and_then(|origin| origin.as_string());
        candidates.extend(first_ancestor);
        if let Some(document) = window.document() {
            if let Ok(url) = web_sys::Url::new(&document.referrer()) {
                candidates.push(url.origin());
            }
        }
        candidates
    }

    fn framed_in(window: &web_sys::Window) -> bool {
        match (window.parent(), window.self_()) {
            (Ok(Some(parent)), me) => !js_sys::Object::is(&parent, &me),
            _ => false,
        }
    }

    /// Whether the frame runs inside another page.
    pub fn is_framed() -> bool {
        web_sys::window().is_some_and(|w| framed_in(&w))
    }

    /// The connected host's origin as a URL (`https://shop.example/`).
    pub fn parent_origin_url() -> Option<String> {
        PARENT.with(|p| p.borrow().as_ref().map(|origin| format!("{origin}/")))
    }

    /// Finds the host among the partner's origins; later messages go to it alone. Returns
    /// whether a host was found.
    pub fn connect(patterns: &[String]) -> bool {
        let Some(window) = web_sys::window() else {
            return false;
        };
        if !framed_in(&window) {
            return false;
        }
        let candidates = parent_candidates(&window);
        let found = allowed_origin(patterns, candidates.iter().map(String::as_str));
        let connected = found.is_some();
        PARENT.with(|p| *p.borrow_mut() = found);
        if connected {
            observe_height();
        }
        connected
    }

    /// Posts `message` to the host, if one is connected.
    pub fn post(message: &Outgoing) {
        let Some(origin) = PARENT.with(|p| p.borrow().clone()) else {
            return;
        };
        let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) else {
            return;
        };
        let Ok(text) = serde_json::to_string(message) else {
            return;
        };
        if let Ok(value) = js_sys::JSON::parse(&text) {
            let _ = parent.post_message(&value, &origin);
        }
    }

    /// Passes `message`, one the manage page inside the frame posted (`boxoffice:order-*`,
    /// `boxoffice:analytics`), on to the host, if one is connected.
    pub fn forward(message: &wasm_bindgen::JsValue) {
        let Some(origin) = PARENT.with(|p| p.borrow().clone()) else {
            return;
        };
        if let Some(parent) = web_sys::window().and_then(|w| w.parent().ok().flatten()) {
            let _ = parent.post_message(message, &origin);
        }
    }

    /// Calls `handle` with each well-formed message from the connected host.
    pub fn listen(handle: impl Fn(Incoming) + 'static) {
        if LISTENING.with(|l| l.replace(true)) {
            return;
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        let callback =
            Closure::<dyn Fn(web_sys::MessageEvent)>::new(move |event: web_sys::MessageEvent| {
                let from_host =
                    PARENT.with(|p| p.borrow().as_deref() == Some(event.origin().as_str()));
                let parent = web_sys::window().and_then(|w| w.parent().ok().flatten());
                let from_parent = match (event.source(), parent) {
                    (Some(source), Some(parent)) => js_sys::Object::is(&source, &parent),
                    _ => false,
                };
                if !from_host || !from_parent {
                    return;
                }
                let Some(text) = js_sys::JSON::stringify(&event.data())
                    .ok()
                    .and_then(|s| s.as_string())
                else {
                    return;
                };
                if let Ok(message) = serde_json::from_str::<Incoming>(&text) {
                    handle(message);
                }
            });
        let _ =
            window.add_event_listener_with_callback("message", callback.as_ref().unchecked_ref());
        callback.forget();
    }

    /// Reports the document's height whenever it changes, so the host can drop the iframe's
    /// own scroll bar.
    fn observe_height() {
        let Some(body) = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.body())
        else {
            return;
        };
        let report = move || {
            let Some(body) = web_sys::window()
                .and_then(|w| w.document())
                .and_then(|d| d.body())
            else {
                return;
            };
            let height = body.scroll_height().max(0) as u32;
            if LAST_HEIGHT.with(|h| h.replace(height)) != height {
                post(&Outgoing::Resize { height });
            }
        };
        report();
        let callback = Closure::<dyn Fn()>::new(report);
        if let Ok(observer) = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()) {
            observer.observe(&body);
            // Kept for the page's life: an observer nobody holds is collected and goes quiet.
            OBSERVER.with(|o| *o.borrow_mut() = Some(observer));
        }
        callback.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_allowed_candidate_wins() {
        let patterns = vec!["http://localhost:*".to_owned()];
        assert_eq!(
            allowed_origin(&patterns, ["http://127.0.0.2:9", "http://localhost:9"]),
            Some("http://localhost:9".to_owned())
        );
        assert_eq!(allowed_origin(&patterns, ["http://127.0.0.2:9"]), None);
    }

    #[test]
    fn messages_have_the_documented_shape() {
        let json = serde_json::to_value(Outgoing::Resize { height: 640 }).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "type": "boxoffice:resize", "height": 640 })
        );
        let json = serde_json::to_value(Outgoing::SessionExpired).unwrap();
        assert_eq!(
            json,
            serde_json::json!({ "type": "boxoffice:session-expired" })
        );
        let incoming: Incoming =
            serde_json::from_str(r#"{"type":"boxoffice:locale","locale":"de-DE"}"#).unwrap();
        assert_eq!(
            incoming,
            Incoming::Locale {
                locale: "de-DE".into()
            }
        );
    }
}
