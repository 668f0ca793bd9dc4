//! A product: its conditions and validity, then the choices a basket needs (a day on the
//! calendar, an entry time, how many of each age group, the flexible-date option) and the
//! reservation, which the server prices.

mod calendar;
mod quantities;
mod timeslots;

use chrono::NaiveDate;
use leptos::prelude::*;
use leptos_router::{
    components::A,
    hooks::{use_navigate, use_query_map},
};
use uuid::Uuid;

use crate::{
    format,
    frame::{
        analytics::{Analytics, Basket},
        api::{Api, ApiError},
        deep_link::{self, choice::LinkedChoice, follow::FollowLink},
        host,
        session::attribution,
        ui::{
            funnel,
            heading::ScreenTitle,
            load::{load, loaded, Load},
            picture::cover_picture,
            route::id_param,
            words::problem_text,
            write::write,
        },
    },
    i18n::{t, td_string, use_i18n, Locale},
    wire::{BasketLine, CheckoutRequest, Product, TimeslotEntry},
};
use calendar::{month_start, Calendar};
use quantities::{Quantities, QuantityPicker};
use timeslots::Timeslots;

/// Today's date where the customer is. The server judges "today" in the merchant's zone;
/// this only picks the calendar's first month and the date a no_date basket carries.
pub fn today() -> NaiveDate {
    #[cfg(feature = "hydrate")]
    {
        let now = js_sys::Date::new_0();
        if let Some(day) = NaiveDate::from_ymd_opt(
            now.get_full_year() as i32,
            now.get_month() + 1,
            now.get_date(),
        ) {
            return day;
        }
    }
    chrono::Utc::now().date_naive()
}

/// The chosen product and the others that can go in its basket, of the route's merchant.
pub type ProductData = Load<(Uuid, Vec<Product>)>;

/// Starts reading the route's product (the route's `data()`, before the screen's code).
pub fn product_data() -> ProductData {
    let api = Api::new();
    let merchant_id = id_param("merchant_id");
    let product_id = id_param("product_id");
    load(move || {
        let ids = merchant_id.get().zip(product_id.get());
        async move {
            let Some((merchant, product)) = ids else {
                return Ok(None);
            };
            let products = api.products(merchant).await?;
            Ok(products
                .iter()
                .find(|p| p.id == product)
                .cloned()
                .map(|chosen| {
                    // The same kind of ticket for other age groups goes in the same basket.
                    let mut group = vec![chosen.clone()];
                    group.extend(
                        products
                            .iter()
                            .filter(|p| {
                                p.id != chosen.id
                                    && !p.sold_out
                                    && p.product_type == chosen.product_type
                                    && p.no_date == chosen.no_date
                                    && p.requires_timeslot == chosen.requires_timeslot
                            })
                            .cloned(),
                    );
                    (merchant, group)
                }))
        }
    })
}

#[component]
pub fn ProductScreen(data: ProductData) -> impl IntoView {
    loaded(
        data,
        || not_found().into_any(),
        |(merchant, group)| view! { <ProductView merchant group/> }.into_any(),
    )
}

fn not_found() -> impl IntoView {
    let i18n = use_i18n();
    view! { <ScreenTitle>{t!(i18n, product.not_found)}</ScreenTitle> }
}

/// A product's calendar or times answered 404: the product is gone from the campaign.
fn product_gone() -> AnyView {
    let i18n = use_i18n();
    view! { <p class="notice">{t!(i18n, product.not_found)}</p> }.into_any()
}

/// The basket a customer's choices make, or the reason they do not make one yet.
fn basket(
    locale: Locale,
    chosen: &Product,
    date: Option<NaiveDate>,
    slot: Option<&TimeslotEntry>,
    lines: Vec<(Uuid, u32)>,
    flexible: bool,
) -> Result<CheckoutRequest, String> {
    let lines: Vec<BasketLine> = lines
        .into_iter()
        .filter(|(_, quantity)| *quantity > 0)
        .map(|(product_id, quantity)| BasketLine {
            product_id,
            quantity,
        })
        .collect();
    let date = if chosen.no_date {
        today().to_string()
    } else {
        let Some(day) = date else {
            return Err(td_string!(locale, product.need_date).into());
        };
        if chosen.requires_timeslot {
            // The slot's start with the merchant's offset: a real time, never midnight.
            let Some(slot) = slot else {
                return Err(td_string!(locale, product.need_time).into());
            };
            slot.start_time.to_rfc3339()
        } else {
            day.to_string()
        }
    };
    if lines.is_empty() {
        return Err(td_string!(locale, product.need_quantity).into());
    }
    Ok(CheckoutRequest {
        date,
        flexible_date: flexible && !chosen.no_date,
        lines,
        voucher_codes: Vec::new(),
        external_reference: None,
        replaces: None,
        attribution: None,
        #[cfg(feature = "ssr")]
        buyer: None,
        #[cfg(feature = "ssr")]
        answers: Vec::new(),
    })
}

