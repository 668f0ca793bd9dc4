//! `GET /tickets/{order_id}?key=…`: the order's own ticket page, linked from the ticket mail.
//! Server-rendered HTML in the order's language with each ticket's QR code, printable (one
//! ticket per block, a large code, no navigation), and kept out of everything else: `noindex`,
//! `Referrer-Policy: no-referrer` (the key is in the URL), framed by nobody, never cached. It
//! needs no session, so it works after the partner's session ended. A missing, wrong, shortened
//! or rotated key, and an order that is not paid, are one and the same 404.

use axum::{
    extract::State,
    http::HeaderValue,
    response::{Html, IntoResponse, Response},
};
use base64::Engine;
use maud::{html, PreEscaped, DOCTYPE};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};
use uuid::Uuid;

use super::{facts, order_doc, qr, texts::texts, Tickets};
use crate::{
    error::{Error, ProblemType, Result},
    http::extract::{ApiPath, ApiQuery},
};

/// The ticket page's routes, on any router whose state hands over [`Tickets`].
pub fn router<S>() -> OpenApiRouter<S>
where
    S: Clone + Send + Sync + 'static,
    Tickets: axum::extract::FromRef<S>,
{
    OpenApiRouter::new()
        .routes(routes!(ticket_page))
        .routes(routes!(apple_passes))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PageQuery {
    /// The order's ticket page key, from the ticket mail.
    key: Option<String>,
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct PassQuery {
    /// The order's ticket page key, from the ticket mail.
    key: Option<String>,
    /// Only this ticket's pass (OCTO's `PKPASS_URL` of a unit item).
    ticket: Option<Uuid>,
}

/// The order's ticket page (the link in the ticket mail).
#[utoipa::path(get, path = "/tickets/{order_id}", tag = "orders",
    params(("order_id" = Uuid, Path), PageQuery),
    responses((status = 200, content_type = "text/html", body = String),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn ticket_page(
    State(state): State<Tickets>,
    ApiPath(order_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<PageQuery>,
) -> Response {
    let response = match render(&state, order_id, query.key.as_deref()).await {
        Ok(html) => Html(html).into_response(),
        Err(err) => err.into_response(),
    };
    kept_to_itself(response)
}

/// The order's Apple Wallet passes, from its ticket page (keyed like the page): a `.pkpass`,
/// or a `.pkpasses` bundle of one per ticket; with `ticket`, that ticket's `.pkpass`. `404`
/// like the page for a wrong key or a ticket not the order's, and `404
/// wallet-not-configured` when the operator has not configured Apple Wallet.
#[utoipa::path(get, path = "/tickets/{order_id}/wallet/apple", tag = "orders",
    params(("order_id" = Uuid, Path), PassQuery),
    responses((status = 200, content_type = "application/vnd.apple.pkpass", body = Vec<u8>,
               description = "One ticket's pass; several tickets are one `application/vnd.apple.pkpasses` bundle."),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn apple_passes(
    State(state): State<Tickets>,
    ApiPath(order_id): ApiPath<Uuid>,
    ApiQuery(query): ApiQuery<PassQuery>,
) -> Response {
    let passes = async {
        let mut doc = keyed_doc(&state, order_id, query.key.as_deref()).await?;
        if let Some(ticket) = query.ticket {
            doc.order.tickets.retain(|t| t.ticket_id == ticket);
            if doc.order.tickets.is_empty() {
                return Err(not_found());
            }
        }
        let wallet = state.apple_wallet.as_ref().ok_or_else(|| {
            Error::new(
                ProblemType::WalletNotConfigured,
                "This server offers no Apple Wallet passes.",
            )
        })?;
        Ok::<_, Error>(wallet.passes(&doc)?)
    };
    kept_to_itself(match passes.await {
        Ok(file) => file.into_response(),
        Err(err) => err.into_response(),
    })
}

/// The ticket page's script policy: no script at all, its QR codes as data URLs.
const POLICY: &str = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/// Everything reached by the page's key (`http::keyed_page`).
fn kept_to_itself(response: Response) -> Response {
    crate::http::keyed_page::kept_to_itself(response, HeaderValue::from_static(POLICY))
}

fn not_found() -> Error {
    Error::new(ProblemType::NotFound, "This ticket page was not found.")
}

/// The paid order `key` opens: its key checked in constant time, else `not_found`.
async fn keyed_doc(
    state: &Tickets,
    order_id: Uuid,
    key: Option<&str>,
) -> Result<order_doc::OrderDoc> {
    let nonce = state
        .store
        .ticket_page_nonce(order_id)
        .await?
        .ok_or_else(not_found)?;
    let key = key.ok_or_else(not_found)?;
    if !state.ticket_pages.verify(order_id, &nonce, key) {
        return Err(not_found());
    }
    order_doc::load(state, order_id)
        .await?
        .ok_or_else(not_found)
}

async fn render(state: &Tickets, order_id: Uuid, key: Option<&str>) -> Result<String> {
    let doc = keyed_doc(state, order_id, key).await?;
    // The wallets the operator configured; the page offers only those.
    let google = match &state.google_wallet {
        Some(wallet) => Some(wallet.save_url(&doc)?),
        None => None,
    };
    let apple = state.apple_wallet.as_ref().map(|_| {
        let key: String =
            form_urlencoded::byte_serialize(key.unwrap_or_default().as_bytes()).collect();
        format!("/tickets/{order_id}/wallet/apple?key={key}")
    });
    let manage = format!(
        "/tickets/{order_id}/manage?key={}",
        form_urlencoded::byte_serialize(key.unwrap_or_default().as_bytes()).collect::<String>()
    );
    let t = texts(doc.locale);
    let images = doc
        .order
        .tickets
        .iter()
        .map(|ticket| {
            let png = qr::png(ticket.qr_content())?;
            Ok(format!(
                "data:image/png;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(png)
            ))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (lines, total) = facts::totals(&doc);
    Ok(html! {
        (DOCTYPE)
        html lang=(doc.locale.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex, nofollow";
                meta name="referrer" content="no-referrer";
                meta name="color-scheme" content="light dark";
                title { (t.page_title) " – " (doc.merchant_name()) }
                style { (PreEscaped(PAGE_CSS)) }
            }
            body {
                main {
                    header.summary {
                        h1 { (t.page_title) }
                        p { strong { (doc.merchant_name()) } }
                        dl {
                            dt { (t.order) } dd { (doc.order.order_display_id) }
                            dt { (t.visit) } dd { (facts::visit_line(&doc)) }
                            dt { (t.address) } dd { (doc.address()) }
                            @for (label, value) in facts::booking_answers(&doc) {
                                dt { (label) } dd { (value) }
                            }
                        }
                        p.manage { a href=(manage) { (t.manage_booking) } }
                    }
                    @if apple.is_some() || google.is_some() {
                        div.wallets {
                            @if let Some(href) = &apple { a.wallet href=(href) download { (t.add_apple_wallet) } }
                            @if let Some(href) = &google { a.wallet href=(href) rel="noopener" target="_blank" { (t.add_google_wallet) } }
                        }
                    }
                    @for (ticket, src) in doc.order.tickets.iter().zip(&images) {
                        section.ticket aria-label=(ticket.code) {
                            h2 { (ticket.product_title) }
                            img.qr src=(src) alt=(ticket.code);
                            p.hint { (t.show_at_entrance) }
                            dl {
                                @for (label, value) in facts::ticket_facts(&doc, ticket).into_iter().skip(1) {
                                    dt { (label) }
                                    @if label == t.code { dd.code { (value) } } @else { dd { (value) } }
                                }
                            }
                        }
                    }
                    section.totals {
                        table {
                            @for (what, amount) in &lines {
                                tr { td { (what) } td.amount { (amount) } }
                            }
                            tr.total { td { (t.total) } td.amount { (total) } }
                            @for (what, amount) in facts::vat(&doc) {
                                tr.vat { td { (what) } td.amount { (amount) } }
                            }
                        }
                    }
                    @for (title, conditions) in &doc.conditions {
                        section.conditions {
                            h2 { (t.conditions) ": " (title) }
                            p { (conditions) }
                        }
                    }
                }
            }
        }
    }
    .into_string())
}

const PAGE_CSS: &str = "
:root { color-scheme: light dark; }
body { margin: 0; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  line-height: 1.5; background: #f4f4f5; color: #18181b; }
main { max-width: 640px; margin: 0 auto; padding: 16px; }
header.summary, section { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 0 0 16px; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 0 0 8px; }
dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; }
dt { color: #52525b; }
dd { margin: 0; }
.code { font-family: ui-monospace, Consolas, monospace; font-size: 1.2rem; letter-spacing: 1px; }
.qr { display: block; width: min(280px, 100%); height: auto; background: #fff; margin: 8px 0; }
.hint { color: #52525b; margin: 0 0 8px; }
table { width: 100%; border-collapse: collapse; }
td { padding: 4px 0; vertical-align: top; }
td.amount { text-align: right; white-space: nowrap; padding-left: 12px; }
tr.total td { font-weight: bold; border-top: 1px solid #d4d4d8; padding-top: 8px; }
tr.vat td { font-size: 13px; color: #52525b; }
p.manage { margin: 12px 0 0; }
p.manage a { color: #1d4ed8; font-weight: 600; }
div.wallets { display: flex; flex-wrap: wrap; gap: 12px; margin: 0 0 16px; }
a.wallet { display: inline-block; padding: 12px 16px; border-radius: 8px; background: #000;
  color: #fff; font-weight: 600; text-decoration: none; min-height: 24px; }
@media (prefers-color-scheme: dark) {
  body { background: #18181b; color: #f4f4f5; }
  header.summary, section { background: #27272a; }
  dt, .hint, tr.vat td { color: #a1a1aa; }
  a.wallet { border: 1px solid #a1a1aa; }
}
@media print {
  div.wallets, p.manage { display: none; }
  body { background: #fff; color: #000; }
  main { max-width: none; padding: 0; }
  header.summary, section { background: #fff; border: 1px solid #000; border-radius: 0;
    break-inside: avoid; page-break-inside: avoid; }
  section.ticket { text-align: center; }
  section.ticket + section.ticket { break-before: page; page-break-before: always; }
  section.ticket dl { text-align: left; max-width: 12cm; margin: 0 auto; }
  .qr { width: 9cm; margin: 0.5cm auto; }
  .hint, section.totals, section.conditions { display: none; }
}
";
