//! The catalog in OCTO's shapes (docs/octo.md, "Mapping"): the merchant is the supplier, each
//! dated or undated ticket a product with one option (`DEFAULT`) and one unit, its age group
//! as the unit's type. Prices are the ones customers pay (`settlement::sold`); with
//! `octo/pricing` they come in minor units with the VAT they include and the reseller's net
//! (the price less its commission, `settlement::split`).

use app::wire::{AskedPer, ImageRole, Locale};
use rust_decimal::{prelude::ToPrimitive, Decimal};
use serde_json::{json, Value};

use super::reseller::{Reseller, CONTENT, PRICING, QUESTIONS};
use crate::{
    after_sale::policy::Before,
    settlement::{
        split::{split, Parts},
        terms::terms_of,
    },
    store::{Campaign, Merchant, Product, StoredImage},
};

/// The one option of every product.
pub const OPTION_ID: &str = "DEFAULT";

/// Whether OCTO sells `product`: a ticket, not shipped (OCTO has no address to ship to).
pub fn sold_through_octo(product: &Product) -> bool {
    product.product_type == crate::store::TICKET && !product.physical_product
}

/// The id of a product's unit: its age group, else `adult`.
pub fn unit_id(product: &Product) -> String {
    product
        .age_group
        .as_deref()
        .unwrap_or("adult")
        .to_ascii_lowercase()
}

/// OCTO's unit type of an age group.
fn unit_type(product: &Product) -> &'static str {
    match unit_id(product).as_str() {
        "adult" | "adults" => "ADULT",
        "child" | "children" | "kid" | "kids" => "CHILD",
        "infant" | "baby" => "INFANT",
        "youth" | "teen" | "teenager" => "YOUTH",
        "senior" | "seniors" => "SENIOR",
        "student" | "students" => "STUDENT",
        "family" => "FAMILY",
        "military" => "MILITARY",
        _ => "OTHER",
    }
}

/// An amount in minor units (OCTO's integers; `currencyPrecision` 2).
pub fn minor(amount: Decimal) -> i64 {
    (amount * Decimal::ONE_HUNDRED)
        .round()
        .to_i64()
        .unwrap_or(0)
}

/// `gross` of one ticket of `product` as OCTO prices it: retail, the price before discount
/// (`original`), net of the reseller's commission, and the VAT included.
pub fn pricing(
    merchant: &Merchant,
    campaign: &Campaign,
    product: &Product,
    (gross, original): (Decimal, Decimal),
) -> Value {
    let terms = terms_of(merchant, product, campaign, &merchant.currency);
    let sold = split(gross, 1, &terms);
    let listed = split(original, 1, &terms);
    let net = |parts: &Parts| minor(parts.gross - parts.commission);
    json!({
        "original": minor(original),
        "retail": minor(gross),
        "net": net(&sold),
        "currency": merchant.currency,
        "currencyPrecision": 2,
        "includedTaxes": sold.tax.iter().zip(listed.tax.iter()).map(|(t, o)| json!({
            "name": t.name,
            "retail": minor(t.amount),
            "original": minor(o.amount),
            "net": minor(t.amount),
        })).collect::<Vec<_>>(),
    })
}

/// The supplier: the merchant.
pub fn supplier(r: &Reseller, endpoint: &str) -> Value {
    let m = &r.merchant;
    let text = m.localized(r.locale);
    let mut supplier = json!({
        "id": m.merchant_id,
        "name": text.name,
        "endpoint": endpoint,
        "contact": {
            "website": m.website,
            "email": null,
            "telephone": null,
            "address": format!("{}, {} {}, {}", m.address.street, m.address.postal_code, m.address.city, m.address.country),
        },
    });
    if r.capabilities.has(CONTENT) {
        supplier["shortDescription"] = json!(text.description);
        supplier["media"] = media(&m.images, r);
    }
    supplier
}

/// Pictures as OCTO's `Media`: their JPEG (OCTO has no WebP type), the role as `rel`, the
/// alternative text as the caption.
fn media(images: &[StoredImage], r: &Reseller) -> Value {
    images
        .iter()
        .filter_map(|image| {
            let src = crate::images::jpeg_url(image, &r.base)?;
            let rel = match image.role {
                ImageRole::Cover => "COVER",
                ImageRole::Gallery => "GALLERY",
                ImageRole::Logo => "LOGO",
            };
            let caption = image.alt.get(r.locale);
            Some(json!({
                "src": src,
                "type": "image/jpeg",
                "rel": rel,
                "title": null,
                "caption": (!caption.is_empty()).then_some(caption),
                "copyright": null,
            }))
        })
        .collect()
}

/// What an option or product says with `octo/content`.
fn content(title: &str, description: &str, media: Value) -> Value {
    json!({
        "title": title,
        "shortDescription": (!description.is_empty()).then_some(description),
        "description": (!description.is_empty()).then_some(description),
        "features": [],
        "faqs": [],
        "media": media,
        "locations": [],
        "categoryLabels": [],
        "durationMinutesFrom": 0,
        "durationMinutesTo": null,
        "commentary": [],
    })
}

