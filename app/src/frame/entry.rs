//! How the frame starts in the browser: from a session code, a session kept in this tab (on a
//! reload of the same opening only), or the host's identity token; then it connects to the
//! host page and follows a deep link (`deep_link`).

/// Starts the session once the frame runs in the browser (never on the server render).
pub fn start_session() {
    #[cfg(feature = "hydrate")]
    browser::start();
}

#[cfg(feature = "hydrate")]
mod browser {
    use leptos::{prelude::*, task::spawn_local};
    use leptos_router::hooks::use_navigate;

    use crate::{
        frame::{
            api::Api,
            host::{self, Incoming, Outgoing},
            server::{client_origins, exchange_session_code, FrameExchange, FrameSession},
            session::{browser as stored, use_session, IdentityEntry, Opening, SessionState},
        },
        i18n::{use_i18n, Locale},
        wire::IdentityExchange,
    };

    /// Whether a state means the frame may talk to its host.
    fn connected(state: &SessionState) -> Option<&[String]> {
        match state {
            SessionState::Active(session) => Some(&session.frame_origins),
            SessionState::AwaitingIdentity(entry) => Some(&entry.frame_origins),
            _ => None,
        }
    }

    pub fn start() {
        let session = use_session();
        let i18n = use_i18n();
        let api = Api::new();
        let navigate = use_navigate();
        Effect::new(move |_| {
            if session.get_untracked() != SessionState::Pending {
                return;
            }
            let opening = stored::opening();
            let navigate = navigate.clone();
            spawn_local(async move {
                let state = begin(&opening).await;
                if let Some(origins) = connected(&state) {
                    if host::connect(origins) {
                        host::listen(move |message| match message {
                            Incoming::Locale { locale } => {
                                if let Ok(locale) = locale.parse::<Locale>() {
                                    i18n.set_locale(locale);
                                }
                            }
                            Incoming::IdentityToken { token } => {
                                spawn_local(exchange_identity(api, session, token));
                            }
                        });
                    }
                }
                let deep_link = matches!(state, SessionState::Active(_))
                    .then(|| opening.deep_link.clone())
                    .flatten();
                let ready = connected(&state).is_some();
                session.set(state);
                if ready {
                    host::post(&Outgoing::Ready);
                }
                if let Some(link) = deep_link {
                    link.follow(navigate);
                }
            });
        });
    }

    async fn begin(opening: &Opening) -> SessionState {
        if let Some(code) = opening.session_code.clone() {
            match exchange_session_code(code).await {
                Ok(FrameExchange::Ready(mut ready)) => {
                    ready.return_url = opening.return_url.clone();
                    ready.attribution = opening.attribution.clone();
                    stored::keep(&ready);
                    return SessionState::Active(*ready);
                }
                Ok(FrameExchange::Expired { frame_origins }) => {
                    stored::forget_stored();
                    stored::forget_code();
                    if host::connect(&frame_origins) {
                        host::post(&Outgoing::SessionExpired);
                    }
                    return SessionState::CodeExpired;
                }
                // A failed handoff leaves nothing to resume: whoever opened the frame with
                // this code is not shown an earlier customer's session.
                Ok(FrameExchange::Invalid) | Err(_) => {
                    stored::forget_stored();
                    stored::forget_code();
                    return SessionState::Missing;
                }
            }
        }
        if let Some(session) = stored::resumable(opening) {
            return SessionState::Active(session);
        }
        if let (Some(client_id), Some(campaign_id)) =
            (opening.client_id.clone(), opening.campaign_id)
        {
            if let Ok(Some(frame_origins)) = client_origins(client_id.clone()).await {
                return SessionState::AwaitingIdentity(IdentityEntry {
                    client_id,
                    campaign_id,
                    frame_origins,
                    return_url: opening.return_url.clone(),
                    attribution: opening.attribution.clone(),
                });
            }
        }
        SessionState::Missing
    }

    /// The identity bearer exchange: the host's token becomes this frame's session, in the
    /// campaign the frame was opened for.
    async fn exchange_identity(api: Api, session: RwSignal<SessionState>, token: String) {
        let (entry, campaign_id) = match session.get_untracked() {
            SessionState::Active(s) => match s.campaign_id {
                Some(campaign) => (
                    IdentityEntry {
                        client_id: s.client_id,
                        campaign_id: campaign,
                        frame_origins: s.frame_origins,
                        return_url: s.return_url,
                        attribution: s.attribution,
                    },
                    campaign,
                ),
                None => return,
            },
            SessionState::AwaitingIdentity(e) => {
                let campaign = e.campaign_id;
                (e, campaign)
            }
            _ => return,
        };
        let body = IdentityExchange {
            identity_token: token,
        };
        match api.exchange_identity(campaign_id, &body).await {
            Ok(issued) => {
                let active = FrameSession {
                    access_token: issued.access_token,
                    expires_at: issued.expires_at,
                    client_id: entry.client_id,
                    campaign_id: Some(campaign_id),
                    frame_origins: entry.frame_origins,
                    return_url: entry.return_url,
                    attribution: entry.attribution,
                };
                stored::keep(&active);
                session.set(SessionState::Active(active));
            }
            Err(_) => {
                if matches!(session.get_untracked(), SessionState::AwaitingIdentity(_)) {
                    stored::forget_stored();
                    session.set(SessionState::Missing);
                }
            }
        }
    }
}
