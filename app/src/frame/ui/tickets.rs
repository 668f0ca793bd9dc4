//! Tickets with their QR codes (a valid ticket's only: a cancelled or replaced one shows its
//! status). The QR image is drawn on the server (as SVG, so nothing is added to the WASM and
//! the same image could go into a mail) and the code is shown as text.

use leptos::prelude::*;

use super::{words::ticket_status_text, write::write};
use crate::{
    format,
    frame::{server::ticket_qr, url::encode},
    i18n::{t, td_string, use_i18n},
    wire::{ProblemType, Ticket, TicketStatus},
};

/// A ticket's QR code (`content`: its signed token, or the code where it has none), loaded
/// once the ticket is on screen; `code`, the printed one, is its text alternative.
#[component]
fn QrImage(code: String, content: String) -> impl IntoView {
    let i18n = use_i18n();
    let svg = LocalResource::new(move || ticket_qr(content.clone()));
    move || {
        let alt = td_string!(
            i18n.get_locale(),
            after_payment.qr_alt,
            code = code.as_str()
        )
        .to_string();
        match svg.get() {
            Some(Ok(svg)) => {
                let src = format!("data:image/svg+xml;charset=utf-8,{}", encode(&svg));
                view! { <img class="qr" src=src alt=alt width="220" height="220"/> }.into_any()
            }
            _ => view! { <div class="qr qr-pending" role="img" aria-label=alt></div> }.into_any(),
        }
    }
}

/// The tickets of an order.
#[component]
pub fn TicketList(tickets: Vec<Ticket>) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <ul class="tickets">
            {tickets
                .into_iter()
                .map(|ticket| {
                    let content = ticket.qr_content().to_owned();
                    let when = move || {
                        let locale = i18n.get_locale();
                        let mut parts = Vec::new();
                        if let Some(day) = ticket.visit_date {
                            parts.push(format::date_long(locale, day));
                        }
                        if let Some(slot) = &ticket.timeslot {
                            parts.push(format::time_range(locale, &slot.start_time, &slot.end_time));
                        }
                        if let Some(until) = ticket.valid_until {
                            parts.push(
                                td_string!(locale, product.valid_until, date = format::date_medium(locale, until))
                                    .to_string(),
                            );
                        }
                        parts.join(" · ")
                    };
                    let status = ticket.status;
                    // A cancelled or replaced ticket admits nobody: no code to show at a gate.
                    let qr = (status == TicketStatus::Valid)
                        .then(|| view! { <QrImage code=ticket.code.clone() content=content/> });
                    view! {
                        <li class="ticket">
                            {qr}
                            <div class="ticket-text">
                                <h3>{ticket.product_title.clone()}</h3>
                                <p>{when}</p>
                                <p>
                                    {t!(i18n, after_payment.ticket_code)} ": "
                                    <code class="ticket-code">{ticket.code.clone()}</code>
                                </p>
                                <p class="status">{move || ticket_status_text(i18n.get_locale(), status)}</p>
                            </div>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}

/// What the last ticket action came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Note {
    Sent,
    Limited,
    Failed,
}

/// "Add to calendar" and "Send my tickets again" for a paid order. The calendar file is
/// fetched through the API with the bearer in its header, then handed to the browser as a
/// file from memory: a bearer never goes into a URL (docs/webframe.md).
#[component]
pub fn TicketActions(order_id: uuid::Uuid) -> impl IntoView {
    let i18n = use_i18n();
    let api = crate::frame::api::Api::new();
    let note = RwSignal::new(None::<Note>);
    let add_to_calendar = write(move |_: &()| async move {
        let saved = match api.order_calendar(order_id).await {
            Ok(bytes) => save_file(&bytes, "tickets.ics", "text/calendar"),
            Err(_) => false,
        };
        if !saved {
            note.set(Some(Note::Failed));
        }
    });
    let send_again = write(move |_: &()| async move {
        note.set(Some(match api.resend_tickets(order_id).await {
            Ok(()) => Note::Sent,
            Err(err) if err.is(ProblemType::RateLimited) => Note::Limited,
            Err(_) => Note::Failed,
        }));
    });
    let busy = send_again.pending();
    view! {
        <div class="ticket-actions">
            <button type="button" class="button" on:click=move |_| { add_to_calendar.dispatch_local(()); }>
                {t!(i18n, ticket_actions.add_to_calendar)}
            </button>
            <button type="button" class="button" on:click=move |_| { send_again.dispatch_local(()); } disabled=move || busy.get()>
                {t!(i18n, ticket_actions.send_again)}
            </button>
            <p class="ticket-actions-note" role="status" aria-live="polite">
                {move || note.get().map(|note| match note {
                    Note::Sent => t!(i18n, ticket_actions.sent_again).into_any(),
                    Note::Limited => t!(i18n, ticket_actions.send_limit).into_any(),
                    Note::Failed => t!(i18n, ticket_actions.failed).into_any(),
                })}
            </p>
        </div>
    }
}

/// Offers `bytes` to the browser as the download `name`, from an object URL that is revoked
/// once the download has started; `false` when the browser refused.
#[cfg(feature = "hydrate")]
fn save_file(bytes: &[u8], name: &str, mime: &str) -> bool {
    use wasm_bindgen::JsCast;
    let saved = (|| {
        let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
        let options = web_sys::BlobPropertyBag::new();
        options.set_type(mime);
        let blob = web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &options).ok()?;
        let url = web_sys::Url::create_object_url_with_blob(&blob).ok()?;
        let document = web_sys::window()?.document()?;
        let link: web_sys::HtmlAnchorElement =
            document.create_element("a").ok()?.dyn_into().ok()?;
        link.set_href(&url);
        link.set_download(name);
        link.click();
        set_timeout(
            move || {
                let _ = web_sys::Url::revoke_object_url(&url);
            },
            std::time::Duration::from_secs(10),
        );
        Some(())
    })();
    saved.is_some()
}

/// The server render never downloads.
#[cfg(not(feature = "hydrate"))]
fn save_file(_bytes: &[u8], _name: &str, _mime: &str) -> bool {
    false
}
