//! The basket: lines of products and quantities, checked before anything is looked up.

use std::collections::HashSet;

use app::wire::Attribution;

use crate::error::{Error, ProblemType, Result};

pub use app::wire::BasketLine;

/// Limits of a basket (docs/api-checkout.md).
pub const MAX_LINES: usize = 20;
pub const MAX_QUANTITY: u32 = 50;
/// Our limits: a basket's codes are looked up one by one, and references are stored.
pub const MAX_VOUCHER_CODES: usize = 10;
pub const MAX_CODE_CHARS: usize = 64;
pub const MAX_REFERENCE_CHARS: usize = 200;
/// Each field of a checkout's attribution (`utm_*`, `ref`).
pub const MAX_ATTRIBUTION_CHARS: usize = 200;

/// A checkout body's deserialisation failure at a basket line (a quantity that is not a whole
/// number, or too large for one; a product id that is not a UUID; a line that is not an
/// object) as the contract names it: 400 `checkout-basket-line-invalid` with the field, like
/// every other bad line, instead of the generic `request-validation-failed`. A missing field
/// stays `request-validation-failed`, as the contract has it for a missing required field, and
/// so does a body with other faults besides its lines' (one problem names them all).
pub fn line_problem(error: Error) -> Error {
    match error {
        Error::Problem {
            kind: ProblemType::RequestValidationFailed,
            detail,
            errors,
            oauth,
            members,
        } if !errors.is_empty()
            && errors
                .iter()
                .all(|e| e.code != "required" && is_line_field(&e.field)) =>
        {
            Error::Problem {
                kind: ProblemType::CheckoutBasketLineInvalid,
                detail,
                errors,
                oauth,
                members,
            }
        }
        other => other,
    }
}

/// `lines`, or a field of one of its lines (`lines[2].quantity`).
fn is_line_field(field: &str) -> bool {
    field == "lines" || field.starts_with("lines[")
}

/// Every check of a basket's own shape, before anything is looked up: its lines (`check`),
/// then its codes and reference (`check_fields`).
pub fn check_request(request: &app::wire::CheckoutRequest) -> Result<()> {
    check(&request.lines)?;
    check_fields(
        &request.voucher_codes,
        request.external_reference.as_deref(),
        request.attribution.as_ref(),
        request.buyer.as_ref(),
    )
}

/// 400 `request-validation-failed` for too many or too long voucher codes, a too long
/// external reference, or an attribution field that is empty, longer than 200 characters or
/// not printable (`attribution.utm_source`, …), or a business buyer's fields
/// (`settlement::invoice::check_buyer`).
pub fn check_fields(
    voucher_codes: &[String],
    external_reference: Option<&str>,
    attribution: Option<&Attribution>,
    buyer: Option<&app::wire::Buyer>,
) -> Result<()> {
    let mut checks = crate::validate::Checks::default();
    checks.check(
        voucher_codes.len() <= MAX_VOUCHER_CODES,
        "voucher_codes",
        "too-many",
        format!("at most {MAX_VOUCHER_CODES} voucher codes"),
    );
    for (i, code) in voucher_codes.iter().enumerate() {
        checks.text(&format!("voucher_codes[{i}]"), code, 0, MAX_CODE_CHARS);
    }
    if let Some(reference) = external_reference {
        checks.text("external_reference", reference, 1, MAX_REFERENCE_CHARS);
    }
    for (name, value) in attribution.map(Attribution::fields).into_iter().flatten() {
        if let Some(value) = value {
            let field = format!("attribution.{name}");
            checks.text(&field, value, 1, MAX_ATTRIBUTION_CHARS);
            checks.check(
                value.chars().all(|c| !c.is_control()),
                &field,
                "printable",
                format!("{field} must be printable text"),
            );
        }
    }
    if let Some(buyer) = buyer {
        crate::settlement::invoice::check_buyer(&mut checks, buyer);
    }
    checks.finish()
}

/// 400 `checkout-basket-empty` for no lines; 400 `checkout-basket-line-invalid` naming the
/// line for too many lines, a quantity outside 1..=50, or a product repeated.
pub fn check(lines: &[BasketLine]) -> Result<()> {
    if lines.is_empty() {
        return Err(Error::new(
            ProblemType::CheckoutBasketEmpty,
            "The basket has no lines.",
        ));
    }
    let invalid = |field: String, message: String| {
        let mut error = Error::new(ProblemType::CheckoutBasketLineInvalid, message.clone());
        if let Error::Problem { errors, .. } = &mut error {
            errors.push(app::wire::FieldError::new(field, "invalid", message));
        }
        error
    };
    if lines.len() > MAX_LINES {
        return Err(invalid(
            "lines".into(),
            format!("A basket holds at most {MAX_LINES} lines."),
        ));
    }
    let mut seen = HashSet::new();
    for (i, line) in lines.iter().enumerate() {
        if !(1..=MAX_QUANTITY).contains(&line.quantity) {
            return Err(invalid(
                format!("lines[{i}].quantity"),
                format!("lines[{i}].quantity must be between 1 and {MAX_QUANTITY}."),
            ));
        }
        if !seen.insert(line.product_id) {
            return Err(invalid(
                format!("lines[{i}].product_id"),
                format!("lines[{i}] repeats a product; put its quantity on one line."),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use uuid::Uuid;

    use super::*;

    fn line(n: u128, quantity: u32) -> BasketLine {
        BasketLine {
            product_id: Uuid::from_u128(n),
            quantity,
        }
    }

    fn kind(result: Result<()>) -> Option<ProblemType> {
        result.err().map(|e| e.kind())
    }

    #[test]
    fn basket_rules() {
        assert_eq!(kind(check(&[])), Some(ProblemType::CheckoutBasketEmpty));
        assert_eq!(kind(check(&[line(1, 1), line(2, 50)])), None);
        assert_eq!(
            kind(check(&[line(1, 0)])),
            Some(ProblemType::CheckoutBasketLineInvalid)
        );
        assert_eq!(
            kind(check(&[line(1, 51)])),
            Some(ProblemType::CheckoutBasketLineInvalid)
        );
        assert_eq!(
            kind(check(&[line(1, 1), line(1, 2)])),
            Some(ProblemType::CheckoutBasketLineInvalid)
        );
        let many: Vec<_> = (0..21).map(|n| line(n, 1)).collect();
        assert_eq!(
            kind(check(&many)),
            Some(ProblemType::CheckoutBasketLineInvalid)
        );
    }
}
