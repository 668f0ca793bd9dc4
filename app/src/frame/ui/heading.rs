use std::sync::atomic::{AtomicBool, Ordering};

use leptos::{html, prelude::*};

/// Whether a screen was shown before: the first one keeps the page's focus where it is (a
/// framed page must not grab focus from its host), every later one moves it to its heading.
static SHOWN_BEFORE: AtomicBool = AtomicBool::new(false);

/// A screen's `<h1>`. Focus moves to it when the customer arrives on the screen, so a
/// screen reader announces where they are and keyboard users start from the top.
#[component]
pub fn ScreenTitle(children: Children) -> impl IntoView {
    let heading = NodeRef::<html::H1>::new();
    Effect::new(move |_| {
        if let Some(heading) = heading.get() {
            if SHOWN_BEFORE.swap(true, Ordering::Relaxed) {
                let _ = heading.focus();
            }
        }
    });
    view! {
        <h1 class="screen-title" tabindex="-1" node_ref=heading>
            {children()}
        </h1>
    }
}
