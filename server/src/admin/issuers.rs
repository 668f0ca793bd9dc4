use axum::http::StatusCode;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    crud::{deleted, found},
    Admin,
};
use crate::{
    auth::identity::{is_valid_api_key, MAX_API_KEY_LEN},
    error::Result,
    http::{
        cursor::{paginate, PageParams},
        envelope::{Data, Page},
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404},
    },
    outbound::{self, OutboundPolicy, OutboundRefusal},
    state::AppState,
    store::{IdentityIssuer, IdentityIssuerInput},
    validate::Checks,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_issuer, list_issuers))
        .routes(routes!(get_issuer, update_issuer, delete_issuer))
}

/// At most this many apiKeys and campaigns per issuer.
const MAX_API_KEYS: usize = 100;
const MAX_CAMPAIGNS: usize = 100;

fn normalize_and_validate(input: &mut IdentityIssuerInput, policy: OutboundPolicy) -> Result<()> {
    input.normalize();
    let mut checks = Checks::default();
    checks.text("issuer", &input.issuer, 1, 500);
    checks.jwks_url_template("jwks_url_template", &input.jwks_url_template);
    // The template filled with a sample key: a placeholder in the host is checked again,
    // filled, when the keys are fetched.
    let sample = input.jwks_url_template.replace("{apiKey}", "sample-key");
    if let Err(OutboundRefusal::NonPublic) = outbound::check_url(&sample, policy) {
        checks.fail(
            "jwks_url_template",
            "non_public_address",
            "jwks_url_template must not point to a loopback, private, link-local or otherwise non-public address",
        );
    }
    if let Some(audience) = &input.audience {
        checks.text("audience", audience, 1, 500);
    }
    if !input.jwks_url_template.contains("{apiKey}") {
        checks.check(
            input.api_keys.is_none(),
            "api_keys",
            "not_allowed",
            "api_keys is allowed only when jwks_url_template uses {apiKey}",
        );
    } else {
        match &input.api_keys {
            Some(keys) if !keys.is_empty() => {
                checks.check(
                    keys.len() <= MAX_API_KEYS,
                    "api_keys",
                    "too_many",
                    format!("api_keys may hold at most {MAX_API_KEYS} keys"),
                );
                for (i, key) in keys.iter().enumerate() {
                    checks.check(
                        is_valid_api_key(key),
                        &format!("api_keys[{i}]"),
                        "api_key",
                        format!(
                            "an apiKey is 1 to {MAX_API_KEY_LEN} letters, digits, '.', '_', '~' or '-'"
                        ),
                    );
                }
            }
            _ => checks.fail(
                "api_keys",
                "required",
                "api_keys must list the apiKeys to trust when jwks_url_template uses {apiKey}",
            ),
        }
    }
    checks.check(
        input.campaign_ids.len() <= MAX_CAMPAIGNS,
        "campaign_ids",
        "too_many",
        format!("campaign_ids may hold at most {MAX_CAMPAIGNS} campaigns"),
    );
    checks.finish()
}

/// Puts an identity provider on the allow-list of the identity bearer exchange.
#[utoipa::path(post, path = "/admin/v1/identity-issuers",
    request_body = IdentityIssuerInput,
    responses((status = 201, body = inline(app::wire::Envelope<IdentityIssuer>)),
              Problem400,
              (status = 409, description = "The issuer is already listed", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn create_issuer(
    Admin(state): Admin,
    ApiJson(mut input): ApiJson<IdentityIssuerInput>,
) -> Result<Data<IdentityIssuer>> {
    normalize_and_validate(&mut input, state.config.outbound())?;
    let issuer = state
        .store
        .create_identity_issuer(crate::ids::random_id(), &input)
        .await?;
    Ok(Data::created(issuer))
}

/// Reads an identity issuer.
#[utoipa::path(get, path = "/admin/v1/identity-issuers/{identity_issuer_id}",
    params(("identity_issuer_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<IdentityIssuer>)),
              Problem404))]
async fn get_issuer(
    Admin(state): Admin,
    ApiPath(identity_issuer_id): ApiPath<Uuid>,
) -> Result<Data<IdentityIssuer>> {
    found(
        state.store.identity_issuer(identity_issuer_id).await?,
        "The identity issuer",
    )
}

/// Replaces an identity issuer's fields.
#[utoipa::path(put, path = "/admin/v1/identity-issuers/{identity_issuer_id}",
    params(("identity_issuer_id" = Uuid, Path)), request_body = IdentityIssuerInput,
    responses((status = 200, body = inline(app::wire::Envelope<IdentityIssuer>)),
              Problem400, Problem404,
              (status = 409, description = "The issuer is already listed", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn update_issuer(
    Admin(state): Admin,
    ApiPath(identity_issuer_id): ApiPath<Uuid>,
    ApiJson(mut input): ApiJson<IdentityIssuerInput>,
) -> Result<Data<IdentityIssuer>> {
    normalize_and_validate(&mut input, state.config.outbound())?;
    found(
        state
            .store
            .update_identity_issuer(identity_issuer_id, &input)
            .await?,
        "The identity issuer",
    )
}

/// Takes an identity provider off the allow-list, unless customers came from it.
#[utoipa::path(delete, path = "/admin/v1/identity-issuers/{identity_issuer_id}",
    params(("identity_issuer_id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"),
              Problem404,
              (status = 409, description = "Customers came from this issuer", body = app::wire::Problem, content_type = "application/problem+json")))]
async fn delete_issuer(
    Admin(state): Admin,
    ApiPath(identity_issuer_id): ApiPath<Uuid>,
) -> Result<StatusCode> {
    deleted(
        state
            .store
            .delete_identity_issuer(identity_issuer_id)
            .await?,
        "The identity issuer",
    )
}

/// Lists identity issuers in id order, paged by cursor.
#[utoipa::path(get, path = "/admin/v1/identity-issuers",
    params(PageParams),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<IdentityIssuer>>)),
              Problem400))]
async fn list_issuers(
    Admin(state): Admin,
    ApiQuery(params): ApiQuery<PageParams>,
) -> Result<Page<IdentityIssuer>> {
    paginate(
        &state.cursors,
        &params,
        "admin/identity-issuers",
        "",
        |i: &IdentityIssuer| i.identity_issuer_id,
        |after, limit| state.store.list_identity_issuers(after, limit),
    )
    .await
}
