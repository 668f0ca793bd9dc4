//! Schemas of wire strings the OpenAPI document states as more than a string, each used as
//! `#[schema(schema_with = …)]` on the fields that carry it (server build only).

use utoipa::openapi::schema::{
    AnyOfBuilder, ArrayBuilder, KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type,
};

/// Text that is not blank as Rust's `str::trim` sees it, in JSON Schema's (ECMA-262) regular
/// expressions: a character other than white space, where `\s` lacks U+0085 (which `trim`
/// removes) and has U+FEFF (which `trim` keeps). The same text as each `pattern = r"…"` on a
/// field that must not be blank.
pub const NOT_BLANK: &str = r"[^\s\u0085]|\ufeff";

/// A checkout's `return_url`: [`super::RETURN_URL_PATTERN`], the server's own check.
pub fn return_url() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .pattern(Some(super::RETURN_URL_PATTERN))
        .description(Some(
            "Absolute http(s) URL on an origin the partner registered; reached whatever the outcome, with `payment_id` added.",
        ))
        .examples(["https://shop.example/tickets/done?basket=7"])
}

/// An ISO 3166-1 alpha-2 country code: the codes the server accepts (celes's table, the one
/// `server::validate::is_country` checks against), listed as an enum.
pub fn country_code() -> ObjectBuilder {
    let mut codes: Vec<&str> = celes::Country::get_countries()
        .iter()
        .map(|c| c.alpha2)
        .collect();
    codes.sort_unstable();
    codes.dedup();
    ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("ISO 3166-1 alpha-2, upper case"))
        .enum_values(Some(codes))
        .examples(["NL"])
}

/// A checkout's visit: an RFC 3339 date-time (for a timeslotted product, a slot's start), or
/// a bare date for a product without timeslots (`checkout::visit::VisitInput::parse` also
/// takes a date-time without offset, read in the merchant's zone).
pub fn visit_date() -> Schema {
    let string = |format| {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(format)))
    };
    AnyOfBuilder::new()
        .item(string(KnownFormat::DateTime))
        .item(string(KnownFormat::Date))
        .description(Some(
            "ISO 8601 date-time with a real time for timeslotted products (read in the merchant's zone), or a bare YYYY-MM-DD for products without timeslots",
        ))
        .examples([serde_json::json!("2026-12-01T10:00:00+01:00")])
        .into()
}

/// A basket's voucher codes: at most 10, each at most 64 characters (an unknown or exhausted
/// code is ignored; `checkout::basket::check_fields`).
pub fn voucher_codes() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(64)),
        )
        .max_items(Some(10))
        .description(Some("Invalid or exhausted codes are silently ignored."))
}

/// The newsletter ids a customer consented to: at most 20, each 1 to 100 characters and not
/// blank (`checkout::customer::validate`).
pub fn newsletters() -> ArrayBuilder {
    ArrayBuilder::new()
        .items(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .max_length(Some(100))
                .pattern(Some(NOT_BLANK)),
        )
        .max_items(Some(20))
        .description(Some("Newsletter ids the customer consented to."))
}

/// What a gate scanned (`wire::RedemptionRequest`, `wire::OfflineScan`): the QR code's signed
/// token or a printed code, not blank.
pub fn scanned_code() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .max_length(Some(2048))
        .pattern(Some(NOT_BLANK))
        .description(Some(
            "What the QR code holds (the signed ticket token) or the printed code typed by hand.",
        ))
}

/// A scan's nonce: the gate's own for each scan, per gate (`gate::redeem::check_nonce`).
pub fn scan_nonce() -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(Type::String)
        .min_length(Some(8))
        .max_length(Some(64))
        .pattern(Some(r"^[A-Za-z0-9._~-]{8,64}$"))
        .description(Some(
            "Chosen by the gate for this one scan (a UUID is a good one); the same nonce sent again is the same scan. Nonces are per gate.",
        ))
}
