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
    openapi::{
        content::Content,
        header::HeaderBuilder,
        path::{Operation, ParameterIn, PathItem},
        response::Response as ApiResponse,
        schema::{KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type},
        security::{HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme},
        server::Server,
        Ref, RefOr, Schema,
    },
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
        (name = "payments", description = "Stripe as the payment provider: its webhook (docs/payments.md)"),
        (name = "gates", description = "At the gate: redeeming tickets, online and offline (docs/gate.md)"),
        (name = "demo", description = "A demo partner page embedding the hosted frame (demo mode only)"),
        (name = "admin", description = "Operator API (bearer = BOXOFFICE_ADMIN_TOKEN; off when unset)"),
    )
)]
pub struct ApiDoc;

struct SecuritySchemes;

impl Modify for SecuritySchemes {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        for (name, format, description) in [
            ("admin_token", None, "The operator's token, BOXOFFICE_ADMIN_TOKEN (the operator API is off without it)."),
            ("backend_bearer", Some("JWT"), "A partner backend's bearer: client credentials at POST /oauth/token (15 minutes)."),
            ("public_bearer", Some("JWT"), "A customer session's bearer: POST /v1/session, then its code exchanged at POST /v1/session/token (30 minutes)."),
            ("merchant_bearer", Some("JWT"), "A merchant's bearer: the onboarding mail's code exchanged at POST /{stage}/merchant-accounts/session/token (1 hour)."),
            ("gate_bearer", Some("JWT"), "A gate's bearer: a gate's (or a paired device's) client credentials at POST /oauth/token (1 hour)."),
        ] {
            let mut scheme = HttpBuilder::new()
                .scheme(HttpAuthScheme::Bearer)
                .description(Some(description));
            if let Some(format) = format {
                scheme = scheme.bearer_format(format);
            }
            components.add_security_scheme(name, SecurityScheme::Http(scheme.build()));
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

/// Every operation of a path item, with its method.
pub(crate) fn operations(
    item: &mut PathItem,
) -> impl Iterator<Item = (&'static str, &mut Operation)> {
    [
        ("get", &mut item.get),
        ("put", &mut item.put),
        ("post", &mut item.post),
        ("delete", &mut item.delete),
        ("patch", &mut item.patch),
    ]
    .into_iter()
    .filter_map(|(method, operation)| operation.as_mut().map(|o| (method, o)))
}

/// Tags every operation under `/admin/` `admin`, secures it with the operator token and
/// prefixes its `operationId` with `admin_` (the partner API has operations of the same
/// name), so the operator handlers' annotations need not repeat it (their `Admin` extractor
/// enforces the token).
pub fn mark_operator_operations(doc: &mut utoipa::openapi::OpenApi) {
    for (path, item) in doc.paths.paths.iter_mut() {
        if !path.starts_with("/admin/") {
            continue;
        }
        for (_, operation) in operations(item) {
            operation.tags = Some(vec!["admin".to_owned()]);
            operation.security = Some(vec![SecurityRequirement::new(
                "admin_token",
                Vec::<String>::new(),
            )]);
            if let Some(id) = &mut operation.operation_id {
                if !id.starts_with("admin_") {
                    id.insert_str(0, "admin_");
                }
            }
        }
    }
}

/// Completes every operation with what the layers and extractors it shares with others answer,
/// so no annotation has to list it (and none can forget it):
///
/// - `security`: an operation without a requirement takes no credentials (`[]`);
/// - `401` with `WWW-Authenticate` on every operation that accepts a bearer;
/// - `415` (not JSON, or not the declared form) and `413` (too large) on every operation with
///   a body;
/// - `400` on every operation with a UUID path parameter (a malformed id) or with query
///   parameters (`ApiQuery` refuses a value that does not fit, and U+0000 in any);
/// - `404` on every `/{stage}/…` operation (a stage other than the configured one);
/// - `servers`: the server's public URL.
pub fn complete_operations(doc: &mut utoipa::openapi::OpenApi, public_url: &str) {
    doc.servers = Some(vec![Server::new(public_url.trim_end_matches('/'))]);
    for (path, item) in doc.paths.paths.iter_mut() {
        for (_, operation) in operations(item) {
            let security = operation.security.get_or_insert_with(Vec::new);
            let takes_bearer = security.iter().any(|requirement| {
                serde_json::to_value(requirement).is_ok_and(|v| v != serde_json::json!({}))
            });
            let responses = &mut operation.responses.responses;
            if takes_bearer {
                let unauthorized = responses.entry("401".to_owned()).or_insert_with(|| {
                    problem(
                        "The bearer token is missing or invalid: `token-invalid`, `token-expired`.",
                    )
                });
                if let RefOr::T(response) = unauthorized {
                    response.headers.insert(
                        "WWW-Authenticate".to_owned(),
                        HeaderBuilder::new()
                            .schema(ObjectBuilder::new().schema_type(Type::String))
                            .description(Some(r#"`Bearer error="invalid_token"`"#))
                            .build(),
                    );
                }
            }
            if operation.request_body.is_some() {
                responses.entry("415".to_owned()).or_insert_with(|| {
                    problem("The body is not of the declared media type: `unsupported-media-type`.")
                });
                responses.entry("413".to_owned()).or_insert_with(|| {
                    problem("The body exceeds the size limit: `payload-too-large`.")
                });
            }
            let uuid_in_path = operation.parameters.iter().flatten().any(|parameter| {
                parameter.parameter_in == ParameterIn::Path
                    && matches!(&parameter.schema, Some(RefOr::T(Schema::Object(o)))
                        if o.format == Some(SchemaFormat::KnownFormat(KnownFormat::Uuid)))
            });
            if uuid_in_path {
                responses.entry("400".to_owned()).or_insert_with(|| {
                    problem("A path id is not a UUID: `request-validation-failed`.")
                });
            }
            let takes_query = operation
                .parameters
                .iter()
                .flatten()
                .any(|parameter| parameter.parameter_in == ParameterIn::Query);
            if takes_query {
                responses.entry("400".to_owned()).or_insert_with(|| {
                    problem("A query parameter does not fit, or holds U+0000: `request-validation-failed`.")
                });
            }
            for parameter in operation.parameters.iter_mut().flatten() {
                not_null(&mut parameter.schema);
            }
            let campaign_header = operation.parameters.iter().flatten().any(|parameter| {
                parameter.parameter_in == ParameterIn::Header && parameter.name == "x-campaign-id"
            });
            if campaign_header {
                responses.entry("404".to_owned()).or_insert_with(|| {
                    problem("`x-campaign-id` names no campaign: `campaign-not-found`.")
                });
                if takes_bearer {
                    responses.entry("403".to_owned()).or_insert_with(|| {
                        problem("The session may not use this campaign: `forbidden`.")
                    });
                }
            }
            if path.contains("{stage}") {
                responses
                    .entry("404".to_owned())
                    .or_insert_with(|| problem("No such stage: `not-found`."));
            }
        }
    }
}

/// A parameter is sent or left out, never sent as `null`: an optional parameter's schema
/// (`Option<T>`, `["string", "null"]`) loses its `null`, so no client sends the text `null`.
fn not_null(schema: &mut Option<RefOr<Schema>>) {
    if let Some(RefOr::T(Schema::Object(object))) = schema {
        if let SchemaType::Array(types) = &object.schema_type {
            let kept: Vec<Type> = types
                .iter()
                .filter(|t| **t != Type::Null)
                .cloned()
                .collect();
            object.schema_type = match kept.as_slice() {
                [one] => SchemaType::Type(one.clone()),
                _ => SchemaType::Array(kept),
            };
        }
    }
}

/// A problem response added by [`complete_operations`].
fn problem(description: &str) -> RefOr<ApiResponse> {
    let mut response = ApiResponse::new(description);
    response.content.insert(
        "application/problem+json".to_owned(),
        Content::new(Some(Ref::from_schema_name("Problem"))),
    );
    RefOr::T(response)
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
