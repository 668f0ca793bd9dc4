//! A month of a product's days as a keyboard-operable grid: each day shows its price, its
//! discount and whether it is sold out; arrow keys move between days, Page Up/Down between
//! months, Home/End to the week's ends.

use chrono::{Datelike, Days, Months, NaiveDate};
use leptos::{html, prelude::*};
use uuid::Uuid;

use crate::{
    format,
    frame::{
        api::Api,
        ui::load::{load, loaded},
    },
    i18n::{t, td_string, use_i18n, Locale},
    wire::CalendarEntry,
};

/// The first day of the month of `day`.
pub fn month_start(day: NaiveDate) -> NaiveDate {
    day.with_day(1).unwrap_or(day)
}

fn month_end(first: NaiveDate) -> NaiveDate {
    first
        .checked_add_months(Months::new(1))
        .and_then(|next| next.pred_opt())
        .unwrap_or(first)
}

/// The grid's weeks, Monday first: `None` pads the days outside the month.
pub fn weeks(first: NaiveDate) -> Vec<[Option<NaiveDate>; 7]> {
    let last = month_end(first);
    let mut weeks = Vec::new();
    let mut week = [None; 7];
    let mut day = first;
    loop {
        week[day.weekday().num_days_from_monday() as usize] = Some(day);
        if day.weekday().num_days_from_monday() == 6 || day == last {
            weeks.push(week);
            week = [None; 7];
        }
        if day == last {
            break;
        }
        day = day.succ_opt().unwrap_or(last);
    }
    weeks
}

/// Where a key press moves the focus from `day`, if it is a calendar key.
pub fn moved(day: NaiveDate, key: &str) -> Option<NaiveDate> {
    let back = |n| day.checked_sub_days(Days::new(n));
    let ahead = |n| day.checked_add_days(Days::new(n));
    let weekday = u64::from(day.weekday().num_days_from_monday());
    match key {
        "ArrowLeft" => back(1),
        "ArrowRight" => ahead(1),
        "ArrowUp" => back(7),
        "ArrowDown" => ahead(7),
        "Home" => back(weekday),
        "End" => ahead(6 - weekday),
        "PageUp" => day.checked_sub_months(Months::new(1)),
        "PageDown" => day.checked_add_months(Months::new(1)),
        _ => None,
    }
}

/// A day's accessible name: its date, price or why it cannot be chosen. A bookable day's name
/// begins with what the button shows, its number and short price ("26 – 24: Thursday 26
/// November 2026, €24.00"), so the name contains the visible label (WCAG 2.5.3) and a
/// customer using voice control can say what they see.
fn day_label(locale: Locale, day: NaiveDate, entry: Option<&CalendarEntry>) -> String {
    let date = format::date_long(locale, day);
    match entry {
        Some(e) if e.available => {
            let number = day.day();
            let amount = format::compact_amount(locale, &e.effective_price);
            let price = format::money(locale, &e.effective_price);
            if e.list_price.value > e.effective_price.value {
                let list_price = format::money(locale, &e.list_price);
                td_string!(
                    locale,
                    product.day_discounted,
                    number,
                    amount,
                    date,
                    price,
                    list_price
                )
                .to_string()
            } else {
                td_string!(locale, product.day_available, number, amount, date, price).to_string()
            }
        }
        Some(_) => td_string!(locale, product.day_sold_out, date).to_string(),
        None => td_string!(locale, product.day_unavailable, date).to_string(),
    }
}

