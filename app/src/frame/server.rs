//! Everything the frame asks its own server, in one place: the port the server crate answers
//! (`FrameBackend`, implemented by `server/src/frame/backend.rs`), every server function and
//! their payloads. Server functions are the frame's exception: they exist only for what a
//! browser cannot do with the `/v2` API (`frame/api.rs`): redeeming the webframe code, a
//! partner's frame origins before there is a bearer (identity handoff), the sandbox payment
//! page's data, and drawing QR codes without adding a QR encoder to the WASM.

use leptos::prelude::*;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::wire::{Money, PaymentStatus};

/// A redeemed webframe session, as the frame needs it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameSession {
    pub access_token: String,
    pub expires_at: Option<chrono::DateTime<chrono::Utc>>,
    pub client_id: String,
    pub campaign_id: Option<Uuid>,
    /// The partner's registered origins: the only targets of the frame's postMessages.
    pub frame_origins: Vec<String>,
    /// Where the payment provider sends the customer back (the frame's `return_url`
    /// parameter); set in the browser, never by the server.
    #[serde(default)]
    pub return_url: Option<String>,
    /// Where the customer came from (the host page's `utm_*` and `ref`, the frame's own
    /// parameters); set in the browser and sent with every reservation.
    #[serde(default)]
    pub attribution: Option<crate::wire::Attribution>,
}

/// What exchanging a code gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum FrameExchange {
    Ready(Box<FrameSession>),
    /// The code was known but expired: the partner must reopen the frame with a fresh one.
    Expired {
        frame_origins: Vec<String>,
    },
    /// Unknown, already used, or not a webframe code.
    Invalid,
}

/// What the sandbox payment page shows of a payment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PaymentPage {
    pub payment_id: Uuid,
    pub order_display_id: String,
    pub amount: Money,
    pub status: PaymentStatus,
    /// The partner's return URL with `payment_id`, for a payment that is no longer open.
    pub back_url: String,
    /// Where the choice is posted: the page's own path with its key.
    pub action: String,
}

/// The server's side of the frame, provided as context by the server crate. Each method's
/// error is a text safe to show; the server logs the cause.
#[cfg(feature = "ssr")]
pub trait FrameBackend: Send + Sync {
    fn exchange_code(&self, code: String) -> BoxFuture<Result<FrameExchange, String>>;
    /// The registered frame origins of a partner client, `None` for an unknown client.
    fn client_origins(&self, client_id: String) -> BoxFuture<Result<Option<Vec<String>>, String>>;
    /// The sandbox payment page's view of a payment, `None` when it does not exist or `key`
    /// (from the page's URL) is not its key.
    fn payment_page(
        &self,
        payment_id: Uuid,
        key: String,
    ) -> BoxFuture<Result<Option<PaymentPage>, String>>;
    /// A ticket code's QR code as SVG; `None` when `code` cannot be a ticket code, so the
    /// endpoint is no general QR service.
    fn ticket_qr(&self, code: String) -> Result<Option<String>, String>;
}

#[cfg(feature = "ssr")]
pub type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;

#[cfg(feature = "ssr")]
fn backend() -> Result<std::sync::Arc<dyn FrameBackend>, ServerFnError> {
    use_context::<std::sync::Arc<dyn FrameBackend>>()
        .ok_or_else(|| ServerFnError::new("the frame backend is not configured"))
}

/// Exchanges a webframe session code, once, for the frame's public bearer.
#[server(prefix = "/frame/api", endpoint = "session")]
pub async fn exchange_session_code(code: String) -> Result<FrameExchange, ServerFnError> {
    backend()?
        .exchange_code(code)
        .await
        .map_err(ServerFnError::new)
}

/// The frame origins of a partner client, for a frame opened for the identity handoff.
#[server(prefix = "/frame/api", endpoint = "client")]
pub async fn client_origins(client_id: String) -> Result<Option<Vec<String>>, ServerFnError> {
    backend()?
        .client_origins(client_id)
        .await
        .map_err(ServerFnError::new)
}

/// The sandbox's view of a payment, for the payment's `key`.
#[server(prefix = "/frame/api", endpoint = "payment")]
pub async fn read_payment(
    payment_id: Uuid,
    key: String,
) -> Result<Option<PaymentPage>, ServerFnError> {
    backend()?
        .payment_page(payment_id, key)
        .await
        .map_err(ServerFnError::new)
}

/// The SVG QR code of a ticket's QR content, its signed token or its code (drawn on the
/// server: nothing is added to the WASM).
#[server(prefix = "/frame/api", endpoint = "qr")]
pub async fn ticket_qr(code: String) -> Result<String, ServerFnError> {
    backend()?
        .ticket_qr(code)
        .map_err(ServerFnError::new)?
        .ok_or_else(|| ServerFnError::Args("not a ticket code".into()))
}
