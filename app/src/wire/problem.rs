//! Problem documents (RFC 9457) and the table of every problem type the API answers with
//! (`problem_types!`), shared by the server, which renders them (`server/src/error.rs`), and the
//! frame, which matches on them.

use serde::{Deserialize, Serialize};

/// Every problem `type` is this prefix followed by a short name, e.g. `…:campaign-not-found`.
pub const PROBLEM_TYPE_PREFIX: &str = "urn:boxoffice:error:";

/// Defines every problem type from one table, one line per type:
/// `Variant => "urn-name", status, "title";`.
///
/// A problem type has a variant, a name (the part of `type` after `urn:boxoffice:error:`), a
/// status and a title, and `ALL` lists them for the documentation check. Written by hand, each
/// type stood in five places that had to agree; from this table the enum, `ALL`, `name`,
/// `status` and `title` are generated, so adding a problem type is adding one line. It lives
/// here, beside [`Problem`], so the frame matches a problem by its variant, never by a string;
/// the titles are the server's alone (the frame words its own messages).
macro_rules! problem_types {
    ($($variant:ident => $name:literal, $status:literal, $title:literal;)+) => {
        /// The problem types of the API; each has one name, title and status.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum ProblemType {
            $($variant,)+
        }

        impl ProblemType {
            /// Every problem type, for the documentation check and for reading a name back.
            pub const ALL: &'static [ProblemType] = &[$(ProblemType::$variant,)+];

            /// The short name, as the part of `type` after `urn:boxoffice:error:`.
            pub fn name(self) -> &'static str {
                match self {
                    $(ProblemType::$variant => $name,)+
                }
            }

            /// The `title` of the problem document: the same for every instance of the type.
            #[cfg(feature = "ssr")]
            pub fn title(self) -> &'static str {
                match self {
                    $(ProblemType::$variant => $title,)+
                }
            }

            /// The HTTP status every instance of the type is answered with.
            pub fn status(self) -> u16 {
                match self {
                    $(ProblemType::$variant => $status,)+
                }
            }
        }
    };
}

