use leptos::prelude::*;

/// The frame's page chrome: one landmark per region, so screen readers can navigate.
#[component]
pub fn FrameLayout(children: Children) -> impl IntoView {
    view! {
        <div class="frame">
            <header class="frame-header">
                <span class="brand">"Boxoffice"</span>
            </header>
            <main class="frame-main">{children()}</main>
        </div>
    }
}
