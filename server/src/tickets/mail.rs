//! The ticket mail: its text and HTML parts (HTML by `maud`), each ticket's QR code as an
//! inline PNG referred to by `cid:`, and the order's `.ics` attached, put together by lettre's
//! MIME builder:
//!
//! ```text
//! multipart/mixed
//! ├── multipart/related
//! │   ├── multipart/alternative (text/plain, text/html)
//! │   └── image/png per ticket (inline, Content-ID)
//! └── text/calendar (attachment, tickets.ics)
//! ```
//!
//! The HTML loads nothing remote (no tracking pixel, no web font), reads without images (each
//! code is also text, each image has it as its `alt`) and follows a dark mail theme
//! (`color-scheme`; the QR codes keep their white quiet zone, so they still scan).

use base64::Engine;
use lettre::message::{header::ContentType, Attachment, Mailbox, MultiPart, SinglePart};
use maud::{html, Markup, PreEscaped, DOCTYPE};

use super::{calendar, facts, order_doc::OrderDoc, qr, texts::texts};

/// A ticket mail, composed.
#[derive(Debug, Clone)]
pub struct TicketMail {
    pub subject: String,
    pub text: String,
    pub html: String,
    /// Each ticket's QR code: its Content-ID and PNG.
    pub images: Vec<(String, Vec<u8>)>,
    pub ics: String,
}

fn content_id(index: usize) -> String {
    format!("qr-{index}@boxoffice")
}

/// The mail of `doc`, linking to its ticket page at `page_url`.
pub fn compose(doc: &OrderDoc, page_url: &str, host: &str) -> anyhow::Result<TicketMail> {
    let images = doc
        .order
        .tickets
        .iter()
        .enumerate()
        .map(|(i, ticket)| Ok((content_id(i), qr::png(ticket.qr_content())?)))
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(TicketMail {
        subject: facts::subject(doc),
        text: text(doc, page_url),
        html: html(doc, page_url, |i| format!("cid:{}", content_id(i))).into_string(),
        images,
        ics: calendar::ics(doc, host, Some(page_url)),
    })
}

impl TicketMail {
    /// The HTML with its images inlined as `data:` URIs, for showing the mail in a browser
    /// (`/demo/mail`).
    pub fn html_for_browser(&self) -> String {
        self.images
            .iter()
            .fold(self.html.clone(), |html, (cid, png)| {
                let data = base64::engine::general_purpose::STANDARD.encode(png);
                html.replace(
                    &format!("cid:{cid}"),
                    &format!("data:image/png;base64,{data}"),
                )
            })
    }

    /// The MIME message from `from` to `to`.
    pub fn message(&self, from: Mailbox, to: Mailbox) -> anyhow::Result<lettre::Message> {
        let png = ContentType::parse("image/png")?;
        let mut related = MultiPart::related().multipart(MultiPart::alternative_plain_html(
            self.text.clone(),
            self.html.clone(),
        ));
        for (cid, bytes) in &self.images {
            related = related
                .singlepart(Attachment::new_inline(cid.clone()).body(bytes.clone(), png.clone()));
        }
        let ics: SinglePart = Attachment::new("tickets.ics".to_owned()).body(
            self.ics.clone(),
            ContentType::parse("text/calendar; charset=utf-8; method=PUBLISH")?,
        );
        Ok(lettre::Message::builder()
            .from(from)
            .to(to)
            .subject(&self.subject)
            .multipart(MultiPart::mixed().multipart(related).singlepart(ics))?)
    }
}

fn text(doc: &OrderDoc, page_url: &str) -> String {
    let t = texts(doc.locale);
    let mut out = format!(
        "{}\n\n{}\n\n{}: {}\n{}: {}\n{}: {}\n",
        t.greeting,
        t.intro,
        t.order,
        doc.order.order_display_id,
        t.visit,
        facts::visit_line(doc),
        t.address,
        doc.address()
    );
    for (label, value) in facts::booking_answers(doc) {
        out.push_str(&format!("{label}: {value}\n"));
    }
    for ticket in &doc.order.tickets {
        out.push('\n');
        for (label, value) in facts::ticket_facts(doc, ticket) {
            out.push_str(&format!("{label}: {value}\n"));
        }
    }
    let (lines, total) = facts::totals(doc);
    out.push('\n');
    for (what, amount) in lines {
        out.push_str(&format!("{what}: {amount}\n"));
    }
    out.push_str(&format!("{}: {total}\n", t.total));
    for (what, amount) in facts::vat(doc) {
        out.push_str(&format!("{what}: {amount}\n"));
    }
    out.push('\n');
    out.push_str(&format!(
        "{}: {page_url}\n{}\n",
        t.open_online, t.calendar_attached
    ));
    for (title, conditions) in &doc.conditions {
        out.push_str(&format!("\n{} – {title}\n{conditions}\n", t.conditions));
    }
    out
}

