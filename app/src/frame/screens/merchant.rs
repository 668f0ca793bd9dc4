//! A merchant's page: who they are and their tickets with prices.

use leptos::prelude::*;
use leptos_router::components::A;

use crate::{
    frame::{
        analytics::{Analytics, ItemList},
        api::Api,
        host,
        ui::{
            heading::ScreenTitle,
            load::{load, loaded},
            notice::Empty,
            price::ProductPrice,
            route::id_param,
            words::category_text,
        },
    },
    i18n::{t, use_i18n},
    wire::{Merchant, Product},
};

#[component]
pub fn MerchantScreen() -> impl IntoView {
    let api = Api::new();
    let merchant_id = id_param("merchant_id");
    let data = load(move || {
        let id = merchant_id.get();
        async move {
            let Some(id) = id else { return Ok(None) };
            Ok(Some((api.merchant(id).await?, api.products(id).await?)))
        }
    });
    loaded(
        data,
        || not_found().into_any(),
        |(merchant, products)| view! { <MerchantView merchant products/> }.into_any(),
    )
}

fn not_found() -> impl IntoView {
    let i18n = use_i18n();
    view! { <ScreenTitle>{t!(i18n, merchant.not_found)}</ScreenTitle> }
}

#[component]
fn MerchantView(merchant: Merchant, products: Vec<Product>) -> impl IntoView {
    let i18n = use_i18n();
    let category = merchant.category.clone();
    let place = format!("{}, {}", merchant.address.street, merchant.address.city);
    let merchant_id = merchant.id;
    let shown = ItemList::of_merchant(&merchant, &products);
    if !products.is_empty() {
        host::track(Analytics::ViewItemList(shown.clone()));
    }
    let list = if products.is_empty() {
        view! { <Empty>{t!(i18n, merchant.no_products)}</Empty> }.into_any()
    } else {
        view! {
            <ul class="cards">
                {products
                    .into_iter()
                    .enumerate()
                    .map(|(index, product)| {
                        let href = format!("/frame/merchants/{merchant_id}/products/{}", product.id);
                        let selected = shown.selected(index);
                        let sold_out = product.sold_out;
                        let title = product.title.clone();
                        // The merchant's after-sale policy in a sentence, as the server words it.
                        let policy = product
                            .after_sale_text
                            .clone()
                            .map(|text| view! { <p class="card-meta">{text}</p> });
                        view! {
                            <li class="card product-card" class:sold-out=sold_out>
                                <h3 class="card-title">
                                    <A href=href on:click=move |_| host::track(Analytics::SelectItem(selected.clone()))>{title}</A>
                                </h3>
                                <p class="card-price">
                                    <ProductPrice product=product.clone()/>
                                </p>
                                {policy}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <p class="breadcrumb">
            <A href="/frame">{t!(i18n, common.back)}</A>
        </p>
        <ScreenTitle>{merchant.name.clone()}</ScreenTitle>
        <p class="card-meta">{move || category_text(i18n.get_locale(), &category)} " · " {place}</p>
        <p>{merchant.description.clone()}</p>
        <h2>{t!(i18n, merchant.products_title)}</h2>
        {list}
    }
}
