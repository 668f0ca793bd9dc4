//! Form fields that show the API's field errors where they belong: `aria-invalid` on the
//! input and the message linked by `aria-describedby`.

use leptos::prelude::*;

use crate::{
    i18n::{td_string, use_i18n, Locale},
    wire::FieldError,
};

/// The field errors of the last refused submit.
pub type Errors = RwSignal<Vec<FieldError>>;

/// A field error in the customer's language, by the API's error code.
pub fn error_text(locale: Locale, error: &FieldError) -> &'static str {
    match error.code.as_str() {
        "required" => td_string!(locale, field_error.required),
        "email" => td_string!(locale, field_error.invalid_email),
        "length" => td_string!(locale, field_error.too_long),
        "shipping_required" => td_string!(locale, field_error.shipping_required),
        "locked" => td_string!(locale, field_error.locked),
        _ => td_string!(locale, field_error.invalid),
    }
}

/// A labelled text input bound to `value`; `name` is the API's field name (for errors).
/// A `locked` field (set by the partner through the session) is read-only and says so.
#[component]
pub fn Field(
    name: &'static str,
    #[prop(into)] label: Signal<String>,
    value: RwSignal<String>,
    errors: Errors,
    #[prop(default = "text")] kind: &'static str,
    #[prop(default = "off")] autocomplete: &'static str,
    #[prop(default = true)] required: bool,
    #[prop(optional)] locked: Option<Signal<bool>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let id = format!("field-{}", name.replace('.', "-"));
    let error_id = format!("{id}-error");
    let locked_id = format!("{id}-locked");
    let is_locked = move || locked.is_some_and(|l| l.get());
    let error =
        Memo::new(move |_| errors.with(|list| list.iter().find(|e| e.field == name).cloned()));
    let described = {
        let (error_id, locked_id) = (error_id.clone(), locked_id.clone());
        move || {
            let ids: Vec<&str> = [
                error.with(Option::is_some).then_some(error_id.as_str()),
                is_locked().then_some(locked_id.as_str()),
            ]
            .into_iter()
            .flatten()
            .collect();
            (!ids.is_empty()).then(|| ids.join(" "))
        }
    };
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for=id.clone()>{move || label.get()}</label>
            <input
                id=id
                name=name
                type=kind
                autocomplete=autocomplete
                required=required
                readonly=is_locked
                aria-invalid=move || error.with(Option::is_some).then_some("true")
                aria-describedby=described
                prop:value=move || value.get()
                on:input=move |ev| value.set(event_target_value(&ev))
            />
            {move || is_locked().then(|| view! {
                <p class="hint" id=locked_id.clone()>{td_string!(i18n.get_locale(), checkout.locked_hint)}</p>
            })}
            {move || error.get().map(|e| view! {
                <p class="field-error" id=error_id.clone()>{error_text(i18n.get_locale(), &e)}</p>
            })}
        </div>
    }
}

/// The country select of the delivery address; options come from the locale file as
/// `CODE:Name` pairs.
#[component]
pub fn CountryField(value: RwSignal<String>, errors: Errors) -> impl IntoView {
    let i18n = use_i18n();
    let name = "shipping_address.country";
    let error =
        Memo::new(move |_| errors.with(|list| list.iter().find(|e| e.field == name).cloned()));
    view! {
        <div class="field" class:invalid=move || error.with(Option::is_some)>
            <label for="field-country">{move || td_string!(i18n.get_locale(), checkout.country)}</label>
            <select
                id="field-country"
                name=name
                autocomplete="country"
                aria-invalid=move || error.with(Option::is_some).then_some("true")
                aria-describedby=move || error.with(Option::is_some).then_some("field-country-error")
                on:change=move |ev| value.set(event_target_value(&ev))
            >
                {move || {
                    td_string!(i18n.get_locale(), checkout.countries)
                        .split(',')
                        .filter_map(|pair| pair.split_once(':'))
                        .map(|(code, country)| view! {
                            <option value=code selected=value.get_untracked() == code>{country}</option>
                        })
                        .collect_view()
                }}
            </select>
            {move || error.get().map(|e| view! {
                <p class="field-error" id="field-country-error">{error_text(i18n.get_locale(), &e)}</p>
            })}
        </div>
    }
}
