//! The customer fields of a confirmation: required text, the e-mail address and shipping
//! country (422 `checkout-billing-detail-rejected` when unusable), and the return URL, whose
//! origin the partner must have registered.
//!
//! The return URL also attributes the checkout: its events (which carry the `payment_id`) go
//! to that partner alone. A session's checkout is its partner's. A guest's (or an identity
//! session's, which has no partner) is the partner client's whose registered return origins
//! match the return URL, when exactly one client of the campaign does; when several do, the
//! request cannot tell which partner made it and the checkout is attributed to nobody: it is
//! sold, and nobody is told of it (docs/security.md, "Events and webhooks").

use app::wire::{origin_matches, ConfirmRequest, FieldError};
use uuid::Uuid;

use super::Commerce;
use crate::{
    credentials::sessions::prefill,
    error::{Error, ProblemType, Result},
    store::CustomerFields,
    validate::{is_country, is_email, Checks},
};

const MAX_NEWSLETTERS: usize = 20;

/// 400 for missing or malformed fields, then 422 for details a provider would reject; the
/// fields name the partner the checkout is attributed to.
pub async fn validate(
    state: &Commerce,
    campaign_id: Uuid,
    partner_client_id: Option<Uuid>,
    request: &ConfirmRequest,
) -> Result<CustomerFields> {
    let mut checks = Checks::default();
    checks.text("email", request.email.trim(), 1, 254);
    checks.text("first_name", request.first_name.trim(), 1, 100);
    checks.text("last_name", request.last_name.trim(), 1, 100);
    let return_url = crate::validate::return_url(&request.return_url);
    checks.check(
        return_url.is_some(),
        "return_url",
        "invalid",
        "return_url must be an absolute http(s) URL at a name or IPv4 address, without a user",
    );
    if let Some(address) = &request.shipping_address {
        checks.text("shipping_address.street", address.street.trim(), 1, 200);
        checks.text(
            "shipping_address.house_number",
            address.house_number.trim(),
            1,
            20,
        );
        checks.text(
            "shipping_address.postal_code",
            address.postal_code.trim(),
            1,
            20,
        );
        checks.text("shipping_address.city", address.city.trim(), 1, 100);
    }
    checks.check(
        request.newsletters.len() <= MAX_NEWSLETTERS,
        "newsletters",
        "too-many",
        format!("at most {MAX_NEWSLETTERS} newsletters"),
    );
    for (i, id) in request.newsletters.iter().enumerate() {
        checks.text(&format!("newsletters[{i}]"), id, 1, 100);
    }
    if let Some(buyer) = &request.buyer {
        crate::settlement::invoice::check_buyer(&mut checks, buyer);
    }
    checks.finish()?;

    let mut rejected = Vec::new();
    if !is_email(request.email.trim()) {
        rejected.push(FieldError::new(
            "email",
            "email",
            "email is not a deliverable e-mail address",
        ));
    }
    if let Some(address) = &request.shipping_address {
        if !is_country(&address.country.trim().to_ascii_uppercase()) {
            rejected.push(FieldError::new(
                "shipping_address.country",
                "country",
                "shipping_address.country is not an ISO 3166-1 alpha-2 country code",
            ));
        }
    }
    if !rejected.is_empty() {
        return Err(Error::fields(
            ProblemType::CheckoutBillingDetailRejected,
            rejected,
        ));
    }

    let return_url = return_url.expect("checked above");
    let origins = state
        .catalog
        .definitions
        .return_origins(state.store.as_ref(), campaign_id, partner_client_id)
        .await?;
    let origin = return_url.origin().ascii_serialization();
    let mut matching = origins.iter().filter(|client| {
        client
            .origins
            .iter()
            .any(|pattern| origin_matches(pattern, &origin))
    });
    let Some(first) = matching.next() else {
        return Err(Error::invalid_field(
            "return_url",
            "origin-not-allowed",
            format!(
                "return_url's origin {} is not registered for this partner",
                return_url.origin().ascii_serialization()
            ),
        ));
    };
    let attributed = match (partner_client_id, matching.next()) {
        (Some(partner), _) => Some(partner),
        (None, None) => Some(first.partner_client_id),
        (None, Some(_)) => None,
    };

    Ok(CustomerFields {
        partner_client_id: attributed,
        email: request.email.trim().to_owned(),
        first_name: request.first_name.trim().to_owned(),
        last_name: request.last_name.trim().to_owned(),
        return_url: return_url.to_string(),
        shipping_address: request.shipping_address.as_ref().map(|a| {
            serde_json::json!({
                "street": a.street.trim(), "house_number": a.house_number.trim(),
                "postal_code": a.postal_code.trim(), "city": a.city.trim(),
                "country": a.country.trim().to_ascii_uppercase(),
            })
        }),
        newsletters: request.newsletters.clone(),
        buyer: request
            .buyer
            .as_ref()
            .map(crate::settlement::invoice::normalized),
        // Checked against the checkout's questions by the caller, which has them.
        answers: None,
    })
}

/// 422 `checkout-field-locked` naming each field the partner of the session `session_id`
/// locked (`user.locked` of `POST /v1/session`) whose value in `request` is another: the
/// e-mail address compared without regard to case, names as written, both trimmed.
pub async fn check_locked(
    state: &Commerce,
    session_id: Option<Uuid>,
    request: &ConfirmRequest,
) -> Result<()> {
    let prefill = prefill(state.store.as_ref(), session_id).await?;
    if prefill.locked.is_empty() {
        return Ok(());
    }
    let sent = [
        ("email", request.email.trim()),
        ("first_name", request.first_name.trim()),
        ("last_name", request.last_name.trim()),
    ];
    let changed: Vec<FieldError> = sent
        .into_iter()
        .filter(|(name, _)| prefill.is_locked(name))
        .filter(|(name, value)| {
            let locked = prefill.value(name).unwrap_or_default().trim();
            if *name == "email" {
                !locked.eq_ignore_ascii_case(value)
            } else {
                locked != *value
            }
        })
        .map(|(name, _)| {
            FieldError::new(
                name,
                "locked",
                format!("{name} was set by the partner and cannot be changed; send the value it gave with the session"),
            )
        })
        .collect();
    if changed.is_empty() {
        return Ok(());
    }
    Err(Error::fields(ProblemType::CheckoutFieldLocked, changed))
}
