//! The hosted webframe: the HTML shell, the router and the screens.

mod language;
mod layout;

use leptos::prelude::*;
use leptos_meta::{provide_meta_context, Html, Link, MetaTags, Stylesheet, Title};
use leptos_router::{
    components::{Route, Router, Routes},
    path,
};

use crate::i18n::{t, Text};
use language::{use_locale, LanguageSwitcher};
use layout::FrameLayout;

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
    let locale = use_locale();

    view! {
        <Html {..} lang=move || locale.get().tag()/>
        <Stylesheet id="boxoffice" href="/pkg/boxoffice.css"/>
        <Link rel="icon" type_="image/svg+xml" href="/favicon.svg"/>
        <Title text="Boxoffice"/>
        <Router>
            <Routes fallback=|| view! { <p>"404"</p> }>
                <Route path=path!("/frame") view=FrameHome/>
            </Routes>
        </Router>
    }
}

/// The frame's landing screen.
#[component]
fn FrameHome() -> impl IntoView {
    let locale = use_locale();
    view! {
        <FrameLayout>
            <h1 data-testid="welcome">{move || t(locale.get(), Text::Welcome)}</h1>
            <LanguageSwitcher/>
            <section class="notice" role="status">
                <h2>{move || t(locale.get(), Text::SessionMissing)}</h2>
                <p>{move || t(locale.get(), Text::SessionMissingHelp)}</p>
            </section>
        </FrameLayout>
    }
}
