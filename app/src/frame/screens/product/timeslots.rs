//! The entry times of a day for a timeslotted product. An empty list means the day has no
//! availability (docs/api-catalog.md, availability); a time is never made up.

use chrono::NaiveDate;
use leptos::prelude::*;
use uuid::Uuid;

use crate::{
    format,
    frame::{
        api::Api,
        ui::load::{load, loaded},
    },
    i18n::{t, td_string, use_i18n},
    wire::{TimeslotEntry, TimeslotQuery},
};

#[component]
pub fn Timeslots(
    product_id: Uuid,
    date: NaiveDate,
    #[prop(into)] quantity: Signal<u32>,
    selected: RwSignal<Option<TimeslotEntry>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let slots = load(move || {
        let query = TimeslotQuery {
            product_id,
            date,
            quantity: Some(quantity.get().max(1)),
        };
        async move { api.timeslots(&query).await.map(Some) }
    });
    let body = loaded(slots, super::product_gone, move |list| {
        if list.is_empty() {
            return view! { <p class="notice">{t!(i18n, product.no_times)}</p> }.into_any();
        }
        view! {
            <div class="slots">
                {list
                    .into_iter()
                    .map(|slot| {
                        let id = format!("slot-{}", slot.timeslot_id);
                        let for_id = id.clone();
                        let open = slot.available;
                        let current = slot.clone();
                        let left = move || {
                            let locale = i18n.get_locale();
                            match (slot.available, slot.remaining) {
                                (false, _) => td_string!(locale, product.time_full).to_string(),
                                (true, Some(count)) => td_string!(locale, product.places_left, count).to_string(),
                                (true, None) => String::new(),
                            }
                        };
                        let range = move || format::time_range(i18n.get_locale(), &slot.start_time, &slot.end_time);
                        view! {
                            <label class="slot" class:full=!open for=for_id>
                                <input
                                    type="radio"
                                    name="timeslot"
                                    id=id
                                    disabled=!open
                                    prop:checked=move || selected.with(|s| s.as_ref().map(|s| s.timeslot_id) == Some(current.timeslot_id))
                                    on:change={
                                        let chosen = current.clone();
                                        move |_| selected.set(Some(chosen.clone()))
                                    }
                                />
                                <span class="slot-time">{range}</span>
                                <span class="slot-left">{left}</span>
                            </label>
                        }
                    })
                    .collect_view()}
            </div>
        }
        .into_any()
    });
    view! {
        <fieldset class="timeslots">
            <legend>{t!(i18n, product.choose_time)}</legend>
            {body}
        </fieldset>
    }
}
