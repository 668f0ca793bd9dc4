//! The scanner's calls: the gate endpoints of `/v2` under a gate bearer, which it gets from
//! `/oauth/token` with the device's credential (HTTP Basic) as it needs one, keeps in memory
//! only, and gets again when it expires or is refused. The frame's `Api` is the customer
//! session's; a gate has none, so this is its own small client.

use std::{cell::RefCell, rc::Rc};

use base64::{engine::general_purpose::STANDARD, Engine};
use gloo_net::http::{Request, RequestBuilder, Response};
use serde::{de::DeserializeOwned, Deserialize};

use crate::wire::{
    BatchResults, Envelope, GateRefusal, IssuedToken, PairedDevice, PairingRequest, Redemption,
    RedemptionBatch, RedemptionRequest,
};

/// Why a call gave nothing.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// No answer: the network is down (or the server is).
    Offline,
    /// The device's credential is refused: the gate was revoked.
    Revoked,
    /// The API's problem: its type's name and the gate's members.
    Problem(String, GateRefusal),
    /// An answer that is none of the above.
    Unexpected,
}

/// A problem as the scanner reads it: its type and the gate's extension members.
#[derive(Deserialize)]
struct GateProblem {
    #[serde(rename = "type")]
    kind: String,
    #[serde(flatten)]
    members: GateRefusal,
}

/// One public key of `/.well-known/jwks.json`.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
pub struct Jwk {
    pub kid: String,
    pub kty: String,
    #[serde(default)]
    pub crv: Option<String>,
    #[serde(default)]
    pub x: Option<String>,
}

#[derive(Deserialize)]
struct Jwks {
    keys: Vec<Jwk>,
}

/// `POST /v2/gate-pairings`: the device's credential for a pairing code.
pub async fn pair(pairing_code: String) -> Result<PairedDevice, Failure> {
    let request = Request::post("/v2/gate-pairings")
        .header("Accept", "application/json")
        .json(&PairingRequest { pairing_code })
        .map_err(|_| Failure::Unexpected)?;
    data(answer(request).await?).await
}

/// `GET /.well-known/jwks.json`: the keys tokens and manifests are signed with.
pub async fn keys() -> Result<Vec<Jwk>, Failure> {
    let response = answer(
        Request::get("/.well-known/jwks.json")
            .build()
            .map_err(|_| Failure::Unexpected)?,
    )
    .await?;
    let jwks: Jwks = response.json().await.map_err(|_| Failure::Unexpected)?;
    Ok(jwks.keys)
}

/// A paired device's calls.
#[derive(Clone)]
pub struct GateClient {
    device: Rc<PairedDevice>,
    bearer: Rc<RefCell<Option<(String, f64)>>>,
}

impl GateClient {
    pub fn new(device: PairedDevice) -> Self {
        Self {
            device: Rc::new(device),
            bearer: Rc::default(),
        }
    }

    /// `POST /v2/redemptions`.
    pub async fn redeem(&self, request: &RedemptionRequest) -> Result<Redemption, Failure> {
        let response = self
            .authorized(|| Request::post("/v2/redemptions").json(request).ok())
            .await?;
        data(response).await
    }

    /// `POST /v2/redemptions/batch`.
    pub async fn upload(&self, batch: &RedemptionBatch) -> Result<BatchResults, Failure> {
        let response = self
            .authorized(|| Request::post("/v2/redemptions/batch").json(batch).ok())
            .await?;
        data(response).await
    }

    /// `GET /v2/gates/{gate_id}/manifest?date=`: the signed manifest, as it came.
    pub async fn manifest(&self, date: &str) -> Result<String, Failure> {
        let path = format!("/v2/gates/{}/manifest?date={date}", self.device.gate_id);
        let response = self
            .authorized(|| {
                Request::get(&path)
                    .header("Accept", "application/jose")
                    .build()
                    .ok()
            })
            .await?;
        response.text().await.map_err(|_| Failure::Unexpected)
    }

    /// Sends what `build` makes with a bearer; once more with a new bearer when it is refused
    /// (it expired, or the server's keys rotated).
    async fn authorized(&self, build: impl Fn() -> Option<Request>) -> Result<Response, Failure> {
        for attempt in 0..2 {
            let bearer = self.bearer(attempt > 0).await?;
            let request = build().ok_or(Failure::Unexpected)?;
            request
                .headers()
                .set("Authorization", &format!("Bearer {bearer}"));
            let response = request.send().await.map_err(|_| Failure::Offline)?;
            if response.status() != 401 {
                return checked(response).await;
            }
            *self.bearer.borrow_mut() = None;
        }
        Err(Failure::Revoked)
    }

    /// A gate bearer: the one kept unless `renew` or it is within a minute of expiring.
    async fn bearer(&self, renew: bool) -> Result<String, Failure> {
        let now = js_sys::Date::now();
        if let Some((token, until)) = self.bearer.borrow().clone() {
            if !renew && now < until {
                return Ok(token);
            }
        }
        let basic = STANDARD.encode(format!(
            "{}:{}",
            self.device.client_id, self.device.client_secret
        ));
        let request = RequestBuilder::new("/oauth/token")
            .method(gloo_net::http::Method::POST)
            .header("Authorization", &format!("Basic {basic}"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .header("Accept", "application/json")
            .body("grant_type=client_credentials")
            .map_err(|_| Failure::Unexpected)?;
        let response = request.send().await.map_err(|_| Failure::Offline)?;
        if matches!(response.status(), 400 | 401) {
            return Err(Failure::Revoked);
        }
        let issued: IssuedToken = checked(response)
            .await?
            .json()
            .await
            .map_err(|_| Failure::Unexpected)?;
        let until = now + (issued.expires_in.saturating_sub(60) as f64) * 1000.0;
        *self.bearer.borrow_mut() = Some((issued.access_token.clone(), until));
        Ok(issued.access_token)
    }
}

/// Sends an anonymous request.
async fn answer(request: Request) -> Result<Response, Failure> {
    checked(request.send().await.map_err(|_| Failure::Offline)?).await
}

/// A 2xx response, or the failure any other is.
async fn checked(response: Response) -> Result<Response, Failure> {
    if response.ok() {
        return Ok(response);
    }
    match response.json::<GateProblem>().await {
        Ok(problem) => Err(Failure::Problem(problem.kind, problem.members)),
        Err(_) => Err(Failure::Unexpected),
    }
}

/// The envelope's data of a 2xx response.
async fn data<T: DeserializeOwned>(response: Response) -> Result<T, Failure> {
    let envelope: Envelope<T> = response.json().await.map_err(|_| Failure::Unexpected)?;
    Ok(envelope.data)
}
