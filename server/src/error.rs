//! The one error type of the server. Every failure a client sees is an RFC 9457 problem
//! document with a `urn:boxoffice:error:*` type and the request's correlation id; internal
//! details are logged, never sent.

use app::wire::{FieldError, Problem, PROBLEM_TYPE_PREFIX};
use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};

use crate::http::correlation;

/// Defines every problem type from one table, one line per type:
/// `Variant => "urn-name", STATUS, "title";`.
///
/// A problem type has a variant, a name (the part of `type` after `urn:boxoffice:error:`), a
/// status and a title, and `ALL` lists them for the documentation check. Written by hand, each
/// type stood in five places that had to agree; from this table the enum, `ALL`, `name`,
/// `status` and `title` are generated, so adding a problem type is adding one line.
macro_rules! problem_types {
    ($($variant:ident => $name:literal, $status:ident, $title:literal;)+) => {
        /// The problem types of the API; each has one name, title and status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ProblemType {
            $($variant,)+
        }

        impl ProblemType {
            /// Every problem type, for the documentation check.
            pub const ALL: &'static [ProblemType] = &[$(ProblemType::$variant,)+];

            /// The short name, as the part of `type` after `urn:boxoffice:error:`.
            pub fn name(self) -> &'static str {
                match self {
                    $(ProblemType::$variant => $name,)+
                }
            }

            /// The `title` of the problem document: the same for every instance of the type.
            pub fn title(self) -> &'static str {
                match self {
                    $(ProblemType::$variant => $title,)+
                }
            }

            /// The HTTP status every instance of the type is answered with.
            pub fn status(self) -> StatusCode {
                match self {
                    $(ProblemType::$variant => StatusCode::$status,)+
                }
            }
        }
    };
}

