//! Sessions: a partner backend starts one for its user and gets a one-time code; the code is
//! exchanged once for a public bearer, by the partner (headless) or by the hosted frame.

use app::wire::Prefill;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{client_auth, pkce, IssuedToken};
use crate::{
    auth::Authn,
    auth::{
        codes::{code_hash, new_code},
        tokens::PublicClaims,
        Audience,
    },
    error::{Error, ProblemType, Result},
    store::{
        CustomerDetails, CustomerKey, NewSession, PartnerClient, Redemption, Session, SessionMode,
        Store,
    },
    validate::Checks,
};

/// How the partner integrates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Integration {
    /// The partner's own frontend calls the API with the public bearer.
    Headless,
    /// The partner opens the hosted frame with the code.
    Webframe,
}

impl From<Integration> for SessionMode {
    fn from(integration: Integration) -> Self {
        match integration {
            Integration::Headless => SessionMode::Headless,
            Integration::Webframe => SessionMode::Webframe,
        }
    }
}

/// The partner's user the session is for.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionUser {
    /// The partner's stable id for its user.
    #[schema(max_length = 200, pattern = r"[^\s\u0085]|\ufeff")]
    pub reference: String,
    #[schema(format = Email, max_length = 254)]
    pub email: Option<String>,
    #[schema(max_length = 100)]
    pub first_name: Option<String>,
    #[schema(max_length = 100)]
    pub last_name: Option<String>,
    /// One of nl-NL, en-GB, de-DE, fr-FR.
    #[schema(pattern = "^(nl-NL|en-GB|de-DE|fr-FR)$")]
    pub locale: Option<String>,
    /// Fields the customer may not change at the checkout: any of `email`, `first_name`,
    /// `last_name`, each sent above. The frame shows them read-only and a checkout under this
    /// session's bearer with another value is refused (422 `checkout-field-locked`).
    #[serde(default)]
    #[schema(schema_with = lockable_fields)]
    pub locked: Vec<String>,
}

/// `#[schema(schema_with = lockable_fields)]`: each of `Prefill::FIELDS` at most once.
fn lockable_fields() -> utoipa::openapi::schema::ArrayBuilder {
    use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, Type};
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(Prefill::FIELDS)),
        )
        .unique_items(true)
}

impl SessionUser {
    /// What the session prefills at the checkout: the user's fields and those locked.
    fn prefill(&self) -> Prefill {
        let text = |value: &Option<String>| {
            value
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        Prefill {
            email: text(&self.email),
            first_name: text(&self.first_name),
            last_name: text(&self.last_name),
            locked: self.locked.clone(),
        }
    }
}

/// `POST /v1/session`.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct StartSession {
    pub integration: Integration,
    pub user: SessionUser,
    /// Ties the session to a campaign the client may use.
    pub campaign_id: Option<Uuid>,
    /// PKCE S256 challenge (headless only): the base64url SHA-256 of the verifier.
    #[schema(pattern = "^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$")]
    pub code_challenge: Option<String>,
    /// Must be `S256` when a challenge is sent.
    #[schema(pattern = "^S256$")]
    pub code_challenge_method: Option<String>,
}

/// The new session's code.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct StartedSession {
    /// Single use; expires at `code_expires_at`.
    pub session_code: String,
    pub code_expires_at: DateTime<Utc>,
    /// Always false: PKCE is optional in headless mode and unsupported in webframe mode.
    pub pkce_required: bool,
    /// Open this with `?session_code=…` (webframe only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frame_url: Option<String>,
}

