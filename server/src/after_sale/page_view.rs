//! The "manage your booking" page's markup (`after_sale::page`), by `maud`: the order's
//! tickets, and a form for each change the order allows now, or the review of one. Every
//! control has a visible label; the forms work without script and by keyboard alone.

use app::{
    format,
    wire::{Locale, Money, Order, TicketStatus, TimeslotEntry},
};
use chrono::{DateTime, NaiveDate, SecondsFormat, Utc};
use maud::{html, Markup, PreEscaped, DOCTYPE};
use rust_decimal::Decimal;
use uuid::Uuid;

use super::page_texts::{page_texts, PageTexts};

/// The order as the page shows it.
pub struct View {
    pub order: Order,
    pub locale: Locale,
    /// The page's key, carried by every form.
    pub key: String,
    /// Today in the merchant's zone: the first day a new date may be.
    pub today: NaiveDate,
    /// The merchant's zone, which every deadline is shown in.
    pub zone: chrono_tz::Tz,
    /// What a confirmed change did (`cancelled`, `withdrawn`, `rebooked`).
    pub done: Option<String>,
    /// Set when the page is shown inside the partner's frame.
    pub framing: Option<Framing>,
    /// The payment page of a dearer day's difference, while it is open.
    pub pay_at: Option<String>,
    /// The messages that tell the host page what changed, when framed.
    pub host_script: Option<HostScript>,
}

/// The page inside the frame, which opened it in an iframe of its own: `host` is the
/// embedding page's exact origin (one the partner registered), carried by every form and link
/// so the page stays framed through its steps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framing {
    pub host: String,
}

/// The framed page's one inline script, allowed by its nonce alone: it posts `messages` (a
/// JSON array) and the page's height (`boxoffice:resize`) to the frame around it, at
/// `frame_origin` (this service's own), which sizes the panel and passes the messages on to
/// the host.
#[derive(Debug, Clone)]
pub struct HostScript {
    pub nonce: String,
    pub frame_origin: String,
    pub messages: serde_json::Value,
}

/// The page's own address: its key, and the framing when framed.
pub fn self_url(order_id: Uuid, key: &str, framing: Option<&Framing>) -> String {
    let mut url = format!("/tickets/{order_id}/manage?key={}", encode(key));
    if let Some(f) = framing {
        url.push_str(&format!("&host={}", encode(&f.host)));
    }
    url
}

/// The hidden fields every form of the page carries (see `self_url`).
fn carried(view: &View) -> Markup {
    html! {
        input type="hidden" name="key" value=(view.key);
        @if let Some(f) = &view.framing {
            input type="hidden" name="host" value=(f.host);
        }
    }
}

/// The script that posts the host's messages; JSON inside `<script>` never closes it early.
fn host_script(view: &View) -> Option<Markup> {
    let script = view
        .host_script
        .as_ref()
        .filter(|_| view.framing.is_some())?;
    let messages = script.messages.to_string().replace("</", "<\\/");
    let origin = serde_json::Value::from(script.frame_origin.as_str()).to_string();
    let js = format!(
        "(function(){{var o={origin},p=window.parent,m={messages},h=0;\
         for(var i=0;i<m.length;i++)p.postMessage(m[i],o);\
         function r(){{var n=document.body.scrollHeight;if(n!==h){{h=n;p.postMessage({{type:'boxoffice:resize',height:n}},o);}}}}\
         r();if(window.ResizeObserver)new ResizeObserver(r).observe(document.body);}})();"
    );
    Some(html! { script nonce=(script.nonce) { (PreEscaped(js)) } })
}

/// A change under review: what it would do, with its confirming form.
pub enum Review {
    Cancel {
        tickets: Vec<Uuid>,
        refund: Decimal,
    },
    Withdraw {
        refund: Decimal,
    },
    Rebook {
        date: NaiveDate,
        slots: Vec<TimeslotEntry>,
        refund: Decimal,
        /// A dearer day's difference, paid before the visit moves.
        difference: Decimal,
    },
}

/// Why a review or a change could not go on.
pub enum Problem {
    ChooseTickets,
    ChooseDate,
    NoTimes,
    /// The server's refusal, as its problem's detail says it.
    Refused(String),
}

fn money(view: &View, value: Decimal) -> String {
    let locale = view.locale.tag().parse().unwrap_or_default();
    format::money(
        locale,
        &Money::new(value, view.order.total.currency.clone()),
    )
}

fn when(view: &View, at: DateTime<Utc>) -> String {
    let locale = view.locale.tag().parse().unwrap_or_default();
    let local = at.with_timezone(&view.zone).fixed_offset();
    format!(
        "{} {}",
        format::date_long(locale, local.date_naive()),
        format::time(&local)
    )
}