problem_types! {
    RequestValidationFailed => "request-validation-failed", BAD_REQUEST, "The request is not valid";
    IdempotencyKeyMissing => "idempotency-key-missing", BAD_REQUEST, "The Idempotency-Key header is required";
    UnsupportedMediaType => "unsupported-media-type", UNSUPPORTED_MEDIA_TYPE, "The request body must be JSON";
    PayloadTooLarge => "payload-too-large", PAYLOAD_TOO_LARGE, "The request body is too large";
    NextTokenInvalid => "next-token-invalid", BAD_REQUEST, "The next_token is not valid";
    NextTokenMismatch => "next-token-mismatch", BAD_REQUEST, "The next_token belongs to another query";
    TokenInvalid => "token-invalid", UNAUTHORIZED, "The bearer token is missing or invalid";
    TokenExpired => "token-expired", UNAUTHORIZED, "The bearer token has expired";
    Forbidden => "forbidden", FORBIDDEN, "Access to this resource is not allowed";
    NotFound => "not-found", NOT_FOUND, "The resource was not found";
    MethodNotAllowed => "method-not-allowed", METHOD_NOT_ALLOWED, "The method is not allowed on this resource";
    CampaignNotFound => "campaign-not-found", NOT_FOUND, "The campaign is not configured";
    MerchantNotFound => "merchant-not-found", NOT_FOUND, "The merchant was not found";
    ProductNotFound => "product-not-found", NOT_FOUND, "The product was not found";
    Conflict => "conflict", CONFLICT, "The request conflicts with the current state";
    RateLimited => "rate-limited", TOO_MANY_REQUESTS, "Too many requests";
    RequestTimeout => "request-timeout", REQUEST_TIMEOUT, "The request took too long";
    ServiceUnavailable => "service-unavailable", SERVICE_UNAVAILABLE, "The service is unavailable";
    InternalError => "internal-error", INTERNAL_SERVER_ERROR, "An internal error occurred";
    ProductInternalError => "product-internal-error", INTERNAL_SERVER_ERROR, "An internal error occurred while reading products";
    ClientAuthenticationFailed => "client-authentication-failed", UNAUTHORIZED, "Client authentication failed";
    UnsupportedGrantType => "unsupported-grant-type", BAD_REQUEST, "The grant type is not supported";
    SessionCodeExpired => "session-code-expired", BAD_REQUEST, "The session code has expired";
    SessionCodeInvalid => "session-code-invalid", BAD_REQUEST, "The session code is not valid";
    PkceVerificationFailed => "pkce-verification-failed", BAD_REQUEST, "The PKCE code verifier does not match";
    IdentityTokenRejected => "identity-token-rejected", UNAUTHORIZED, "The identity token was rejected";
    IdentityProviderUnavailable => "identity-provider-unavailable", BAD_GATEWAY, "The identity provider is unavailable";
    OnboardingCodeInvalid => "onboarding-code-invalid", BAD_REQUEST, "The onboarding code is not valid";
    CheckoutBasketEmpty => "checkout-basket-empty", BAD_REQUEST, "The basket is empty";
    CheckoutBasketLineInvalid => "checkout-basket-line-invalid", BAD_REQUEST, "A basket line is invalid";
    CheckoutBasketSpansMerchants => "checkout-basket-spans-merchants", BAD_REQUEST, "The basket spans merchants";
    CheckoutBasketSpansProviders => "checkout-basket-spans-providers", BAD_REQUEST, "The basket spans providers";
    CheckoutDateInPast => "checkout-date-in-past", BAD_REQUEST, "The visit date is in the past";
    CheckoutTimeslotRequired => "checkout-timeslot-required", BAD_REQUEST, "A timeslot is required";
    CheckoutShippingAddressRequired => "checkout-shipping-address-required", BAD_REQUEST, "A shipping address is required";
    CheckoutFulfillmentRequestRejected => "checkout-fulfillment-request-rejected", UNPROCESSABLE_ENTITY, "The provider refused the booking";
    CheckoutProductNotPriceable => "checkout-product-not-priceable", UNPROCESSABLE_ENTITY, "The product has no price for that date";
    CheckoutProductNotFulfillable => "checkout-product-not-fulfillable", UNPROCESSABLE_ENTITY, "The product cannot be delivered for that date";
    CheckoutBillingDetailRejected => "checkout-billing-detail-rejected", UNPROCESSABLE_ENTITY, "The billing details were rejected";
    CheckoutOrderFailed => "checkout-order-failed", BAD_GATEWAY, "The order could not be placed";
    CheckoutOrderEmptyRedirect => "checkout-order-empty-redirect", BAD_GATEWAY, "The payment provider gave no redirect";
    CheckoutFulfillmentReservationFailed => "checkout-fulfillment-reservation-failed", BAD_GATEWAY, "The reservation at the provider failed";
    IdempotencyKeyInUse => "idempotency-key-in-use", CONFLICT, "A request with this Idempotency-Key is in progress";
    IdempotencyKeyReused => "idempotency-key-reused", CONFLICT, "This Idempotency-Key was used for another request";
    CheckoutNotFound => "checkout-not-found", NOT_FOUND, "The checkout was not found";
    CheckoutNotReserved => "checkout-not-reserved", CONFLICT, "The checkout is not reserved any more";
    CheckoutHoldLimitReached => "checkout-hold-limit-reached", CONFLICT, "The buyer already holds as much as one buyer may";
    WalletNotConfigured => "wallet-not-configured", NOT_FOUND, "This wallet pass is not offered by this server";
}

impl ProblemType {
    /// The full `type` URI.
    pub fn uri(self) -> String {
        format!("{PROBLEM_TYPE_PREFIX}{}", self.name())
    }
}

