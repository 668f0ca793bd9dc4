//! `/admin/v1/merchants/{merchant_id}/gates` and `/admin/v1/gates/{gate_id}`: the operator
//! sets up a merchant's gates, hands out their pairing URLs, revokes them and reads the day's
//! entries (docs/gate.md). Thin: the rules are in `crate::gate`.

use app::wire::Redemption;
use axum::http::StatusCode;
use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{
    crud::{deleted, found, no_store, NoStore},
    Admin,
};
use crate::{
    error::{Error, Result},
    gate::{pairing::new_pairing, redemptions_of_day},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem404, Problem409},
    },
    secrets,
    state::AppState,
    store::{Gate, GateInput, GateSecrets},
    validate::Checks,
};

/// The prefix of a gate's own client id.
const GATE_CLIENT_PREFIX: &str = "gate_";
/// At most this many products per gate.
const MAX_PRODUCTS: usize = 200;
/// The largest margin a gate may give a slot, in minutes (twelve hours).
const MAX_MARGIN_MINUTES: u32 = 720;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(create_gate, list_gates))
        .routes(routes!(get_gate, update_gate, revoke_gate))
        .routes(routes!(new_pairing_url))
        .routes(routes!(gate_redemptions))
}

/// A new gate with its credentials, shown only now.
#[derive(Serialize, utoipa::ToSchema)]
pub struct CreatedGate {
    #[serde(flatten)]
    pub gate: Gate,
    /// Shown only in this response: stored as a hash.
    pub client_secret: String,
    /// Opened once on the gate's phone, it pairs the phone (single use, 24 hours).
    pub pairing_url: String,
}

/// A fresh pairing URL.
#[derive(Serialize, utoipa::ToSchema)]
pub struct IssuedPairing {
    pub gate_id: Uuid,
    pub pairing_url: String,
    pub expires_at: DateTime<Utc>,
}

fn validate(input: &GateInput) -> Result<()> {
    let mut checks = Checks::default();
    checks.text("name", &input.name, 1, 200);
    if let Some(ids) = &input.product_ids {
        checks.check(
            ids.len() <= MAX_PRODUCTS,
            "product_ids",
            "too_many",
            format!("a gate names at most {MAX_PRODUCTS} products"),
        );
        checks.distinct(ids.iter(), |i| format!("product_ids[{i}]"));
    }
    for (field, value) in [
        ("early_minutes", input.early_minutes),
        ("late_minutes", input.late_minutes),
    ] {
        checks.check(
            value.is_none_or(|v| v <= MAX_MARGIN_MINUTES),
            field,
            "range",
            format!("{field} is 0 to {MAX_MARGIN_MINUTES}"),
        );
    }
    checks.finish()
}

/// Creates a gate for a merchant: 201 with its client credentials and a pairing URL, shown
/// only now.
#[utoipa::path(post, path = "/admin/v1/merchants/{merchant_id}/gates",
    params(("merchant_id" = Uuid, Path)), request_body = GateInput,
    responses((status = 201, body = inline(app::wire::Envelope<CreatedGate>), headers(("cache-control" = String, description = "no-store"))),
              Problem400, Problem404))]
async fn create_gate(
    Admin(state): Admin,
    ApiPath(merchant_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<GateInput>,
) -> Result<NoStore<CreatedGate>> {
    validate(&input)?;
    if state.store.merchant(merchant_id).await?.is_none() {
        return Err(Error::not_found("The merchant"));
    }
    let client_id = secrets::new_gate_client_id(GATE_CLIENT_PREFIX);
    let client_secret = secrets::new_client_secret();
    let pairing = new_pairing(&state.config.base_url(), Utc::now());
    let stored = GateSecrets {
        secret_hash: secrets::hash_secret(&client_secret),
        pairing_hash: pairing.hash,
        pairing_expires_at: pairing.expires_at,
    };
    let gate = state
        .store
        .create_gate(
            crate::ids::random_id(),
            merchant_id,
            &client_id,
            &input,
            &stored,
        )
        .await?;
    Ok(no_store(Data::created(CreatedGate {
        gate,
        client_secret,
        pairing_url: pairing.url,
    })))
}

/// The merchant's gates, revoked ones included, oldest first.
#[utoipa::path(get, path = "/admin/v1/merchants/{merchant_id}/gates",
    params(("merchant_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Gate>>)),
              Problem404))]
