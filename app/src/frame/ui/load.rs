//! The frame's one way to read: a screen's data is a [`Load`], made by [`load`] over one of
//! `Api`'s typed methods, and shown by [`loaded`]: loading, nothing once the session ended (the
//! frame shows its own screen), "not found" for a 404 or a route without a valid id, the error
//! with a retry, or the data. A lazy route starts its read in `data()`, so the fetch runs while
//! the screen's code loads (`lazy_screens!` in `frame/mod.rs`): as a [`Prefetch`] of the
//! answer's text, which the screen decodes ([`Decoded`]), so the first load carries no decoding
//! of it. Collections read a page at a time through `paging::Paged`; writes are `Action`s whose
//! `pending()` disables their button. The server functions (`frame/server.rs`) are the
//! exception, each used by one piece.

use std::{future::Future, marker::PhantomData};

use leptos::prelude::*;
use serde::de::DeserializeOwned;

use super::notice::{ErrorNotice, Loading};
use crate::{
    frame::api::{decode, ApiError},
    i18n::use_i18n,
};

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

/// A read a lazy route starts in its `data()`: the answer's text (`Api::text`), decoded by the
/// screen through [`Decoded`].
pub type Prefetch = Load<String>;

/// The first page of a list for `paging::Paged::listing_from`, read once: the list itself
/// reads again when the language changes.
pub fn prefetch_once<Fut>(fetch: impl Fn() -> Fut + 'static) -> Prefetch
where
    Fut: Future<Output = Result<String, ApiError>> + 'static,
{
    LocalResource::new(move || {
        let page = fetch();
        async move { page.await.map(Some) }
    })
}

/// The envelope's data of what a [`Prefetch`] read, decoded where the screen's code is.
pub struct Decoded<T> {
    raw: Prefetch,
    kind: PhantomData<fn() -> T>,
}

impl<T> Clone for Decoded<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Decoded<T> {}

impl<T> Decoded<T> {
    pub fn new(raw: Prefetch) -> Self {
        Self {
            raw,
            kind: PhantomData,
        }
    }
}

/// What [`loaded`] shows: a read's state (tracked), and how to read it again.
pub trait Source<T>: Copy + Send + Sync + 'static {
    fn current(self) -> Option<Result<Option<T>, ApiError>>;
    fn retry(self);
}

impl<T: Clone + 'static> Source<T> for Load<T> {
    fn current(self) -> Option<Result<Option<T>, ApiError>> {
        self.get()
    }

    fn retry(self) {
        self.refetch();
    }
}

impl<T: DeserializeOwned + 'static> Source<T> for Decoded<T> {
    fn current(self) -> Option<Result<Option<T>, ApiError>> {
        Some(match self.raw.get()? {
            Ok(Some(text)) => decode::<T>(&text)
                .map(|envelope| Some(envelope.data))
                .ok_or(ApiError::Network),
            Ok(None) => Ok(None),
            Err(error) => Err(error),
        })
    }

    fn retry(self) {
        self.raw.refetch();
    }
}

/// What a screen shows of `data` (see the module's head).
pub fn loaded<T: 'static>(
    data: impl Source<T>,
    not_found: fn() -> AnyView,
    show: impl Fn(T) -> AnyView + Send + Sync + 'static,
) -> impl IntoView {
    move || match data.current() {
        None => view! { <Loading/> }.into_any(),
        Some(Err(ApiError::Expired)) => ().into_any(),
        Some(Err(ApiError::Problem(p))) if p.status == 404 => not_found(),
        Some(Err(error)) => view! { <ErrorNotice error retry=move |_| data.retry()/> }.into_any(),
        Some(Ok(None)) => not_found(),
        Some(Ok(Some(value))) => show(value),
    }
}