problem_types! {
    RequestValidationFailed => "request-validation-failed", 400, "The request is not valid";
    IdempotencyKeyMissing => "idempotency-key-missing", 400, "The Idempotency-Key header is required";
    UnsupportedMediaType => "unsupported-media-type", 415, "The request body's media type is not accepted";
    PayloadTooLarge => "payload-too-large", 413, "The request body is too large";
    NextTokenInvalid => "next-token-invalid", 400, "The next_token is not valid";
    NextTokenMismatch => "next-token-mismatch", 400, "The next_token belongs to another query";
    TokenInvalid => "token-invalid", 401, "The bearer token is missing or invalid";
    TokenExpired => "token-expired", 401, "The bearer token has expired";
    Forbidden => "forbidden", 403, "Access to this resource is not allowed";
    NotFound => "not-found", 404, "The resource was not found";
    MethodNotAllowed => "method-not-allowed", 405, "The method is not allowed on this resource";
    CampaignNotFound => "campaign-not-found", 404, "The campaign is not configured";
    MerchantNotFound => "merchant-not-found", 404, "The merchant was not found";
    ProductNotFound => "product-not-found", 404, "The product was not found";
    Conflict => "conflict", 409, "The request conflicts with the current state";
    RateLimited => "rate-limited", 429, "Too many requests";
    RequestTimeout => "request-timeout", 408, "The request took too long";
    ServiceUnavailable => "service-unavailable", 503, "The service is unavailable";
    InternalError => "internal-error", 500, "An internal error occurred";
    ProductInternalError => "product-internal-error", 500, "An internal error occurred while reading products";
    ClientAuthenticationFailed => "client-authentication-failed", 401, "Client authentication failed";
    UnsupportedGrantType => "unsupported-grant-type", 400, "The grant type is not supported";
    SessionCodeExpired => "session-code-expired", 400, "The session code has expired";
    SessionCodeInvalid => "session-code-invalid", 400, "The session code is not valid";
    PkceVerificationFailed => "pkce-verification-failed", 400, "The PKCE code verifier does not match";
    IdentityTokenRejected => "identity-token-rejected", 401, "The identity token was rejected";
    IdentityProviderUnavailable => "identity-provider-unavailable", 502, "The identity provider is unavailable";
    OnboardingCodeInvalid => "onboarding-code-invalid", 400, "The onboarding code is not valid";
    CheckoutBasketEmpty => "checkout-basket-empty", 400, "The basket is empty";
    CheckoutBasketLineInvalid => "checkout-basket-line-invalid", 400, "A basket line is invalid";
    CheckoutBasketSpansMerchants => "checkout-basket-spans-merchants", 400, "The basket spans merchants";
    CheckoutBasketSpansProviders => "checkout-basket-spans-providers", 400, "The basket spans providers";
    CheckoutDateInPast => "checkout-date-in-past", 400, "The visit date is in the past";
    CheckoutTimeslotRequired => "checkout-timeslot-required", 400, "A timeslot is required";
    CheckoutShippingAddressRequired => "checkout-shipping-address-required", 400, "A shipping address is required";
    CheckoutFulfillmentRequestRejected => "checkout-fulfillment-request-rejected", 422, "The provider refused the booking";
    CheckoutProductNotPriceable => "checkout-product-not-priceable", 422, "The product has no price for that date";
    CheckoutProductNotFulfillable => "checkout-product-not-fulfillable", 422, "The product cannot be delivered for that date";
    CheckoutBillingDetailRejected => "checkout-billing-detail-rejected", 422, "The billing details were rejected";
    CheckoutOrderFailed => "checkout-order-failed", 502, "The order could not be placed";
    CheckoutOrderEmptyRedirect => "checkout-order-empty-redirect", 502, "The payment provider gave no redirect";
    CheckoutMerchantNotPayable => "checkout-merchant-not-payable", 409, "The merchant cannot take payments yet";
    PaymentProviderUnavailable => "payment-provider-unavailable", 502, "The payment provider is unavailable";
    WebhookSignatureInvalid => "webhook-signature-invalid", 400, "The webhook signature is not valid";
    CheckoutFulfillmentReservationFailed => "checkout-fulfillment-reservation-failed", 502, "The reservation at the provider failed";
    IdempotencyKeyInUse => "idempotency-key-in-use", 409, "A request with this Idempotency-Key is in progress";
    IdempotencyKeyReused => "idempotency-key-reused", 409, "This Idempotency-Key was used for another request";
    CheckoutNotFound => "checkout-not-found", 404, "The checkout was not found";
    CheckoutNotReserved => "checkout-not-reserved", 409, "The checkout is not reserved any more";
    CheckoutHoldLimitReached => "checkout-hold-limit-reached", 409, "The buyer already holds as much as one buyer may";
    CheckoutHoldAlreadyExtended => "checkout-hold-already-extended", 409, "The hold was extended once already";
    CheckoutFieldLocked => "checkout-field-locked", 422, "A customer field the partner locked was changed";
    ImageUnsupported => "image-unsupported", 415, "The file is not a PNG, JPEG or WebP picture";
    ImageUnreadable => "image-unreadable", 422, "The picture cannot be read";
    ImageTooLarge => "image-too-large", 422, "The picture has too many pixels";
    ImageNotFound => "image-not-found", 404, "The picture was not found";
    CheckoutAnswerRequired => "checkout-answer-required", 422, "A required booking question has no answer";
    WalletNotConfigured => "wallet-not-configured", 404, "This wallet pass is not offered by this server";
    OrderNotCancellable => "order-not-cancellable", 409, "The order's policy allows no cancellation now";
    TicketNotCancellable => "ticket-not-cancellable", 409, "The ticket is cancelled or used already";
    RefundAbovePolicy => "refund-above-policy", 409, "The refund is more than the merchant's policy gives";
    OrderNotWithdrawable => "order-not-withdrawable", 409, "The order has no withdrawal right now";
    OrderNotRebookable => "order-not-rebookable", 409, "The order's visit cannot be moved now";
    TicketUnknown => "ticket-unknown", 404, "No ticket of this merchant has this code";
    TicketCancelled => "ticket-cancelled", 409, "The ticket was cancelled or replaced";
    TicketAlreadyRedeemed => "ticket-already-redeemed", 409, "The ticket was used already";
    TicketWrongGate => "ticket-wrong-gate", 409, "This gate does not admit the ticket's product";
    TicketNotValidNow => "ticket-not-valid-now", 409, "The ticket is not valid at this time";
    NonceReused => "nonce-reused", 409, "This gate used the nonce for another code";
    RedemptionNotUndoable => "redemption-not-undoable", 409, "The entry can no longer be undone here";
    GatePairingInvalid => "gate-pairing-invalid", 400, "The pairing code is unknown, used or expired";
}