/// The mails' look, shared by the mails about a change after the sale (`after_sale::mail`).
pub(crate) const MAIL_CSS: &str = "
body { margin: 0; padding: 0; background: #f4f4f5; color: #18181b;
  font-family: -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif; line-height: 1.5; }
.wrap { max-width: 600px; margin: 0 auto; padding: 16px; }
.card { background: #ffffff; border-radius: 8px; padding: 20px; margin: 0 0 16px; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 0 0 8px; }
dl { margin: 0; }
dt { font-size: 13px; color: #52525b; margin-top: 8px; }
dd { margin: 0; font-size: 16px; }
.code { font-family: 'SFMono-Regular', Consolas, monospace; font-size: 18px; letter-spacing: 1px; }
.qr { display: block; width: 240px; max-width: 100%; height: auto; margin: 12px 0 4px;
  background: #ffffff; }
table.totals { width: 100%; border-collapse: collapse; }
table.totals td { padding: 4px 0; vertical-align: top; }
table.totals td.amount { text-align: right; white-space: nowrap; padding-left: 12px; }
table.totals tr.total td { font-weight: bold; border-top: 1px solid #d4d4d8; padding-top: 8px; }
table.totals tr.vat td { font-size: 13px; color: #52525b; }
a.button { display: inline-block; background: #1d4ed8; color: #ffffff; text-decoration: none;
  padding: 12px 20px; border-radius: 6px; font-weight: bold; }
.muted { color: #52525b; font-size: 14px; }
@media (prefers-color-scheme: dark) {
  body { background: #18181b; color: #f4f4f5; }
  .card { background: #27272a; }
  dt, .muted, table.totals tr.vat td { color: #a1a1aa; }
  a.button { background: #3b82f6; }
}
";

/// The HTML part; `image_src` names ticket `i`'s QR image (`cid:` in the mail).
fn html(doc: &OrderDoc, page_url: &str, image_src: impl Fn(usize) -> String) -> Markup {
    let t = texts(doc.locale);
    let (lines, total) = facts::totals(doc);
    html! {
        (DOCTYPE)
        html lang=(doc.locale.tag()) {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                meta name="color-scheme" content="light dark";
                meta name="supported-color-schemes" content="light dark";
                title { (facts::subject(doc)) }
                style { (PreEscaped(MAIL_CSS)) }
            }
            body {
                div.wrap {
                    div.card {
                        h1 { (doc.merchant_name()) }
                        p { strong { (t.greeting) } }
                        p { (t.intro) }
                        dl {
                            dt { (t.order) } dd { (doc.order.order_display_id) }
                            dt { (t.visit) } dd { (facts::visit_line(doc)) }
                            dt { (t.address) } dd { (doc.address()) }
                            @for (label, value) in facts::booking_answers(doc) {
                                dt { (label) } dd { (value) }
                            }
                        }
                        p { a.button href=(page_url) { (t.open_online) } }
                    }
                    @for (i, ticket) in doc.order.tickets.iter().enumerate() {
                        div.card {
                            h2 { (ticket.product_title) }
                            img.qr src=(image_src(i)) width="240" height="240" alt=(ticket.code);
                            p.muted { (t.show_at_entrance) }
                            dl {
                                @for (label, value) in facts::ticket_facts(doc, ticket).into_iter().skip(1) {
                                    dt { (label) }
                                    @if label == t.code { dd.code { (value) } } @else { dd { (value) } }
                                }
                            }
                        }
                    }
                    div.card {
                        table.totals role="presentation" {
                            @for (what, amount) in &lines {
                                tr { td { (what) } td.amount { (amount) } }
                            }
                            tr.total { td { (t.total) } td.amount { (total) } }
                            @for (what, amount) in facts::vat(doc) {
                                tr.vat { td { (what) } td.amount { (amount) } }
                            }
                        }
                    }
                    @for (title, conditions) in &doc.conditions {
                        div.card {
                            h2 { (t.conditions) ": " (title) }
                            p.muted { (conditions) }
                        }
                    }
                    p.muted { (t.calendar_attached) }
                }
            }
        }
    }
}
