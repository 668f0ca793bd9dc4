//! What the after-sale mails and the product list say, in the four languages (server-written
//! like the ticket mail's texts, `tickets/texts.rs`; dates and money from `app::format`).

use app::wire::Locale;

#[derive(Debug)]
pub struct Texts {
    /// Subjects: "{merchant}: {…} {order}".
    pub subject_cancelled: &'static str,
    pub subject_withdrawal: &'static str,
    pub subject_rebooked: &'static str,
    pub cancelled_intro: &'static str,
    pub withdrawal_intro: &'static str,
    /// Followed by the date and time of the withdrawal.
    pub withdrawal_received: &'static str,
    pub rebooked_intro: &'static str,
    pub cancelled_tickets: &'static str,
    pub refund: &'static str,
    pub to_wallet: &'static str,
    pub to_provider: &'static str,
    pub refund_arrives: &'static str,
    pub no_refund: &'static str,
    pub order: &'static str,
    /// The product list's sentence: "{free_cancellation} {duration} {before_visit}".
    pub free_cancellation: &'static str,
    pub partial_cancellation: &'static str,
    pub before_visit: &'static str,
    pub date_change: &'static str,
    pub withdrawal_days: &'static str,
    pub hours: &'static str,
    pub day: &'static str,
    pub days: &'static str,
}

const NL: Texts = Texts {
    subject_cancelled: "annulering van bestelling",
    subject_withdrawal: "ontvangstbevestiging herroeping, bestelling",
    subject_rebooked: "uw bezoek is verplaatst, bestelling",
    cancelled_intro: "Deze tickets zijn geannuleerd en gelden niet meer:",
    withdrawal_intro: "U heeft de overeenkomst herroepen voor deze producten:",
    withdrawal_received: "Uw herroeping is ontvangen op",
    rebooked_intro: "Uw bezoek is verplaatst. Hieronder staan uw nieuwe tickets; de oude gelden niet meer.",
    cancelled_tickets: "Geannuleerd",
    refund: "Terugbetaling",
    to_wallet: "terug in uw tegoed",
    to_provider: "terug via uw betaalmethode",
    refund_arrives: "Een terugbetaling via uw betaalmethode staat meestal binnen 5 tot 10 werkdagen op uw rekening.",
    no_refund: "Volgens de voorwaarden van deze tickets wordt niets terugbetaald.",
    order: "Bestelling",
    free_cancellation: "Gratis annuleren tot",
    partial_cancellation: "Annuleren met gedeeltelijke terugbetaling tot",
    before_visit: "voor uw bezoek",
    date_change: "Datum wijzigen kan tot",
    withdrawal_days: "dagen bedenktijd",
    hours: "uur",
    day: "dag",
    days: "dagen",
};

const EN: Texts = Texts {
    subject_cancelled: "cancellation of order",
    subject_withdrawal: "acknowledgement of withdrawal, order",
    subject_rebooked: "your visit has moved, order",
    cancelled_intro: "These tickets are cancelled and no longer valid:",
    withdrawal_intro: "You have withdrawn from the contract for these products:",
    withdrawal_received: "We received your withdrawal on",
    rebooked_intro:
        "Your visit has moved. Your new tickets are below; the old ones are no longer valid.",
    cancelled_tickets: "Cancelled",
    refund: "Refund",
    to_wallet: "back to your balance",
    to_provider: "back to your payment method",
    refund_arrives:
        "A refund to your payment method usually reaches your account within 5 to 10 business days.",
    no_refund: "Under these tickets' terms nothing is refunded.",
    order: "Order",
    free_cancellation: "Free cancellation until",
    partial_cancellation: "Cancellation with a partial refund until",
    before_visit: "before your visit",
    date_change: "Change the date until",
    withdrawal_days: "days to withdraw",
    hours: "h",
    day: "day",
    days: "days",
};