#[component]
pub fn Calendar(
    product_id: Uuid,
    /// The month shown first.
    start: NaiveDate,
    /// Today at the merchant (days before it are not offered).
    today: NaiveDate,
    selected: RwSignal<Option<NaiveDate>>,
) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let month = RwSignal::new(month_start(start));
    let focus = RwSignal::new(None::<NaiveDate>);
    let by_keyboard = RwSignal::new(false);
    let grid = NodeRef::<html::Table>::new();
    let entries = load(move || {
        let first = month.get();
        async move {
            let days = api.calendar(product_id, first, month_end(first)).await?;
            Ok(Some(days))
        }
    });
    let entry_of = move |day: NaiveDate| -> Option<CalendarEntry> {
        entries
            .get()
            .and_then(Result::ok)
            .flatten()
            .and_then(|list| list.into_iter().find(|e| e.date == day))
    };
    // The day that takes part in the tab order: the focused one, the chosen one, or the
    // month's first bookable day.
    let tab_stop = Memo::new(move |_| {
        let first = month.get();
        let in_month = |d: &NaiveDate| month_start(*d) == first;
        focus
            .get()
            .filter(in_month)
            .or(selected.get().filter(in_month))
            .or_else(|| {
                entries
                    .get()
                    .and_then(Result::ok)
                    .flatten()
                    .and_then(|list| list.into_iter().find(|e| e.available).map(|e| e.date))
            })
            .unwrap_or(first)
    });
    // Keyboard moves focus the day's button once it is drawn (after a month change too).
    Effect::new(move |_| {
        let Some(day) = focus.get() else { return };
        entries.track();
        if !by_keyboard.get_untracked() {
            return;
        }
        let Some(grid) = grid.get() else { return };
        request_animation_frame(move || {
            if let Ok(Some(button)) = grid.query_selector(&format!("button[data-date='{day}']")) {
                use leptos::wasm_bindgen::JsCast;
                if let Ok(button) = button.dyn_into::<leptos::web_sys::HtmlElement>() {
                    let _ = button.focus();
                }
            }
        });
    });
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let from = focus
            .get_untracked()
            .unwrap_or_else(|| tab_stop.get_untracked());
        let Some(to) = moved(from, &ev.key()) else {
            return;
        };
        ev.prevent_default();
        if to < month_start(today) {
            return;
        }
        by_keyboard.set(true);
        if month_start(to) != month.get_untracked() {
            month.set(month_start(to));
        }
        focus.set(Some(to));
    };
    let shift = move |months: i32| {
        let first = month.get_untracked();
        let next = if months < 0 {
            first.checked_sub_months(Months::new(1))
        } else {
            first.checked_add_months(Months::new(1))
        };
        if let Some(next) = next {
            by_keyboard.set(false);
            focus.set(None);
            month.set(next);
        }
    };
    let caption_id = format!("calendar-{product_id}");
    let help_id = format!("{caption_id}-help");
    let (section_label, title_id, grid_label, grid_help, help_target) = (
        caption_id.clone(),
        caption_id.clone(),
        caption_id.clone(),
        help_id.clone(),
        help_id,
    );

    view! {
        <section class="calendar" aria-labelledby=section_label>
            <div class="calendar-head">
                <button
                    type="button"
                    class="icon-button"
                    aria-label=move || td_string!(i18n.get_locale(), product.previous_month)
                    disabled=move || month.get() <= month_start(today)
                    on:click=move |_| shift(-1)
                >
                    "‹"
                </button>
                <h3 id=title_id class="calendar-title" aria-live="polite">
                    {move || {
                        let first = month.get();
                        format::month_year(i18n.get_locale(), first.year(), first.month())
                    }}
                </h3>
                <button
                    type="button"
                    class="icon-button"
                    aria-label=move || td_string!(i18n.get_locale(), product.next_month)
                    on:click=move |_| shift(1)
                >
                    "›"
                </button>
            </div>
            <p class="hint" id=help_target>{t!(i18n, product.calendar_help)}</p>
            {loaded(entries, super::product_gone, move |list| {
                    let none_bookable = !list.iter().any(|e| e.available);
                    let locale = i18n.get_locale();
                    view! {
                        <table
                            class="month"
                            role="grid"
                            aria-labelledby=grid_label.clone()
                            aria-describedby=grid_help.clone()
                            node_ref=grid
                            on:keydown=on_key
                        >
                            <thead>
                                <tr role="row">
                                    {format::weekdays_short(locale)
                                        .zip(format::weekdays_long(locale))
                                        .map(|(short, long)| view! {
                                            <th scope="col" role="columnheader" abbr=long>{short}</th>
                                        })
                                        .collect_view()}
                                </tr>
                            </thead>
                            <tbody>
                                {weeks(month.get_untracked())
                                    .into_iter()
                                    .map(|week| view! {
                                        <tr role="row">
                                            {week.into_iter().map(|day| match day {
                                                None => view! { <td role="gridcell" class="pad"></td> }.into_any(),
                                                Some(day) => view! { <Day day today entry=entry_of(day) selected tab_stop/> }.into_any(),
                                            }).collect_view()}
                                        </tr>
                                    })
                                    .collect_view()}
                            </tbody>
                        </table>
                        {none_bookable.then(|| view! { <p class="notice">{t!(i18n, product.no_days)}</p> })}
                    }
                    .into_any()
            })}
        </section>
    }
}

