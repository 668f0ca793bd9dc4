//! The server's side of the hosted frame (`app::frame::server::FrameBackend`): its code
//! exchange (through the same credential logic as the headless exchange), a partner's frame
//! origins, the sandbox payment page's data behind its key, and ticket QR codes; plus its
//! server functions' input errors. Its headers are in `frame_headers`.

use app::frame::server::{BoxFuture, FrameBackend, FrameExchange, FrameSession, PaymentPage};
use axum::{
    extract::{Request, State},
    middleware::Next,
    response::{IntoResponse, Response},
};

use crate::{
    auth::codes::code_hash,
    credentials::sessions,
    error::{Error, ProblemType},
    state::AppState,
    store::{PartnerClient, Session},
};

/// Implements the frame's server functions over the application state.
pub struct ServerFrameBackend(pub AppState);

impl FrameBackend for ServerFrameBackend {
    fn exchange_code(&self, code: String) -> BoxFuture<Result<FrameExchange, String>> {
        let state = self.0.clone();
        Box::pin(async move {
            exchange(&state, &code).await.map_err(|err| {
                tracing::error!(error = ?err, "frame code exchange failed");
                "The session could not be started.".to_owned()
            })
        })
    }

    fn client_origins(&self, client_id: String) -> BoxFuture<Result<Option<Vec<String>>, String>> {
        let state = self.0.clone();
        Box::pin(async move {
            match state.store.partner_client_by_client_id(&client_id).await {
                Ok(client) => Ok(client.map(|c| c.client.frame_origins)),
                Err(err) => {
                    tracing::error!(error = ?err, "reading a frame's partner client failed");
                    Err("The partner could not be read.".to_owned())
                }
            }
        })
    }

    fn payment_page(
        &self,
        payment_id: uuid::Uuid,
        key: String,
    ) -> BoxFuture<Result<Option<PaymentPage>, String>> {
        let state = self.0.clone();
        Box::pin(async move {
            crate::sandbox::pay::payment_page(&state, payment_id, &key)
                .await
                .map_err(|err| {
                    tracing::error!(error = ?err, "reading a sandbox payment failed");
                    "The payment could not be read.".to_owned()
                })
        })
    }

    fn ticket_qr(&self, code: String) -> Result<Option<String>, String> {
        if !crate::display_code::is_plausible_ticket_code(&code) {
            return Ok(None);
        }
        crate::tickets::qr::svg(&code).map(Some).map_err(|err| {
            tracing::error!(error = ?err, "drawing a QR code failed");
            "The QR code could not be drawn.".to_owned()
        })
    }
}

async fn exchange(state: &AppState, code: &str) -> Result<FrameExchange, Error> {
    match sessions::exchange_for_frame(state, code).await {
        Ok((token, session)) => {
            let client = match session.partner_client_id {
                Some(id) => state.store.partner_client(id).await?,
                None => None,
            };
            Ok(FrameExchange::Ready(Box::new(FrameSession {
                access_token: token.access_token,
                expires_at: token.expires_at,
                client_id: client
                    .as_ref()
                    .map(|c| c.client_id.clone())
                    .unwrap_or_default(),
                campaign_id: session.campaign_id,
                frame_origins: client.map(|c| c.frame_origins).unwrap_or_default(),
                return_url: None,
                attribution: None,
            })))
        }
        Err(err) if err.kind() == ProblemType::SessionCodeExpired => Ok(FrameExchange::Expired {
            frame_origins: origins_of_code(state, code).await?,
        }),
        Err(err) if err.kind() == ProblemType::SessionCodeInvalid => Ok(FrameExchange::Invalid),
        Err(err) => Err(err),
    }
}

/// The frame origins of the partner whose session a code belongs to.
pub(crate) async fn origins_of_code(state: &AppState, code: &str) -> Result<Vec<String>, Error> {
    Ok(client_of_code(state, code)
        .await?
        .map(|c| c.frame_origins)
        .unwrap_or_default())
}

/// The partner client whose session a code belongs to.
pub(crate) async fn client_of_code(
    state: &AppState,
    code: &str,
) -> Result<Option<PartnerClient>, Error> {
    match state.store.session_by_code(&code_hash(code)).await? {
        Some(session) => client_of_session(state, &session).await,
        None => Ok(None),
    }
}

/// The partner client of a session (none for an identity session).
pub(crate) async fn client_of_session(
    state: &AppState,
    session: &Session,
) -> Result<Option<PartnerClient>, Error> {
    let Some(client_id) = session.partner_client_id else {
        return Ok(None);
    };
    Ok(state.store.partner_client(client_id).await?)
}

/// Leptos answers a server-function call whose arguments do not decode with a 500; that is the
/// caller's mistake, so it becomes `400 request-validation-failed`. The function's own failures
/// stay 500 (and the fallback renders them as `internal-error` without their text).
pub async fn server_fn_input_errors(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    if !response.headers().contains_key("serverfnerror") {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 64 * 1024).await else {
        return Error::new(ProblemType::InternalError, "").into_response();
    };
    let text = String::from_utf8_lossy(&bytes);
    let is_input_error = ["Args|", "Deserialization|", "MissingArg|"]
        .iter()
        .any(|prefix| text.starts_with(prefix));
    if is_input_error {
        let detail = text.split_once('|').map_or("", |(_, d)| d).to_owned();
        return Error::invalid_field("body", "invalid", detail).into_response();
    }
    Response::from_parts(parts, axum::body::Body::from(bytes))
}

/// The sandbox payment page (`GET /pay/{payment_id}?key=…`) is rendered only for its key: a
/// missing or wrong key, an unknown id and a switched-off sandbox answer `404 not-found`
/// before anything is rendered (`sandbox::pay`).
pub async fn payment_page_key(
    State(state): State<AppState>,
    request: Request,
    next: Next,
) -> Response {
    // The page's methods only: any other reaches the router, which answers 405 with `Allow`.
    let page = matches!(
        *request.method(),
        axum::http::Method::GET | axum::http::Method::HEAD
    );
    if let Some(rest) = request.uri().path().strip_prefix("/pay/").filter(|_| page) {
        let key = form_urlencoded::parse(request.uri().query().unwrap_or_default().as_bytes())
            .find(|(name, _)| *name == "key")
            .map(|(_, value)| value.into_owned());
        let opens = rest.parse::<uuid::Uuid>().is_ok_and(|payment_id| {
            crate::sandbox::pay::key_matches(&state, payment_id, key.as_deref())
        });
        if !opens {
            return crate::sandbox::pay::unknown().into_response();
        }
    }
    next.run(request).await
}
