use serde::{Deserialize, Serialize};

/// Every problem `type` is this prefix followed by a short name, e.g. `…:campaign-not-found`.
pub const PROBLEM_TYPE_PREFIX: &str = "urn:boxoffice:error:";

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
    pub title: String,
    pub status: u16,
    pub detail: String,
    pub correlation_id: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    pub error: Option<String>,
    pub error_description: Option<String>,
}

impl Problem {
    /// The short name after [`PROBLEM_TYPE_PREFIX`], e.g. `campaign-not-found`.
    pub fn name(&self) -> &str {
        self.kind
            .strip_prefix(PROBLEM_TYPE_PREFIX)
            .unwrap_or(&self.kind)
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
