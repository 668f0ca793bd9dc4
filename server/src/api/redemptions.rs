//! `/v2/redemptions` and `/v2/gate-pairings`: a gate lets tickets in, online and offline,
//! and a device pairs itself with a gate (docs/gate.md). Thin: the rules are in `crate::gate`.

use app::wire::{
    BatchResults, Envelope, PairedDevice, PairingRequest, Redemption, RedemptionBatch,
    RedemptionRequest,
};
use axum::{extract::State, http::StatusCode};
use chrono::Utc;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use crate::{
    auth::GateUser,
    error::Result,
    gate::{manifest, offline, pairing, redeem, undo},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem401, Problem404, Problem409},
    },
    state::AppState,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(redeem_ticket))
        .routes(routes!(upload_offline_scans))
        .routes(routes!(undo_redemption))
        .routes(routes!(pair_device))
        .routes(routes!(gate_manifest))
}

#[derive(Debug, serde::Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ManifestQuery {
    /// The day, on the merchant's calendar (YYYY-MM-DD).
    date: chrono::NaiveDate,
}

/// The gate's offline manifest of a day: a compact JWS (EdDSA, `kid` in its header, the keys
/// at `/.well-known/jwks.json`) over `{gate_id, date, iat, revoked, used}`, the revoked and used
/// tickets of that day for the gate's products, each named by the first 16 bytes of the
/// SHA-256 of its printed code (base64url). Served as `application/jose`, not in the
/// envelope. Only the gate itself reads it (another gate's: 404).
#[utoipa::path(get, path = "/v2/gates/{gate_id}/manifest", tag = "gates",
    security(("gate_bearer" = [])),
    params(("gate_id" = Uuid, Path), ManifestQuery),
    responses((status = 200, content_type = "application/jose", body = String),
              Problem400, Problem401, Problem404))]
async fn gate_manifest(
    GateUser { gate }: GateUser,
    State(state): State<AppState>,
    ApiPath(gate_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<ManifestQuery>,
) -> Result<axum::response::Response> {
    use axum::response::IntoResponse;
    if gate_id != gate.gate_id {
        return Err(crate::error::Error::not_found("The gate"));
    }
    let jws = manifest::manifest(&state.gates(), &gate, query.date, Utc::now()).await?;
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, "application/jose"),
            (axum::http::header::CACHE_CONTROL, "no-store"),
        ],
        jws,
    )
        .into_response())
}

/// Lets the scanned ticket in: 201 with the entry. The same `nonce` again with the same code
/// answers 208 with the first answer; with another code 409 `nonce-reused`. Refusals, in this
/// order: 404 `ticket-unknown` (no ticket of this merchant has the code), 409
/// `ticket-cancelled`, 409 `ticket-already-redeemed` (`first_redeemed_at`, `gate_id`), 409
/// `ticket-wrong-gate`, 409 `ticket-not-valid-now` (`valid_from`, `valid_until`). Emits
/// `tickets.TicketRedeemed`.
#[utoipa::path(post, path = "/v2/redemptions", tag = "gates",
    security(("gate_bearer" = [])),
    request_body = RedemptionRequest,
    responses((status = 201, body = inline(Envelope<Redemption>)),
              (status = 208, body = inline(Envelope<Redemption>), description = "The same scan again (same nonce and code): the first answer"),
              Problem400, Problem401, Problem404, Problem409))]
async fn redeem_ticket(
    GateUser { gate }: GateUser,
    State(state): State<AppState>,
    ApiJson(request): ApiJson<RedemptionRequest>,
) -> Result<Data<Redemption>> {
    Ok(
        match redeem::redeem(&state.gates(), &gate, &request, Utc::now()).await? {
            redeem::Redeemed::Created(entry) => Data::created(entry),
            redeem::Redeemed::Replayed(entry) => {
                Data::with_status(StatusCode::ALREADY_REPORTED, entry)
            }
        },
    )
}

/// Uploads the scans an offline gate made: each judged at its `scanned_at` and kept under its
/// nonce (an upload sent again answers the same). A second entry of a used ticket is a
/// CONFLICT, kept and sent as `tickets.RedemptionConflict`; other refusals are REFUSED with
/// their problem.
#[utoipa::path(post, path = "/v2/redemptions/batch", tag = "gates",
    security(("gate_bearer" = [])),
    request_body = RedemptionBatch,
    responses((status = 200, body = inline(Envelope<BatchResults>)),
              Problem400, Problem401))]
async fn upload_offline_scans(
    GateUser { gate }: GateUser,
    State(state): State<AppState>,
    ApiJson(batch): ApiJson<RedemptionBatch>,
) -> Result<Data<BatchResults>> {
    let results = offline::upload(&state.gates(), &gate, &batch, Utc::now()).await?;
    Ok(Data::ok(BatchResults { results }))
}

/// Takes a mistaken entry back, by the gate that made it within 10 minutes: the ticket is
/// valid again (`tickets.RedemptionUndone`). Another gate's entry, or later: 409
/// `redemption-not-undoable`.
#[utoipa::path(delete, path = "/v2/redemptions/{redemption_id}", tag = "gates",
    security(("gate_bearer" = [])),
    params(("redemption_id" = Uuid, Path)),
    responses((status = 204, description = "Undone"),
              Problem401, Problem404, Problem409))]
async fn undo_redemption(
    GateUser { gate }: GateUser,
    State(state): State<AppState>,
    ApiPath(redemption_id): ApiPath<Uuid>,
) -> Result<StatusCode> {
    undo::undo(&state.gates(), &gate, redemption_id, Utc::now()).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Pairs a device with a gate by the code of the gate's one-time pairing URL (single use,
/// 24 hours): 201 with the device's own client credentials, shown once, good until the gate
/// is revoked. 400 `gate-pairing-invalid` for a code unknown, used or expired.
#[utoipa::path(post, path = "/v2/gate-pairings", tag = "gates",
    request_body = PairingRequest,
    responses((status = 201, body = inline(Envelope<PairedDevice>), headers(("cache-control" = String, description = "no-store"))),
              Problem400))]
async fn pair_device(
    State(state): State<AppState>,
    ApiJson(request): ApiJson<PairingRequest>,
) -> Result<(
    [(axum::http::HeaderName, &'static str); 1],
    Data<PairedDevice>,
)> {
    let device = pairing::pair(&state.gates(), &request.pairing_code, Utc::now()).await?;
    Ok((
        [(axum::http::header::CACHE_CONTROL, "no-store")],
        Data::created(device),
    ))
}
