//! `GET /demo/mail`: the ticket mails this server wrote, newest first, each shown as its
//! customer sees it (the HTML part with its QR images, in a sandboxed frame), so a newcomer who
//! buys in `/demo/shop` can open their ticket mail without a mail server. Demo mode only: the
//! page shows every customer's tickets.

use axum::{
    extract::State,
    http::header,
    response::{Html, IntoResponse, Response},
};
use maud::{html, PreEscaped, DOCTYPE};
use utoipa_axum::{router::OpenApiRouter, routes};

use crate::{
    error::{Error, ProblemType, Result},
    state::AppState,
    store::MailFilter,
    tickets::{compose_mail, order_doc},
};

/// Mails shown at most.
const SHOWN: u32 = 20;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(demo_mail))
}

/// The ticket mails written, newest first, as their customers see them (demo mode only).
#[utoipa::path(get, path = "/demo/mail", tag = "demo",
    responses((status = 200, content_type = "text/html", body = String),
              (status = 404, body = app::wire::Problem, content_type = "application/problem+json")))]
async fn demo_mail(State(state): State<AppState>) -> Result<Response> {
    if !state.config.demo {
        return Err(Error::new(
            ProblemType::NotFound,
            "The demo mailbox is on only in demo mode.",
        ));
    }
    let mut shown = Vec::new();
    // The ticket mails only: the other kinds are no customer's (a magic link is a merchant's).
    for mail in state
        .store
        .mails(MailFilter::default(), None, SHOWN)
        .await?
    {
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
                title { "Demo mailbox" }
                style { (PreEscaped(CSS)) }
            }
            body {
                header { strong { "Demo mailbox" } ": the ticket mails this server wrote, newest first" }
                main {
                    @if shown.is_empty() {
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
        [(header::CACHE_CONTROL, "no-store")],
        Html(page.into_string()),
    )
        .into_response())
}

const CSS: &str = "body{margin:0;font-family:system-ui,sans-serif;background:#f4f1ea;color:#1b1f24}
header{padding:1rem;background:#2d2a26;color:#fff}main{max-width:52rem;margin:0 auto;padding:1rem}
article{background:#fff;border-radius:.5rem;padding:1rem;margin:0 0 1.5rem}
h2{font-size:1.1rem;margin:0 0 .25rem}.meta{color:#555;margin:0 0 .5rem}
iframe{width:100%;height:60rem;border:1px solid #ddd;border-radius:.25rem}pre{white-space:pre-wrap}";
