use leptos::prelude::*;

use crate::{
    format,
    i18n::{t, td_string, use_i18n},
    wire::{Money, Product},
};

/// Money in the frame's language.
#[component]
pub fn Amount(#[prop(into)] money: Money) -> impl IntoView {
    let i18n = use_i18n();
    move || format::money(i18n.get_locale(), &money)
}

/// A product's price line on a list: sold out, the price of a product without dates, "from" the
/// best price of a dated one (with the list price and the discount when there is one), or no
/// availability. An absent best price is never shown as zero.
#[component]
pub fn ProductPrice(product: Product) -> impl IntoView {
    let i18n = use_i18n();
    move || {
        let locale = i18n.get_locale();
        if product.sold_out {
            return view! { <span class="badge badge-sold-out">{t!(i18n, common.sold_out)}</span> }
                .into_any();
        }
        // Without dates there is one price: the product's own, not a "from" price.
        if product.no_date {
            let price = format::money(locale, &product.unit_price);
            let was = (product.list_price.value > product.unit_price.value).then(|| {
                let price = format::money(locale, &product.list_price);
                view! { <s class="was">{td_string!(locale, common.was_price, price)}</s> }
            });
            return view! { <span class="price">{price}</span> " " {was} }.into_any();
        }
        if let Some(best) = &product.best_effective_price {
            let price = format::money(locale, best);
            let was = product
                .best_list_price
                .as_ref()
                .filter(|list| list.value > best.value)
                .map(|list| {
                    let price = format::money(locale, list);
                    view! { <s class="was">{td_string!(locale, common.was_price, price)}</s> }
                });
            let badge = product.best_discount_percentage.filter(|p| !p.is_zero()).map(|p| {
                let percent = format::percent(locale, p);
                view! { <span class="badge badge-discount">{td_string!(locale, common.discount_badge, percent)}</span> }
            });
            return view! {
                <span class="price">{td_string!(locale, common.from_price, price)}</span>
                " "
                {was}
                " "
                {badge}
            }
            .into_any();
        }
        view! { <span class="badge">{t!(i18n, common.no_availability)}</span> }.into_any()
    }
}

/// "plus €1.00 booking costs per ticket", when there are any.
#[component]
pub fn PerTicketCosts(money: Money) -> impl IntoView {
    let i18n = use_i18n();
    (!money.value.is_zero()).then(|| {
        view! {
            <span class="hint">
                {move || {
                    let locale = i18n.get_locale();
                    td_string!(locale, product.per_ticket_costs, price = format::money(locale, &money)).to_string()
                }}
            </span>
        }
    })
}
