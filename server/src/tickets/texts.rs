//! The ticket mail's, ticket page's and calendar file's texts in the four languages. They
//! live in the server, not in `app/locales`, because only the server writes them (the frame's
//! bundle would carry them for nothing); dates and money come from `app::format`, so the
//! locale rules still exist once.

use app::wire::Locale;

/// The texts of one language. `{}`-free: the caller puts names and numbers beside them.
#[derive(Debug)]
pub struct Texts {
    /// Subject: "{merchant}: {subject_tickets} {date}".
    pub subject_tickets: &'static str,
    pub greeting: &'static str,
    pub intro: &'static str,
    pub order: &'static str,
    pub visit: &'static str,
    pub ticket: &'static str,
    pub age_group: &'static str,
    pub valid_until: &'static str,
    pub code: &'static str,
    pub total: &'static str,
    /// Before a VAT rate's name, under the total: "of which BTW 9%".
    pub of_which: &'static str,
    pub total_without_vat: &'static str,
    pub conditions: &'static str,
    pub open_online: &'static str,
    pub show_at_entrance: &'static str,
    pub calendar_attached: &'static str,
    pub page_title: &'static str,
    pub print: &'static str,
    /// The calendar entry's summary: "{calendar_visit} {merchant}".
    pub calendar_visit: &'static str,
    pub tickets_count: &'static str,
    pub address: &'static str,
    /// The wallets' own button wording in each language.
    pub add_apple_wallet: &'static str,
    pub add_google_wallet: &'static str,
    /// The link to the page that cancels, moves or withdraws (`after_sale::page`).
    pub manage_booking: &'static str,
}

const NL: Texts = Texts {
    subject_tickets: "uw tickets voor",
    greeting: "Bedankt voor uw bestelling!",
    intro: "Hier zijn uw tickets. Laat bij de ingang de QR-code zien, op uw telefoon of geprint.",
    order: "Bestelling",
    visit: "Bezoek",
    ticket: "Ticket",
    age_group: "Leeftijdsgroep",
    valid_until: "Geldig t/m",
    code: "Code",
    total: "Totaal",
    of_which: "waarvan",
    total_without_vat: "Totaal excl. btw",
    conditions: "Voorwaarden",
    open_online: "Bekijk uw tickets online",
    show_at_entrance: "Laat deze code zien bij de ingang.",
    calendar_attached: "Het bezoek staat in de bijlage als agenda-item (.ics).",
    page_title: "Uw tickets",
    print: "Afdrukken",
    calendar_visit: "Bezoek aan",
    tickets_count: "tickets",
    address: "Adres",
    add_apple_wallet: "Toevoegen aan Apple Wallet",
    add_google_wallet: "Toevoegen aan Google Wallet",
    manage_booking: "Boeking annuleren of wijzigen",
};

const EN: Texts = Texts {
    subject_tickets: "your tickets for",
    greeting: "Thank you for your order!",
    intro: "Here are your tickets. Show the QR code at the entrance, on your phone or printed.",
    order: "Order",
    visit: "Visit",
    ticket: "Ticket",
    age_group: "Age group",
    valid_until: "Valid until",
    code: "Code",
    total: "Total",
    of_which: "of which",
    total_without_vat: "Total without VAT",
    conditions: "Conditions",
    open_online: "View your tickets online",
    show_at_entrance: "Show this code at the entrance.",
    calendar_attached: "The visit is attached as a calendar entry (.ics).",
    page_title: "Your tickets",
    print: "Print",
    calendar_visit: "Visit to",
    tickets_count: "tickets",
    address: "Address",
    add_apple_wallet: "Add to Apple Wallet",
    add_google_wallet: "Add to Google Wallet",
    manage_booking: "Cancel or change this booking",
};

const DE: Texts = Texts {
    subject_tickets: "Ihre Tickets für",
    greeting: "Vielen Dank für Ihre Bestellung!",
    intro:
        "Hier sind Ihre Tickets. Zeigen Sie den QR-Code am Eingang, auf dem Handy oder ausgedruckt.",
    order: "Bestellung",
    visit: "Besuch",
    ticket: "Ticket",
    age_group: "Altersgruppe",
    valid_until: "Gültig bis",
    code: "Code",
    total: "Gesamt",
    of_which: "davon",
    total_without_vat: "Gesamt ohne MwSt.",
    conditions: "Bedingungen",
    open_online: "Ihre Tickets online ansehen",
    show_at_entrance: "Zeigen Sie diesen Code am Eingang.",
    calendar_attached: "Der Besuch ist als Kalendereintrag (.ics) angehängt.",
    page_title: "Ihre Tickets",
    print: "Drucken",
    calendar_visit: "Besuch bei",
    tickets_count: "Tickets",
    address: "Adresse",
    add_apple_wallet: "Zu Apple Wallet hinzufügen",
    add_google_wallet: "Zu Google Wallet hinzufügen",
    manage_booking: "Buchung stornieren oder ändern",
};

const FR: Texts = Texts {
    subject_tickets: "vos billets pour le",
    greeting: "Merci pour votre commande !",
    intro: "Voici vos billets. Présentez le code QR à l’entrée, sur votre téléphone ou imprimé.",
    order: "Commande",
    visit: "Visite",
    ticket: "Billet",
    age_group: "Catégorie d’âge",
    valid_until: "Valable jusqu’au",
    code: "Code",
    total: "Total",
    of_which: "dont",
    total_without_vat: "Total HT",
    conditions: "Conditions",
    open_online: "Voir vos billets en ligne",
    show_at_entrance: "Présentez ce code à l’entrée.",
    calendar_attached: "La visite est jointe comme événement d’agenda (.ics).",
    page_title: "Vos billets",
    print: "Imprimer",
    calendar_visit: "Visite :",
    tickets_count: "billets",
    address: "Adresse",
    add_apple_wallet: "Ajouter à Apple Wallet",
    add_google_wallet: "Ajouter à Google Wallet",
    manage_booking: "Annuler ou modifier cette réservation",
};

/// The texts of `locale`.
pub fn texts(locale: Locale) -> &'static Texts {
    match locale {
        Locale::NlNl => &NL,
        Locale::EnGb => &EN,
        Locale::DeDe => &DE,
        Locale::FrFr => &FR,
    }
}
