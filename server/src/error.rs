//! The one error type of the server. Every failure a client sees is an RFC 9457 problem
//! document with a `urn:boxoffice:error:*` type and the request's correlation id; internal
//! details are logged, never sent.

use app::wire::{FieldError, Problem, PROBLEM_TYPE_PREFIX};
use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};

use crate::http::correlation;

/// The problem types of the API; each has one name, title and status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemType {
    RequestValidationFailed,
    IdempotencyKeyMissing,
    UnsupportedMediaType,
    PayloadTooLarge,
    NextTokenInvalid,
    NextTokenMismatch,
    TokenInvalid,
    TokenExpired,
    Forbidden,
    NotFound,
    MethodNotAllowed,
    CampaignNotFound,
    MerchantNotFound,
    ProductNotFound,
    Conflict,
    RateLimited,
    RequestTimeout,
    ServiceUnavailable,
    InternalError,
    ProductInternalError,
    ClientAuthenticationFailed,
    UnsupportedGrantType,
    SessionCodeExpired,
    SessionCodeInvalid,
    PkceVerificationFailed,
    IdentityTokenRejected,
    IdentityProviderUnavailable,
    OnboardingCodeInvalid,
    CheckoutBasketEmpty,
    CheckoutBasketLineInvalid,
    CheckoutBasketSpansMerchants,
    CheckoutBasketSpansProviders,
    CheckoutDateInPast,
    CheckoutTimeslotRequired,
    CheckoutShippingAddressRequired,
    CheckoutFulfillmentRequestRejected,
    CheckoutProductNotPriceable,
    CheckoutProductNotFulfillable,
    CheckoutBillingDetailRejected,
    CheckoutOrderFailed,
    CheckoutOrderEmptyRedirect,
    CheckoutFulfillmentReservationFailed,
    IdempotencyKeyInUse,
    IdempotencyKeyReused,
    CheckoutNotFound,
    CheckoutNotReserved,
}

impl ProblemType {
    /// Every problem type, for the documentation check.
    pub const ALL: [ProblemType; 46] = [
        ProblemType::RequestValidationFailed,
        ProblemType::IdempotencyKeyMissing,
        ProblemType::UnsupportedMediaType,
        ProblemType::PayloadTooLarge,
        ProblemType::NextTokenInvalid,
        ProblemType::NextTokenMismatch,
        ProblemType::TokenInvalid,
        ProblemType::TokenExpired,
        ProblemType::Forbidden,
        ProblemType::NotFound,
        ProblemType::MethodNotAllowed,
        ProblemType::CampaignNotFound,
        ProblemType::MerchantNotFound,
        ProblemType::ProductNotFound,
        ProblemType::Conflict,
        ProblemType::RateLimited,
        ProblemType::RequestTimeout,
        ProblemType::ServiceUnavailable,
        ProblemType::InternalError,
        ProblemType::ProductInternalError,
        ProblemType::ClientAuthenticationFailed,
        ProblemType::UnsupportedGrantType,
        ProblemType::SessionCodeExpired,
        ProblemType::SessionCodeInvalid,
        ProblemType::PkceVerificationFailed,
        ProblemType::IdentityTokenRejected,
        ProblemType::IdentityProviderUnavailable,
        ProblemType::OnboardingCodeInvalid,
        ProblemType::CheckoutBasketEmpty,
        ProblemType::CheckoutBasketLineInvalid,
        ProblemType::CheckoutBasketSpansMerchants,
        ProblemType::CheckoutBasketSpansProviders,
        ProblemType::CheckoutDateInPast,
        ProblemType::CheckoutTimeslotRequired,
        ProblemType::CheckoutShippingAddressRequired,
        ProblemType::CheckoutFulfillmentRequestRejected,
        ProblemType::CheckoutProductNotPriceable,
        ProblemType::CheckoutProductNotFulfillable,
        ProblemType::CheckoutBillingDetailRejected,
        ProblemType::CheckoutOrderFailed,
        ProblemType::CheckoutOrderEmptyRedirect,
        ProblemType::CheckoutFulfillmentReservationFailed,
        ProblemType::IdempotencyKeyInUse,
        ProblemType::IdempotencyKeyReused,
        ProblemType::CheckoutNotFound,
        ProblemType::CheckoutNotReserved,
    ];