#[component]
fn ProductView(merchant: uuid::Uuid, group: Vec<Product>) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let navigate = use_navigate();
    let chosen = group[0].clone();
    let today = today();
    let link = use_query_map()
        .with_untracked(|query| LinkedChoice::parse(|name| query.get(name), &group, today));
    let linked = link.clone().unwrap_or_default();
    let date = RwSignal::new(linked.date);
    let slot = RwSignal::new(None::<TimeslotEntry>);
    let quantities: Quantities = RwSignal::new(linked.quantities.clone().unwrap_or_else(|| {
        group
            .iter()
            .map(|p| (p.id, u32::from(p.id == chosen.id)))
            .collect()
    }));
    let flexible = RwSignal::new(false);
    let message = RwSignal::new(None::<String>);
    // What became of a deep link's choice, said under the title where the customer lands.
    let link_note = RwSignal::new(None::<String>);
    let reserving = write(move |request: &CheckoutRequest| {
        let request = CheckoutRequest {
            attribution: attribution(),
            ..request.clone()
        };
        let navigate = navigate.clone();
        async move {
            match api.reserve(&request).await {
                Ok(checkout) => {
                    funnel::reserved(&checkout);
                    navigate(
                        &format!("/frame/checkout/{}", checkout.checkout_id),
                        Default::default(),
                    )
                }
                Err(ApiError::Expired) => {}
                Err(error) => {
                    funnel::refused(&error);
                    message.set(Some(problem_text(i18n.get_locale_untracked(), &error)));
                }
            }
        }
    });
    let busy = reserving.pending();
    host::track(Analytics::ViewItem(Basket::of_product(&chosen)));
    // Another day has other entry times.
    Effect::new(move |before: Option<Option<NaiveDate>>| {
        let day = date.get();
        if before.is_some_and(|before| before != day) {
            slot.set(None);
        }
        day
    });
    let total = Signal::derive(move || quantities.with(|q| q.iter().map(|(_, n)| n).sum::<u32>()));
    let start = linked
        .date
        .or(chosen.first_available_date.filter(|d| *d >= today))
        .unwrap_or(today);

    let reserve = {
        let chosen = chosen.clone();
        move || {
            if busy.get_untracked() {
                return;
            }
            let locale = i18n.get_locale_untracked();
            let request = basket(
                locale,
                &chosen,
                date.get_untracked(),
                slot.get_untracked().as_ref(),
                quantities.get_untracked(),
                flexible.get_untracked(),
            );
            match request {
                Ok(request) => {
                    message.set(None);
                    reserving.dispatch_local(request);
                }
                Err(text) => message.set(Some(text)),
            }
        }
    };
    if let Some(link) = link {
        let follow = FollowLink {
            api,
            chosen: chosen.clone(),
            date,
            slot,
            quantity: total,
            message: link_note,
            locale: Signal::derive(move || i18n.get_locale()),
        };
        let reserve = reserve.clone();
        leptos::task::spawn_local(async move {
            if follow.run(&link).await {
                deep_link::forget_choice();
                reserve();
            }
        });
    }

    let validity = chosen
        .ticket_validity_date
        .filter(|_| chosen.ticket_validity_type.as_deref() == Some("VALIDITY_PERIOD"))
        .map(|until| {
            view! {
                <p class="validity">
                    {move || {
                        let locale = i18n.get_locale();
                        td_string!(locale, product.valid_until, date = format::date_medium(locale, until)).to_string()
                    }}
                </p>
            }
        });
    let conditions = (!chosen.conditions.trim().is_empty()).then(|| {
        view! {
            <section class="conditions">
                <h2>{t!(i18n, product.conditions)}</h2>
                <p>{chosen.conditions.clone()}</p>
            </section>
        }
    });
    let when = if chosen.no_date {
        view! { <p class="notice">{t!(i18n, product.no_date_note)}</p> }.into_any()
    } else {
        let product_id = chosen.id;
        let timed = chosen.requires_timeslot;
        view! {
            <h2>{t!(i18n, product.choose_date)}</h2>
            <Calendar product_id start=month_start(start) today selected=date/>
            <p class="chosen" aria-live="polite">
                {move || date.get().map(|day| {
                    let locale = i18n.get_locale();
                    td_string!(locale, product.selected_date, date = format::date_long(locale, day)).to_string()
                })}
            </p>
            {move || {
                let day = date.get().filter(|_| timed)?;
                Some(view! { <Timeslots product_id date=day quantity=total selected=slot/> })
            }}
        }
        .into_any()
    };
    let flexible_option = (!chosen.no_date && !chosen.visit_guarantee_cost.value.is_zero()).then(|| {
        let cost = chosen.visit_guarantee_cost.clone();
        view! {
            <label class="check">
                <input
                    type="checkbox"
                    prop:checked=move || flexible.get()
                    on:change=move |ev| flexible.set(event_target_checked(&ev))
                />
                <span>
                    {t!(i18n, product.flexible)}
                    " ("
                    {move || {
                        let locale = i18n.get_locale();
                        td_string!(locale, product.flexible_cost, price = format::money(locale, &cost)).to_string()
                    }}
                    ")"
                </span>
            </label>
        }
    });

    view! {
        <p class="breadcrumb">
            <A href=format!("/frame/merchants/{merchant}")>{t!(i18n, common.back)}</A>
        </p>
        <ScreenTitle>{chosen.title.clone()}</ScreenTitle>
        {cover_picture(&chosen.images, "hero", "(min-width: 48rem) 46rem, 100vw")}
        <div role="status">
            {move || link_note.get().map(|note| view! { <p class="notice">{note}</p> })}
        </div>
        {validity}
        {conditions}
        {when}
        <QuantityPicker products=group quantities/>
        {flexible_option}
        <p class="form-message" role="alert">{move || message.get()}</p>
        <button type="button" class="button primary wide" on:click=move |_| reserve() aria-disabled=move || busy.get().then_some("true")>
            {t!(i18n, product.proceed)}
        </button>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_a_basket_carries_follows_the_products_shape() {
        let product: Product = serde_json::from_value(serde_json::json!({
            "id": Uuid::nil(), "title": "T", "product_type": "TICKET", "physical_product": false,
            "sku": "S", "unit_price": {"value": "1.00", "currency": "EUR"},
            "list_price": {"value": "1.00", "currency": "EUR"},
            "booking_costs": {"value": "0.00", "currency": "EUR"},
            "visit_guarantee_cost": {"value": "0.00", "currency": "EUR"},
            "no_date": false, "requires_timeslot": true, "sold_out": false, "conditions": ""
        }))
        .unwrap();
        let day = NaiveDate::from_ymd_opt(2026, 12, 7);
        let lines = vec![(Uuid::nil(), 2)];
        let refused = basket(Locale::en_GB, &product, day, None, lines.clone(), false);
        assert_eq!(refused.unwrap_err(), "Choose an entry time first.");
        let slot: TimeslotEntry = serde_json::from_value(serde_json::json!({
            "timeslot_id": Uuid::nil(), "start_time": "2026-12-07T09:00:00+01:00",
            "end_time": "2026-12-07T11:00:00+01:00", "remaining": 3, "available": true
        }))
        .unwrap();
        let request = basket(Locale::en_GB, &product, day, Some(&slot), lines, true).unwrap();
        assert_eq!(request.date, "2026-12-07T09:00:00+01:00");
        assert!(request.flexible_date);
        let empty = basket(
            Locale::en_GB,
            &product,
            day,
            Some(&slot),
            vec![(Uuid::nil(), 0)],
            false,
        );
        assert_eq!(empty.unwrap_err(), "Choose at least one ticket.");
    }
}
