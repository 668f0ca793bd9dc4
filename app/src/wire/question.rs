//! Booking questions (docs/operator-catalog.md, "Booking questions"): what a product asks
//! once per booking or once per ticket, and the answers a checkout takes and an order shows.

use serde::{Deserialize, Serialize};

#[cfg(feature = "ssr")]
use super::Locale;

/// How an answer is typed and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum InputType {
    /// One line, at most 200 characters.
    Text,
    /// Several lines, at most 2000 characters.
    Textarea,
    Email,
    /// Digits, spaces and `+ - ( ) .`, 5 to 30 characters.
    Tel,
    /// `YYYY-MM-DD`.
    Date,
    /// One of `options`, by its `value`.
    Select,
    /// A decimal number such as `7` or `-1.5`.
    Number,
}

/// Whether a question is asked once for the booking or once for each ticket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(rename_all = "lowercase")]
pub enum AskedPer {
    #[default]
    Booking,
    Ticket,
}

/// A text in each language the operator wrote it in: at least one. A reader gets its own
/// language, else Dutch, else English, else any.
#[cfg(feature = "ssr")]
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LocalizedText {
    #[serde(rename = "nl-NL", default)]
    #[schema(
        rename = "nl-NL",
        min_length = 1,
        max_length = 200,
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub nl_nl: Option<String>,
    #[serde(rename = "en-GB", default)]
    #[schema(
        rename = "en-GB",
        min_length = 1,
        max_length = 200,
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub en_gb: Option<String>,
    #[serde(rename = "de-DE", default)]
    #[schema(
        rename = "de-DE",
        min_length = 1,
        max_length = 200,
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub de_de: Option<String>,
    #[serde(rename = "fr-FR", default)]
    #[schema(
        rename = "fr-FR",
        min_length = 1,
        max_length = 200,
        pattern = r"[^\s\u0085]|\ufeff"
    )]
    pub fr_fr: Option<String>,
}

#[cfg(feature = "ssr")]
impl LocalizedText {
    /// Each language's text, in `Locale::ALL`'s order.
    pub fn texts(&self) -> [(Locale, Option<&str>); 4] {
        [
            (Locale::NlNl, self.nl_nl.as_deref()),
            (Locale::EnGb, self.en_gb.as_deref()),
            (Locale::DeDe, self.de_de.as_deref()),
            (Locale::FrFr, self.fr_fr.as_deref()),
        ]
    }

    /// The text in `locale`, else Dutch, else English, else any; empty when there is none.
    pub fn get(&self, locale: Locale) -> &str {
        let texts = self.texts();
        let of = |l: Locale| texts.iter().find(|(t, _)| *t == l).and_then(|(_, s)| *s);
        of(locale)
            .or_else(|| of(Locale::NlNl))
            .or_else(|| of(Locale::EnGb))
            .or_else(|| texts.iter().find_map(|(_, s)| *s))
            .unwrap_or_default()
    }
}

/// One choice of a `select` question.
#[cfg(feature = "ssr")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct QuestionOption {
    /// What an answer sends.
    #[schema(pattern = "^[A-Za-z0-9_.-]{1,50}$")]
    pub value: String,
    pub label: LocalizedText,
}

/// A booking question as the operator defines it on a product (`questions` of
/// `PUT /admin/v1/products/{id}`).
#[cfg(feature = "ssr")]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// Unique among the product's questions; a question with the same id on several products
    /// of one basket is one question of the booking (asked once).
    #[schema(pattern = "^[a-z0-9_-]{1,50}$")]
    pub question_id: String,
    pub label: LocalizedText,
    pub input_type: InputType,
    /// The choices of a `select` question (1 to 50, distinct values); none for the others.
    #[serde(default)]
    #[schema(max_items = 50)]
    pub options: Vec<QuestionOption>,
    /// A confirmation without its answer is refused (`checkout-answer-required`).
    #[serde(default)]
    pub required: bool,
    /// The answer identifies a person (a name, a birth date): it is shown to the customer,
    /// the partner and the gate, and never written into events, analytics or logs.
    #[serde(default)]
    pub personal_data: bool,
    #[serde(default)]
    pub per: AskedPer,
}

/// A choice of a `select` question in the reader's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct Choice {
    pub value: String,
    pub label: String,
}

/// A question in the reader's language: on the product list, and on a checkout once for each
/// line that asks it per ticket (`line` set) and once for the booking (`line` absent).
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct AskedQuestion {
    pub question_id: String,
    pub label: String,
    pub input_type: InputType,
    #[serde(default)]
    pub options: Vec<Choice>,
    pub required: bool,
    pub per: AskedPer,
    /// On a checkout, for a per-ticket question: the 0-based line it is asked for (once per
    /// ticket of that line).
    #[serde(default)]
    pub line: Option<u32>,
}

/// An answer as a checkout takes it: `line` and `ticket` (both 0-based) for a per-ticket
/// question, neither for a per-booking one.
#[serde_with::skip_serializing_none]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct Answer {
    #[cfg_attr(feature = "ssr", schema(pattern = "^[a-z0-9_-]{1,50}$"))]
    pub question_id: String,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(maximum = 19))]
    pub line: Option<u32>,
    #[serde(default)]
    #[cfg_attr(feature = "ssr", schema(maximum = 99))]
    pub ticket: Option<u32>,
    #[cfg_attr(
        feature = "ssr",
        schema(min_length = 1, max_length = 2000, pattern = r"[^\s\u0085]|\ufeff")
    )]
    pub value: String,
}

/// An answer as an order, a ticket and a gate show it, labelled in the order's language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ssr", derive(utoipa::ToSchema))]
pub struct GivenAnswer {
    pub question_id: String,
    pub label: String,
    pub value: String,
    /// For a choice: the chosen option's label in the same language (`value` stays the
    /// option's value), as mails, pages and the gate show it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<String>,
}
