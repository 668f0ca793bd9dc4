//! The merchant's magic-link page: `/{stage}/merchant/onboarding?code=…` redeems the code once
//! through the merchant-accounts API, takes it out of the address bar, and sends the merchant
//! on to the payment provider's KYC.

use leptos::prelude::*;

use crate::{
    frame::layout::Chrome,
    i18n::{t, use_i18n},
    wire::OnboardingStatus,
};

/// The server renders only `Working`; the browser moves on from there.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
enum Step {
    Working,
    Ready(OnboardingStatus),
    Failed,
}

#[component]
pub fn MerchantOnboarding() -> impl IntoView {
    let i18n = use_i18n();
    let step = RwSignal::new(Step::Working);
    #[cfg(feature = "hydrate")]
    Effect::new(move |_| {
        if step.get_untracked() != Step::Working {
            return;
        }
        leptos::task::spawn_local(async move {
            step.set(browser::redeem().await.map_or(Step::Failed, Step::Ready));
        });
    });
    let body = move || match step.get() {
        Step::Working => view! { <p>{t!(i18n, onboarding.working)}</p> }.into_any(),
        Step::Failed => view! {
            <p data-testid="onboarding-failed">{t!(i18n, onboarding.failed)}</p>
        }
        .into_any(),
        Step::Ready(status) => view! {
            <dl data-testid="onboarding" class="facts">
                <dt>{t!(i18n, onboarding.debtor_code)}</dt>
                <dd>{status.debtor_code.clone()}</dd>
                <dt>{t!(i18n, onboarding.status)}</dt>
                <dd>{status.status.as_str()}</dd>
            </dl>
            <a class="button primary" href=status.kyc_url.clone()>{t!(i18n, onboarding.proceed)}</a>
        }
        .into_any(),
    };
    view! {
        <Chrome>
            <h1 class="screen-title">{t!(i18n, onboarding.title)}</h1>
            <section class="card" role="status">{body}</section>
        </Chrome>
    }
}

#[cfg(feature = "hydrate")]
mod browser {
    use gloo_net::http::Request;

    use crate::wire::{Envelope, MerchantToken, OnboardingStatus};

    /// Redeems the code of the address and reads the account's KYC URL. The stage is the
    /// first path segment, as the magic link was made.
    pub async fn redeem() -> Option<OnboardingStatus> {
        let window = web_sys::window()?;
        let location = window.location();
        let path = location.pathname().ok()?;
        let stage = path.trim_start_matches('/').split('/').next()?.to_owned();
        let search = location.search().ok()?;
        let code = web_sys::UrlSearchParams::new_with_str(&search)
            .ok()?
            .get("code")?;
        // The code works once: it leaves the address bar (and the history) at once.
        if let Ok(history) = window.history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&path));
        }
        let token: MerchantToken =
            Request::post(&format!("/{stage}/merchant-accounts/session/token"))
                .json(&serde_json::json!({ "code": code }))
                .ok()?
                .send()
                .await
                .ok()
                .filter(|r| r.ok())?
                .json()
                .await
                .ok()?;
        let status: Envelope<OnboardingStatus> = Request::get(&format!(
            "/{stage}/merchant-accounts/onboarding?debtorCode={}",
            String::from(js_sys::encode_uri_component(&token.debtor_code))
        ))
        .header("Authorization", &format!("Bearer {}", token.access_token))
        .send()
        .await
        .ok()
        .filter(|r| r.ok())?
        .json()
        .await
        .ok()?;
        Some(status.data)
    }
}
