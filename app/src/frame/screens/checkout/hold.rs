use chrono::{DateTime, Utc};
use leptos::prelude::*;

use crate::i18n::{td_string, use_i18n};

/// `mm:ss` of the time left, zero when it ran out.
pub fn remaining(until: DateTime<Utc>, now: DateTime<Utc>) -> String {
    let seconds = (until - now).num_seconds().max(0);
    format!("{}:{:02}", seconds / 60, seconds % 60)
}

/// How long the reservation still holds the places; sets `over` when it runs out.
#[component]
pub fn HoldTimer(until: DateTime<Utc>, over: RwSignal<bool>) -> impl IntoView {
    let i18n = use_i18n();
    let now = RwSignal::new(Utc::now());
    let tick = move || {
        let at = Utc::now();
        now.set(at);
        if at >= until {
            over.set(true);
        }
    };
    tick();
    if let Ok(handle) = set_interval_with_handle(tick, std::time::Duration::from_secs(1)) {
        on_cleanup(move || handle.clear());
    }
    view! {
        // A timer is not read out every second; the text is there when the customer looks.
        <p class="hold" role="timer" aria-live="off">
            {move || td_string!(i18n.get_locale(), checkout.hold, time = remaining(until, now.get())).to_string()}
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
