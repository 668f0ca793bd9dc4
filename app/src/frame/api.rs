//! The frame's client of the `/v2` API: the same calls a headless partner's frontend makes,
//! with the session's bearer, its campaign and the frame's language. A 401 ends the session
//! (the frame shows the expired screen and tells the host).

use leptos::prelude::*;
use serde::{de::DeserializeOwned, Serialize};

use super::{
    host::{self, Outgoing},
    session::{use_session, SessionState},
};
use crate::{
    i18n::{use_i18n, Locale},
    wire::{Envelope, Problem, ProblemType},
};

/// Why a call gave no data.
#[derive(Debug, Clone, PartialEq)]
pub enum ApiError {
    /// The API answered with a problem (other than an expired bearer).
    Problem(Problem),
    /// The bearer expired or was revoked: the session is over.
    Expired,
    /// No answer, or one that was not ours.
    Network,
}

impl ApiError {
    pub fn problem(&self) -> Option<&Problem> {
        match self {
            ApiError::Problem(problem) => Some(problem),
            _ => None,
        }
    }

    /// The problem's type, when the API answered with one of ours.
    pub fn problem_type(&self) -> Option<ProblemType> {
        self.problem().and_then(Problem::problem_type)
    }

    /// Whether the API answered with this problem.
    pub fn is(&self, kind: ProblemType) -> bool {
        self.problem_type() == Some(kind)
    }
}

/// A handle on the API for this frame; cheap to copy into async blocks.
#[derive(Clone, Copy)]
pub struct Api {
    session: RwSignal<SessionState>,
    // Sent as Accept-Language; only the browser sends requests.
    #[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
    locale: Signal<Locale>,
}

impl Api {
    pub fn new() -> Self {
        let i18n = use_i18n();
        Self {
            session: use_session(),
            locale: Signal::derive(move || i18n.get_locale()),
        }
    }

    /// `GET path` (with its query).
    pub async fn get<T: DeserializeOwned>(self, path: String) -> Result<Envelope<T>, ApiError> {
        self.send::<(), T>("GET", path, None, None)
            .await?
            .ok_or(ApiError::Network)
    }

    /// `POST path` with a JSON body.
    pub async fn post<B: Serialize, T: DeserializeOwned>(
        self,
        path: String,
        body: &B,
    ) -> Result<Envelope<T>, ApiError> {
        self.send("POST", path, Some(body), None)
            .await?
            .ok_or(ApiError::Network)
    }

    /// `POST path` for another campaign than the session's (the identity exchange).
    pub async fn post_in_campaign<B: Serialize, T: DeserializeOwned>(
        self,
        path: String,
        body: &B,
        campaign: uuid::Uuid,
    ) -> Result<Envelope<T>, ApiError> {
        self.send("POST", path, Some(body), Some(campaign))
            .await?
            .ok_or(ApiError::Network)
    }

    /// `DELETE path`; the answer (204) has no body.
    pub async fn delete(self, path: String) -> Result<(), ApiError> {
        self.send::<(), serde_json::Value>("DELETE", path, None, None)
            .await
            .map(|_| ())
    }

    /// `POST path` without a body, for an answer without one (`202 Accepted`).
    pub async fn post_empty(self, path: String) -> Result<(), ApiError> {
        self.answer::<()>("POST", path, None, None)
            .await
            .map(|_| ())
    }

    /// `GET path` for a file (not JSON): its bytes. With the bearer in the header like every
    /// call, so a download never puts the bearer in a URL.
    pub async fn download(self, path: String) -> Result<Vec<u8>, ApiError> {
        #[cfg(feature = "hydrate")]
        {
            let response = self.answer::<()>("GET", path, None, None).await?;
            response.binary().await.map_err(|_| ApiError::Network)
        }
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = path;
            Err(ApiError::Network)
        }
    }

    /// Sends the call; the envelope of a 2xx answer, `None` for a 204.
    #[cfg(feature = "hydrate")]
    async fn send<B: Serialize, T: DeserializeOwned>(
        self,
        method: &str,
        path: String,
        body: Option<&B>,
        campaign: Option<uuid::Uuid>,
    ) -> Result<Option<Envelope<T>>, ApiError> {
        let response = self.answer(method, path, body, campaign).await?;
        if response.status() == 204 {
            return Ok(None);
        }
        response
            .json()
            .await
            .map(Some)
            .map_err(|_| ApiError::Network)
    }

    /// Sends the call; its 2xx response, or the problem of any other (a 401 ends the session).
    #[cfg(feature = "hydrate")]
    async fn answer<B: Serialize>(
        self,
        method: &str,
        path: String,
        body: Option<&B>,
        campaign: Option<uuid::Uuid>,
    ) -> Result<gloo_net::http::Response, ApiError> {
        use gloo_net::http::{Method, RequestBuilder};

        let session = self.session.get_untracked();
        let active = session.active();
        let method = match method {
            "POST" => Method::POST,
            "DELETE" => Method::DELETE,
            _ => Method::GET,
        };
        let mut request = RequestBuilder::new(&path)
            .method(method)
            .header("Accept", "application/json")
            .header(
                "Accept-Language",
                super::language::to_wire(self.locale.get_untracked()).tag(),
            );
        if let Some(session) = active {
            request = request.header("Authorization", &format!("Bearer {}", session.access_token));
        }
        if let Some(campaign) = campaign.or_else(|| active.and_then(|s| s.campaign_id)) {
            request = request.header("x-campaign-id", &campaign.to_string());
        }
        let sent = match body {
            Some(body) => {
                request
                    .json(body)
                    .map_err(|_| ApiError::Network)?
                    .send()
                    .await
            }
            None => request.send().await,
        };
        let response = sent.map_err(|_| ApiError::Network)?;
        if response.ok() {
            return Ok(response);
        }
        if response.status() == 401 && active.is_some() {
            self.end_session();
            return Err(ApiError::Expired);
        }
        match response.json::<Problem>().await {
            Ok(problem) => Err(ApiError::Problem(problem)),
            Err(_) => Err(ApiError::Network),
        }
    }

    /// The server never runs the frame's API calls.
    #[cfg(not(feature = "hydrate"))]
    async fn answer<B: Serialize>(
        self,
        _method: &str,
        _path: String,
        _body: Option<&B>,
        _campaign: Option<uuid::Uuid>,
    ) -> Result<(), ApiError> {
        Err(ApiError::Network)
    }

    /// The server never runs the frame's API calls: its render shows each screen loading.
    #[cfg(not(feature = "hydrate"))]
    async fn send<B: Serialize, T: DeserializeOwned>(
        self,
        _method: &str,
        _path: String,
        _body: Option<&B>,
        _campaign: Option<uuid::Uuid>,
    ) -> Result<Option<Envelope<T>>, ApiError> {
        Err(ApiError::Network)
    }

    /// The bearer is no longer accepted: forget it, show the expired screen, tell the host.
    pub fn end_session(self) {
        #[cfg(feature = "hydrate")]
        super::session::browser::forget_stored();
        self.session.set(SessionState::BearerExpired);
        host::post(&Outgoing::SessionExpired);
    }
}

impl Default for Api {
    fn default() -> Self {
        Self::new()
    }
}

/// Percent-encodes a query value.
pub fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            super::encode("Den Haag & co/ü"),
            "Den%20Haag%20%26%20co%2F%C3%BC"
        );
    }
}
