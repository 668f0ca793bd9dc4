//! A list read page by page with the API's opaque cursors: the first page on (re)load, the
//! next on "Show more", ended only by the absence of `next_token` (docs/api.md, collections).

use std::future::Future;

use leptos::prelude::*;

use super::{
    load::Prefetch,
    notice::{ErrorNotice, Loading},
};
use crate::{
    frame::api::{decode, Api, ApiError},
    i18n::{t, use_i18n},
    wire::Envelope,
};

/// Where a paged list stands.
#[derive(Debug, Clone, PartialEq)]
pub enum PageState {
    Loading,
    Ready,
    Failed(ApiError),
}

/// The pages read so far of one traversal.
pub struct Paged<T: Send + Sync + 'static> {
    pub items: RwSignal<Vec<T>>,
    pub next: RwSignal<Option<String>>,
    pub state: RwSignal<PageState>,
    /// How many times the list was read from its first page: part of a row's key ([`key`]).
    ///
    /// [`key`]: Paged::key
    traversal: RwSignal<u32>,
    generation: RwSignal<u32>,
    fetch: StoredValue<FetchPage<T>, LocalStorage>,
    /// The first page, when the route started reading it before the screen's code loaded;
    /// taken by the first load.
    first: StoredValue<Option<PageFuture<T>>, LocalStorage>,
}

type PageFuture<T> = std::pin::Pin<Box<dyn Future<Output = Result<Envelope<Vec<T>>, ApiError>>>>;
/// Reads the page after `next_token` (the first without one).
type FetchPage<T> = Box<dyn Fn(Option<String>) -> PageFuture<T>>;

impl<T: Send + Sync + 'static> Clone for Paged<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Send + Sync + 'static> Copy for Paged<T> {}

impl<T: Clone + Send + Sync + 'static> Paged<T> {
    /// `fetch(next_token)` reads one page; it must send the same limit and filters on every
    /// page of a traversal, so it reads its inputs untracked and the caller calls [`reload`]
    /// when they change.
    ///
    /// [`reload`]: Paged::reload
    pub fn new<F, Fut>(fetch: F) -> Self
    where
        F: Fn(Option<String>) -> Fut + 'static,
        Fut: Future<Output = Result<Envelope<Vec<T>>, ApiError>> + 'static,
    {
        let fetch: FetchPage<T> = Box::new(move |token| Box::pin(fetch(token)));
        Self {
            items: RwSignal::new(Vec::new()),
            next: RwSignal::new(None),
            state: RwSignal::new(PageState::Loading),
            traversal: RwSignal::new(0),
            generation: RwSignal::new(0),
            fetch: StoredValue::new_local(fetch),
            first: StoredValue::new_local(None),
        }
    }

    /// Starts the traversal again from the first page.
    pub fn reload(self) {
        self.load(None);
    }

    /// Reads the page after the last one.
    pub fn more(self) {
        if let Some(token) = self.next.get_untracked() {
            self.load(Some(token));
        }
    }

    fn load(self, token: Option<String>) {
        let first = token.is_none();
        let generation = self.generation.get_untracked() + 1;
        self.generation.set(generation);
        self.state.set(PageState::Loading);
        let prefetched = first
            .then(|| self.first.try_update_value(Option::take).flatten())
            .flatten();
        let page = match prefetched {
            Some(page) => page,
            None => self.fetch.with_value(|fetch| fetch(token)),
        };
        leptos::task::spawn_local(async move {
            let result = page.await;
            // A reload while this page was on its way makes it stale; a screen the customer
            // left meanwhile (a deep link moves on from the list at once) has no signals left.
            if self.generation.try_get_untracked() != Some(generation) {
                return;
            }
            match result {
                Ok(page) => {
                    if first {
                        self.traversal.update(|n| *n += 1);
                        self.items.set(page.data);
                    } else {
                        self.items.update(|items| items.extend(page.data));
                    }
                    self.next
                        .set(page.meta.pagination.and_then(|p| p.next_token));
                    self.state.set(PageState::Ready);
                }
                Err(err) => self.state.set(PageState::Failed(err)),
            }
        });
    }
}

