//! The gate's scanner (`/gate`, docs/gate.md "The scanner"): a merchant's staff open the
//! gate's one-time pairing link (`/gate#pairing=<code>`) on a phone once; the page trades the
//! code for the device's own credential (`POST /v2/gate-pairings`), keeps it in local
//! storage and takes the fragment out of the address. From then on it gets short-lived gate
//! bearers with it, reads QR codes from the camera (or a typed code) and shows a full-screen
//! answer; offline it judges signed tickets against the day's signed manifest and uploads
//! what it let in when the network is back.
//!
//! Its code and texts load with this screen only (a lazy route, `texts.rs`), so the frame's
//! customers download none of it.

pub mod answer;
#[cfg(feature = "hydrate")]
mod browser;
#[cfg(feature = "hydrate")]
mod camera;
#[cfg(feature = "hydrate")]
mod client;
pub mod offline;
mod scanner;
#[cfg(feature = "hydrate")]
mod signature;
#[cfg(feature = "hydrate")]
mod station;
pub mod texts;

use leptos::prelude::*;
#[cfg(feature = "hydrate")]
use leptos_i18n::Locale as _;

use crate::{frame::layout::Chrome, i18n::use_i18n, wire::PairedDevice};
use answer::TimeFormat;
use scanner::Scanner;

/// Where the device stands with its gate (the server's render is always `Starting`).
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
#[derive(Debug, Clone, PartialEq)]
enum Device {
    /// Before the browser has looked (the server's render).
    Starting,
    NotPaired,
    Pairing,
    /// The pairing link was refused (used, expired, or of a revoked gate).
    Failed,
    /// The gate no longer accepts the device: it was revoked.
    Revoked,
    Paired(PairedDevice),
}

#[component]
pub fn GateScreen() -> impl IntoView {
    let i18n = use_i18n();
    let texts = Memo::new(move |_| texts::texts(i18n.get_locale()));
    let texts: Signal<std::sync::Arc<texts::Texts>> = texts.into();
    let pairing = RwSignal::new(Device::Starting);
    #[cfg(feature = "hydrate")]
    Effect::new(move || {
        if pairing.get_untracked() == Device::Starting {
            pair_on_load(pairing);
        }
    });
    let on_revoked = Callback::new(move |()| {
        #[cfg(feature = "hydrate")]
        station::forget_all();
        pairing.set(Device::Revoked);
    });
    let title = move || match pairing.get() {
        Device::Paired(device) => device.gate_name,
        _ => texts.get().title.clone(),
    };
    view! {
        <Chrome>
            <div class="gate">
                <h1 class="screen-title">{title}</h1>
                {move || {
                    let texts_now = texts.get();
                    let note = |text: &String, alert: bool| {
                        let text = text.clone();
                        if alert {
                            view! { <p class="notice" role="alert">{text}</p> }.into_any()
                        } else {
                            view! { <p class="notice">{text}</p> }.into_any()
                        }
                    };
                    match pairing.get() {
                        Device::Starting => note(&texts_now.starting, false),
                        Device::NotPaired => note(&texts_now.not_paired, false),
                        Device::Pairing => note(&texts_now.pairing, false),
                        Device::Failed => note(&texts_now.pairing_failed, true),
                        Device::Revoked => note(&texts_now.revoked, true),
                        Device::Paired(device) => {
                            let time = time_format(&device.timezone);
                            view! { <Scanner device texts time on_revoked/> }.into_any()
                        }
                    }
                }}
            </div>
        </Chrome>
    }
}

/// Times in the gate's language and the merchant's zone.
fn time_format(zone: &str) -> TimeFormat {
    let i18n = use_i18n();
    let zone = zone.to_owned();
    Callback::new(move |millis: i64| {
        #[cfg(feature = "hydrate")]
        {
            browser::day_and_time(millis, i18n.get_locale_untracked().as_str(), &zone)
        }
        #[cfg(not(feature = "hydrate"))]
        {
            let _ = (i18n, &zone);
            millis.to_string()
        }
    })
}

/// Pairs with the code in the address's fragment, or takes the device kept from before.
#[cfg(feature = "hydrate")]
fn pair_on_load(pairing: RwSignal<Device>) {
    use leptos::task::spawn_local;

    let kept = browser::load::<PairedDevice>(station::DEVICE_KEY);
    let Some(code) = pairing_code_in_address() else {
        pairing.set(kept.map_or(Device::NotPaired, Device::Paired));
        return;
    };
    pairing.set(Device::Pairing);
    spawn_local(async move {
        match client::pair(code).await {
            Ok(device) => {
                // Another gate's leftovers (its list, its queue) are not this one's.
                if kept.is_some_and(|kept| kept.gate_id != device.gate_id) {
                    station::forget_all();
                }
                browser::store(station::DEVICE_KEY, &device);
                pairing.set(Device::Paired(device));
            }
            Err(_) => pairing.set(Device::Failed),
        }
    });
}

/// The `pairing` code of the address's fragment, which is then taken out of the address (and
/// its history entry), so it is never shown, bookmarked or sent again.
#[cfg(feature = "hydrate")]
fn pairing_code_in_address() -> Option<String> {
    let window = web_sys::window()?;
    let location = window.location();
    let hash = location.hash().ok()?;
    let code = hash.strip_prefix("#pairing=")?.to_owned();
    let clean = format!(
        "{}{}",
        location.pathname().unwrap_or_default(),
        location.search().unwrap_or_default()
    );
    if let Ok(history) = window.history() {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&clean));
    }
    (!code.is_empty()).then_some(code)
}
