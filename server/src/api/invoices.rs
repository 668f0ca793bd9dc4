//! An order's EN 16931 invoice and credit notes as UN/CEFACT CII XML, for the customer
//! (`/v2/me/fulfillment/orders/{order_id}/…`) and for the partner whose session made the order
//! (`/v2/orders/{order_id}/…`). Only an order bought with a business `buyer` has them
//! (docs/settlement.md, "Invoices for business buyers"). Thin: the documents are made in
//! `crate::settlement::invoice`.

use axum::{
    extract::State,
    http::{header, HeaderValue},
    response::{IntoResponse, Response},
};
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{orders::owned_order, partner_orders::partners_order};
use crate::{
    auth::BackendClient,
    error::{Error, Result},
    http::{
        campaign::SessionCampaign,
        extract::ApiPath,
        openapi::{Problem400, Problem401, Problem404, Problem409, SessionCampaignHeader},
    },
    settlement::{
        cii,
        invoice::{document, Which},
    },
    state::AppState,
    store::OrderRecord,
};

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(customer_invoice))
        .routes(routes!(customer_credit_note))
        .routes(routes!(partner_invoice))
        .routes(routes!(partner_credit_note))
}

/// The invoice of the order's sale: EN 16931 in UN/CEFACT CII syntax (the XML a Factur-X PDF
/// embeds), naming the seller and the business buyer with their VAT ids. 404 for an order
/// bought without a `buyer`; 409 while it is unpaid.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/invoice.xml", tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path), SessionCampaignHeader),
    responses((status = 200, content_type = "application/xml", body = String,
               description = "A CII `CrossIndustryInvoice`, type code 380."),
              Problem401, Problem404, Problem409))]
async fn customer_invoice(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Response> {
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    xml(&state, &order, Which::Invoice).await
}

/// The credit note of one refund of the order (type code 381, naming the invoice it
/// corrects). `credit_note` is the refund's `refund_id` (the order's `refunds`) followed by
/// `.xml`.
#[utoipa::path(get, path = "/v2/me/fulfillment/orders/{order_id}/credit-notes/{credit_note}",
    tag = "orders",
    security(("public_bearer" = [])),
    params(("order_id" = Uuid, Path),
           ("credit_note" = String, Path, pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.xml$",
            example = "0f8fad5b-d9cb-469f-a165-70867728950e.xml",
            description = "The refund's `refund_id` and `.xml`."),
           SessionCampaignHeader),
    responses((status = 200, content_type = "application/xml", body = String,
               description = "A CII `CrossIndustryInvoice`, type code 381."),
              Problem400, Problem401, Problem404, Problem409))]
async fn customer_credit_note(
    SessionCampaign { user, campaign }: SessionCampaign,
    State(state): State<AppState>,
    ApiPath((order_id, credit_note)): ApiPath<(Uuid, String)>,
) -> Result<Response> {
    let refund_id = refund_of(&credit_note)?;
    let order = owned_order(&state, &user, &campaign, order_id).await?;
    xml(&state, &order, Which::CreditNote(refund_id)).await
}

/// The invoice of an order the partner's sessions made, as the customer reads it.
#[utoipa::path(get, path = "/v2/orders/{order_id}/invoice.xml", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path)),
    responses((status = 200, content_type = "application/xml", body = String,
               description = "A CII `CrossIndustryInvoice`, type code 380."),
              Problem401, Problem404, Problem409))]
async fn partner_invoice(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath(order_id): ApiPath<Uuid>,
) -> Result<Response> {
    let order = partners_order(&state, &client, order_id).await?;
    xml(&state, &order, Which::Invoice).await
}

/// The credit note of one refund of an order the partner's sessions made.
#[utoipa::path(get, path = "/v2/orders/{order_id}/credit-notes/{credit_note}", tag = "orders",
    security(("backend_bearer" = [])),
    params(("order_id" = Uuid, Path),
           ("credit_note" = String, Path, pattern = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\.xml$",
            example = "0f8fad5b-d9cb-469f-a165-70867728950e.xml",
            description = "The refund's `refund_id` and `.xml`."),),
    responses((status = 200, content_type = "application/xml", body = String,
               description = "A CII `CrossIndustryInvoice`, type code 381."),
              Problem400, Problem401, Problem404, Problem409))]
async fn partner_credit_note(
    client: BackendClient,
    State(state): State<AppState>,
    ApiPath((order_id, credit_note)): ApiPath<(Uuid, String)>,
) -> Result<Response> {
    let refund_id = refund_of(&credit_note)?;
    let order = partners_order(&state, &client, order_id).await?;
    xml(&state, &order, Which::CreditNote(refund_id)).await
}

/// The refund id of a credit note's file name, `{refund_id}.xml`.
fn refund_of(credit_note: &str) -> Result<Uuid> {
    credit_note
        .strip_suffix(".xml")
        .and_then(|id| id.parse().ok())
        .ok_or_else(|| {
            Error::invalid_field(
                "credit_note",
                "invalid",
                "credit_note must be a refund id followed by .xml, e.g. 0f8fad5b-d9cb-469f-a165-70867728950e.xml",
            )
        })
}

/// The document as an XML download, never cached (it names the buyer).
async fn xml(state: &AppState, order: &OrderRecord, which: Which) -> Result<Response> {
    let doc = document(state.store.as_ref(), order, which).await?;
    let disposition = format!("attachment; filename=\"{}.xml\"", doc.number);
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/xml; charset=utf-8"),
            ),
            (
                header::CONTENT_DISPOSITION,
                HeaderValue::from_str(&disposition)
                    .map_err(|e| anyhow::anyhow!("file name of {}: {e}", doc.number))?,
            ),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        cii::xml(&doc),
    )
        .into_response())
}
