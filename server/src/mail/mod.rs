//! Outgoing mail, every kind through one outbox (table `mail`, `store/mail.rs`): a mail is
//! written in the transaction that causes it, and the worker (`outbox`) claims it under a
//! lease, renders it by its kind (`render`), sends it by SMTP and records the outcome, trying
//! again with the webhooks' back-off (`retry.rs`). Without `BOXOFFICE_SMTP_URL` nothing is
//! sent: the mails wait in the outbox, so the embedded default works without a mail server.
//!
//! A sent mail keeps no secret it carried (`MailContent::secret`): the outbox is then a record,
//! not a second way in. A mail not sent keeps it, until the secret itself expires.

pub mod outbox;
pub mod render;

use std::time::Duration;

use anyhow::Context;
use lettre::{message::Mailbox, AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use secrecy::ExposeSecret;

use crate::config::Config;

/// The longest one SMTP delivery may take; the worker's lease leaves room for it.
pub const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// Why a mail could not be sent (rendered or delivered).
#[derive(Debug, Clone)]
pub struct DeliveryError {
    /// Trying again cannot help: the server refused for good, the mail has no address.
    pub permanent: bool,
    pub text: String,
}

impl DeliveryError {
    pub fn permanent(text: impl Into<String>) -> Self {
        Self {
            permanent: true,
            text: text.into(),
        }
    }

    pub fn transient(text: impl Into<String>) -> Self {
        Self {
            permanent: false,
            text: text.into(),
        }
    }
}

/// A mail ready to send.
pub struct Rendered {
    pub message: Message,
    /// Its address, kept out of the stored error texts and the logs.
    pub recipient: String,
    /// The body the outbox keeps once it is sent, when not the one it holds (a secret removed).
    pub kept_body: Option<String>,
}

/// The SMTP side: the transport and the sender, when configured.
#[derive(Clone)]
pub struct Mailer {
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
    pub fn new(config: &Config) -> anyhow::Result<Self> {
        let smtp = match &config.smtp_url {
            None => None,
            Some(url) => {
                let transport = AsyncSmtpTransport::<Tokio1Executor>::from_url(url.expose_secret())
                    .context("BOXOFFICE_SMTP_URL is not a valid smtp:// or smtps:// URL")?
                    .timeout(Some(SMTP_TIMEOUT))
                    .build();
                let from: Mailbox = config
                    .mail_from
                    .parse()
                    .context("BOXOFFICE_MAIL_FROM is not a valid mailbox")?;
                Some((transport, from))
            }
        };
        Ok(Self { smtp })
    }

    /// The sender, when SMTP is configured (without it nothing is delivered).
    pub fn sender(&self) -> Option<&Mailbox> {
        self.smtp.as_ref().map(|(_, from)| from)
    }

    /// Delivers a rendered message by SMTP; the caller records the outcome. An error is
    /// permanent when the server refused for good (a 5xx answer), so the caller stops trying.
    pub async fn deliver(&self, message: Message) -> Result<(), DeliveryError> {
        let Some((transport, _)) = &self.smtp else {
            return Err(DeliveryError::transient("no SMTP server is configured"));
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
}