    /// The short name, as the part of `type` after `urn:boxoffice:error:`.
    pub fn name(self) -> &'static str {
        use ProblemType::*;
        match self {
            RequestValidationFailed => "request-validation-failed",
            IdempotencyKeyMissing => "idempotency-key-missing",
            UnsupportedMediaType => "unsupported-media-type",
            PayloadTooLarge => "payload-too-large",
            NextTokenInvalid => "next-token-invalid",
            NextTokenMismatch => "next-token-mismatch",
            TokenInvalid => "token-invalid",
            TokenExpired => "token-expired",
            Forbidden => "forbidden",
            NotFound => "not-found",
            MethodNotAllowed => "method-not-allowed",
            CampaignNotFound => "campaign-not-found",
            MerchantNotFound => "merchant-not-found",
            ProductNotFound => "product-not-found",
            Conflict => "conflict",
            RateLimited => "rate-limited",
            RequestTimeout => "request-timeout",
            ServiceUnavailable => "service-unavailable",
            InternalError => "internal-error",
            ProductInternalError => "product-internal-error",
            ClientAuthenticationFailed => "client-authentication-failed",
            UnsupportedGrantType => "unsupported-grant-type",
            SessionCodeExpired => "session-code-expired",
            SessionCodeInvalid => "session-code-invalid",
            PkceVerificationFailed => "pkce-verification-failed",
            IdentityTokenRejected => "identity-token-rejected",
            IdentityProviderUnavailable => "identity-provider-unavailable",
            OnboardingCodeInvalid => "onboarding-code-invalid",
            CheckoutBasketEmpty => "checkout-basket-empty",
            CheckoutBasketLineInvalid => "checkout-basket-line-invalid",
            CheckoutBasketSpansMerchants => "checkout-basket-spans-merchants",
            CheckoutBasketSpansProviders => "checkout-basket-spans-providers",
            CheckoutDateInPast => "checkout-date-in-past",
            CheckoutTimeslotRequired => "checkout-timeslot-required",
            CheckoutShippingAddressRequired => "checkout-shipping-address-required",
            CheckoutFulfillmentRequestRejected => "checkout-fulfillment-request-rejected",
            CheckoutProductNotPriceable => "checkout-product-not-priceable",
            CheckoutProductNotFulfillable => "checkout-product-not-fulfillable",
            CheckoutBillingDetailRejected => "checkout-billing-detail-rejected",
            CheckoutOrderFailed => "checkout-order-failed",
            CheckoutOrderEmptyRedirect => "checkout-order-empty-redirect",
            CheckoutFulfillmentReservationFailed => "checkout-fulfillment-reservation-failed",
            IdempotencyKeyInUse => "idempotency-key-in-use",
            IdempotencyKeyReused => "idempotency-key-reused",
            CheckoutNotFound => "checkout-not-found",
            CheckoutNotReserved => "checkout-not-reserved",
        }
    }

    pub fn title(self) -> &'static str {
        use ProblemType::*;
        match self {
            RequestValidationFailed => "The request is not valid",
            IdempotencyKeyMissing => "The Idempotency-Key header is required",
            UnsupportedMediaType => "The request body must be JSON",
            PayloadTooLarge => "The request body is too large",
            NextTokenInvalid => "The next_token is not valid",
            NextTokenMismatch => "The next_token belongs to another query",
            TokenInvalid => "The bearer token is missing or invalid",
            TokenExpired => "The bearer token has expired",
            Forbidden => "Access to this resource is not allowed",
            NotFound => "The resource was not found",
            MethodNotAllowed => "The method is not allowed on this resource",
            CampaignNotFound => "The campaign is not configured",
            MerchantNotFound => "The merchant was not found",
            ProductNotFound => "The product was not found",
            Conflict => "The request conflicts with the current state",
            RateLimited => "Too many requests",
            RequestTimeout => "The request took too long",
            ServiceUnavailable => "The service is unavailable",
            InternalError => "An internal error occurred",
            ProductInternalError => "An internal error occurred while reading products",
            ClientAuthenticationFailed => "Client authentication failed",
            UnsupportedGrantType => "The grant type is not supported",
            SessionCodeExpired => "The session code has expired",
            SessionCodeInvalid => "The session code is not valid",
            PkceVerificationFailed => "The PKCE code verifier does not match",
            IdentityTokenRejected => "The identity token was rejected",
            IdentityProviderUnavailable => "The identity provider is unavailable",
            OnboardingCodeInvalid => "The onboarding code is not valid",
            CheckoutBasketEmpty => "The basket is empty",
            CheckoutBasketLineInvalid => "A basket line is invalid",
            CheckoutBasketSpansMerchants => "The basket spans merchants",
            CheckoutBasketSpansProviders => "The basket spans providers",
            CheckoutDateInPast => "The visit date is in the past",
            CheckoutTimeslotRequired => "A timeslot is required",
            CheckoutShippingAddressRequired => "A shipping address is required",
            CheckoutFulfillmentRequestRejected => "The provider refused the booking",
            CheckoutProductNotPriceable => "The product has no price for that date",
            CheckoutProductNotFulfillable => "The product cannot be delivered for that date",
            CheckoutBillingDetailRejected => "The billing details were rejected",
            CheckoutOrderFailed => "The order could not be placed",
            CheckoutOrderEmptyRedirect => "The payment provider gave no redirect",
            CheckoutFulfillmentReservationFailed => "The reservation at the provider failed",
            IdempotencyKeyInUse => "A request with this Idempotency-Key is in progress",
            IdempotencyKeyReused => "This Idempotency-Key was used for another request",
            CheckoutNotFound => "The checkout was not found",
            CheckoutNotReserved => "The checkout is not reserved any more",
        }
    }

    pub fn status(self) -> StatusCode {
        use ProblemType::*;
        match self {
            RequestValidationFailed
            | IdempotencyKeyMissing
            | NextTokenInvalid
            | NextTokenMismatch
            | UnsupportedGrantType
            | SessionCodeExpired
            | SessionCodeInvalid
            | PkceVerificationFailed
            | OnboardingCodeInvalid => StatusCode::BAD_REQUEST,
            UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            TokenInvalid | TokenExpired | ClientAuthenticationFailed | IdentityTokenRejected => {
                StatusCode::UNAUTHORIZED
            }
            IdentityProviderUnavailable => StatusCode::BAD_GATEWAY,
            CheckoutBasketEmpty => StatusCode::BAD_REQUEST,
            CheckoutBasketLineInvalid => StatusCode::BAD_REQUEST,
            CheckoutBasketSpansMerchants => StatusCode::BAD_REQUEST,
            CheckoutBasketSpansProviders => StatusCode::BAD_REQUEST,
            CheckoutDateInPast => StatusCode::BAD_REQUEST,
            CheckoutTimeslotRequired => StatusCode::BAD_REQUEST,
            CheckoutShippingAddressRequired => StatusCode::BAD_REQUEST,
            CheckoutFulfillmentRequestRejected => StatusCode::UNPROCESSABLE_ENTITY,
            CheckoutProductNotPriceable => StatusCode::UNPROCESSABLE_ENTITY,
            CheckoutProductNotFulfillable => StatusCode::UNPROCESSABLE_ENTITY,
            CheckoutBillingDetailRejected => StatusCode::UNPROCESSABLE_ENTITY,
            CheckoutOrderFailed => StatusCode::BAD_GATEWAY,
            CheckoutOrderEmptyRedirect => StatusCode::BAD_GATEWAY,
            CheckoutFulfillmentReservationFailed => StatusCode::BAD_GATEWAY,
            IdempotencyKeyInUse => StatusCode::CONFLICT,
            IdempotencyKeyReused => StatusCode::CONFLICT,
            CheckoutNotFound => StatusCode::NOT_FOUND,
            CheckoutNotReserved => StatusCode::CONFLICT,

            Forbidden => StatusCode::FORBIDDEN,
            NotFound | CampaignNotFound | MerchantNotFound | ProductNotFound => {
                StatusCode::NOT_FOUND
            }
            MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            Conflict => StatusCode::CONFLICT,
            RateLimited => StatusCode::TOO_MANY_REQUESTS,
            RequestTimeout => StatusCode::REQUEST_TIMEOUT,
            ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            InternalError | ProductInternalError => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The full `type` URI.
    pub fn uri(self) -> String {
        format!("{PROBLEM_TYPE_PREFIX}{}", self.name())
    }
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
