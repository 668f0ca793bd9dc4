use axum::http::StatusCode;
use serde::Serialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    crud::{found, no_store, NoStore},
    Admin,
};
use crate::{
    error::{Error, Result},
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    outbound::{self, OutboundPolicy, OutboundRefusal},
    secrets,
    state::AppState,
    store::{ClientSecrets, PartnerClient, PartnerClientInput},
    validate::Checks,
};

/// At most this many origins per list: a CSP header carries them all.
const MAX_ORIGINS: usize = 50;
const MAX_CAMPAIGNS: usize = 100;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_client, list_clients))
        .routes(routes!(get_client, update_client, delete_client))
        .routes(routes!(rotate_client_secret))
        .routes(routes!(rotate_webhook_secret))
}

/// A new client and the secrets that are shown only now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreatedPartnerClient {
    #[serde(flatten)]
    pub client: PartnerClient,
    /// The client secret. Shown only in this response: it is stored as a hash and cannot be
    /// read again, only rotated.
    pub client_secret: String,
    /// The Standard Webhooks signing secret (`whsec_…`), shown only here and on rotation.
    pub webhook_secret: String,
}

impl std::fmt::Debug for CreatedPartnerClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedPartnerClient")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// A rotated client secret, shown only in this response.
#[derive(Serialize, utoipa::ToSchema)]
pub struct IssuedClientSecret {
    pub partner_client_id: Uuid,
    pub client_id: String,
    /// The new secret; the previous one stopped working.
    pub client_secret: String,
}

/// A rotated webhook signing secret, shown only in this response.
#[derive(Serialize, utoipa::ToSchema)]
pub struct IssuedWebhookSecret {
    pub partner_client_id: Uuid,
    pub client_id: String,
    /// The new `whsec_…` secret; deliveries are signed with it from now on.
    pub webhook_secret: String,
}

impl std::fmt::Debug for IssuedClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedClientSecret")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

impl std::fmt::Debug for IssuedWebhookSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedWebhookSecret")
            .field("client_id", &self.client_id)
            .finish_non_exhaustive()
    }
}

fn normalize_and_validate(input: &mut PartnerClientInput, policy: OutboundPolicy) -> Result<()> {
    input.normalize();
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    if let Some(client_id) = &input.client_id {
        checks.identifier("client_id", client_id, 3, 64);
    }
    checks.check(
        input.campaign_ids.len() <= MAX_CAMPAIGNS,
        "campaign_ids",
        "too_many",
        format!("campaign_ids may hold at most {MAX_CAMPAIGNS} campaigns"),
    );
    checks.origins("frame_origins", &input.frame_origins, MAX_ORIGINS);
    checks.origins("return_origins", &input.return_origins, MAX_ORIGINS);
    if let Some(theme) = &input.theme {
        theme.check("theme", &mut checks);
    }
    if let Some(url) = &input.webhook_url {
        checks.http_url("webhook_url", url);
        if let Err(OutboundRefusal::NonPublic) = outbound::check_url(url, policy) {
            checks.fail(
                "webhook_url",
                "non_public_address",
                "webhook_url must not point to a loopback, private, link-local or otherwise non-public address",
            );
        }
    }
    checks.finish()
}

/// Creates a partner client. The response is the only place its secret is ever shown.
#[utoipa::path(post, path = "/admin/v1/clients",
    request_body = PartnerClientInput,
    responses((status = 201, body = inline(app::wire::Envelope<CreatedPartnerClient>), headers(("cache-control" = String, description = "no-store"))),
              Problem400,
              (status = 409, description = "The client_id is taken", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn create_client(
    Admin(state): Admin,
    ApiJson(mut input): ApiJson<PartnerClientInput>,
) -> Result<NoStore<CreatedPartnerClient>> {
    normalize_and_validate(&mut input, state.config.outbound())?;
    let client_id = input
        .client_id
        .clone()
        .unwrap_or_else(secrets::new_client_id);
    let client_secret = secrets::new_client_secret();
    let webhook_secret = secrets::new_webhook_secret();
    let stored = ClientSecrets {
        secret_hash: secrets::hash_secret(&client_secret),
        webhook_secret: webhook_secret.clone(),
    };
    let client = state
        .store
        .create_partner_client(crate::ids::random_id(), &client_id, &input, &stored)
        .await?;
    // A guest's return URL may have the origins of every client allowed the campaign.
    state.commerce.catalog.changed();
    Ok(no_store(Data::created(CreatedPartnerClient {
        client,
        client_secret,
        webhook_secret,
    })))
}

/// Reads a partner client (never its secrets).
#[utoipa::path(get, path = "/admin/v1/clients/{partner_client_id}",
    params(("partner_client_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<PartnerClient>)),
              Problem404))]
async fn get_client(
    Admin(state): Admin,
    ApiPath(partner_client_id): ApiPath<Uuid>,
) -> Result<Data<PartnerClient>> {
    found(
        state.store.partner_client(partner_client_id).await?,
        "The partner client",
    )
}

/// Replaces a partner client's writable fields and allowed campaigns. The client id and the
/// secrets stay; `client_id` may be repeated but not changed.
#[utoipa::path(put, path = "/admin/v1/clients/{partner_client_id}",
    params(("partner_client_id" = Uuid, Path)), request_body = PartnerClientInput,
    responses((status = 200, body = inline(app::wire::Envelope<PartnerClient>)),
              Problem400, Problem404))]
