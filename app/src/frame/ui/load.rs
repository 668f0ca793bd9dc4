//! The frame's one way to read: a screen's data is a [`Load`], made by [`load`] over one of
//! `Api`'s typed methods, and shown by [`loaded`]: loading, nothing once the session ended (the
//! frame shows its own screen), "not found" for a 404 or a route without a valid id, the error
//! with a retry, or the data. A lazy route may make its `Load` in `data()`, so the fetch runs
//! while the screen's code loads (`lazy_screens!` in `frame/mod.rs` says which do and why). Collections read a page at a time through
//! `paging::Paged`; writes are `Action`s whose `pending()` disables their button. The server
//! functions (`frame/server.rs`) are the exception, each used by one piece.

use std::future::Future;

use leptos::prelude::*;

use super::notice::{ErrorNotice, Loading};
use crate::{frame::api::ApiError, i18n::use_i18n};

/// A screen's data: `None` inside when the route names nothing that could exist.
pub type Load<T> = LocalResource<Result<Option<T>, ApiError>>;

/// Reads at once in the browser, and again whenever a signal `fetch` reads changes or the
/// customer picks another language (catalog texts come in the chosen one).
pub fn load<T, Fut>(fetch: impl Fn() -> Fut + 'static) -> Load<T>
where
    T: 'static,
    Fut: Future<Output = Result<Option<T>, ApiError>> + 'static,
{
    let i18n = use_i18n();
    LocalResource::new(move || {
        i18n.get_locale();
        fetch()
    })
}

/// What a screen shows of `data` (see the module's head).
pub fn loaded<T: Clone + 'static>(
    data: Load<T>,
    not_found: fn() -> AnyView,
    show: impl Fn(T) -> AnyView + Send + Sync + 'static,
) -> impl IntoView {
    move || match data.get() {
        None => view! { <Loading/> }.into_any(),
        Some(Err(ApiError::Expired)) => ().into_any(),
        Some(Err(ApiError::Problem(p))) if p.status == 404 => not_found(),
        Some(Err(error)) => view! { <ErrorNotice error retry=move |_| data.refetch()/> }.into_any(),
        Some(Ok(None)) => not_found(),
        Some(Ok(Some(value))) => show(value),
    }
}