impl ProblemType {
    /// The type whose short name this is; `None` for a name this build does not know.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|kind| kind.name() == name)
    }

    /// The full `type` URI.
    pub fn uri(self) -> String {
        format!("{PROBLEM_TYPE_PREFIX}{}", self.name())
    }
}

/// An RFC 9457 problem document (`application/problem+json`).
///
/// `error` and `error_description` appear only on OAuth endpoints, so that RFC 6749 clients
/// and problem+json readers both understand the same body.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Problem {
    #[serde(rename = "type")]
    #[cfg_attr(
        feature = "ssr",
        schema(example = "urn:boxoffice:error:request-validation-failed")
    )]
    pub kind: String,
    /// Server-side only, as `detail`, `error` and `error_description`: the frame words each
    /// problem itself from `type` and `errors`, and need not carry their decoding in its first
    /// load (docs/benchmarks.md, "The frame's size").
    #[cfg(feature = "ssr")]
    pub title: String,
    pub status: u16,
    #[cfg(feature = "ssr")]
    pub detail: String,
    pub correlation_id: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    #[cfg(feature = "ssr")]
    pub error: Option<String>,
    #[cfg(feature = "ssr")]
    pub error_description: Option<String>,
    /// The members of a gate's refusals (docs/gate.md), boxed: most problems have none.
    #[cfg(feature = "ssr")]
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub gate: Option<Box<GateRefusal>>,
}

/// Extension members (RFC 9457 §3.2) of a gate's refusals: when and where a used ticket was
/// first let in, the window a ticket is valid in; times with the merchant's offset. The
/// scanner reads them beside the problem (the frame's `Problem` leaves them out: its bundle
/// never decodes them).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct GateRefusal {
    /// A used ticket's first entry (`ticket-already-redeemed`).
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>, format = DateTime))]
    pub first_redeemed_at: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// The gate of that first entry.
    pub gate_id: Option<uuid::Uuid>,
    /// When the ticket lets its holder in (`ticket-not-valid-now`).
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>, format = DateTime))]
    pub valid_from: Option<chrono::DateTime<chrono::FixedOffset>>,
    /// The first instant after its window.
    #[cfg_attr(feature = "ssr", schema(value_type = Option<String>, format = DateTime))]
    pub valid_until: Option<chrono::DateTime<chrono::FixedOffset>>,
}

impl Problem {
    /// The short name after [`PROBLEM_TYPE_PREFIX`], e.g. `campaign-not-found`.
    pub fn name(&self) -> &str {
        self.kind
            .strip_prefix(PROBLEM_TYPE_PREFIX)
            .unwrap_or(&self.kind)
    }

    /// The problem's type, when it is one of ours.
    pub fn problem_type(&self) -> Option<ProblemType> {
        ProblemType::from_name(self.name())
    }
}

/// One invalid input: where it is (`field`, a JSON path, header or parameter name), a stable
/// machine `code`, and a human `message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct FieldError {
    pub field: String,
    pub code: String,
    pub message: String,
}

impl FieldError {
    pub fn new(
        field: impl Into<String>,
        code: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            code: code.into(),
            message: message.into(),
        }
    }
}
