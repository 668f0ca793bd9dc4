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
        let opened = RwSignal::new(false);
        view! {
            <details on:toggle=move |_| opened.set(true)>
                <summary>{t!(i18n, orders.show_tickets)}</summary>
                <TicketList tickets=order.tickets.clone()/>
                <TicketActions order_id=order.order_id/>
                <ManageLinks order_id=order.order_id opened=opened.read_only()/>
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

/// A link for each change the order allows now, into its "manage your booking" page, which
/// opens inside the frame, makes the change and tells the host page (docs/webframe.md,
/// "After the sale"). What it allows is read once its tickets are first shown: the list does
/// not carry it, as it changes with the clock.
#[component]
fn ManageLinks(order_id: uuid::Uuid, opened: ReadSignal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let read = LocalResource::new(move || {
        let opened = opened.get();
        async move {
            if opened {
                api.order(order_id).await.ok()
            } else {
                None
            }
        }
    });
    move || {
        let order = read.get().flatten()?;
        let (url, allows) = (order.manage_url?, order.after_sale?);
        let cancel = allows.cancellable.then(|| manage_href(&url, "#cancel-heading"));
        let rebook = allows.rebookable.then(|| manage_href(&url, "#date-heading"));
        let withdraw = allows.withdrawable.then(|| manage_href(&url, "&review=withdraw"));
        Some(view! {
            <p class="ticket-actions">
                {cancel.map(|href| view! { <a class="button" rel="external" href=href>{t!(i18n, manage.cancel)}</a> })}
                {rebook.map(|href| view! { <a class="button" rel="external" href=href>{t!(i18n, manage.rebook)}</a> })}
                {withdraw.map(|href| view! { <a class="button" rel="external" href=href>{t!(i18n, manage.withdraw)}</a> })}
            </p>
        })
    }
}

/// The manage page's address from inside the frame: with the host page's origin (so the page
/// may be framed by it and post it messages) and the frame's own address to come back to.
fn manage_href(url: &str, then: &str) -> String {
    let mut href = url.to_owned();
    #[cfg(feature = "hydrate")]
    if let (Some(host), Some(location)) = (
        crate::frame::host::parent_origin_url(),
        web_sys::window().map(|w| w.location()),
    ) {
        let back = format!(
            "{}{}",
            location.pathname().unwrap_or_default(),
            location.search().unwrap_or_default()
        );
        href.push_str(&format!(
            "&host={}&back={}",
            crate::frame::url::encode(host.trim_end_matches('/')),
            crate::frame::url::encode(&back)
        ));
    }
    href.push_str(then);
    href
}
