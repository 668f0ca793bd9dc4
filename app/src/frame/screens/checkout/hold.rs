//! The time the places are held: the reservation's countdown with "More time" in its last
//! two minutes (once, `POST /v2/checkouts/{id}/extend`), and the payment window's.

use chrono::{DateTime, Duration, Utc};
use leptos::prelude::*;
use uuid::Uuid;

use crate::{
    frame::{
        api::{Api, ApiError},
        host::{self, Outgoing},
        ui::{funnel, words::problem_text, write::write},
    },
    i18n::{t, td_string, use_i18n},
};

/// When "More time" is offered: this long before the hold ends.
const OFFER_MORE_TIME: Duration = Duration::minutes(2);

/// `mm:ss` of the time left, zero when it ran out.
pub fn remaining(until: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (until - now).num_seconds().max(0);
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// The current time, ticking every second while the component lives.
fn clock() -> RwSignal<DateTime<Utc>> {
    let now = RwSignal::new(Utc::now());
    if let Ok(handle) = set_interval_with_handle(
        move || now.set(Utc::now()),
        std::time::Duration::from_secs(1),
    ) {
        on_cleanup(move || handle.clear());
    }
    now
}

/// How long the reservation still holds the places. In its last two minutes it says so and
/// offers "More time" (WCAG 2.2.1: a time limit the customer can extend), unless the hold was
/// extended already. When it runs out it sets `over` and tells the host
/// (`boxoffice:hold-expired`).
#[component]
pub fn HoldTimer(
    checkout_id: Uuid,
    until: DateTime<Utc>,
    extended: bool,
    over: RwSignal<bool>,
) -> impl IntoView {
    let i18n = use_i18n();
    let api = Api::new();
    let until = RwSignal::new(until);
    let extended = RwSignal::new(extended);
    let note = RwSignal::new(None::<String>);
    let now = clock();
    Effect::new(move |_| {
        if now.get() >= until.get() && !over.get_untracked() {
            over.set(true);
            host::post(&Outgoing::HoldExpired { checkout_id });
        }
    });
    let offer = Memo::new(move |_| !extended.get() && until.get() - now.get() <= OFFER_MORE_TIME);
    // Said once, when the offer appears, not every second.
    Effect::new(move |_| {
        if offer.get() {
            let locale = i18n.get_locale_untracked();
            note.set(Some(td_string!(locale, checkout.hold_ending).to_owned()));
        }
    });
    let more = write(move |_: &()| async move {
        let result = api.extend(checkout_id).await;
        let locale = i18n.get_locale_untracked();
        match result {
            Ok(checkout) => {
                until.set(checkout.expires_at);
                extended.set(true);
                note.set(Some(
                    td_string!(locale, checkout.more_time_given).to_owned(),
                ));
            }
            Err(ApiError::Expired) => {}
            Err(error) => {
                funnel::refused(&error);
                extended.set(true);
                note.set(Some(problem_text(locale, &error)));
            }
        }
    });
    let busy = more.pending();
    view! {
        <div class="hold">
            // A timer is not read out every second; the text is there when the customer looks.
            <p class="hold-time" role="timer" aria-live="off">
                {move || td_string!(i18n.get_locale(), checkout.hold, time = remaining(until.get(), now.get())).to_string()}
            </p>
            <p class="hold-note" role="status">{move || note.get()}</p>
            <Show when=move || offer.get()>
                <button
                    type="button"
                    class="button secondary"
                    aria-disabled=move || busy.get().then_some("true")
                    on:click=move |_| {
                        if !busy.get_untracked() {
                            more.dispatch_local(());
                        }
                    }
                >
                    {t!(i18n, checkout.more_time)}
                </button>
            </Show>
        </div>
    }
}

/// How long the payment window still holds the places, while the customer pays.
#[component]
pub fn PaymentHold(until: DateTime<Utc>) -> impl IntoView {
    let i18n = use_i18n();
    let now = clock();
    view! {
        <p class="hold-time" role="timer" aria-live="off">
            {move || td_string!(i18n.get_locale(), checkout.hold_payment, time = remaining(until, now.get())).to_string()}
        </p>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_is_minutes_and_seconds_and_never_negative() {
        let now: DateTime<Utc> = "2026-11-24T10:00:00Z".parse().unwrap();
        assert_eq!(
            remaining(now + chrono::Duration::seconds(905), now),
            "15:05"
        );
        assert_eq!(remaining(now - chrono::Duration::seconds(5), now), "0:00");
    }
}