/// An error's text followed by each of its causes' (`error: cause: cause`), for what is stored
/// or logged of a failed outbound delivery (a webhook, a mail), whose first line alone rarely
/// says why.
pub fn with_causes(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A failure of a request, rendered as problem+json.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A problem the client can act on; `detail` is safe to show.
    #[error("{kind:?}: {detail}")]
    Problem {
        kind: ProblemType,
        detail: String,
        errors: Vec<FieldError>,
        /// The RFC 6749 §5.2 `error` code, on OAuth endpoints.
        oauth: Option<&'static str>,
    },
    /// A fault of ours; logged with the correlation id and answered with a generic text.
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(kind: ProblemType, detail: impl Into<String>) -> Self {
        Error::Problem {
            kind,
            detail: detail.into(),
            errors: Vec::new(),
            oauth: None,
        }
    }

    /// Adds the RFC 6749 §5.2 `error` code (and `error_description` = detail), so OAuth client
    /// libraries understand the same problem document.
    pub fn with_oauth(self, code: &'static str) -> Self {
        match self {
            Error::Problem {
                kind,
                detail,
                errors,
                ..
            } => Error::Problem {
                kind,
                detail,
                errors,
                oauth: Some(code),
            },
            internal => internal,
        }
    }

    /// 400 `request-validation-failed` listing every invalid field.
    pub fn validation(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!("{} fields are invalid", many.len()),
        };
        Error::Problem {
            kind: ProblemType::RequestValidationFailed,
            detail,
            errors,
            oauth: None,
        }
    }

    /// 400 `request-validation-failed` for a single field.
    pub fn invalid_field(field: &str, code: &str, message: impl Into<String>) -> Self {
        Self::validation(vec![FieldError::new(field, code, message)])
    }

    /// Reports an internal fault under the endpoint's own problem type (the product list has
    /// `product-internal-error`); the fault is logged here, and the client still learns
    /// nothing but the correlation id. Problems the client can act on pass unchanged.
    pub fn internal_as(self, kind: ProblemType) -> Self {
        match self {
            Error::Internal(err) => {
                tracing::error!(error = ?err, "internal error");
                Error::new(
                    kind,
                    format!(
                        "The request could not be completed. Quote correlation id {} when reporting this.",
                        correlation::current()
                    ),
                )
            }
            problem => problem,
        }
    }

    pub fn not_found(what: &str) -> Self {
        Self::new(ProblemType::NotFound, format!("{what} was not found"))
    }

    pub fn kind(&self) -> ProblemType {
        match self {
            Error::Problem { kind, .. } => *kind,
            Error::Internal(_) => ProblemType::InternalError,
        }
    }

    /// The problem document for this error, with the current request's correlation id.
    pub fn to_problem(&self) -> Problem {
        let correlation_id = correlation::current();
        match self {
            Error::Problem {
                kind,
                detail,
                errors,
                oauth,
            } => {
                let mut p = problem(*kind, detail.clone(), errors.clone(), correlation_id);
                if let Some(code) = oauth {
                    p.error = Some((*code).to_owned());
                    p.error_description = Some(detail.clone());
                }
                p
            }
            Error::Internal(_) => problem(
                ProblemType::InternalError,
                format!(
                    "The request could not be completed. Quote correlation id {correlation_id} when reporting this."
                ),
                Vec::new(),
                correlation_id,
            ),
        }
    }
}

fn problem(
    kind: ProblemType,
    detail: String,
    errors: Vec<FieldError>,
    correlation_id: String,
) -> Problem {
    Problem {
        kind: kind.uri(),
        title: kind.title().to_owned(),
        status: kind.status().as_u16(),
        detail,
        correlation_id,
        errors,
        error: None,
        error_description: None,
    }
}

/// Renders a problem document with its status and media type.
pub fn problem_response(problem: &Problem) -> Response {
    let status = StatusCode::from_u16(problem.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = serde_json::to_vec(problem).unwrap_or_default();
    let mut response = (status, body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/problem+json"),
    );
    if status == StatusCode::UNAUTHORIZED {
        let challenge = if problem.error.as_deref() == Some("invalid_client") {
            r#"Basic realm="boxoffice""#
        } else {
            r#"Bearer error="invalid_token""#
        };
        headers.insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static(challenge),
        );
    }
    response
}

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        if let Error::Internal(err) = &self {
            tracing::error!(error = ?err, "internal error");
        }
        problem_response(&self.to_problem())
    }
}

impl From<sqlx::Error> for Error {
    fn from(err: sqlx::Error) -> Self {
        Error::Internal(anyhow::Error::new(err).context("database"))
    }
}

impl From<crate::store::StoreError> for Error {
    fn from(err: crate::store::StoreError) -> Self {
        use crate::store::StoreError;
        match err {
            StoreError::Conflict(what) => Error::new(ProblemType::Conflict, what),
            StoreError::MissingReference(what) => Error::invalid_field(
                &what,
                "unknown_reference",
                format!("`{what}` refers to a record that does not exist"),
            ),
            StoreError::InvalidReference { field, message } => {
                Error::invalid_field(&field, "invalid_reference", message)
            }
            StoreError::Short(places) => Error::new(
                ProblemType::CheckoutProductNotFulfillable,
                format!("Fewer than {} places are left {places}.", places.quantity()),
            ),
            StoreError::Database(err) => err.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ProblemType;

    #[test]
    fn every_problem_type_is_documented_for_partners() {
        let docs = include_str!("../../docs/api.md");
        for kind in ProblemType::ALL {
            let row = format!("| `{}` | {} |", kind.name(), kind.status().as_u16());
            assert!(docs.contains(&row), "docs/api.md lacks the row {row}");
        }
    }
}
