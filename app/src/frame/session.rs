//! The frame's session: the hosted UI exchanges the one-time code from its URL for a public
//! bearer through a server function (so the exchange logic stays in the server), keeps the
//! bearer in memory and sessionStorage only, and takes the code out of the address bar.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// A redeemed webframe session, as the frame needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameSession {
    pub access_token: String,
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    pub client_id: String,
    pub campaign_id: Option<uuid::Uuid>,
    /// The partner's registered origins: the only targets of the frame's postMessages.
    pub frame_origins: Vec<String>,
}

/// What exchanging a code gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FrameExchange {
    Ready(FrameSession),
    /// The code was known but expired: the partner must reopen the frame with a fresh one.
    Expired {
        frame_origins: Vec<String>,
    },
    /// Unknown, already used, or not a webframe code.
    Invalid,
}

/// The server's side of the frame, provided as context by the server crate.
#[cfg(feature = "ssr")]
pub trait FrameBackend: Send + Sync {
    fn exchange_code(
        &self,
        code: String,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<FrameExchange, String>> + Send>>;
}

/// Exchanges a webframe session code, once, for the frame's public bearer.
#[server(prefix = "/frame/api", endpoint = "session")]
pub async fn exchange_session_code(code: String) -> Result<FrameExchange, ServerFnError> {
    let backend = use_context::<std::sync::Arc<dyn FrameBackend>>()
        .ok_or_else(|| ServerFnError::new("the frame backend is not configured"))?;
    backend
        .exchange_code(code)
        .await
        .map_err(ServerFnError::new)
}

/// Where the session stands in the browser.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionState {
    /// Not looked at yet (server render and the first moment after hydration).
    Pending,
    Active(FrameSession),
    Expired,
    Missing,
}

/// The frame's session signal.
pub fn use_session() -> RwSignal<SessionState> {
    expect_context::<RwSignal<SessionState>>()
}

pub fn provide_session() {
    provide_context(RwSignal::new(SessionState::Pending));
}

#[cfg(feature = "hydrate")]
mod browser {
    use super::*;

    const STORAGE_KEY: &str = "boxoffice.session";

    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.session_storage().ok().flatten()
    }

    /// A session kept in this tab from before (a reload), if it has not expired.
    pub fn stored() -> Option<FrameSession> {
        let text = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
        let session: FrameSession = serde_json::from_str(&text).ok()?;
        let live = session.expires_at.is_none_or(|at| at > chrono::Utc::now());
        live.then_some(session)
    }

    pub fn store(session: &FrameSession) {
        if let (Some(storage), Ok(text)) = (storage(), serde_json::to_string(session)) {
            let _ = storage.set_item(STORAGE_KEY, &text);
        }
    }

    /// The `session_code` query parameter, if any.
    pub fn code_in_url() -> Option<String> {
        let search = web_sys::window()?.location().search().ok()?;
        web_sys::UrlSearchParams::new_with_str(&search)
            .ok()?
            .get("session_code")
    }

    /// Replaces the address without the code; the client id stays so a reload is framed
    /// under the same partner's origins.
    pub fn forget_code(client_id: Option<&str>) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let path = window
            .location()
            .pathname()
            .unwrap_or_else(|_| "/frame".into());
        let url = match client_id {
            Some(id) => format!(
                "{path}?client_id={}",
                String::from(js_sys::encode_uri_component(id))
            ),
            None => path,
        };
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
        }
    }

    /// Tells the embedding page, at each registered origin, and never `*`.
    pub fn post_to_parent(message: &serde_json::Value, origins: &[String]) {
        let Some(window) = web_sys::window() else {
            return;
        };
        let Ok(Some(parent)) = window.parent() else {
            return;
        };
        let Ok(value) = serde_wasm_bindgen::to_value(message) else {
            return;
        };
        for origin in origins.iter().filter(|o| !o.contains('*')) {
            let _ = parent.post_message(&value, origin);
        }
    }
}

/// Starts the session once the frame runs in the browser: a code in the URL is exchanged
/// (and removed from the address bar), else a session kept in this tab is resumed.
pub fn start_session() {
    #[cfg(feature = "hydrate")]
    {
        let session = use_session();
        Effect::new(move |_| {
            if session.get_untracked() != SessionState::Pending {
                return;
            }
            let Some(code) = browser::code_in_url() else {
                session.set(browser::stored().map_or(SessionState::Missing, SessionState::Active));
                return;
            };
            leptos::task::spawn_local(async move {
                match exchange_session_code(code).await {
                    Ok(FrameExchange::Ready(ready)) => {
                        browser::store(&ready);
                        browser::forget_code(Some(&ready.client_id));
                        browser::post_to_parent(
                            &serde_json::json!({ "type": "boxoffice:ready" }),
                            &ready.frame_origins,
                        );
                        session.set(SessionState::Active(ready));
                    }
                    Ok(FrameExchange::Expired { frame_origins }) => {
                        browser::forget_code(None);
                        browser::post_to_parent(
                            &serde_json::json!({ "type": "boxoffice:session-expired" }),
                            &frame_origins,
                        );
                        session.set(SessionState::Expired);
                    }
                    Ok(FrameExchange::Invalid) | Err(_) => {
                        browser::forget_code(None);
                        session.set(
                            browser::stored().map_or(SessionState::Missing, SessionState::Active),
                        );
                    }
                }
            });
        });
    }
}
