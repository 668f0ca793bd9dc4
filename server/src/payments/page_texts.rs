//! The Stripe payment page's texts in the four languages (the page is the server's own, as
//! the ticket page is: the frame's bundle would carry them for nothing).

use app::wire::Locale;

#[derive(Debug)]
pub struct PageTexts {
    pub title: &'static str,
    /// "Order {reference}" as "{order} {reference}".
    pub order: &'static str,
    pub amount: &'static str,
    /// The button: "{pay} {amount}".
    pub pay: &'static str,
    pub paying: &'static str,
    pub failed_attempt: &'static str,
    pub secure_note: &'static str,
    pub needs_javascript: &'static str,
    pub provider_unavailable: &'static str,
    pub processing: &'static str,
    pub settled_paid: &'static str,
    pub settled_ended: &'static str,
    pub back: &'static str,
}

const EN: PageTexts = PageTexts {
    title: "Payment",
    order: "Order",
    amount: "Amount to pay",
    pay: "Pay",
    paying: "Paying…",
    failed_attempt: "Your last attempt did not go through:",
    secure_note: "Your payment details go straight to Stripe, our payment provider; we never see them.",
    needs_javascript: "This payment form needs JavaScript. Please switch it on, or use another browser.",
    provider_unavailable: "The payment provider cannot be reached right now. Please reload this page in a moment.",
    processing: "Your payment is being processed. This page shows the result once it is known; you can reload it.",
    settled_paid: "This payment is complete. Thank you!",
    settled_ended: "This payment has ended and can no longer be paid.",
    back: "Back to the shop",
};

const NL: PageTexts = PageTexts {
    title: "Betaling",
    order: "Bestelling",
    amount: "Te betalen",
    pay: "Betaal",
    paying: "Bezig met betalen…",
    failed_attempt: "Uw vorige poging is niet gelukt:",
    secure_note: "Uw betaalgegevens gaan rechtstreeks naar Stripe, onze betaalprovider; wij zien ze nooit.",
    needs_javascript: "Dit betaalformulier heeft JavaScript nodig. Zet het aan, of gebruik een andere browser.",
    provider_unavailable: "De betaalprovider is nu niet bereikbaar. Laad deze pagina over een moment opnieuw.",
    processing: "Uw betaling wordt verwerkt. Deze pagina toont de uitkomst zodra die bekend is; u kunt haar opnieuw laden.",
    settled_paid: "Deze betaling is voltooid. Bedankt!",
    settled_ended: "Deze betaling is beëindigd en kan niet meer worden betaald.",
    back: "Terug naar de ticketshop",
};

const DE: PageTexts = PageTexts {
    title: "Zahlung",
    order: "Bestellung",
    amount: "Zu zahlender Betrag",
    pay: "Bezahlen:",
    paying: "Zahlung läuft…",
    failed_attempt: "Ihr letzter Versuch ist nicht gelungen:",
    secure_note: "Ihre Zahlungsdaten gehen direkt an Stripe, unseren Zahlungsdienstleister; wir sehen sie nie.",
    needs_javascript: "Dieses Zahlungsformular braucht JavaScript. Bitte schalten Sie es ein oder nutzen Sie einen anderen Browser.",
    provider_unavailable: "Der Zahlungsdienstleister ist gerade nicht erreichbar. Bitte laden Sie die Seite gleich neu.",
    processing: "Ihre Zahlung wird bearbeitet. Diese Seite zeigt das Ergebnis, sobald es feststeht; Sie können sie neu laden.",
    settled_paid: "Diese Zahlung ist abgeschlossen. Vielen Dank!",
    settled_ended: "Diese Zahlung ist beendet und kann nicht mehr bezahlt werden.",
    back: "Zurück zum Ticketshop",
};

const FR: PageTexts = PageTexts {
    title: "Paiement",
    order: "Commande",
    amount: "Montant à payer",
    pay: "Payer",
    paying: "Paiement en cours…",
    failed_attempt: "Votre dernière tentative n’a pas abouti :",
    secure_note: "Vos données de paiement vont directement à Stripe, notre prestataire de paiement ; nous ne les voyons jamais.",
    needs_javascript: "Ce formulaire de paiement a besoin de JavaScript. Activez-le ou utilisez un autre navigateur.",
    provider_unavailable: "Le prestataire de paiement est injoignable pour le moment. Rechargez cette page dans un instant.",
    processing: "Votre paiement est en cours de traitement. Cette page affiche le résultat dès qu’il est connu ; vous pouvez la recharger.",
    settled_paid: "Ce paiement est terminé. Merci !",
    settled_ended: "Ce paiement est clos et ne peut plus être réglé.",
    back: "Retour à la billetterie",
};

pub fn texts(locale: Locale) -> &'static PageTexts {
    match locale {
        Locale::NlNl => &NL,
        Locale::EnGb => &EN,
        Locale::DeDe => &DE,
        Locale::FrFr => &FR,
    }
}