#[component]
fn Day(
    day: NaiveDate,
    today: NaiveDate,
    entry: Option<CalendarEntry>,
    selected: RwSignal<Option<NaiveDate>>,
    tab_stop: Memo<NaiveDate>,
) -> impl IntoView {
    let i18n = use_i18n();
    let bookable = day >= today && entry.as_ref().is_some_and(|e| e.available);
    let sold_out = entry.as_ref().is_some_and(|e| !e.available) && day >= today;
    let discounted = entry
        .as_ref()
        .is_some_and(|e| e.available && e.list_price.value > e.effective_price.value);
    let label_entry = entry.clone().filter(|_| day >= today);
    let label = move || day_label(i18n.get_locale(), day, label_entry.as_ref());
    let price = entry
        .filter(|e| e.available && day >= today)
        .map(|e| move || format::compact_amount(i18n.get_locale(), &e.effective_price));
    let is_selected = move || selected.get() == Some(day);
    view! {
        <td role="gridcell" aria-selected=move || is_selected().to_string()>
            <button
                type="button"
                class="day"
                class:bookable=bookable
                class:sold-out=sold_out
                class:discounted=discounted
                class:selected=is_selected
                data-date=day.to_string()
                tabindex=move || if tab_stop.get() == day { "0" } else { "-1" }
                aria-label=label
                aria-disabled=(!bookable).then_some("true")
                on:click=move |_| {
                    if bookable {
                        selected.set(Some(day));
                    }
                }
            >
                // The space keeps the number and the price two words for whoever reads the
                // button's text (the name above begins with them); the flex layout hides it.
                <span class="day-number" aria-hidden="true">{day.day()}</span>
                " "
                <span class="day-price" aria-hidden="true">{price}</span>
            </button>
        </td>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    #[test]
    fn a_month_starts_on_its_weekday_and_pads_the_rest() {
        // December 2026 starts on a Tuesday and has 31 days.
        let grid = weeks(date("2026-12-01"));
        assert_eq!(grid.len(), 5);
        assert_eq!(grid[0][0], None);
        assert_eq!(grid[0][1], Some(date("2026-12-01")));
        assert_eq!(grid[4][3], Some(date("2026-12-31")));
        assert_eq!(grid[4][4], None);
        let days: usize = grid.iter().map(|w| w.iter().flatten().count()).sum();
        assert_eq!(days, 31);
    }

    #[test]
    fn keys_move_by_day_week_and_month() {
        let day = date("2026-12-31");
        assert_eq!(moved(day, "ArrowRight"), Some(date("2027-01-01")));
        assert_eq!(moved(day, "ArrowUp"), Some(date("2026-12-24")));
        assert_eq!(moved(day, "Home"), Some(date("2026-12-28")));
        assert_eq!(moved(day, "End"), Some(date("2027-01-03")));
        assert_eq!(moved(day, "PageDown"), Some(date("2027-01-31")));
        assert_eq!(
            moved(date("2027-03-31"), "PageUp"),
            Some(date("2027-02-28"))
        );
        assert_eq!(moved(day, "a"), None);
    }
}
