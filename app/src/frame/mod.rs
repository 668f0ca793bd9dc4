//! The hosted webframe: the HTML shell, the router and the screens.

pub mod analytics;
pub mod api;
pub mod deep_link;
mod entry;
pub mod first_page;
pub mod host;
pub mod language;
pub mod layout;
pub mod screens;
pub mod server;
pub mod session;
pub mod ui;
pub mod url;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Link, MetaTags, Title};
use leptos_router::{
    components::{ParentRoute, Route, Router, Routes},
    lazy_route, path, Lazy, LazyRoute,
};

use crate::i18n::{t, td_string, use_i18n, I18nContextProvider};
use layout::{Chrome, FrameLayout};
use screens::{
    checkout::CheckoutScreen, gate::GateScreen, ledger::LedgerScreen, merchant::MerchantScreen,
    merchants::MerchantsScreen, onboarding::MerchantOnboarding, orders::OrdersScreen,
    pay::PayScreen, product::ProductScreen, return_screen::ReturnScreen,
};

/// The partner's look as CSS custom properties (made by the server from the partner client's
/// theme), provided as context for the render of a frame page. The shell writes it into the
/// head, after the stylesheet and with the page's script nonce, so the first paint already
/// has the partner's colours; hydration leaves the head alone, so nothing changes after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThemeStyle(pub String);

/// The site's stylesheet (`/pkg/boxoffice.css`, a few KB), provided by the server that read it
/// from the build: the shell writes it into the head, so the first paint waits for no
/// stylesheet request (on a phone one round trip less before anything shows). Without it (a
/// server started without the built site) the shell links the file instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteStyle(pub std::sync::Arc<str>);

/// The HTML document every frame page is rendered into on the server. `<html lang>` is set by
/// the i18n context, so it follows the frame's language (and tells hydration which it is).
pub fn shell(options: LeptosOptions) -> impl IntoView {
    let site_style = match use_context::<SiteStyle>() {
        Some(SiteStyle(css)) => view! {
            <style id="boxoffice" nonce=leptos::nonce::use_nonce() inner_html=css></style>
        }
        .into_any(),
        None => {
            view! { <link rel="stylesheet" id="boxoffice" href="/pkg/boxoffice.css"/> }.into_any()
        }
    };
    let theme = use_context::<ThemeStyle>().map(|ThemeStyle(css)| {
        view! { <style id="boxoffice-theme" nonce=leptos::nonce::use_nonce() inner_html=css></style> }
    });
    // The scanner's texts (`screens::gate::texts`), on its page only.
    #[cfg(feature = "ssr")]
    let gate_texts = use_context::<screens::gate::texts::GateTexts>().map(|_| {
        view! {
            <script type="application/json" id=screens::gate::texts::TEXTS_ELEMENT_ID inner_html=screens::gate::texts::ALL_TEXTS_JSON></script>
        }
    });
    #[cfg(not(feature = "ssr"))]
    let gate_texts = ();
    view! {
        <!DOCTYPE html>
        <html>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
                {site_style}
                {theme}
                <first_page::FirstPageData/>
                {gate_texts}
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The root component: the language context and the routes of the frame and its sibling
/// pages (the sandbox payment page, the merchant onboarding page, the gate's scanner).
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    session::provide_session();
    view! {
        <I18nContextProvider>
            <Pages/>
        </I18nContextProvider>
    }
}

#[component]
fn Pages() -> impl IntoView {
    language::negotiate_on_server();
    let i18n = use_i18n();
    view! {
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Title text=move || td_string!(i18n.get_locale(), brand)/>
        <Router>
            <Routes fallback=NotFound>
                <ParentRoute path=path!("/frame") view=FrameLayout>
                    <Route path=path!("") view=MerchantsScreen/>
                    <Route path=path!("merchants/:merchant_id") view=MerchantScreen/>
                    <Route path=path!("merchants/:merchant_id/products/:product_id") view={Lazy::<ProductRoute>::new()}/>
                    <Route path=path!("checkout/:checkout_id") view={Lazy::<CheckoutRoute>::new()}/>
                    <Route path=path!("return") view={Lazy::<ReturnRoute>::new()}/>
                    <Route path=path!("orders") view={Lazy::<OrdersRoute>::new()}/>
                    <Route path=path!("points") view={Lazy::<LedgerRoute>::new()}/>
                </ParentRoute>
                <Route path=path!("/pay/:payment_id") view={Lazy::<PayRoute>::new()}/>
                <Route path=path!("/gate") view={Lazy::<GateRoute>::new()}/>
                <Route path=path!("/:stage/merchant/onboarding") view={Lazy::<OnboardingRoute>::new()}/>
            </Routes>
        </Router>
    }
}

/// Screens past the first two load their code when the customer gets there (`cargo leptos
/// build --split`), so the first load carries only the list and a merchant's page.
/// `Route => Screen(prop: Type = read)` starts the screen's read in `data()`, which is in the
/// first load, so the fetch runs while the screen's code loads (`ui::load`); the screen gets
/// what `read()` started. The product's read is decoded there (the merchant's page decodes the
/// same list); the others read the answer's text (`ui::load::Prefetch`) and their screens
/// decode it, which keeps their decoding out of the first load (docs/benchmarks.md, "The
/// frame's size"). The return, payment and onboarding screens read as they show (a poll, and
/// the server functions of `frame/server.rs`).
macro_rules! lazy_screens {
    ($($route:ident => $screen:ident $(($prop:ident: $ty:ty = $read:path))?),* $(,)?) => {$(
        struct $route $(($ty))?;

        #[lazy_route]
        impl LazyRoute for $route {
            fn data() -> Self {
                $route $(($read()))?
            }

            fn view(this: Self) -> AnyView {
                let _ = &this; // a screen without data of its own ignores it
                $(let $prop = this.0;)?
                view! { <$screen $($prop)?/> }.into_any()
            }
        }
    )*};
}

lazy_screens! {
    ProductRoute => ProductScreen(data: screens::product::ProductData = screens::product::product_data),
    CheckoutRoute => CheckoutScreen(read: ui::load::Prefetch = screens::checkout::checkout_read),
    ReturnRoute => ReturnScreen,
    OrdersRoute => OrdersScreen(first: ui::load::Prefetch = screens::orders::orders_first_page),
    LedgerRoute => LedgerScreen(first: ui::load::Prefetch = screens::ledger::ledger_first_page),
    PayRoute => PayScreen,
    OnboardingRoute => MerchantOnboarding,
    GateRoute => GateScreen,
}

#[component]
fn NotFound() -> impl IntoView {
    let i18n = use_i18n();
    view! {
        <Chrome>
            <h1 class="screen-title">{t!(i18n, not_found)}</h1>
        </Chrome>
    }
}
