//! The frame's language: the generated `i18n::Locale` beside the wire's `Locale`, the
//! switcher, and the server render's choice from `Accept-Language`.

use leptos::prelude::*;
use leptos_i18n::Locale as _;

use crate::{
    i18n::{t, use_i18n, Locale},
    wire,
};

/// The frame's locale as the API names it (`Accept-Language`, the wire's tags).
pub fn to_wire(locale: Locale) -> wire::Locale {
    locale.as_str().parse().unwrap_or_default()
}

/// The frame's locale for a wire locale (the four are the same set).
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
pub fn from_wire(locale: wire::Locale) -> Locale {
    locale.tag().parse().unwrap_or_default()
}

/// On the server render, picks the language: the frame address's `locale` parameter when it
/// names one of the four (the host page's language, which embed.js passes, so the first screen
/// is already in it), else the request's `Accept-Language` by the API's own negotiation
/// (RFC 4647 lookup, `en` → en-GB), so the frame and the API agree. The browser takes the
/// server's choice from `<html lang>` when it hydrates.
pub fn negotiate_on_server() {
    #[cfg(feature = "ssr")]
    if let Some(parts) = use_context::<axum::http::request::Parts>() {
        use_i18n().set_locale(from_wire(page_locale(parts.uri.query(), &parts.headers)));
    }
}

/// The language the server renders a frame page in, from its address's query and its request
/// headers (see [`negotiate_on_server`]).
#[cfg(feature = "ssr")]
pub fn page_locale(query: Option<&str>, headers: &axum::http::HeaderMap) -> wire::Locale {
    let header = headers
        .get(axum::http::header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok());
    locale_param(query).unwrap_or_else(|| wire::Locale::negotiate(header))
}

/// The `locale` parameter of a frame address's query, when it is one of the four tags.
#[cfg_attr(not(feature = "ssr"), allow(dead_code))]
fn locale_param(query: Option<&str>) -> Option<wire::Locale> {
    query?
        .split('&')
        .filter_map(|pair| pair.strip_prefix("locale="))
        .find_map(|tag| tag.parse().ok())
}

/// The name of a language in that language, for the language switcher.
fn native_name(locale: Locale) -> &'static str {
    match to_wire(locale) {
        wire::Locale::NlNl => "Nederlands",
        wire::Locale::EnGb => "English",
        wire::Locale::DeDe => "Deutsch",
        wire::Locale::FrFr => "Français",
    }
}

/// A labelled select of the four languages: compact enough for a 320 px frame.
#[component]
pub fn LanguageSwitcher() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <div class="language">
            <label for="language-select">{t!(i18n, language.label)}</label>
            <select
                id="language-select"
                on:change=move |ev| {
                    if let Ok(locale) = event_target_value(&ev).parse::<Locale>() {
                        i18n.set_locale(locale);
                    }
                }
            >
                {Locale::get_all()
                    .iter()
                    .map(|&option| {
                        view! {
                            <option
                                value=option.as_str()
                                lang=option.as_str()
                                selected=move || i18n.get_locale() == option
                            >
                                {native_name(option)}
                            </option>
                        }
                    })
                    .collect_view()}
            </select>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_address_names_the_language_only_with_a_supported_tag() {
        let found = |q| locale_param(Some(q));
        assert_eq!(
            found("session_code=x&locale=fr-FR"),
            Some(wire::Locale::FrFr)
        );
        assert_eq!(found("locale=de-de"), Some(wire::Locale::DeDe));
        assert_eq!(found("locale=es-ES&x=1"), None);
        assert_eq!(found("xlocale=fr-FR"), None);
        assert_eq!(locale_param(None), None);
    }
}
