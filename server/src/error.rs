//! The one error type of the server. Every failure a client sees is an RFC 9457 problem
//! document with a `urn:boxoffice:error:*` type and the request's correlation id; internal
//! details are logged, never sent.

pub use app::wire::ProblemType;
use app::wire::{FieldError, Problem};
use axum::{
    http::{header, HeaderValue, StatusCode},
    response::{IntoResponse, Response},
};

use crate::http::correlation;

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
        /// Extension members beside the detail (a gate's refusals).
        members: Option<Box<Members>>,
    },
    /// A fault of ours; logged with the correlation id and answered with a generic text.
    #[error(transparent)]
    Internal(anyhow::Error),
}

/// Seconds a client is asked to wait (`Retry-After`) after a 503: long enough for a database
/// restart or a failover to be under way, short enough for a checkout still to go through.
pub const RETRY_AFTER_SECS: u32 = 5;

impl From<anyhow::Error> for Error {
    /// A fault of ours, unless its cause is the database not answering: that is an outage the
    /// client can wait out (503 `service-unavailable`), whatever layer the error came through.
    fn from(err: anyhow::Error) -> Self {
        match err
            .chain()
            .find_map(|cause| cause.downcast_ref::<sqlx::Error>())
        {
            Some(cause) if is_outage(cause) => unavailable(&err),
            _ => Error::Internal(err),
        }
    }
}

/// Whether a database error means the database cannot be reached or is going away (connection
/// refused or lost, no connection free in time, the server shutting down or refusing new
/// connections), rather than a fault of the query.
fn is_outage(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => true,
        // SQLSTATE class 08 (connection exception), 57P01–57P03 (shutting down, crash
        // recovery, not accepting connections), 53300 (too many connections).
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08") || matches!(code.as_ref(), "57P01" | "57P02" | "57P03" | "53300")
        }),
        _ => false,
    }
}

/// 503 `service-unavailable` for a database outage; the cause is logged for the operator.
fn unavailable(err: &anyhow::Error) -> Error {
    tracing::warn!(error = ?err, "the database does not answer");
    Error::new(
        ProblemType::ServiceUnavailable,
        format!("The database does not answer; retry in {RETRY_AFTER_SECS} seconds."),
    )
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Extension members (RFC 9457 §3.2) a problem may carry beside its detail, so a client acts
/// on them without parsing text (docs/gate.md).
pub type Members = app::wire::GateRefusal;

impl Error {
    pub fn new(kind: ProblemType, detail: impl Into<String>) -> Self {
        Error::Problem {
            kind,
            detail: detail.into(),
            errors: Vec::new(),
            oauth: None,
            members: None,
        }
    }

    /// Adds extension members to the problem.
    pub fn with_members(mut self, added: Members) -> Self {
        if let Error::Problem { members, .. } = &mut self {
            *members = Some(Box::new(added));
        }
        self
    }

    /// Adds the RFC 6749 §5.2 `error` code (and `error_description` = detail), so OAuth client
    /// libraries understand the same problem document.
    pub fn with_oauth(self, code: &'static str) -> Self {
        match self {
            Error::Problem {
                kind,
                detail,
                errors,
                members,
                ..
            } => Error::Problem {
                kind,
                detail,
                errors,
                oauth: Some(code),
                members,
            },
            internal => internal,
        }
    }

    /// 400 `request-validation-failed` listing every invalid field.
    pub fn validation(errors: Vec<FieldError>) -> Self {
        let detail = match errors.as_slice() {
            [one] => format!("{}: {}", one.field, one.message),
            many => format!(
                "{} fields are invalid: {}",
                many.len(),
                many.iter()
                    .map(|e| e.field.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        Error::Problem {
            kind: ProblemType::RequestValidationFailed,
            detail,
            errors,
            oauth: None,
            members: None,
        }
    }

    /// A problem of `kind` about the fields `errors`, whose messages make its detail.
    pub fn fields(kind: ProblemType, errors: Vec<FieldError>) -> Self {
        let detail = errors
            .iter()
            .map(|e| e.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        Error::Problem {
            kind,
            detail,
            errors,
            oauth: None,
            members: None,
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
                members,
            } => {
                let mut p = problem(*kind, detail.clone(), errors.clone(), correlation_id);
                if let Some(code) = oauth {
                    p.error = Some((*code).to_owned());
                    p.error_description = Some(detail.clone());
                }
                p.gate = members.clone();
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
        status: kind.status(),
        detail,
        correlation_id,
        errors,
        error: None,
        error_description: None,
        gate: None,
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
    if status == StatusCode::SERVICE_UNAVAILABLE {
        headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    }
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
        anyhow::Error::new(err).context("database").into()
    }
}

#[cfg(test)]
mod tests {
    use super::{Error, ProblemType};

    #[test]
    fn a_database_out_of_reach_is_503_and_a_fault_of_a_query_stays_500() {
        let refused = std::io::Error::from(std::io::ErrorKind::ConnectionRefused);
        for outage in [
            sqlx::Error::PoolTimedOut,
            sqlx::Error::PoolClosed,
            sqlx::Error::Io(refused),
        ] {
            assert_eq!(Error::from(outage).kind(), ProblemType::ServiceUnavailable);
        }
        // Through any layer that wrapped it.
        let wrapped = anyhow::Error::new(sqlx::Error::PoolTimedOut).context("reading the basket");
        assert_eq!(Error::from(wrapped).kind(), ProblemType::ServiceUnavailable);
        assert_eq!(
            Error::from(sqlx::Error::RowNotFound).kind(),
            ProblemType::InternalError
        );
    }

    /// docs/errors.md is the one list of problem types: one row per type, `| `name` | status |`,
    /// and no row for a type that does not exist.
    #[test]
    fn docs_errors_md_lists_every_problem_type_and_no_other() {
        let docs = include_str!("../../docs/errors.md");
        let rows: Vec<(&str, &str)> = docs
            .lines()
            .filter_map(|line| line.strip_prefix("| `"))
            .filter_map(|rest| {
                let (name, rest) = rest.split_once("` | ")?;
                let (status, _) = rest.split_once(" |")?;
                Some((name, status))
            })
            .collect();
        for kind in ProblemType::ALL {
            let found: Vec<_> = rows.iter().filter(|(n, _)| *n == kind.name()).collect();
            assert_eq!(
                found.len(),
                1,
                "docs/errors.md must list `{}` exactly once",
                kind.name()
            );
            assert_eq!(
                found[0].1,
                kind.status().to_string(),
                "docs/errors.md gives `{}` another status",
                kind.name()
            );
        }
        for (name, _) in &rows {
            assert!(
                ProblemType::from_name(name).is_some(),
                "docs/errors.md lists `{name}`, which is no problem type"
            );
        }
    }
}