const DE: Texts = Texts {
    subject_cancelled: "Stornierung der Bestellung",
    subject_withdrawal: "Eingangsbestätigung Ihres Widerrufs, Bestellung",
    subject_rebooked: "Ihr Besuch wurde verlegt, Bestellung",
    cancelled_intro: "Diese Tickets sind storniert und nicht mehr gültig:",
    withdrawal_intro: "Sie haben den Vertrag für diese Produkte widerrufen:",
    withdrawal_received: "Ihr Widerruf ist eingegangen am",
    rebooked_intro: "Ihr Besuch wurde verlegt. Unten finden Sie Ihre neuen Tickets; die alten gelten nicht mehr.",
    cancelled_tickets: "Storniert",
    refund: "Erstattung",
    to_wallet: "zurück auf Ihr Guthaben",
    to_provider: "zurück über Ihre Zahlungsart",
    refund_arrives: "Eine Erstattung über Ihre Zahlungsart ist meist innerhalb von 5 bis 10 Werktagen auf Ihrem Konto.",
    no_refund: "Nach den Bedingungen dieser Tickets wird nichts erstattet.",
    order: "Bestellung",
    free_cancellation: "Kostenlos stornierbar bis",
    partial_cancellation: "Stornierbar mit Teilerstattung bis",
    before_visit: "vor Ihrem Besuch",
    date_change: "Datum änderbar bis",
    withdrawal_days: "Tage Widerrufsrecht",
    hours: "Std.",
    day: "Tag",
    days: "Tage",
};

const FR: Texts = Texts {
    subject_cancelled: "annulation de la commande",
    subject_withdrawal: "accusé de réception de votre rétractation, commande",
    subject_rebooked: "votre visite a été déplacée, commande",
    cancelled_intro: "Ces billets sont annulés et ne sont plus valables :",
    withdrawal_intro: "Vous vous êtes rétracté du contrat pour ces produits :",
    withdrawal_received: "Nous avons reçu votre rétractation le",
    rebooked_intro: "Votre visite a été déplacée. Voici vos nouveaux billets ; les anciens ne sont plus valables.",
    cancelled_tickets: "Annulé",
    refund: "Remboursement",
    to_wallet: "sur votre solde",
    to_provider: "sur votre moyen de paiement",
    refund_arrives: "Un remboursement sur votre moyen de paiement arrive en général sous 5 à 10 jours ouvrés.",
    no_refund: "Selon les conditions de ces billets, rien n’est remboursé.",
    order: "Commande",
    free_cancellation: "Annulation gratuite jusqu’à",
    partial_cancellation: "Annulation avec remboursement partiel jusqu’à",
    before_visit: "avant votre visite",
    date_change: "Changement de date jusqu’à",
    withdrawal_days: "jours de rétractation",
    hours: "h",
    day: "jour",
    days: "jours",
};

pub fn texts(locale: Locale) -> &'static Texts {
    match locale {
        Locale::NlNl => &NL,
        Locale::EnGb => &EN,
        Locale::DeDe => &DE,
        Locale::FrFr => &FR,
    }
}

/// The product list's sentence for a policy (`after_sale_text`), in `locale`: "Free
/// cancellation until 48 h before your visit. Change the date until 1 days before your
/// visit." `None` when the policy offers nothing.
pub fn policy_sentence(policy: &super::Frozen, locale: Locale) -> Option<String> {
    let t = texts(locale);
    let mut parts = Vec::new();
    if let Some(rule) = policy
        .refund_rules
        .iter()
        .find(|r| r.refund_percent > rust_decimal::Decimal::ZERO)
    {
        let lead = if rule.refund_percent == rust_decimal::Decimal::ONE_HUNDRED
            && rule.fee.is_none()
            && !rule.keep_fees
        {
            t.free_cancellation
        } else {
            t.partial_cancellation
        };
        if let Ok(before) = super::policy::Before::parse(&rule.until) {
            parts.push(format!("{lead} {} {}", duration(t, before), t.before_visit));
        }
    }
    if let Some(before) = policy
        .rebook_until
        .as_deref()
        .and_then(|u| super::policy::Before::parse(u).ok())
    {
        parts.push(format!(
            "{} {} {}",
            t.date_change,
            duration(t, before),
            t.before_visit
        ));
    }
    if policy.withdrawal_days > 0 {
        parts.push(format!("{} {}", policy.withdrawal_days, t.withdrawal_days));
    }
    (!parts.is_empty()).then(|| parts.join(". ") + ".")
}

/// A duration as the merchant wrote it: days as days (`P2D`), hours as hours (`PT48H`); a
/// part of an hour counts as a whole one, so the sentence never promises more than the rule.
fn duration(t: &Texts, before: super::policy::Before) -> String {
    match before.parts() {
        (days, 0) => format!("{days} {}", if days == 1 { t.day } else { t.days }),
        _ => format!("{} {}", before.nominal_seconds().div_ceil(3600), t.hours),
    }
}
