//! The first screen: the campaign's places, searchable by name, city and category.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::{
    frame::{
        first_page,
        ui::{
            heading::ScreenTitle,
            notice::Empty,
            paging::{PageFooter, PageState, Paged},
            picture::cover_picture,
            words::category_text,
        },
    },
    i18n::{t, td_string, use_i18n},
    wire::Merchant,
};

/// Merchants per page; the server renders the first page with this limit too
/// (`frame::first_page`), so its cursor serves the next.
pub const PAGE: u32 = 10;

#[component]
pub fn MerchantsScreen() -> impl IntoView {
    let i18n = use_i18n();
    let draft = RwSignal::new(String::new());
    let term = RwSignal::new(String::new());
    let merchants = Paged::<Merchant>::listing_after(
        first_page::take(),
        move |api, next| {
            let term = term.get_untracked();
            async move { api.merchants(&term, PAGE, next).await }
        },
        move || term.track(),
    );

    let empty = move || {
        merchants.is_empty().then(|| {
            if term.with(|t| t.trim().is_empty()) {
                view! { <Empty>{t!(i18n, merchants.empty_campaign)}</Empty> }.into_any()
            } else {
                view! { <Empty>{t!(i18n, merchants.empty)}</Empty> }.into_any()
            }
        })
    };

    view! {
        <ScreenTitle>{t!(i18n, merchants.title)}</ScreenTitle>
        <form
            class="search"
            role="search"
            on:submit=move |ev| {
                ev.prevent_default();
                term.set(draft.get_untracked());
            }
        >
            <label for="merchant-search">{t!(i18n, merchants.search_label)}</label>
            <div class="search-row">
                <input
                    id="merchant-search"
                    type="search"
                    autocomplete="off"
                    prop:value=move || draft.get()
                    on:input=move |ev| draft.set(event_target_value(&ev))
                />
                <button type="submit" class="button">{t!(i18n, merchants.search_button)}</button>
            </div>
        </form>
        <ul
            class="cards"
            aria-label=move || td_string!(i18n.get_locale(), merchants.results_label)
            aria-busy=move || (merchants.state.get() == PageState::Loading).to_string()
        >
            <For each=move || merchants.items.get() key=move |m| merchants.key(m.id) let:merchant>
                <MerchantCard merchant/>
            </For>
        </ul>
        {empty}
        <PageFooter paged=merchants/>
    }
}

#[component]
fn MerchantCard(merchant: Merchant) -> impl IntoView {
    let i18n = use_i18n();
    let href = format!("/frame/merchants/{}", merchant.id);
    let category = merchant.category.clone();
    let city = merchant.address.city.clone();
    view! {
        <li class="card">
            <h2 class="card-title">
                <A href=href>{merchant.name.clone()}</A>
            </h2>
            <p class="card-meta">{move || category_text(i18n.get_locale(), &category)} " · " {city}</p>
            <p class="card-text">{merchant.description.clone()}</p>
            // A thumbnail 6 to 10 rem wide, after the text so a screen reader meets the name
            // first; the stylesheet shows it left of the text.
            {cover_picture(&merchant.images, "card-cover", "(min-width: 600px) 10rem, 6rem")}
        </li>
    }
}
