//! Types that cross the wire, shared by the server (serialisation, OpenAPI) and the frame.

mod availability;
mod envelope;
mod locale;
mod merchant;
mod money;
mod problem;
mod product;

pub use availability::{CalendarEntry, TimeslotEntry, TimeslotQuery};
pub use envelope::{Envelope, Meta, Pagination};
pub use locale::Locale;
pub use merchant::{GeoPoint, Merchant, MerchantAddress, MerchantMatch};
pub use money::Money;
pub use problem::{FieldError, Problem, PROBLEM_TYPE_PREFIX};
pub use product::Product;
