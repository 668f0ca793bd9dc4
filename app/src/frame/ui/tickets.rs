//! Tickets with their QR codes. The QR image is drawn on the server (as SVG, so nothing is
//! added to the WASM and the same image could go into a mail) and the code is shown as text.

use leptos::prelude::*;

use crate::{
    format,
    i18n::{t, td_string, use_i18n},
    wire::Ticket,
};

/// The SVG QR code of a ticket code. Only what a ticket code can be is drawn, so the frame's
/// endpoint is no general QR service.
#[server(prefix = "/frame/api", endpoint = "qr")]
pub async fn ticket_qr(code: String) -> Result<String, ServerFnError> {
    let plausible = (1..=64).contains(&code.len())
        && code.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    if !plausible {
        return Err(ServerFnError::Args("not a ticket code".into()));
    }
    let qr = qrcode::QrCode::new(code.as_bytes()).map_err(|e| ServerFnError::new(e.to_string()))?;
    Ok(qr
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(160, 160)
        .quiet_zone(true)
        .build())
}

/// A ticket's QR code, loaded once the ticket is on screen.
#[component]
fn QrImage(code: String) -> impl IntoView {
    let i18n = use_i18n();
    let source = code.clone();
    let svg = LocalResource::new(move || ticket_qr(source.clone()));
    move || {
        let alt = td_string!(
            i18n.get_locale(),
            after_payment.qr_alt,
            code = code.as_str()
        )
        .to_string();
        match svg.get() {
            Some(Ok(svg)) => {
                let src = format!(
                    "data:image/svg+xml;charset=utf-8,{}",
                    crate::frame::api::encode(&svg)
                );
                view! { <img class="qr" src=src alt=alt width="160" height="160"/> }.into_any()
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
                    let status = ticket.status.clone();
                    view! {
                        <li class="ticket">
                            <QrImage code=ticket.code.clone()/>
                            <div class="ticket-text">
                                <h3>{ticket.product_title.clone()}</h3>
                                <p>{when}</p>
                                <p>
                                    {t!(i18n, after_payment.ticket_code)} ": "
                                    <code class="ticket-code">{ticket.code.clone()}</code>
                                </p>
                                <p class="status">{move || super::super::screens::status_text(i18n.get_locale(), &status)}</p>
                            </div>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}