/// The page, with `review` (or why it failed) in place of the change forms; `idem` is the
/// Idempotency-Key a confirming form carries.
pub fn render(view: &View, review: Result<Option<Review>, Problem>, idem: Uuid) -> String {
    let t = page_texts(view.locale);
    let order = &view.order;
    let done = match view.done.as_deref() {
        Some("cancelled") => Some(t.done_cancelled),
        Some("withdrawn") => Some(t.done_withdrawn),
        Some("rebooked") => Some(t.done_rebooked),
        Some("pay") => Some(t.done_pay),
        _ => None,
    };
    let problem = match &review {
        Err(Problem::ChooseTickets) => Some(t.choose_tickets.to_owned()),
        Err(Problem::ChooseDate) => Some(t.new_date.to_owned()),
        Err(Problem::NoTimes) => Some(t.no_times.to_owned()),
        Err(Problem::Refused(detail)) => Some(detail.clone()),
        Ok(_) => None,
    };
    let reviewing = matches!(review, Ok(Some(_)));
    html! {
        (DOCTYPE)
        html lang=(view.locale.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="robots" content="noindex, nofollow";
                meta name="referrer" content="no-referrer";
                meta name="color-scheme" content="light dark";
                title { (t.title) " – " (order.order_display_id) }
                style { (PreEscaped(CSS)) }
            }
            body {
                main {
                    h1 { (t.title) }
                    p { (t.order) " " strong { (order.order_display_id) } }
                    @if let Some(done) = done { p.notice role="status" { (done) } }
                    // Payment pages open in the top window, never in a frame.
                    @if let Some(pay_at) = &view.pay_at {
                        p { a.button href=(pay_at) target="_top" { (t.go_to_payment) } }
                    }
                    @if let Some(problem) = &problem { p.problem role="alert" { (problem) } }
                    @if order.status == app::wire::OrderStatus::Cancelled { p { (t.order_cancelled) } }
                    @match review {
                        Ok(Some(review)) => { (review_form(view, t, &review, idem)) }
                        _ => { (change_forms(view, t)) }
                    }
                    // Framed, the frame's own "Close" leads back.
                    @if view.framing.is_none() && !reviewing && order.status.is_paid() {
                        p { a href=(format!("/tickets/{}?key={}", order.order_id, encode(&view.key))) { (t.back_to_tickets) } }
                    }
                }
                @if let Some(script) = host_script(view) { (script) }
            }
        }
    }
    .into_string()
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

/// A ticket as one line: its product, its visit and its code.
fn ticket_line(view: &View, ticket: &app::wire::Ticket) -> String {
    let locale = view.locale.tag().parse().unwrap_or_default();
    let mut line = ticket.product_title.clone();
    if let Some(day) = ticket.visit_date {
        line.push_str(" · ");
        line.push_str(&format::date_long(locale, day));
    }
    if let Some(slot) = &ticket.timeslot {
        line.push_str(", ");
        line.push_str(&format::time(&slot.start_time));
    }
    line.push_str(" · ");
    line.push_str(&ticket.code);
    line
}

/// The forms of every change the order allows now.
fn change_forms(view: &View, t: &PageTexts) -> Markup {
    let order = &view.order;
    let after = order.after_sale.clone().unwrap_or_default();
    let valid: Vec<_> = order
        .tickets
        .iter()
        .filter(|ticket| ticket.status == TicketStatus::Valid)
        .collect();
    let nothing = !(after.cancellable || after.rebookable || after.withdrawable);
    html! {
        @if nothing && order.status.is_paid() { p { (t.nothing_possible) } }
        @if after.cancellable {
            section aria-labelledby="cancel-heading" {
                h2 #cancel-heading { (t.cancel_tickets) }
                @if let (Some(quote), Some(until)) = (&after.refund_quote, after.quote_until) {
                    p.hint { (t.refund_all_now) " " (money(view, quote.value)) " (" (t.until) " " (when(view, until)) ")" }
                }
                form method="get" {
                    (carried(view))
                    input type="hidden" name="review" value="cancel";
                    fieldset {
                        legend { (t.cancel_hint) }
                        @for ticket in &valid {
                            label.choice {
                                input type="checkbox" name="ticket" value=(ticket.ticket_id);
                                " " (ticket_line(view, ticket))
                            }
                        }
                    }
                    button type="submit" { (t.review_cancellation) }
                }
            }
        }
        // One move at a time: none while a dearer day's difference awaits its payment.
        @if after.rebookable && view.pay_at.is_none() {
            section aria-labelledby="date-heading" {
                h2 #date-heading { (t.change_date) }
                @if let Some(until) = after.rebook_until {
                    p.hint { (t.until) " " (when(view, until)) }
                }
                form method="get" {
                    (carried(view))
                    input type="hidden" name="review" value="rebook";
                    label for="new-date" { (t.new_date) }
                    input #new-date type="date" name="date" required min=(view.today.to_string());
                    button type="submit" { (t.review_date) }
                }
            }
        }
        @if after.withdrawable {
            section aria-labelledby="withdraw-heading" {
                h2 #withdraw-heading { (t.withdraw_here) }
                p.hint { (t.withdraw_hint) }
                @if let Some(until) = after.withdrawal_until {
                    p.hint { (t.until) " " (when(view, until)) }
                }
                form method="get" {
                    (carried(view))
                    input type="hidden" name="review" value="withdraw";
                    button type="submit" { (t.withdraw_here) }
                }
            }
        }
        @if order.tickets.iter().any(|ticket| ticket.status == TicketStatus::Cancelled) {
            section aria-labelledby="cancelled-heading" {
                h2 #cancelled-heading { (t.cancelled) }
                ul {
                    @for ticket in order.tickets.iter().filter(|ticket| ticket.status == TicketStatus::Cancelled) {
                        li { s { (ticket_line(view, ticket)) } }
                    }
                }
            }
        }
    }
}

