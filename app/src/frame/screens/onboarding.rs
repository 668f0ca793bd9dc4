//! The merchant's magic-link page: `/{stage}/merchant/onboarding?code=…` redeems the code once
//! through the merchant-accounts API (`Api::merchant_token`, `Api::onboarding_status`), takes it
//! out of the address bar, and sends the merchant on to the payment provider's KYC.

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
    {
        let api = crate::frame::api::Api::new();
        let redeem = crate::frame::ui::write::write(move |_: &()| async move {
            step.set(browser::redeem(api).await.map_or(Step::Failed, Step::Ready));
        });
        Effect::new(move |_| {
            if step.get_untracked() == Step::Working {
                redeem.dispatch_local(());
            }
        });
    }
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
    use crate::{
        frame::api::Api,
        wire::{OnboardingCode, OnboardingStatus},
    };

    /// Redeems the code of the address and reads the account's KYC URL. The stage is the
    /// first path segment, as the magic link was made.
    pub async fn redeem(api: Api) -> Option<OnboardingStatus> {
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
        let token = api
            .merchant_token(&stage, &OnboardingCode { code })
            .await
            .ok()?;
        api.onboarding_status(&stage, &token).await.ok()
    }
}
