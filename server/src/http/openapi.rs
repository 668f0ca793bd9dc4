//! The OpenAPI document. Routes are registered through `utoipa_axum`'s `OpenApiRouter`, so a
//! route cannot be served without appearing here.

use app::wire::Problem;
use axum::{
    body::Bytes,
    http::header,
    response::{IntoResponse, Response},
    Extension,
};
use utoipa::{
    openapi::security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme},
    Modify, OpenApi,
};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::state::AppState;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Boxoffice",
        description = "Partner ticketing commerce API. Errors are RFC 9457 problem documents with `urn:boxoffice:error:*` types; every response carries `X-Correlation-Id`. See docs/api.md for the conventions.",
    ),
    components(schemas(Problem)),
    modifiers(&SecuritySchemes),
    tags(
        (name = "operations", description = "Health, readiness, metrics and this document"),
        (name = "catalog", description = "Merchants, search, product lists, calendars and timeslots of a campaign"),
        (name = "credentials", description = "OAuth client credentials, sessions, bearer exchange and keys"),
        (name = "merchant accounts", description = "Merchant onboarding by magic link and KYC"),
        (name = "sandbox", description = "Pages of the built-in sandbox payment provider"),
        (name = "demo", description = "A demo partner page embedding the hosted frame (demo mode only)"),
        (name = "admin", description = "Operator API (bearer = BOXOFFICE_ADMIN_TOKEN; off when unset)"),
    )
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for name in [
            "admin_token",
            "backend_bearer",
            "public_bearer",
            "merchant_bearer",
        ] {
            components.add_security_scheme(
                name,
                SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
            );
        }
    }
}

/// Defines the problem responses every operation shares, one type per status: each is an
/// `application/problem+json` response with the `Problem` schema. A route lists the statuses it
/// can answer, `responses((status = 200, body = …), Problem400, Problem404)`, and writes out as
/// a tuple only a response particular to it (a 409 with its own description).
///
/// The generated types have no doc comment on purpose: utoipa would make it the response's
/// `description`, and the document keeps those empty as before.
macro_rules! problem_responses {
    ($($name:ident = $status:tt),+ $(,)?) => {$(
        #[derive(utoipa::IntoResponses)]
        #[response(status = $status, content_type = "application/problem+json")]
        pub struct $name(pub Problem);
    )+};
}

problem_responses! {
    Problem400 = 400,
    Problem401 = 401,
    Problem403 = 403,
    Problem404 = 404,
    Problem409 = 409,
    Problem422 = 422,
    Problem429 = 429,
    Problem502 = 502,
    Problem503 = 503,
}

/// The `x-campaign-id` header of a session's request, documented once for every operation
/// that takes it.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)] // read by the `SessionCampaign` extractor; this type only documents it
pub struct SessionCampaignHeader {
    /// Campaign; defaults to the session's
    #[param(rename = "x-campaign-id")]
    campaign_id: Option<uuid::Uuid>,
}

/// The `Accept-Language` header of a localised read, documented once.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Header)]
#[allow(dead_code)] // read by the `RequestLocale` extractor; this type only documents it
pub struct LanguageHeader {
    /// nl-NL (default), en-GB, de-DE or fr-FR
    #[param(rename = "Accept-Language")]
    accept_language: Option<String>,
}

/// Tags every operation under `/admin/` `admin` and secures it with the operator token, so the
/// operator handlers' annotations need not repeat it (their `Admin` extractor enforces it).
pub fn mark_operator_operations(doc: &mut utoipa::openapi::OpenApi) {
    for (path, item) in doc.paths.paths.iter_mut() {
        if !path.starts_with("/admin/") {
            continue;
        }
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            operation.tags = Some(vec!["admin".to_owned()]);
            operation.security = Some(vec![SecurityRequirement::new(
                "admin_token",
                Vec::<String>::new(),
            )]);
        }
    }
}

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(openapi_json))
}

/// The serialised document, built once at start.
#[derive(Clone)]
pub struct Document(pub Bytes);

/// This OpenAPI document.
#[utoipa::path(get, path = "/openapi.json", tag = "operations",
    responses((status = 200, content_type = "application/json", body = Object)))]
async fn openapi_json(Extension(Document(doc)): Extension<Document>) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], doc).into_response()
}
