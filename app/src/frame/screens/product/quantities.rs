//! How many tickets of each product (age group) the customer wants, within the basket limits.

use leptos::prelude::*;
use uuid::Uuid;

use crate::{
    frame::ui::price::{PerTicketCosts, ProductPrice},
    i18n::{t, td_string, use_i18n},
    wire::{BasketLine, Product},
};

/// The chosen quantity per product, in the order shown.
pub type Quantities = RwSignal<Vec<(Uuid, u32)>>;

pub fn quantity_of(quantities: Quantities, id: Uuid) -> u32 {
    quantities.with(|q| q.iter().find(|(p, _)| *p == id).map_or(0, |(_, n)| *n))
}

fn set_quantity(quantities: Quantities, id: Uuid, value: u32) {
    let value = value.min(BasketLine::MAX_QUANTITY);
    quantities.update(|q| match q.iter_mut().find(|(p, _)| *p == id) {
        Some(entry) => entry.1 = value,
        None => q.push((id, value)),
    });
}

#[component]
pub fn QuantityPicker(products: Vec<Product>, quantities: Quantities) -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <fieldset class="quantities">
            <legend>{t!(i18n, product.quantities)}</legend>
            {products
                .into_iter()
                .map(|product| {
                    let id = product.id;
                    let title = product.title.clone();
                    let label_id = format!("qty-{id}");
                    let count = move || quantity_of(quantities, id);
                    let (t1, t2, t3) = (title.clone(), title.clone(), title.clone());
                    let costs = view! { <PerTicketCosts money=product.booking_costs.clone()/> };
                    view! {
                        <div class="quantity-row">
                            <div class="quantity-label">
                                <span id=label_id.clone() class="quantity-title">{title.clone()}</span>
                                <span class="quantity-price"><ProductPrice product=product.clone()/></span>
                                {costs}
                            </div>
                            <div class="stepper" role="group" aria-labelledby=label_id>
                                <button
                                    type="button"
                                    class="icon-button"
                                    aria-label=move || td_string!(i18n.get_locale(), product.decrease, title = t1.as_str()).to_string()
                                    disabled=move || count() == 0
                                    on:click=move |_| set_quantity(quantities, id, count().saturating_sub(1))
                                >
                                    "−"
                                </button>
                                <input
                                    type="number"
                                    inputmode="numeric"
                                    min="0"
                                    max=BasketLine::MAX_QUANTITY
                                    aria-label=move || td_string!(i18n.get_locale(), product.quantity_label, title = t2.as_str()).to_string()
                                    prop:value=move || count().to_string()
                                    on:change=move |ev| {
                                        let value = event_target_value(&ev).trim().parse::<u32>().unwrap_or(0);
                                        set_quantity(quantities, id, value);
                                    }
                                />
                                <button
                                    type="button"
                                    class="icon-button"
                                    aria-label=move || td_string!(i18n.get_locale(), product.increase, title = t3.as_str()).to_string()
                                    disabled=move || { count() >= BasketLine::MAX_QUANTITY }
                                    on:click=move |_| set_quantity(quantities, id, count() + 1)
                                >
                                    "+"
                                </button>
                            </div>
                        </div>
                    }
                })
                .collect_view()}
            <p class="hint">{move || td_string!(i18n.get_locale(), product.max_quantity, count = BasketLine::MAX_QUANTITY).to_string()}</p>
        </fieldset>
    }
}
