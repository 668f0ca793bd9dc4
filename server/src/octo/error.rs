//! OCTO's own error shape, on the OCTO routes only (docs/octo.md, "Errors"):
//! `{"error": "INVALID_PRODUCT_ID", "errorMessage": "…", "productId": "…"}`. The document's
//! `INVALID_*` codes and `BAD_REQUEST` are 400, a business rule refused is 400
//! `UNPROCESSABLE_ENTITY`, a missing or non-partner bearer 401 `UNAUTHORIZED`, a reseller not
//! allowed what it asked 403 `FORBIDDEN`, an unknown merchant 404 `NOT_FOUND`. The server's
//! own problems are mapped here, once; their details are worded for partners already and never
//! carry personal data.

use app::wire::ProblemType;
use axum::{
    http::StatusCode,
    response::{IntoResponse, Response},
    Json,
};
use serde_json::{json, Map, Value};

use crate::error::Error;

/// An OCTO error answer.
#[derive(Debug)]
pub struct OctoError {
    status: StatusCode,
    code: &'static str,
    message: String,
    /// The member naming what was invalid (`productId`, `uuid`, …) and its value.
    member: Option<(&'static str, String)>,
}

pub type OctoResult<T> = std::result::Result<T, OctoError>;

impl OctoError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            member: None,
        }
    }

    fn invalid(code: &'static str, member: &'static str, value: &str, what: &str) -> Self {
        Self {
            member: Some((member, value.to_owned())),
            ..Self::new(
                StatusCode::BAD_REQUEST,
                code,
                format!("The {what} was missing or invalid"),
            )
        }
    }

    pub fn invalid_product(id: &str) -> Self {
        Self::invalid("INVALID_PRODUCT_ID", "productId", id, "productId")
    }

    pub fn invalid_option(id: &str) -> Self {
        Self::invalid("INVALID_OPTION_ID", "optionId", id, "optionId")
    }

    pub fn invalid_unit(id: &str) -> Self {
        Self::invalid("INVALID_UNIT_ID", "unitId", id, "unitId")
    }

    pub fn invalid_availability(id: &str) -> Self {
        Self::invalid(
            "INVALID_AVAILABILITY_ID",
            "availabilityId",
            id,
            "availabilityId",
        )
    }

    pub fn invalid_booking(uuid: &str) -> Self {
        Self::invalid("INVALID_BOOKING_UUID", "uuid", uuid, "uuid")
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BAD_REQUEST", message)
    }

    pub fn unprocessable(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "UNPROCESSABLE_ENTITY", message)
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "UNAUTHORIZED", message)
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "FORBIDDEN", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NOT_FOUND", message)
    }
}

/// The server's problems in OCTO's words: the bearer's are `UNAUTHORIZED`/`FORBIDDEN`, a
/// malformed request `BAD_REQUEST`, a rule of the checkout or the after-sale
/// `UNPROCESSABLE_ENTITY` (with the problem's detail, which names the rule), anything else an
/// internal error whose cause is logged, never answered.
impl From<Error> for OctoError {
    fn from(error: Error) -> Self {
        let kind = error.kind();
        let detail = match &error {
            Error::Problem { errors, .. } if !errors.is_empty() => errors
                .iter()
                .map(|e| e.message.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            Error::Problem { detail, .. } => detail.clone(),
            Error::Internal(_) => String::new(),
        };
        match kind.status() {
            401 => Self::unauthorized(detail),
            403 => Self::forbidden(detail),
            400 | 413 | 415 if kind != ProblemType::CheckoutBasketLineInvalid => {
                Self::bad_request(detail)
            }
            400 | 404 | 409 | 410 | 422 => Self::unprocessable(detail),
            503 => Self::new(
                StatusCode::SERVICE_UNAVAILABLE,
                "INTERNAL_SERVER_ERROR",
                detail,
            ),
            _ => {
                // The cause is the server's: logged with the correlation id, not answered.
                if let Error::Internal(err) = &error {
                    tracing::error!(error = ?err, "internal error");
                }
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "INTERNAL_SERVER_ERROR",
                    "Something went wrong on our side; retry later.",
                )
            }
        }
    }
}

impl IntoResponse for OctoError {
    fn into_response(self) -> Response {
        let mut body = Map::new();
        body.insert("error".into(), json!(self.code));
        body.insert("errorMessage".into(), json!(self.message));
        if let Some((member, value)) = self.member {
            body.insert(member.into(), Value::String(value));
        }
        let mut response = (self.status, Json(Value::Object(body))).into_response();
        response
            .extensions_mut()
            .insert(crate::http::fallback::OwnShape);
        response
    }
}

impl From<anyhow::Error> for OctoError {
    fn from(error: anyhow::Error) -> Self {
        Error::from(error).into()
    }
}
