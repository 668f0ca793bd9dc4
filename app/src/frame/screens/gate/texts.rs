//! The scanner's texts in the four languages, from `app/gate-texts/*.json`.
//!
//! They are not in `locales/` with the frame's: every customer downloads the frame's main WASM
//! (300 KB budget, docs/benchmarks.md) and strings compiled into it stay in it whichever screen
//! uses them. The server writes the four files into the head of the `/gate` page
//! ([`GateTexts`], a `<script type="application/json">` that hydration leaves alone) and the
//! scanner reads them from there, so they cost the frame nothing. A missing or extra key is a
//! failing unit test.

use std::{collections::HashMap, sync::Arc};

use serde::Deserialize;

use crate::i18n::Locale;
use leptos_i18n::Locale as _;

/// The id of the head's element holding the texts.
pub const TEXTS_ELEMENT_ID: &str = "gate-texts";

/// The four locales' texts as one JSON object by locale tag, as the page's head carries it.
#[cfg(feature = "ssr")]
pub const ALL_TEXTS_JSON: &str = concat!(
    r#"{"en-GB":"#,
    include_str!("../../../../gate-texts/en-GB.json"),
    r#","de-DE":"#,
    include_str!("../../../../gate-texts/de-DE.json"),
    r#","fr-FR":"#,
    include_str!("../../../../gate-texts/fr-FR.json"),
    r#","nl-NL":"#,
    include_str!("../../../../gate-texts/nl-NL.json"),
    "}"
);

/// Provided (by the server, for `/gate` only) to have the shell write the texts into the head.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GateTexts;

/// What the scanner says, in one language. `{name}` marks a value filled in by [`fill`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Texts {
    pub title: String,
    pub starting: String,
    pub not_paired: String,
    pub pairing: String,
    pub pairing_failed: String,
    pub revoked: String,
    pub online: String,
    pub offline: String,
    pub list_from: String,
    pub no_list: String,
    pub waiting_one: String,
    pub waiting_other: String,
    pub uploaded: String,
    pub reported_one: String,
    pub reported_other: String,
    pub camera: String,
    pub camera_hint: String,
    pub camera_off: String,
    pub start_camera: String,
    pub code_label: String,
    pub check: String,
    pub checking: String,
    pub admit: String,
    pub refuse: String,
    pub reason_used: String,
    pub reason_cancelled: String,
    pub reason_not_now: String,
    pub reason_wrong_gate: String,
    pub reason_unknown: String,
    pub reason_check_online: String,
    pub reason_failed: String,
    pub check_online_detail: String,
    pub failed_detail: String,
    pub first_used: String,
    pub valid_window: String,
    pub valid_from: String,
    pub checked_offline: String,
    pub next: String,
    /// The usual age groups' names (`adult`, `child`…); another is shown as the merchant wrote it.
    pub age_groups: HashMap<String, String>,
}

impl Texts {
    /// An age group's name in this language.
    pub fn age_group(&self, group: &str) -> String {
        self.age_groups
            .get(&group.to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| group.to_owned())
    }

    /// "1 scan …" or "{count} scans …".
    pub fn counted(one: &str, other: &str, count: usize) -> String {
        if count == 1 {
            one.to_owned()
        } else {
            fill(other, &[("count", &count.to_string())])
        }
    }
}

/// `template` with each `{name}` replaced by its value.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values
        .iter()
        .fold(template.to_owned(), |text, (name, value)| {
            text.replace(&format!("{{{name}}}"), value)
        })
}

type AllTexts = HashMap<String, Arc<Texts>>;

fn parse(json: &str) -> AllTexts {
    serde_json::from_str(json).unwrap_or_default()
}

/// The texts in `locale` (English when the page carries none for it; empty when the page
/// came without its texts, which this server never sends).
pub fn texts(locale: Locale) -> Arc<Texts> {
    let all = all();
    all.get(locale.as_str())
        .or_else(|| all.get("en-GB"))
        .cloned()
        .unwrap_or_default()
}

#[cfg(feature = "ssr")]
fn all() -> &'static AllTexts {
    static ALL: std::sync::LazyLock<AllTexts> = std::sync::LazyLock::new(|| parse(ALL_TEXTS_JSON));
    &ALL
}

/// Read once from the page's head.
#[cfg(not(feature = "ssr"))]
fn all() -> &'static AllTexts {
    use std::sync::OnceLock;
    // The browser runs one thread; the lock is only how a static is set once.
    static ALL: OnceLock<AllTexts> = OnceLock::new();
    ALL.get_or_init(|| {
        #[cfg(feature = "hydrate")]
        let json = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(TEXTS_ELEMENT_ID))
            .and_then(|e| e.text_content())
            .unwrap_or_default();
        #[cfg(not(feature = "hydrate"))]
        let json = String::new();
        parse(&json)
    })
}

#[cfg(all(test, feature = "ssr"))]
mod tests {
    use leptos_i18n::Locale as _;

    use super::*;

    #[test]
    fn every_language_has_every_text_and_no_other() {
        let all = parse(ALL_TEXTS_JSON);
        for locale in Locale::get_all() {
            let texts = all
                .get(locale.as_str())
                .unwrap_or_else(|| panic!("{locale:?}"));
            assert_ne!(texts.admit, texts.refuse);
            assert_eq!(texts.age_groups.len(), all["en-GB"].age_groups.len());
        }
        assert_eq!(all.len(), Locale::get_all().len());
        // A key missing or unknown in one file fails the whole parse.
        assert_eq!(
            serde_json::from_str::<HashMap<String, Texts>>(ALL_TEXTS_JSON)
                .map(|m| m.len())
                .ok(),
            Some(4)
        );
    }

    #[test]
    fn the_texts_cannot_end_the_script_element_they_are_written_into() {
        assert!(!ALL_TEXTS_JSON.contains("</"));
    }

    #[test]
    fn values_are_filled_in_by_name() {
        assert_eq!(fill("{count} x {count}", &[("count", "2")]), "2 x 2");
        assert_eq!(Texts::counted("one", "{count} more", 3), "3 more");
    }
}
