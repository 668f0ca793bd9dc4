//! `/{stage}/merchant-accounts`: onboarding by magic link and KYC URL.

use app::wire::OnboardingCode;
use axum::{
    extract::{FromRequestParts, State},
    http::{header, request::Parts, HeaderValue},
    middleware,
    response::{IntoResponse, Response},
};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    admin::Admin,
    auth::MerchantUser,
    error::{Error, ProblemType, Result},
    http::{
        envelope::Data,
        extract::{ApiJson, ApiPath, ApiQuery},
        openapi::{Problem400, Problem401, Problem403, Problem404, Problem429},
        rate_limit::{self, RateLimit},
    },
    onboarding::{
        self, MerchantToken, NewMerchantAccount, OnboardingStatus, ProvisionedMerchantAccount,
    },
    state::AppState,
};

pub fn router(state: &AppState) -> OpenApiRouter<AppState> {
    let limit = RateLimit::per_minute(state.config.auth_rate_per_minute);
    OpenApiRouter::new()
        .routes(routes!(exchange_onboarding_code))
        .layer(middleware::from_fn_with_state(
            limit,
            rate_limit::middleware,
        ))
        .routes(routes!(create_merchant_account))
        .routes(routes!(onboarding_status))
}

/// The `{stage}` path segment. Only the configured stage exists; any other value is an
/// unknown route, checked before credentials so it answers 404 whoever asks.
struct Stage;

impl FromRequestParts<AppState> for Stage {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self> {
        let ApiPath(stage) = ApiPath::<String>::from_request_parts(parts, state).await?;
        if stage == state.config.stage {
            Ok(Stage)
        } else {
            Err(Error::new(
                ProblemType::NotFound,
                format!("No stage `{stage}` on this server."),
            ))
        }
    }
}

/// Provisions a merchant's payment account and mails the onboarding magic link (operator only).
#[utoipa::path(post, path = "/{stage}/merchant-accounts", tag = "merchant accounts", security(("admin_token" = [])),
    params(("stage" = String, Path, description = "The configured stage, e.g. prod")),
    request_body = NewMerchantAccount,
    responses((status = 201, body = inline(app::wire::Envelope<ProvisionedMerchantAccount>)),
              Problem400, Problem404))]
async fn create_merchant_account(
    _: Stage,
    Admin(state): Admin,
    ApiJson(request): ApiJson<NewMerchantAccount>,
) -> Result<Data<ProvisionedMerchantAccount>> {
    Ok(Data::created(
        onboarding::provision(&state.onboarding(), request).await?,
    ))
}

/// Exchanges the single-use code of the magic link for a merchant bearer (1 hour).
#[utoipa::path(post, path = "/{stage}/merchant-accounts/session/token", tag = "merchant accounts",
    params(("stage" = String, Path)),
    request_body = OnboardingCode,
    responses((status = 200, body = MerchantToken),
              Problem400, Problem429))]
async fn exchange_onboarding_code(
    _: Stage,
    State(state): State<AppState>,
    ApiJson(body): ApiJson<OnboardingCode>,
) -> Result<Response> {
    let token = onboarding::exchange_code(&state.onboarding(), &body.code).await?;
    let mut response = axum::Json(token).into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(response)
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct DebtorCode {
    /// The merchant's debtor code, as returned with the token.
    #[serde(rename = "debtorCode")]
    #[param(rename = "debtorCode")]
    debtor_code: String,
}

/// The merchant's onboarding status and KYC URL (merchant bearer; own account only).
#[utoipa::path(get, path = "/{stage}/merchant-accounts/onboarding", tag = "merchant accounts",
    security(("merchant_bearer" = [])),
    params(("stage" = String, Path), DebtorCode),
    responses((status = 200, body = inline(app::wire::Envelope<OnboardingStatus>)),
              Problem401, Problem403))]
async fn onboarding_status(
    _: Stage,
    merchant: MerchantUser,
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<DebtorCode>,
) -> Result<Data<OnboardingStatus>> {
    Ok(Data::ok(
        onboarding::status(&state.onboarding(), &merchant, &query.debtor_code).await?,
    ))
}
