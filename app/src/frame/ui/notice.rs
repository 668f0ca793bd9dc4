use leptos::prelude::*;

use crate::{
    frame::api::ApiError,
    i18n::{t, use_i18n},
};

/// Shown while a screen's data is on its way; announced politely.
#[component]
pub fn Loading() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <p class="loading" role="status">
            <span class="spinner" aria-hidden="true"></span>
            {t!(i18n, common.loading)}
        </p>
    }
}

/// A failed load: what happened, the reference to quote, and a way to try again. An expired
/// session needs nothing here: the frame shows its own screen for it.
#[component]
pub fn ErrorNotice(error: ApiError, #[prop(into)] retry: Callback<()>) -> impl IntoView {
    let i18n = use_i18n();
    let help = match &error {
        ApiError::Problem(problem) => {
            let reference = problem.correlation_id.clone();
            view! { <p>{t!(i18n, common.error_help, reference)}</p> }.into_any()
        }
        _ => view! { <p>{t!(i18n, common.error_network)}</p> }.into_any(),
    };
    view! {
        <div class="notice notice-error" role="alert">
            <h2>{t!(i18n, common.error_title)}</h2>
            {help}
            <button type="button" class="button secondary" on:click=move |_| retry.run(())>
                {t!(i18n, common.retry)}
            </button>
        </div>
    }
}

/// A calm message for an empty list or an ended state.
#[component]
pub fn Empty(children: Children) -> impl IntoView {
    view! { <p class="notice">{children()}</p> }
}
