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

/// What a screen whose data is `state` shows: loading, nothing when the session ended (the
/// frame shows its own screen), `not_found` for a 404 or no data, the error with a retry, or
/// `show` of the data.
pub fn loaded<T>(
    state: Option<Result<Option<T>, ApiError>>,
    retry: impl Fn() + Send + Sync + 'static,
    not_found: fn() -> AnyView,
    show: impl FnOnce(T) -> AnyView,
) -> AnyView {
    match state {
        None => view! { <Loading/> }.into_any(),
        Some(Err(ApiError::Expired)) => ().into_any(),
        Some(Err(ApiError::Problem(p))) if p.status == 404 => not_found(),
        Some(Err(error)) => view! { <ErrorNotice error retry=move |_| retry()/> }.into_any(),
        Some(Ok(None)) => not_found(),
        Some(Ok(Some(data))) => show(data),
    }
}
