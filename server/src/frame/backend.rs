//! The frame's server functions, answered (`app::frame::server::FrameBackend`): the code
//! exchange (through the same credential logic as the headless exchange), a partner's frame
//! origins, the sandbox payment page's data behind its key, and ticket QR codes.

use app::frame::server::{BoxFuture, FrameBackend, FrameExchange, FrameSession, PaymentPage};

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
        if !crate::display_code::is_plausible_ticket_code(&code)
            && !crate::gate::code::looks_like_token(&code)
        {
            return Ok(None);
        }
        crate::tickets::qr::svg(&code).map(Some).map_err(|err| {
            tracing::error!(error = ?err, "drawing a QR code failed");
            "The QR code could not be drawn.".to_owned()
        })
    }
}

async fn exchange(state: &AppState, code: &str) -> Result<FrameExchange, Error> {
    match sessions::exchange_for_frame(&state.authn, code).await {
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
