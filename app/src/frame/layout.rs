use leptos::prelude::*;
use leptos_router::components::{Outlet, A};

use super::{
    entry::start_session,
    first_page,
    language::LanguageSwitcher,
    session::{use_session, SessionState},
    ui::notice::Loading,
};
use crate::i18n::{t, use_i18n};

/// The page chrome of every app page: a skip link, the header with the language switch, and
/// one `<main>`. `data-hydrated` appears once the WASM app has taken over the server-rendered
/// page (effects run only in the browser), so tests and the host know it is interactive.
/// While `inert`, the page is shown but takes no input (a first screen the server rendered
/// before the session that makes it work has started).
#[component]
pub fn Chrome(
    #[prop(optional, into)] nav: ViewFn,
    #[prop(optional, into)] inert: Signal<bool>,
    children: Children,
) -> impl IntoView {
    let i18n = use_i18n();
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <div
            class="frame"
            data-hydrated=move || hydrated.get().then_some("true")
            inert=move || inert.get()
            aria-busy=move || inert.get().then_some("true")
        >
            <a class="skip-link" href="#main">{t!(i18n, skip_to_content)}</a>
            <header class="frame-header">
                <span class="brand">{t!(i18n, brand)}</span>
                {move || nav.run()}
                <LanguageSwitcher/>
            </header>
            <main id="main" class="frame-main">{children()}</main>
        </div>
    }
}

/// What the frame can show for the session as it stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gate {
    Starting,
    Open,
    AwaitingIdentity,
    CodeExpired,
    BearerExpired,
    Missing,
}

/// The frame's routes' parent: starts the session and shows the screen only inside one.
#[component]
pub fn FrameLayout() -> impl IntoView {
    let i18n = use_i18n();
    let session = use_session();
    start_session();
    // The server rendered the first screen with its data (`first_page`): it is shown while
    // the session starts, inert until it has.
    let first_screen = first_page::present();
    let pending = move || session.with(|s| *s == SessionState::Pending);
    let inert = Signal::derive(move || first_screen && pending());
    let gate = Memo::new(move |_| {
        session.with(|s| match s {
            SessionState::Pending if first_screen => Gate::Open,
            SessionState::Pending => Gate::Starting,
            SessionState::Active(_) => Gate::Open,
            SessionState::AwaitingIdentity(_) => Gate::AwaitingIdentity,
            SessionState::CodeExpired => Gate::CodeExpired,
            SessionState::BearerExpired => Gate::BearerExpired,
            SessionState::Missing => Gate::Missing,
        })
    });
    let nav = move || {
        (gate.get() == Gate::Open).then(|| {
            view! {
                <nav class="frame-nav" aria-label=move || leptos_i18n::td_string!(i18n.get_locale(), nav.label)>
                    <A href="/frame" exact=true>{t!(i18n, nav.shop)}</A>
                    <A href="/frame/orders">{t!(i18n, nav.orders)}</A>
                    <A href="/frame/points">{t!(i18n, nav.points)}</A>
                </nav>
            }
        })
    };
    view! {
        <Chrome nav=nav inert>
            {move || match gate.get() {
                Gate::Open => view! { <Outlet/> }.into_any(),
                Gate::Starting => view! { <Loading/> }.into_any(),
                Gate::AwaitingIdentity => view! {
                    <p class="loading" role="status">{t!(i18n, session.waiting_identity)}</p>
                }
                .into_any(),
                Gate::CodeExpired | Gate::BearerExpired => view! {
                    <section class="notice" data-testid="session" data-state="expired">
                        <h1 class="screen-title">{t!(i18n, session.expired_title)}</h1>
                        <p>{t!(i18n, session.expired_help)}</p>
                    </section>
                }
                .into_any(),
                Gate::Missing => view! {
                    <section class="notice" data-testid="session" data-state="missing">
                        <h1 class="screen-title">{t!(i18n, session.missing_title)}</h1>
                        <p>{t!(i18n, session.missing_help)}</p>
                    </section>
                }
                .into_any(),
            }}
        </Chrome>
    }
}
