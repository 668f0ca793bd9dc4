//! The customer's orders, newest first, each with its tickets.

use leptos::prelude::*;

use crate::{
    format,
    frame::api::{orders_path, Api},
    frame::ui::{
        heading::ScreenTitle,
        load::{prefetch_once, Prefetch},
        notice::Empty,
        paging::{PageFooter, Paged},
        price::Amount,
        tickets::{TicketActions, TicketList},
        words::order_status_text,
    },
    i18n::{t, td_string, use_i18n},
    wire::Order,
};

const PAGE: u32 = 10;

/// Starts reading the first page of the customer's orders (the route's `data()`).
pub fn orders_first_page() -> Prefetch {
    let api = Api::new();
    prefetch_once(move || api.text(orders_path(PAGE, None)))
}

#[component]
pub fn OrdersScreen(first: Prefetch) -> impl IntoView {
    let i18n = use_i18n();
    let orders = Paged::listing_from(first, |api, next| api.orders(PAGE, next), || {});
    let empty = move || {
        orders
            .is_empty()
            .then(|| view! { <Empty>{t!(i18n, orders.empty)}</Empty> })
    };
    view! {
        <ScreenTitle>{t!(i18n, orders.title)}</ScreenTitle>
        <ul class="cards">
            <For each=move || orders.items.get() key=move |o| orders.key((o.order_id, o.last_mutation_date)) let:order>
                <OrderCard order/>
            </For>
        </ul>
        {empty}
        <PageFooter paged=orders/>
    }
}

#[component]
fn OrderCard(order: Order) -> impl IntoView {
    let i18n = use_i18n();
    let reference = order.order_display_id.clone();
    let status = order.status;
    let placed = format::customers_day(order.created_at);
    let tickets = if order.tickets.is_empty() {
        view! { <p class="hint">{t!(i18n, orders.no_tickets)}</p> }.into_any()
    } else {
        view! {
            <details>
                <summary>{t!(i18n, orders.show_tickets)}</summary>
                <TicketList tickets=order.tickets.clone()/>
                <TicketActions order_id=order.order_id/>
            </details>
        }
        .into_any()
    };
    view! {
        <li class="card order">
            <h2 class="card-title">
                {move || td_string!(i18n.get_locale(), orders.order, reference = reference.as_str()).to_string()}
            </h2>
            <p class="card-meta">
                <span class="badge">{move || order_status_text(i18n.get_locale(), status)}</span>
                " "
                {move || {
                    let locale = i18n.get_locale();
                    td_string!(locale, orders.placed, date = format::date_medium(locale, placed)).to_string()
                }}
            </p>
            <ul class="items">
                {order
                    .items
                    .iter()
                    .map(|item| {
                        let title = item.title.clone();
                        let quantity = item.quantity;
                        view! {
                            <li>
                                {move || td_string!(i18n.get_locale(), checkout.line, quantity, title = title.as_str()).to_string()}
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
            <p class="order-total">{t!(i18n, checkout.total)} ": " <Amount money=order.total.clone()/></p>
            {tickets}
        </li>
    }
}
