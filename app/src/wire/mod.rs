//! Types that cross the wire, shared by the server (serialisation, OpenAPI) and the frame.

mod envelope;
mod locale;
mod money;
mod problem;

pub use envelope::{Envelope, Meta, Pagination};
pub use locale::Locale;
pub use money::Money;
pub use problem::{FieldError, Problem, PROBLEM_TYPE_PREFIX};