/// The review of a change, with the form that confirms it.
fn review_form(view: &View, t: &PageTexts, review: &Review, idem: Uuid) -> Markup {
    let back = self_url(view.order.order_id, &view.key, view.framing.as_ref());
    let refund_line = |refund: Decimal| {
        if refund > Decimal::ZERO {
            format!("{}: {}", t.refund, money(view, refund))
        } else {
            t.no_refund.to_owned()
        }
    };
    html! {
        form method="post" {
            (carried(view))
            input type="hidden" name="idem" value=(idem);
            @match review {
                Review::Cancel { tickets, refund } => {
                    h2 { (t.review_cancellation) }
                    input type="hidden" name="action" value="cancel";
                    ul {
                        @for ticket in view.order.tickets.iter().filter(|ticket| tickets.contains(&ticket.ticket_id)) {
                            li { (ticket_line(view, ticket)) input type="hidden" name="ticket" value=(ticket.ticket_id); }
                        }
                    }
                    p.amount { (refund_line(*refund)) }
                    button type="submit" { (t.confirm_cancellation) }
                }
                Review::Withdraw { refund } => {
                    h2 { (t.withdraw_here) }
                    input type="hidden" name="action" value="withdraw";
                    p { (t.withdraw_hint) }
                    p.amount { (refund_line(*refund)) }
                    button type="submit" { (t.confirm_withdrawal) }
                }
                Review::Rebook { date, slots, refund, difference } => {
                    h2 { (t.review_date) }
                    input type="hidden" name="action" value="rebook";
                    input type="hidden" name="date" value=(date.to_string());
                    p { (t.new_date) ": " strong { (format::date_long(view.locale.tag().parse().unwrap_or_default(), *date)) } }
                    @if !slots.is_empty() {
                        fieldset {
                            legend { (t.choose_time) }
                            @for (i, slot) in slots.iter().filter(|s| s.available).enumerate() {
                                label.choice {
                                    input type="radio" name="slot" required checked[i == 0]
                                        value=(slot.start_time.to_rfc3339_opts(SecondsFormat::Secs, false));
                                    " " (format::time_range(view.locale.tag().parse().unwrap_or_default(), &slot.start_time, &slot.end_time))
                                }
                            }
                        }
                    }
                    @if *difference > Decimal::ZERO {
                        p.amount { (t.pay_more) " " (money(view, *difference)) }
                        p.hint { (t.pay_more_hint) }
                        button type="submit" { (t.confirm_pay) }
                    } @else {
                        p.amount { @if *refund > Decimal::ZERO { (refund_line(*refund)) } @else { (t.same_price) } }
                        button type="submit" { (t.confirm_date) }
                    }
                }
            }
        }
        p { a href=(back) { (t.go_back) } }
    }
}

const CSS: &str = "
:root { color-scheme: light dark; }
body { margin: 0; font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif;
  line-height: 1.5; background: #f4f4f5; color: #18181b; }
main { max-width: 640px; margin: 0 auto; padding: 16px; }
section, form { background: #fff; border-radius: 8px; padding: 16px 20px; margin: 0 0 16px; }
section form { padding: 0; margin: 0; }
h1 { font-size: 1.6rem; margin: 0 0 4px; }
h2 { font-size: 1.2rem; margin: 0 0 8px; }
fieldset { border: 0; padding: 0; margin: 0 0 12px; }
legend { margin-bottom: 8px; }
label.choice { display: flex; gap: 8px; align-items: flex-start; padding: 8px 0; min-height: 24px; }
input[type=checkbox], input[type=radio] { width: 20px; height: 20px; margin: 2px 0 0; flex: none; }
input[type=date] { display: block; font: inherit; padding: 8px; margin: 4px 0 12px; min-height: 24px; }
button, a.button { font: inherit; font-weight: 600; padding: 12px 20px; border-radius: 6px; border: 0;
  background: #1d4ed8; color: #fff; cursor: pointer; min-height: 44px; }
a.button { display: inline-block; text-decoration: none; box-sizing: border-box; padding-top: 10px; }
button:focus-visible, a:focus-visible, input:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
a { color: #1d4ed8; }
.hint { color: #52525b; margin: 0 0 8px; }
.amount { font-size: 1.2rem; font-weight: 600; }
.notice { background: #dcfce7; color: #14532d; padding: 12px 16px; border-radius: 8px; }
.problem { background: #fee2e2; color: #7f1d1d; padding: 12px 16px; border-radius: 8px; }
@media (prefers-color-scheme: dark) {
  body { background: #18181b; color: #f4f4f5; }
  section, form { background: #27272a; }
  .hint { color: #a1a1aa; }
  a { color: #93c5fd; }
  button, a.button { background: #3b82f6; color: #fff; }
}
";