async fn list_gates(
    Admin(state): Admin,
    ApiPath(merchant_id): ApiPath<Uuid>,
) -> Result<Data<Vec<Gate>>> {
    if state.store.merchant(merchant_id).await?.is_none() {
        return Err(Error::not_found("The merchant"));
    }
    Ok(Data::ok(state.store.gates_of_merchant(merchant_id).await?))
}

/// Reads a gate (never its secret).
#[utoipa::path(get, path = "/admin/v1/gates/{gate_id}",
    params(("gate_id" = Uuid, Path)),
    responses((status = 200, body = inline(app::wire::Envelope<Gate>)), Problem404))]
async fn get_gate(Admin(state): Admin, ApiPath(gate_id): ApiPath<Uuid>) -> Result<Data<Gate>> {
    found(state.store.gate(gate_id).await?, "The gate")
}

/// Replaces a gate's name, products and margins; its credentials stay. A revoked gate is 409.
#[utoipa::path(put, path = "/admin/v1/gates/{gate_id}",
    params(("gate_id" = Uuid, Path)), request_body = GateInput,
    responses((status = 200, body = inline(app::wire::Envelope<Gate>)),
              Problem400, Problem404, Problem409))]
async fn update_gate(
    Admin(state): Admin,
    ApiPath(gate_id): ApiPath<Uuid>,
    ApiJson(input): ApiJson<GateInput>,
) -> Result<Data<Gate>> {
    validate(&input)?;
    standing(state.store.gate(gate_id).await?)?;
    let gate = state.store.update_gate(gate_id, &input).await?;
    state.authn.auth.revoked();
    found(gate, "The gate")
}

/// Revokes a gate: its bearers, paired devices and pairing URL stop working at once; its
/// entries stay. Revoking again changes nothing.
#[utoipa::path(delete, path = "/admin/v1/gates/{gate_id}",
    params(("gate_id" = Uuid, Path)),
    responses((status = 204, description = "Revoked"), Problem404))]
async fn revoke_gate(Admin(state): Admin, ApiPath(gate_id): ApiPath<Uuid>) -> Result<StatusCode> {
    let revoked = state.store.revoke_gate(gate_id, Utc::now()).await?;
    state.authn.auth.revoked();
    deleted(revoked, "The gate")
}

/// A new one-time pairing URL for another device (single use, 24 hours); the gate's earlier
/// unused one stops working.
#[utoipa::path(post, path = "/admin/v1/gates/{gate_id}/pairing",
    params(("gate_id" = Uuid, Path)),
    responses((status = 201, body = inline(app::wire::Envelope<IssuedPairing>), headers(("cache-control" = String, description = "no-store"))),
              Problem404, Problem409))]
async fn new_pairing_url(
    Admin(state): Admin,
    ApiPath(gate_id): ApiPath<Uuid>,
) -> Result<NoStore<IssuedPairing>> {
    standing(state.store.gate(gate_id).await?)?;
    let pairing = new_pairing(&state.config.base_url(), Utc::now());
    if !state
        .store
        .set_gate_pairing(gate_id, &pairing.hash, pairing.expires_at)
        .await?
    {
        return Err(revoked());
    }
    Ok(no_store(Data::created(IssuedPairing {
        gate_id,
        pairing_url: pairing.url,
        expires_at: pairing.expires_at,
    })))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DayQuery {
    /// The day, on the merchant's calendar (YYYY-MM-DD).
    date: NaiveDate,
}

/// The gate's entries, undos and conflicts of a day (the merchant's calendar), in the order
/// the visitors went in.
#[utoipa::path(get, path = "/admin/v1/gates/{gate_id}/redemptions",
    params(("gate_id" = Uuid, Path), DayQuery),
    responses((status = 200, body = inline(app::wire::Envelope<Vec<Redemption>>)),
              Problem400, Problem404))]
async fn gate_redemptions(
    Admin(state): Admin,
    ApiPath(gate_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<DayQuery>,
) -> Result<Data<Vec<Redemption>>> {
    if state.store.gate(gate_id).await?.is_none() {
        return Err(Error::not_found("The gate"));
    }
    Ok(Data::ok(
        redemptions_of_day(&state.gates(), gate_id, query.date).await?,
    ))
}

/// The gate, unless it is gone or revoked.
fn standing(gate: Option<Gate>) -> Result<Gate> {
    match gate {
        None => Err(Error::not_found("The gate")),
        Some(g) if g.revoked_at.is_some() => Err(revoked()),
        Some(g) => Ok(g),
    }
}

fn revoked() -> Error {
    Error::new(
        app::wire::ProblemType::Conflict,
        "The gate is revoked; create a new gate.",
    )
}
