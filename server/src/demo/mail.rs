//! `GET /demo/mail?visitor=demo-visit-<uuid>`: the ticket mails of one demo shop visit, newest
//! first, each shown as its customer sees it (the HTML part with its QR images, in a sandboxed
//! frame), so a newcomer who buys in `/demo/shop` can open their ticket mail without a mail
//! server. Demo mode only.
//!
//! A mail holds the keyed ticket page link, the ticket codes and the customer's address, so a
//! visit sees only its own: the mails of the customer whose reference is the visit's
//! (`demo/shop.rs` makes one per browser tab, a random UUID, and links the page here with it).
//! Knowing the reference is being that visitor: it opens that customer's sessions in the demo
//! shop just as well. Without one the page shows nobody's mail.

use axum::{
    extract::State,
    http::header,
    response::{Html, IntoResponse, Response},
};
use maud::{html, PreEscaped, DOCTYPE};
use serde::Deserialize;
use utoipa_axum::{router::OpenApiRouter, routes};

use super::shop::visitor_reference;
use crate::{
    error::{Error, ProblemType, Result},
    http::extract::ApiQuery,
    state::AppState,
    tickets::{compose_mail, order_doc},
};

/// Mails shown at most.
const SHOWN: u32 = 20;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(demo_mail))
}

#[derive(Debug, Deserialize, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
struct MailQuery {
    /// The demo shop visit whose mails to show, `demo-visit-<uuid>` (the shop page links here
    /// with it); without it no mail is shown.
    #[param(pattern = "^demo-visit-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")]
    visitor: Option<String>,
}

/// One demo shop visit's ticket mails, newest first, as its customer sees them (demo mode
/// only).
#[utoipa::path(get, path = "/demo/mail", tag = "demo",
    params(MailQuery),
    responses((status = 200, content_type = "text/html", body = String),
              (status = 400, body = app::wire::Problem, content_type = "application/problem+json"),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn demo_mail(
    State(state): State<AppState>,
    ApiQuery(query): ApiQuery<MailQuery>,
) -> Result<Response> {
    if !state.config.demo {
        return Err(Error::new(
            ProblemType::NotFound,
            "The demo mailbox is on only in demo mode.",
        ));
    }
    let visitor = query
        .visitor
        .as_deref()
        .map(visitor_reference)
        .transpose()?;
    let mut shown = Vec::new();
    // A visit's ticket mails only: the other kinds are no customer's (a magic link is a
    // merchant's).
    let mails = match &visitor {
        Some(visitor) => state.store.mails_of_reference(visitor, SHOWN).await?,
        None => Vec::new(),
    };
    for mail in mails {
        let Some(order_id) = mail.customer_order_id else {
            continue;
        };
        let Some(doc) = order_doc::load(&state.tickets, order_id).await? else {
            continue;
        };
        let Some(composed) = compose_mail(&state.tickets, &doc).await? else {
            continue;
        };
        shown.push((mail, doc.recipient.clone().unwrap_or_default(), composed));
    }
    let page = html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex";
                // The address holds the visit's reference; no link in a mail passes it on.
                meta name="referrer" content="no-referrer";
                title { "Demo mailbox" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header { strong { "Demo mailbox" } ": your ticket mails, newest first" }
                main {
                    @if visitor.is_none() {
                        p { "Open your mailbox with the link in " a href="/demo/shop" { "the demo shop" } ": each visit sees only its own mails." }
                    } @else if shown.is_empty() {
                        p { "No ticket mail yet. Buy tickets in " a href="/demo/shop" { "the demo shop" } "." }
                    }
                    @for (mail, to, composed) in &shown {
                        article {
                            h2 { (composed.subject) }
                            p.meta {
                                "To " (to) " · " (mail.created_at.format("%Y-%m-%d %H:%M UTC"))
                                " · " (mail.kind) " · " (mail.status)
                            }
                            // The mail's own HTML, isolated: no script runs, nothing leaves.
                            iframe sandbox="" title=(composed.subject) srcdoc=(composed.html_for_browser()) {}
                            details {
                                summary { "Text part" }
                                pre { (composed.text) }
                            }
                        }
                    }
                }
            }
        }
    };
    Ok((
        [
            (header::CACHE_CONTROL, "no-store"),
            (header::REFERRER_POLICY, "no-referrer"),
        ],
        Html(page.into_string()),
    )
        .into_response())
}

const CSS: &str = "body{margin:0;font-family:system-ui,sans-serif;background:#f4f1ea;color:#1b1f24}
header{padding:1rem;background:#2d2a26;color:#fff}main{max-width:52rem;margin:0 auto;padding:1rem}
article{background:#fff;border-radius:.5rem;padding:1rem;margin:0 0 1.5rem}
h2{font-size:1.1rem;margin:0 0 .25rem}.meta{color:#555;margin:0 0 .5rem}
iframe{width:100%;height:60rem;border:1px solid #ddd;border-radius:.25rem}pre{white-space:pre-wrap}";