impl<T: Clone + Send + Sync + serde::de::DeserializeOwned + 'static> Paged<T> {
    /// A collection of the API: `fetch(api, next_token)` is one of `Api`'s paged methods,
    /// with its limit and filters read untracked. It reloads from the first page whenever the
    /// language changes or `track` reads a signal that changes; made in a lazy route's
    /// `data()`, the first page is on its way while the screen's code loads.
    pub fn listing<F, Fut>(fetch: F, track: impl Fn() + 'static) -> Self
    where
        F: Fn(Api, Option<String>) -> Fut + 'static,
        Fut: Future<Output = Result<Envelope<Vec<T>>, ApiError>> + 'static,
    {
        Self::listing_after(None, fetch, track)
    }

    /// [`listing`](Paged::listing) that shows `first` (the first page, as the server rendered
    /// it with the page: `frame::first_page`) without reading it again; its first read is the
    /// first change of language or of what `track` reads.
    pub fn listing_after<F, Fut>(
        first: Option<Envelope<Vec<T>>>,
        fetch: F,
        track: impl Fn() + 'static,
    ) -> Self
    where
        F: Fn(Api, Option<String>) -> Fut + 'static,
        Fut: Future<Output = Result<Envelope<Vec<T>>, ApiError>> + 'static,
    {
        let api = Api::new();
        let paged = Self::new(move |token: Option<String>| fetch(api, token));
        let shown = first.is_some();
        if let Some(page) = first {
            paged.items.set(page.data);
            paged
                .next
                .set(page.meta.pagination.and_then(|p| p.next_token));
            paged.state.set(PageState::Ready);
        }
        let i18n = use_i18n();
        Effect::new(move |ran: Option<()>| {
            i18n.get_locale();
            track();
            if ran.is_some() || !shown {
                paged.reload();
            }
        });
        paged
    }

    /// [`listing`](Paged::listing) whose first page is `first`, read by the route's `data()`
    /// while the screen's code loaded (`load::prefetch_once`), and decoded here.
    pub fn listing_from<F, Fut>(first: Prefetch, fetch: F, track: impl Fn() + 'static) -> Self
    where
        F: Fn(Api, Option<String>) -> Fut + 'static,
        Fut: Future<Output = Result<Envelope<Vec<T>>, ApiError>> + 'static,
    {
        let paged = Self::listing(fetch, track);
        let page: PageFuture<T> = Box::pin(async move {
            match first.await? {
                Some(text) => decode::<Vec<T>>(&text).ok_or(ApiError::Network),
                None => Err(ApiError::Network),
            }
        });
        paged.first.set_value(Some(page));
        paged
    }

    /// The key of the row of `id` (for `<For key=…>`): the id within the traversal that read
    /// it. A list read again from its first page (in another language, or another search)
    /// shows every row anew, though the ids are the same, so no row keeps the texts of the
    /// read before; "Show more" leaves the rows already shown as they are.
    pub fn key<K>(self, id: K) -> (u32, K) {
        (self.traversal.get_untracked(), id)
    }

    /// Whether the whole collection turned out empty.
    pub fn is_empty(self) -> bool {
        self.state.get() == PageState::Ready && self.items.with(Vec::is_empty)
    }
}

/// The list's footer: loading, the error with a retry, or "Show more" while pages remain.
#[component]
pub fn PageFooter<T: Clone + Send + Sync + 'static>(paged: Paged<T>) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        match paged.state.get() {
        PageState::Loading => view! { <Loading/> }.into_any(),
        PageState::Failed(error) => {
            let retry = move |_| {
                if paged.items.with_untracked(Vec::is_empty) {
                    paged.reload()
                } else {
                    paged.more()
                }
            };
            view! { <ErrorNotice error retry/> }.into_any()
        }
        PageState::Ready => paged
            .next
            .with(Option::is_some)
            .then(|| {
                view! {
                    <button type="button" class="button secondary more" on:click=move |_| paged.more()>
                        {t!(i18n, common.load_more)}
                    </button>
                }
            })
            .into_any(),
    }
    }
}