fn validate(request: &StartSession) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("user.reference", &request.user.reference, 1, 200);
    if let Some(email) = &request.user.email {
        checks.email("user.email", email);
    }
    for (field, value) in [
        ("user.first_name", &request.user.first_name),
        ("user.last_name", &request.user.last_name),
    ] {
        if let Some(value) = value {
            checks.text(field, value, 0, 100);
        }
    }
    let prefill = request.user.prefill();
    checks.distinct(request.user.locked.iter(), |i| format!("user.locked[{i}]"));
    for (i, field) in request.user.locked.iter().enumerate() {
        let name = format!("user.locked[{i}]");
        if !Prefill::FIELDS.contains(&field.as_str()) {
            checks.fail(
                &name,
                "invalid",
                "a locked field is one of email, first_name, last_name",
            );
        } else if prefill.value(field).is_none() {
            checks.fail(
                &name,
                "required",
                format!("user.{field} must be sent to lock it"),
            );
        }
    }
    if let Some(locale) = &request.user.locale {
        checks.check(
            locale.parse::<app::wire::Locale>().is_ok(),
            "user.locale",
            "locale",
            "user.locale must be one of nl-NL, en-GB, de-DE, fr-FR",
        );
    }
    match (
        &request.code_challenge,
        request.code_challenge_method.as_deref(),
    ) {
        (None, None) => {}
        (Some(_), _) if request.integration == Integration::Webframe => checks.fail(
            "code_challenge",
            "unsupported",
            "PKCE is not supported in webframe mode",
        ),
        (Some(challenge), Some("S256")) => checks.check(
            pkce::is_valid_challenge(challenge),
            "code_challenge",
            "invalid",
            "code_challenge must be the base64url SHA-256 of the verifier (43 characters)",
        ),
        (Some(_), _) => checks.fail(
            "code_challenge_method",
            "unsupported",
            "code_challenge_method must be S256",
        ),
        (None, Some(_)) => checks.fail(
            "code_challenge",
            "required",
            "code_challenge_method was sent without a code_challenge",
        ),
    }
    checks.finish()
}

/// Starts a session for the partner's user and returns its one-time code.
pub async fn start(
    state: &Authn,
    client_id: &str,
    request: StartSession,
) -> Result<StartedSession> {
    validate(&request)?;
    let client = state
        .store
        .partner_client_by_client_id(client_id)
        .await?
        .map(|c| c.client)
        .ok_or_else(|| {
            Error::new(
                ProblemType::TokenInvalid,
                "The client of this token no longer exists.",
            )
        })?;
    if let Some(campaign_id) = request.campaign_id {
        check_campaign(state, &client, campaign_id).await?;
    }
    let user = &request.user;
    let customer_id = state
        .store
        .upsert_customer(
            CustomerKey::Partner {
                partner_client_id: client.partner_client_id,
                reference: user.reference.trim(),
            },
            &CustomerDetails {
                email: user.email.clone(),
                first_name: user.first_name.clone(),
                last_name: user.last_name.clone(),
                locale: user.locale.clone(),
            },
        )
        .await?;
    let code = new_code();
    let code_expires_at = Utc::now() + Duration::seconds(state.config.session_code_ttl_secs as i64);
    state
        .store
        .create_session(&NewSession {
            partner_session_id: crate::ids::random_id(),
            code_hash: code_hash(&code),
            partner_client_id: Some(client.partner_client_id),
            customer_id,
            campaign_id: request.campaign_id,
            mode: request.integration.into(),
            code_challenge: request.code_challenge.clone(),
            code_expires_at,
            redeemed_with: None,
            integrator_params: Default::default(),
            prefill: Some(user.prefill()),
        })
        .await?;
    Ok(StartedSession {
        session_code: code,
        code_expires_at,
        pkce_required: false,
        frame_url: (request.integration == Integration::Webframe)
            .then(|| format!("{}/frame", state.config.base_url())),
    })
}

/// What the session `session_id` prefills at the checkout (nothing without a session, and
/// nothing for an identity session).
pub async fn prefill(store: &dyn Store, session_id: Option<Uuid>) -> Result<Prefill> {
    let Some(session_id) = session_id else {
        return Ok(Prefill::default());
    };
    Ok(store
        .session(session_id)
        .await?
        .and_then(|s| s.prefill)
        .map(|p| p.0)
        .unwrap_or_default())
}

/// 404 when the campaign does not exist, 403 when the client may not use it.
pub async fn check_campaign(
    state: &Authn,
    client: &PartnerClient,
    campaign_id: Uuid,
) -> Result<()> {
    if state.store.campaign(campaign_id).await?.is_none() {
        return Err(Error::new(
            ProblemType::CampaignNotFound,
            format!("Campaign {campaign_id} is not configured."),
        ));
    }
    if !client.campaign_ids.contains(&campaign_id) {
        return Err(Error::new(
            ProblemType::Forbidden,
            format!("This client may not use campaign {campaign_id}."),
        ));
    }
    Ok(())
}

/// `POST /v1/session/token` and its RFC 6749 twin.
#[derive(Debug, Clone)]
pub struct CodeExchange {
    pub session_code: String,
    pub client_id: String,
    pub client_secret: String,
    pub code_verifier: Option<String>,
}

