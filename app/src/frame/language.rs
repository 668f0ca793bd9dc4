use leptos::prelude::*;

use crate::{
    i18n::{native_name, t, Text},
    wire::Locale,
};

/// Makes the frame's current locale available to every screen.
pub fn provide_locale() {
    provide_context(RwSignal::new(Locale::default()));
}

/// The frame's current locale.
pub fn use_locale() -> RwSignal<Locale> {
    expect_context::<RwSignal<Locale>>()
}

/// Buttons that switch the frame's language; the current one is marked `aria-pressed`.
#[component]
pub fn LanguageSwitcher() -> impl IntoView {
    let locale = use_locale();
    view! {
        <nav class="language-switcher" aria-label=move || t(locale.get(), Text::LanguageLabel)>
            {Locale::ALL
                .into_iter()
                .map(|option| {
                    view! {
                        <button
                            type="button"
                            lang=option.tag()
                            aria-pressed=move || (locale.get() == option).to_string()
                            on:click=move |_| locale.set(option)
                        >
                            {native_name(option)}
                        </button>
                    }
                })
                .collect_view()}
        </nav>
    }
}
