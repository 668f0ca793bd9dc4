//! The hosted webframe: the HTML shell, the router and the screens.

mod language;
mod layout;
mod onboarding;
pub mod session;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Html, Link, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path,
};

use crate::i18n::{t, Text};
use language::{use_locale, LanguageSwitcher};
use layout::FrameLayout;
use session::{start_session, use_session, SessionState};

/// The HTML document every frame page is rendered into on the server. `<html lang>` is set by
/// [`App`], so it follows the frame's language.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html>
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <AutoReload options=options.clone()/>
                <HydrationScripts options/>
                <MetaTags/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// The root component: routes of the hosted frame.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    language::provide_locale();
    session::provide_session();
    let locale = use_locale();

    view! {
        <Html {..} lang=move || locale.get().tag()/>
        <Stylesheet id="boxoffice" href="/pkg/boxoffice.css"/>
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Title text="Boxoffice"/>
        <Router>
            <Routes fallback=|| view! { <p>"404"</p> }>
                <Route path=path!("/frame") view=FrameHome/>
                <Route path=path!("/:stage/merchant/onboarding") view=onboarding::MerchantOnboarding/>
            </Routes>
        </Router>
    }
}

/// The frame's landing screen: starts the session from the code in the URL.
#[component]
fn FrameHome() -> impl IntoView {
    let locale = use_locale();
    let session = use_session();
    start_session();
    let status = move || {
        let (title, help) = match session.get() {
            SessionState::Pending => (Text::SessionStarting, None),
            SessionState::Active(_) => (Text::SessionActive, Some(Text::SessionActiveHelp)),
            SessionState::Expired => (Text::SessionExpired, Some(Text::SessionExpiredHelp)),
            SessionState::Missing => (Text::SessionMissing, Some(Text::SessionMissingHelp)),
        };
        let state = match session.get() {
            SessionState::Pending => "pending",
            SessionState::Active(_) => "active",
            SessionState::Expired => "expired",
            SessionState::Missing => "missing",
        };
        view! {
            <section class="notice" role="status" data-testid="session" data-state=state>
                <h2>{t(locale.get(), title)}</h2>
                {help.map(|h| view! { <p>{t(locale.get(), h)}</p> })}
            </section>
        }
    };
    view! {
        <FrameLayout>
            <h1 data-testid="welcome">{move || t(locale.get(), Text::Welcome)}</h1>
            <LanguageSwitcher/>
            {status}
        </FrameLayout>
    }
}