fn invalid_code() -> Error {
    Error::new(
        ProblemType::SessionCodeInvalid,
        "The session code is unknown, already used, or not this client's; start a new session.",
    )
    .with_oauth("invalid_grant")
}

/// A partner backend exchanges its session code (once) for a public bearer.
pub async fn exchange(state: &Authn, request: CodeExchange) -> Result<IssuedToken> {
    let client =
        client_auth::authenticate(state, &request.client_id, &request.client_secret).await?;
    let hash = code_hash(&request.session_code);
    let session = state
        .store
        .session_by_code(&hash)
        .await?
        .filter(|s| s.partner_client_id == Some(client.partner_client_id))
        .ok_or_else(invalid_code)?;
    // Told apart only for the partner whose code it is (to another it is unknown), and not
    // spent: the frame can still open with it.
    if session.mode == SessionMode::Webframe {
        return Err(Error::new(
            ProblemType::SessionCodeInvalid,
            "This is a webframe session code: the hosted frame redeems it (open {frame_url}?session_code=<code> in an iframe), not the partner at /v1/session/token. Start the session with \"integration\": \"headless\" to exchange its code yourself.",
        )
        .with_oauth("invalid_grant"));
    }
    let pkce_failed = |detail: &str| {
        Error::new(ProblemType::PkceVerificationFailed, detail.to_owned())
            .with_oauth("invalid_grant")
    };
    match (&session.code_challenge, &request.code_verifier) {
        (None, None) => {}
        (Some(challenge), Some(verifier)) if pkce::verifies(verifier, challenge) => {}
        (Some(_), Some(_)) => {
            return Err(pkce_failed(
                "The code_verifier does not match the session's code_challenge.",
            ))
        }
        (Some(_), None) => {
            return Err(pkce_failed(
                "This session was started with a code_challenge: send its code_verifier.",
            ))
        }
        (None, Some(_)) => {
            return Err(pkce_failed(
                "This session was started without a code_challenge; send no code_verifier.",
            ))
        }
    }
    redeem(state, &hash, Some(client.partner_client_id)).await
}

/// The hosted frame exchanges a webframe session code (once) for a public bearer.
pub async fn exchange_for_frame(
    state: &Authn,
    session_code: &str,
) -> Result<(IssuedToken, Session)> {
    let hash = code_hash(session_code);
    let token = redeem(state, &hash, None).await?;
    let session = state
        .store
        .session_by_code(&hash)
        .await?
        .ok_or_else(invalid_code)?;
    Ok((token, session))
}

async fn redeem(state: &Authn, hash: &[u8], client: Option<Uuid>) -> Result<IssuedToken> {
    let jti = crate::ids::random_id();
    match state
        .store
        .redeem_session_code(hash, client, jti, Utc::now())
        .await?
    {
        Redemption::Redeemed(session) => public_token(state, &session, jti).await,
        Redemption::Expired => Err(Error::new(
            ProblemType::SessionCodeExpired,
            "The session code has expired; start a new session.",
        )
        .with_oauth("invalid_grant")),
        Redemption::Replayed => {
            // Its bearer is revoked: at once on this node, on the others within the bound.
            state.auth.revoked();
            Err(invalid_code())
        }
        Redemption::Invalid => Err(invalid_code()),
    }
}

/// Signs the public bearer of a redeemed session; `jti` is the one the session recorded.
pub async fn public_token(state: &Authn, session: &Session, jti: Uuid) -> Result<IssuedToken> {
    let ttl = state.config.public_token_ttl_secs;
    let client_id = match session.partner_client_id {
        Some(id) => client_id_of(state, id).await?,
        None => String::new(),
    };
    let mut registered =
        state
            .tokens
            .registered(Audience::Public, session.customer_id.to_string(), ttl);
    registered.jti = jti;
    let expires_at = DateTime::from_timestamp(registered.exp, 0);
    let claims = PublicClaims {
        registered,
        sid: session.partner_session_id,
        client_id,
        campaign_id: session.campaign_id,
        mode: session.mode,
        integrator_params: session.integrator_params.0.clone(),
    };
    Ok(IssuedToken {
        access_token: state.tokens.sign(&claims)?,
        token_type: "Bearer".into(),
        expires_in: ttl,
        expires_at,
    })
}

async fn client_id_of(state: &Authn, partner_client_id: Uuid) -> Result<String> {
    state
        .store
        .partner_client(partner_client_id)
        .await?
        .map(|c| c.client_id)
        .ok_or_else(|| anyhow::anyhow!("session names a client that does not exist").into())
}
