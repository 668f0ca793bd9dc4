//! The frame's own texts in the four languages. Catalog content is localized by the API.

use crate::wire::Locale;

/// A text of the frame's user interface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    Welcome,
    LanguageLabel,
    SessionMissing,
    SessionMissingHelp,
    SessionStarting,
    SessionActive,
    SessionActiveHelp,
    SessionExpired,
    SessionExpiredHelp,
    OnboardingTitle,
    OnboardingWorking,
    OnboardingFailed,
    OnboardingDebtorCode,
    OnboardingStatus,
    OnboardingContinue,
}

/// The text in `locale`.
pub fn t(locale: Locale, text: Text) -> &'static str {
    use Locale::*;
    use Text::*;
    match (text, locale) {
        (Welcome, NlNl) => "Welkom bij Boxoffice",
        (Welcome, EnGb) => "Welcome to Boxoffice",
        (Welcome, DeDe) => "Willkommen bei Boxoffice",
        (Welcome, FrFr) => "Bienvenue chez Boxoffice",
        (LanguageLabel, NlNl) => "Taal",
        (LanguageLabel, EnGb) => "Language",
        (LanguageLabel, DeDe) => "Sprache",
        (LanguageLabel, FrFr) => "Langue",
        (SessionMissing, NlNl) => "Geen sessie",
        (SessionMissing, EnGb) => "No session",
        (SessionMissing, DeDe) => "Keine Sitzung",
        (SessionMissing, FrFr) => "Pas de session",
        (SessionMissingHelp, NlNl) => "Open deze pagina via de website van uw partner.",
        (SessionMissingHelp, EnGb) => "Open this page from your partner's website.",
        (SessionMissingHelp, DeDe) => "Öffnen Sie diese Seite über die Website Ihres Partners.",
        (SessionMissingHelp, FrFr) => "Ouvrez cette page depuis le site de votre partenaire.",
        (SessionStarting, NlNl) => "Sessie wordt gestart…",
        (SessionStarting, EnGb) => "Starting your session…",
        (SessionStarting, DeDe) => "Sitzung wird gestartet…",
        (SessionStarting, FrFr) => "Démarrage de la session…",
        (SessionActive, NlNl) => "U bent aangemeld",
        (SessionActive, EnGb) => "You are signed in",
        (SessionActive, DeDe) => "Sie sind angemeldet",
        (SessionActive, FrFr) => "Vous êtes connecté",
        (SessionActiveHelp, NlNl) => "Uw sessie is actief.",
        (SessionActiveHelp, EnGb) => "Your session is active.",
        (SessionActiveHelp, DeDe) => "Ihre Sitzung ist aktiv.",
        (SessionActiveHelp, FrFr) => "Votre session est active.",
        (SessionExpired, NlNl) => "Sessie verlopen",
        (SessionExpired, EnGb) => "Session expired",
        (SessionExpired, DeDe) => "Sitzung abgelaufen",
        (SessionExpired, FrFr) => "Session expirée",
        (SessionExpiredHelp, NlNl) => "Open de pagina opnieuw vanaf de website van uw partner.",
        (SessionExpiredHelp, EnGb) => "Open the page again from your partner's website.",
        (SessionExpiredHelp, DeDe) => {
            "Öffnen Sie die Seite erneut über die Website Ihres Partners."
        }
        (SessionExpiredHelp, FrFr) => "Rouvrez la page depuis le site de votre partenaire.",
        (OnboardingTitle, NlNl) => "Uw handelaarsaccount instellen",
        (OnboardingTitle, EnGb) => "Set up your merchant account",
        (OnboardingTitle, DeDe) => "Ihr Händlerkonto einrichten",
        (OnboardingTitle, FrFr) => "Configurer votre compte marchand",
        (OnboardingWorking, NlNl) => "Uw link wordt gecontroleerd…",
        (OnboardingWorking, EnGb) => "Checking your link…",
        (OnboardingWorking, DeDe) => "Ihr Link wird geprüft…",
        (OnboardingWorking, FrFr) => "Vérification de votre lien…",
        (OnboardingFailed, NlNl) => "Deze link is al gebruikt of verlopen. Vraag een nieuwe aan.",
        (OnboardingFailed, EnGb) => "This link was already used or has expired. Ask for a new one.",
        (OnboardingFailed, DeDe) => {
            "Dieser Link wurde bereits verwendet oder ist abgelaufen. Fordern Sie einen neuen an."
        }
        (OnboardingFailed, FrFr) => {
            "Ce lien a déjà été utilisé ou a expiré. Demandez-en un nouveau."
        }
        (OnboardingDebtorCode, NlNl) => "Debiteurcode",
        (OnboardingDebtorCode, EnGb) => "Debtor code",
        (OnboardingDebtorCode, DeDe) => "Debitorennummer",
        (OnboardingDebtorCode, FrFr) => "Code débiteur",
        (OnboardingStatus, NlNl) => "Status",
        (OnboardingStatus, EnGb) => "Status",
        (OnboardingStatus, DeDe) => "Status",
        (OnboardingStatus, FrFr) => "Statut",
        (OnboardingContinue, NlNl) => "Verder naar verificatie",
        (OnboardingContinue, EnGb) => "Continue to verification",
        (OnboardingContinue, DeDe) => "Weiter zur Verifizierung",
        (OnboardingContinue, FrFr) => "Continuer vers la vérification",
    }
}

/// The name of a language in that language, for the language switcher.
pub fn native_name(locale: Locale) -> &'static str {
    match locale {
        Locale::NlNl => "Nederlands",
        Locale::EnGb => "English",
        Locale::DeDe => "Deutsch",
        Locale::FrFr => "Français",
    }
}
