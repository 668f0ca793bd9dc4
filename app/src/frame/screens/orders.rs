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
                <OrderCard order on_changed=Callback::new(move |_| orders.reload())/>
            </For>
        </ul>
        {empty}
        <PageFooter paged=orders/>
    }
}

#[component]
fn OrderCard(order: Order, on_changed: Callback<()>) -> impl IntoView {
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
                <ManageBooking order_id=order.order_id opened=opened.read_only() on_changed/>
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

/// A button for each change the order allows now. Each opens the order's "manage your
/// booking" page in a panel of the frame (an iframe of this origin), which makes the change
/// and tells the frame, which tells the host page (docs/webframe.md, §17); the frame and its
/// session stay as they were underneath. What the order allows is read once its tickets are
/// first shown: the list does not carry it, as it changes with the clock.
#[component]
fn ManageBooking(
    order_id: uuid::Uuid,
    opened: ReadSignal<bool>,
    on_changed: Callback<()>,
) -> impl IntoView {
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
    let managing = RwSignal::new(None::<String>);
    move || {
        if let Some(url) = managing.get() {
            return Some(view! { <ManagePanel url managing on_changed/> }.into_any());
        }
        let order = read.get().flatten()?;
        let (url, allows) = (order.manage_url?, order.after_sale?);
        // Outside a host's page (a first-party tab) there is no host to frame it for: the
        // page opens in place, and the tab's kept session resumes on the way back.
        let framed = crate::frame::host::parent_origin_url().is_some();
        let button = move |shown: bool, then: &'static str, label: AnyView| {
            let href = manage_href(&url, then);
            let open = move |_| {
                if framed {
                    managing.set(Some(href.clone()));
                } else {
                    open_in_place(&href);
                }
            };
            shown.then(|| {
                view! { <button type="button" class="button" on:click=open>{label}</button> }
            })
        };
        Some(
            view! {
                <div class="ticket-actions">
                    {button(allows.cancellable, "#cancel-heading", t!(i18n, manage.cancel).into_any())}
                    {button(allows.rebookable, "#date-heading", t!(i18n, manage.rebook).into_any())}
                    {button(allows.withdrawable, "&review=withdraw", t!(i18n, manage.withdraw).into_any())}
                </div>
            }
            .into_any(),
        )
    }
}

/// The manage page in an iframe, sized to it by its `boxoffice:resize`; its other messages
/// go on to the host. "Close" goes back to the order, read again if anything changed.
#[component]
fn ManagePanel(
    url: String,
    managing: RwSignal<Option<String>>,
    on_changed: Callback<()>,
) -> impl IntoView {
    let i18n = use_i18n();
    let frame = NodeRef::<leptos::html::Iframe>::new();
    let height = RwSignal::new(480u32);
    let changed = RwSignal::new(false);
    #[cfg(feature = "hydrate")]
    {
        let handle = window_event_listener(leptos::ev::message, move |event| {
            relay(&event, frame, height, changed);
        });
        on_cleanup(move || handle.remove());
        // The panel is where the customer now works: shown, and the keyboard's focus in it.
        frame.on_load(|iframe| {
            iframe.scroll_into_view();
            let _ = iframe.focus();
        });
    }
    let close = move |_| {
        managing.set(None);
        if changed.get_untracked() {
            on_changed.run(());
        }
    };
    view! {
        <div class="manage-panel">
            <iframe
                node_ref=frame
                src=url
                title=move || leptos_i18n::td_string!(i18n.get_locale(), manage.title)
                style:width="100%"
                style:border="0"
                style:height=move || format!("{}px", height.get())
            ></iframe>
            <button type="button" class="button" on:click=close>{t!(i18n, manage.close)}</button>
        </div>
    }
}

/// Handles a message from the panel's page (this origin, that iframe's window, nothing else).
#[cfg(feature = "hydrate")]
fn relay(
    event: &web_sys::MessageEvent,
    frame: NodeRef<leptos::html::Iframe>,
    height: RwSignal<u32>,
    changed: RwSignal<bool>,
) {
    let own = web_sys::window().and_then(|w| w.location().origin().ok());
    let panel = frame.get_untracked().and_then(|f| f.content_window());
    let from_panel = match (event.source(), panel) {
        (Some(source), Some(panel)) => js_sys::Object::is(&source, &panel),
        _ => false,
    };
    if own.as_deref() != Some(event.origin().as_str()) || !from_panel {
        return;
    }
    let data = event.data();
    let field = |name: &str| js_sys::Reflect::get(&data, &name.into()).ok();
    match field("type").and_then(|t| t.as_string()).as_deref() {
        Some("boxoffice:resize") => {
            if let Some(h) = field("height").and_then(|h| h.as_f64()) {
                height.set(h.clamp(120.0, 20_000.0) as u32);
            }
        }
        // A dearer day's payment page opens in the host's top window, as a purchase's does.
        Some("boxoffice:redirect") => crate::frame::host::forward(&data),
        Some("boxoffice:order-cancelled" | "boxoffice:order-rebooked" | "boxoffice:analytics") => {
            changed.set(true);
            crate::frame::host::forward(&data);
        }
        _ => {}
    }
}

#[cfg(feature = "hydrate")]
fn open_in_place(href: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.location().assign(href);
    }
}

#[cfg(not(feature = "hydrate"))]
fn open_in_place(_href: &str) {}

/// The manage page's address for the panel: with the host page's origin, so the page may be
/// framed inside it (the host is checked against the partner's registered origins).
fn manage_href(url: &str, then: &str) -> String {
    let mut href = url.to_owned();
    if let Some(host) = crate::frame::host::parent_origin_url() {
        href.push_str("&host=");
        href.push_str(&crate::frame::url::encode(host.trim_end_matches('/')));
    }
    href.push_str(then);
    href
}