fn merge(into: &mut Value, from: Value) {
    if let (Some(into), Value::Object(from)) = (into.as_object_mut(), from) {
        into.extend(from);
    }
}

/// The last moment before the visit a cancellation refunds anything, as OCTO's cutoff.
fn cancellation_cutoff(product: &Product) -> (i64, &'static str) {
    let seconds = product
        .after_sale
        .as_ref()
        .and_then(|p| {
            p.0.refund_rules
                .iter()
                .filter_map(|rule| Before::parse(&rule.until).ok())
                .map(Before::nominal_seconds)
                .min()
        })
        .unwrap_or(0);
    let hours = i64::try_from(seconds / 3600).unwrap_or(0);
    if hours > 0 && hours % 24 == 0 {
        (hours / 24, "day")
    } else {
        (hours, "hour")
    }
}

/// A booking question as Ventrata's `octo/questions` writes it.
fn question(q: &app::wire::Question, locale: Locale) -> Value {
    let asked = crate::catalog::questions::asked(q, locale, None);
    json!({
        "id": asked.question_id,
        "label": asked.label,
        "description": null,
        "required": asked.required,
        "inputType": asked.input_type,
        "selectOptions": asked.options.iter().map(|o| json!({ "label": o.label, "value": o.value })).collect::<Vec<_>>(),
    })
}

/// `product` (with the prices customers pay) as an OCTO product; `start_times` are the local
/// start times of its entry windows (`["00:00"]` for a day ticket).
pub fn product(
    r: &Reseller,
    campaign: &Campaign,
    product: &Product,
    start_times: Vec<String>,
) -> Value {
    let locale = r.locale;
    let text = product.localized(locale);
    let gross = product.unit_price + product.booking_costs;
    let original = product.list_price.max(product.unit_price) + product.booking_costs;
    let (amount, unit) = cancellation_cutoff(product);
    let asks = |per: AskedPer| -> Vec<Value> {
        product
            .questions()
            .iter()
            .filter(|q| q.per == per)
            .map(|q| question(q, locale))
            .collect()
    };
    let mut unit_json = json!({
        "id": unit_id(product),
        "internalName": product.age_group.clone().unwrap_or_else(|| text.title.to_owned()),
        "reference": product.sku,
        "type": unit_type(product),
        "requiredContactFields": [],
        "restrictions": {
            "minAge": 0, "maxAge": 100, "idRequired": false, "minQuantity": null,
            "maxQuantity": crate::checkout::basket::MAX_QUANTITY, "paxCount": 1, "accompaniedBy": [],
        },
    });
    let mut option = json!({
        "id": OPTION_ID,
        "default": true,
        "internalName": text.title,
        "reference": null,
        "availabilityLocalStartTimes": start_times,
        "cancellationCutoff": format!("{amount} {unit}"),
        "cancellationCutoffAmount": amount,
        "cancellationCutoffUnit": unit,
        "requiredContactFields": ["firstName", "lastName", "emailAddress"],
        "restrictions": { "minUnits": 1, "maxUnits": crate::checkout::basket::MAX_QUANTITY },
    });
    let mut octo = json!({
        "id": product.product_id,
        "internalName": text.title,
        "reference": product.sku,
        "locale": locale.tag(),
        "timeZone": r.merchant.timezone,
        "allowFreesale": false,
        "instantConfirmation": true,
        "instantDelivery": true,
        "availabilityRequired": !product.no_date,
        "availabilityType": "START_TIME",
        "deliveryFormats": if r.wallet_passes { json!(["QRCODE", "PKPASS_URL"]) } else { json!(["QRCODE"]) },
        "deliveryMethods": ["TICKET"],
        "redemptionMethod": "DIGITAL",
    });
    if r.capabilities.has(CONTENT) {
        // The same pictures on the product and its one option, as OCTO's document asks of
        // suppliers that do not tell the two apart.
        let pictures = media(&product.images, r);
        merge(
            &mut octo,
            content(text.title, text.conditions, pictures.clone()),
        );
        merge(&mut option, content(text.title, text.conditions, pictures));
        unit_json["title"] = json!(product.age_group);
        unit_json["shortDescription"] = json!(text.title);
        unit_json["features"] = json!([]);
    }
    if r.capabilities.has(PRICING) {
        let price = pricing(&r.merchant, campaign, product, (gross, original));
        octo["defaultCurrency"] = json!(r.merchant.currency);
        octo["availableCurrencies"] = json!([r.merchant.currency]);
        octo["pricingPer"] = json!("UNIT");
        unit_json["pricingFrom"] = json!([price]);
        unit_json["pricing"] = json!([price]);
        option["pricingFrom"] = json!([]);
        option["pricing"] = json!([]);
    }
    if r.capabilities.has(QUESTIONS) {
        option["questions"] = json!(asks(AskedPer::Booking));
        unit_json["questions"] = json!(asks(AskedPer::Ticket));
    }
    option["units"] = json!([unit_json]);
    octo["options"] = json!([option]);
    octo
}
