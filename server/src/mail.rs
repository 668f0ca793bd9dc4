//! Outgoing mail. Every mail is recorded in the database's outbox first; with
//! `BOXOFFICE_SMTP_URL` set it is then delivered by SMTP and marked SENT (or FAILED), otherwise
//! it stays in the outbox and is logged, so the embedded default works without a mail server.
//! A sent mail keeps no secret it carried (`OutgoingMail::secret`): the outbox is then a record,
//! not a second way in. A mail not sent (no SMTP, or a failure) keeps it for the operator to
//! deliver, until the secret itself expires.

use std::sync::Arc;

use anyhow::Context;
use app::wire::MailStatus;
use lettre::{message::Mailbox, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;

use crate::{config::Config, store::Store};

/// A plain-text mail to one recipient.
#[derive(Debug, Clone)]
pub struct OutgoingMail {
    pub to: String,
    pub subject: String,
    pub body: String,
    /// A part of `body` that must not outlive the delivery (a magic link with its code): once
    /// the mail is sent, the outbox keeps the body without it.
    pub secret: Option<String>,
}

impl OutgoingMail {
    /// The body as kept after delivery: the secret replaced by a note that it was there.
    fn delivered_body(&self) -> Option<String> {
        let secret = self.secret.as_deref().filter(|s| !s.is_empty())?;
        Some(
            self.body
                .replace(secret, "[removed once the mail was sent]"),
        )
    }
}

/// Why a delivery failed.
#[derive(Debug, Clone)]
pub struct DeliveryError {
    /// The server refused for good; trying again cannot help.
    pub permanent: bool,
    pub text: String,
}

#[derive(Clone)]
pub struct Mailer {
    store: Arc<dyn Store>,
    smtp: Option<(AsyncSmtpTransport<Tokio1Executor>, Mailbox)>,
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mailer")
            .field("smtp", &self.smtp.is_some())
            .finish()
    }
}

impl Mailer {
    pub fn new(store: Arc<dyn Store>, config: &Config) -> anyhow::Result<Self> {
        let smtp = match &config.smtp_url {
            None => None,
            Some(url) => {
                let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose_secret())
                    .context("BOXOFFICE_SMTP_URL is not a valid smtp:// or smtps:// URL")?
                    .build();
                let from: Mailbox = config
                    .mail_from
                    .parse()
                    .context("BOXOFFICE_MAIL_FROM is not a valid mailbox")?;
                Some((transport, from))
            }
        };
        Ok(Self { store, smtp })
    }

    /// The sender, when SMTP is configured (without it nothing is delivered).
    pub fn sender(&self) -> Option<&Mailbox> {
        self.smtp.as_ref().map(|(_, from)| from)
    }

    /// Delivers a message built elsewhere (the ticket mail, `crate::tickets`) by SMTP; the
    /// caller records the outcome. An error is permanent when the server refused for good
    /// (a 5xx answer), so the caller stops trying.
    pub async fn deliver(&self, message: Message) -> Result<(), DeliveryError> {
        let Some((transport, _)) = &self.smtp else {
            return Err(DeliveryError {
                permanent: false,
                text: "no SMTP server is configured".into(),
            });
        };
        transport
            .send(message)
            .await
            .map(|_| ())
            .map_err(|err| DeliveryError {
                permanent: err.is_permanent(),
                text: crate::error::with_causes(&err),
            })
    }

    /// Records the mail and, with SMTP configured, delivers it. A delivery failure is recorded
    /// and returned; the mail stays in the outbox for an operator to resend.
    pub async fn send(&self, mail: OutgoingMail) -> anyhow::Result<()> {
        let mail_id = self
            .store
            .record_mail(&mail.to, &mail.subject, &mail.body)
            .await?;
        let Some((transport, from)) = &self.smtp else {
            tracing::info!(%mail_id, to = %mail.to, subject = %mail.subject, "mail kept in the outbox (no SMTP configured)");
            return Ok(());
        };
        let message = Message::builder()
            .from(from.clone())
            .to(mail.to.parse().context("recipient address")?)
            .subject(&mail.subject)
            .body(mail.body.clone())?;
        match transport.send(message).await {
            Ok(_) => {
                let kept = mail.delivered_body();
                self.store
                    .set_mail_status(mail_id, MailStatus::Sent, kept.as_deref())
                    .await?;
                Ok(())
            }
            Err(err) => {
                self.store
                    .set_mail_status(mail_id, MailStatus::Failed, None)
                    .await?;
                Err(anyhow::Error::new(err).context("SMTP delivery failed"))
            }
        }
    }
}
