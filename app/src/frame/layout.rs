use leptos::prelude::*;

/// The frame's page chrome: one landmark per region, so screen readers can navigate.
///
/// `data-hydrated` appears once the WASM app has taken over the server-rendered page (effects
/// run only in the browser), so tests and the parent page know when the frame is interactive.
#[component]
pub fn FrameLayout(children: Children) -> impl IntoView {
    let hydrated = RwSignal::new(false);
    Effect::new(move |_| hydrated.set(true));
    view! {
        <div class="frame" data-hydrated=move || hydrated.get().then_some("true")>
            <header class="frame-header">
                <span class="brand">"Boxoffice"</span>
            </header>
            <main class="frame-main">{children()}</main>
        </div>
    }
}