async fn update_client(
    Admin(state): Admin,
    ApiPath(partner_client_id): ApiPath<Uuid>,
    ApiJson(mut input): ApiJson<PartnerClientInput>,
) -> Result<Data<PartnerClient>> {
    normalize_and_validate(&mut input, state.config.outbound())?;
    if let Some(client_id) = &input.client_id {
        let current = state
            .store
            .partner_client(partner_client_id)
            .await?
            .ok_or_else(|| Error::not_found("The partner client"))?;
        if &current.client_id != client_id {
            return Err(Error::invalid_field(
                "client_id",
                "immutable",
                "client_id cannot be changed; partners authenticate with it",
            ));
        }
    }
    let client = state
        .store
        .update_partner_client(partner_client_id, &input)
        .await?;
    state.commerce.catalog.changed();
    state.authn.auth.revoked();
    found(client, "The partner client")
}

/// Deletes a partner client that has no customers, sessions or checkouts yet.
#[utoipa::path(delete, path = "/admin/v1/clients/{partner_client_id}",
    params(("partner_client_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"),
              Problem404,
              (status = 409, description = "The client is in use", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn delete_client(
    Admin(state): Admin,
    ApiPath(partner_client_id): ApiPath<Uuid>,
) -> Result<StatusCode> {
    if state.store.delete_partner_client(partner_client_id).await? {
        state.commerce.catalog.changed();
        state.authn.auth.revoked();
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(Error::not_found("The partner client"))
    }
}

/// Lists partner clients in id order, paged by cursor.
#[utoipa::path(get, path = "/admin/v1/clients",
    params(PageParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<PartnerClient>>)),
              Problem400))]
async fn list_clients(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Page<PartnerClient>> {
    paginate(
        &state.cursors,
        &params,
        "admin/clients",
        "",
        |c: &PartnerClient| c.partner_client_id,
        |after, limit| state.store.list_partner_clients(after, limit),
    )
    .await
}

/// Issues a new client secret; the old one stops working at once.
#[utoipa::path(post, path = "/admin/v1/clients/{partner_client_id}/secret",
    params(("partner_client_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<IssuedClientSecret>), headers(("cache-control" = String, description = "no-store"))),
              Problem404))]
async fn rotate_client_secret(
    Admin(state): Admin,
    ApiPath(partner_client_id): ApiPath<Uuid>,
) -> Result<NoStore<IssuedClientSecret>> {
    let secret = secrets::new_client_secret();
    let client_id = state
        .store
        .set_client_secret_hash(partner_client_id, &secrets::hash_secret(&secret))
        .await?
        .ok_or_else(|| Error::not_found("The partner client"))?;
    Ok(no_store(Data::ok(IssuedClientSecret {
        partner_client_id,
        client_id,
        client_secret: secret,
    })))
}

/// Issues a new webhook signing secret; deliveries are signed with it from now on.
#[utoipa::path(post, path = "/admin/v1/clients/{partner_client_id}/webhook-secret",
    params(("partner_client_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<IssuedWebhookSecret>), headers(("cache-control" = String, description = "no-store"))),
              Problem404))]
async fn rotate_webhook_secret(
    Admin(state): Admin,
    ApiPath(partner_client_id): ApiPath<Uuid>,
) -> Result<NoStore<IssuedWebhookSecret>> {
    let secret = secrets::new_webhook_secret();
    let client_id = state
        .store
        .set_webhook_secret(partner_client_id, &secret)
        .await?
        .ok_or_else(|| Error::not_found("The partner client"))?;
    Ok(no_store(Data::ok(IssuedWebhookSecret {
        partner_client_id,
        client_id,
        webhook_secret: secret,
    })))
}
