//! OpenAPI `links` of the document: from each operation that creates something (or hands out
//! a code) to the operations that take what it returned, so a reader, a generated client or
//! schemathesis's stateful phase can follow a partner's flow from the document alone.

use serde_json::{json, Map, Value};

/// `(source operationId, status, links)`.
type Links = (&'static str, &'static str, &'static [Link]);

/// A link: its name, its target operationId, and what it carries from the source's response.
type Link = (&'static str, &'static str, Carry);

/// What a link takes from the response: runtime expressions for the target's parameters, or
/// for one member of its body.
enum Carry {
    Parameters(&'static [(&'static str, &'static str)]),
    BodyMember(&'static str, &'static str),
}
use Carry::{BodyMember, Parameters};

const CHECKOUT: &str = "$response.body#/data/checkout_id";
const ORDER: &str = "$response.body#/data/order_id";

/// The links, per source operation.
const LINKS: &[Links] = &[
    (
        "start_session",
        "201",
        &[(
            "ExchangeSessionCode",
            "exchange_session_code",
            BodyMember("session_code", "$response.body#/data/session_code"),
        )],
    ),
    (
        "create_checkout",
        "201",
        &[
            (
                "GetCheckout",
                "get_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
            (
                "ConfirmCheckout",
                "confirm_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
            (
                "ExtendCheckout",
                "extend_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
            (
                "ReleaseCheckout",
                "release_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
        ],
    ),
    (
        "confirm_checkout",
        "200",
        &[
            (
                "GetCheckout",
                "get_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
            ("GetOrder", "get_order", Parameters(&[("order_id", ORDER)])),
        ],
    ),
    (
        "express_checkout",
        "200",
        &[
            (
                "GetCheckout",
                "get_checkout",
                Parameters(&[("checkout_id", CHECKOUT)]),
            ),
            ("GetOrder", "get_order", Parameters(&[("order_id", ORDER)])),
            (
                "OrderReceipt",
                "receipt",
                Parameters(&[("order_id", ORDER)]),
            ),
        ],
    ),
    (
        "get_checkout",
        "200",
        &[
            (
                "PaymentPage",
                "payment_page",
                Parameters(&[("payment_id", "$response.body#/data/payment/payment_id")]),
            ),
            ("GetOrder", "get_order", Parameters(&[("order_id", ORDER)])),
        ],
    ),
    (
        "admin_create_campaign",
        "201",
        &[
            (
                "GetCampaign",
                "admin_get_campaign",
                Parameters(&[("campaign_id", "$response.body#/data/campaign_id")]),
            ),
            (
                "UpdateCampaign",
                "admin_update_campaign",
                Parameters(&[("campaign_id", "$response.body#/data/campaign_id")]),
            ),
        ],
    ),
    (
        "admin_create_client",
        "201",
        &[
            (
                "GetClient",
                "admin_get_client",
                Parameters(&[(
                    "partner_client_id",
                    "$response.body#/data/partner_client_id",
                )]),
            ),
            (
                "UpdateClient",
                "admin_update_client",
                Parameters(&[(
                    "partner_client_id",
                    "$response.body#/data/partner_client_id",
                )]),
            ),
            (
                "RotateClientSecret",
                "admin_rotate_client_secret",
                Parameters(&[(
                    "partner_client_id",
                    "$response.body#/data/partner_client_id",
                )]),
            ),
            (
                "RotateWebhookSecret",
                "admin_rotate_webhook_secret",
                Parameters(&[(
                    "partner_client_id",
                    "$response.body#/data/partner_client_id",
                )]),
            ),
            (
                "DeleteClient",
                "admin_delete_client",
                Parameters(&[(
                    "partner_client_id",
                    "$response.body#/data/partner_client_id",
                )]),
            ),
        ],
    ),
    (
        "admin_create_group",
        "201",
        &[
            (
                "GetGroup",
                "admin_get_group",
                Parameters(&[(
                    "availability_group_id",
                    "$response.body#/data/availability_group_id",
                )]),
            ),
            (
                "UpdateGroup",
                "admin_update_group",
                Parameters(&[(
                    "availability_group_id",
                    "$response.body#/data/availability_group_id",
                )]),
            ),
            (
                "ReadTimeslots",
                "admin_read_timeslots",
                Parameters(&[(
                    "availability_group_id",
                    "$response.body#/data/availability_group_id",
                )]),
            ),
            (
                "WriteTimeslots",
                "admin_write_timeslots",
                Parameters(&[(
                    "availability_group_id",
                    "$response.body#/data/availability_group_id",
                )]),
            ),
        ],
    ),
    (
        "admin_create_issuer",
        "201",
        &[
            (
                "GetIssuer",
                "admin_get_issuer",
                Parameters(&[(
                    "identity_issuer_id",
                    "$response.body#/data/identity_issuer_id",
                )]),
            ),
            (
                "UpdateIssuer",
                "admin_update_issuer",
                Parameters(&[(
                    "identity_issuer_id",
                    "$response.body#/data/identity_issuer_id",
                )]),
            ),
            (
                "DeleteIssuer",
                "admin_delete_issuer",
                Parameters(&[(
                    "identity_issuer_id",
                    "$response.body#/data/identity_issuer_id",
                )]),
            ),
        ],
    ),
    (
        "admin_create_merchant",
        "201",
        &[
            (
                "GetMerchant",
                "admin_get_merchant",
                Parameters(&[("merchant_id", "$response.body#/data/merchant_id")]),
            ),
            (
                "UpdateMerchant",
                "admin_update_merchant",
                Parameters(&[("merchant_id", "$response.body#/data/merchant_id")]),
            ),
        ],
    ),
    (
        "admin_create_product",
        "201",
        &[
            (
                "GetProduct",
                "admin_get_product",
                Parameters(&[("product_id", "$response.body#/data/product_id")]),
            ),
            (
                "UpdateProduct",
                "admin_update_product",
                Parameters(&[("product_id", "$response.body#/data/product_id")]),
            ),
            (
                "ReadCalendar",
                "admin_read_calendar",
                Parameters(&[("product_id", "$response.body#/data/product_id")]),
            ),
            (
                "WriteCalendar",
                "admin_write_calendar",
                Parameters(&[("product_id", "$response.body#/data/product_id")]),
            ),
        ],
    ),
    (
        "admin_create_voucher",
        "201",
        &[
            (
                "GetVoucher",
                "admin_get_voucher",
                Parameters(&[("voucher_id", "$response.body#/data/voucher_id")]),
            ),
            (
                "UpdateVoucher",
                "admin_update_voucher",
                Parameters(&[("voucher_id", "$response.body#/data/voucher_id")]),
            ),
            (
                "DeleteVoucher",
                "admin_delete_voucher",
                Parameters(&[("voucher_id", "$response.body#/data/voucher_id")]),
            ),
        ],
    ),
];

/// Adds [`LINKS`] to the responses of their source operations in the serialised document
/// (utoipa's `Link` serialises its members in snake case, `operation_id`, which no reader
/// knows); a link whose source or target operation is not in `doc` is left out.
pub fn add_links(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    let operations = || METHODS.iter();
    let ids: Vec<String> = paths
        .values()
        .flat_map(|item| operations().filter_map(|m| item.get(*m)))
        .filter_map(|operation| operation["operationId"].as_str().map(str::to_owned))
        .collect();
    for item in paths.values_mut() {
        for method in operations() {
            let Some(operation) = item.get_mut(*method) else {
                continue;
            };
            let id = operation["operationId"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            for (_, status, links) in LINKS.iter().filter(|(source, ..)| *source == id) {
                let Some(response) = operation
                    .pointer_mut(&format!("/responses/{status}"))
                    .and_then(Value::as_object_mut)
                else {
                    continue;
                };
                let entry = response
                    .entry("links")
                    .or_insert_with(|| Value::Object(Map::new()));
                for (name, target, carry) in links.iter() {
                    if !ids.iter().any(|known| known == target) {
                        continue;
                    }
                    let mut link = json!({ "operationId": target });
                    match carry {
                        Parameters(parameters) => {
                            link["parameters"] = parameters
                                .iter()
                                .map(|(name, expression)| ((*name).to_owned(), json!(expression)))
                                .collect::<Map<String, Value>>()
                                .into();
                        }
                        BodyMember(member, expression) => {
                            link["requestBody"] = json!({ *member: expression });
                        }
                    }
                    entry[*name] = link;
                }
            }
        }
    }
}

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];
