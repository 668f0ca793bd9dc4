//! The scanner's answer to one read: green (let in) or red (with the reason), the ticket's
//! product and age group, full screen, read out by screen readers, its "Next scan" button
//! focused so Enter goes on.

use leptos::{html, prelude::*};

use super::texts::{fill, Texts};
use crate::wire::{GateRefusal, ProblemType};

/// Why a ticket is not let in. Times are Unix milliseconds.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    Unknown,
    Cancelled,
    Used {
        first_at: Option<i64>,
    },
    WrongGate,
    NotNow {
        from: Option<i64>,
        until: Option<i64>,
    },
    /// Offline, a code that cannot be verified here: a typed code, a ticket from before
    /// signed codes, a token whose key the device does not have, or no list for today.
    CheckOnline,
    /// The server answered something the scanner does not know (a 5xx).
    Failed,
}

impl Refusal {
    /// The refusal a gate problem of the API names; `None` for one that is no gate refusal.
    pub fn of_problem(kind: ProblemType, members: &GateRefusal) -> Option<Self> {
        let millis =
            |at: Option<chrono::DateTime<chrono::FixedOffset>>| at.map(|at| at.timestamp_millis());
        Some(match kind {
            ProblemType::TicketUnknown => Refusal::Unknown,
            ProblemType::TicketCancelled => Refusal::Cancelled,
            ProblemType::TicketAlreadyRedeemed => Refusal::Used {
                first_at: millis(members.first_redeemed_at),
            },
            ProblemType::TicketWrongGate => Refusal::WrongGate,
            ProblemType::TicketNotValidNow => Refusal::NotNow {
                from: millis(members.valid_from),
                until: millis(members.valid_until),
            },
            _ => return None,
        })
    }
}

/// What the scanner shows for one read.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// What was read: the same read again while this shows is ignored.
    pub code: String,
    /// `Ok`: let in.
    pub verdict: Result<(), Refusal>,
    pub product: Option<String>,
    pub age_group: Option<String>,
    /// Judged on this device, without the server.
    pub offline: bool,
    /// When the code was read (`Date.now()`, milliseconds), for the page's own timing.
    pub read_ms: f64,
}

/// Formats a time (Unix milliseconds) for the answer: the gate's language and the merchant's
/// zone.
pub type TimeFormat = Callback<i64, String>;

/// The reason and detail lines of a refusal.
fn reason(texts: &Texts, refusal: &Refusal, time: TimeFormat) -> (String, Option<String>) {
    match refusal {
        Refusal::Unknown => (texts.reason_unknown.clone(), None),
        Refusal::Cancelled => (texts.reason_cancelled.clone(), None),
        Refusal::Used { first_at } => (
            texts.reason_used.clone(),
            first_at.map(|at| fill(&texts.first_used, &[("time", &time.run(at))])),
        ),
        Refusal::WrongGate => (texts.reason_wrong_gate.clone(), None),
        Refusal::NotNow { from, until } => (
            texts.reason_not_now.clone(),
            match (from, until) {
                (Some(from), Some(until)) => Some(fill(
                    &texts.valid_window,
                    &[("from", &time.run(*from)), ("until", &time.run(*until))],
                )),
                (Some(from), None) => Some(fill(&texts.valid_from, &[("from", &time.run(*from))])),
                _ => None,
            },
        ),
        Refusal::CheckOnline => (
            texts.reason_check_online.clone(),
            Some(texts.check_online_detail.clone()),
        ),
        Refusal::Failed => (
            texts.reason_failed.clone(),
            Some(texts.failed_detail.clone()),
        ),
    }
}

/// The answer, over the whole screen until "Next scan" (or another ticket's read).
#[component]
pub fn AnswerPanel(
    answer: Answer,
    texts: Signal<std::sync::Arc<Texts>>,
    time: TimeFormat,
    on_next: Callback<()>,
) -> impl IntoView {
    let next = NodeRef::<html::Button>::new();
    let shown_ms = RwSignal::new(None::<f64>);
    // Focus moves to the button, so Enter or Space goes on; the time it showed is kept for
    // the page's own measure of read-to-answer (docs/gate.md).
    Effect::new(move || {
        if let Some(button) = next.get() {
            let _ = button.focus();
            #[cfg(feature = "hydrate")]
            shown_ms.set(Some(super::browser::now_ms()));
        }
    });
    let admitted = answer.verdict.is_ok();
    let refusal = answer.verdict.clone().err();
    let read_ms = answer.read_ms;
    view! {
        <section
            class=if admitted { "gate-answer admit" } else { "gate-answer refuse" }
            role="alert"
            aria-labelledby="gate-answer-heading"
            data-read-ms=read_ms.to_string()
            data-shown-ms=move || shown_ms.get().map(|ms| ms.to_string())
            on:keydown=move |ev| {
                if ev.key() == "Escape" {
                    on_next.run(());
                }
            }
        >
            // A mark beside the colour, for whoever cannot tell the two apart.
            <p class="gate-mark" aria-hidden="true">{if admitted { "✓" } else { "✕" }}</p>
            <h2 id="gate-answer-heading" class="gate-verdict">
                {move || if admitted { texts.get().admit.clone() } else { texts.get().refuse.clone() }}
            </h2>
            {move || {
                refusal.as_ref().map(|refusal| {
                    let (reason, detail) = reason(&texts.get(), refusal, time);
                    view! {
                        <p class="gate-reason">{reason}</p>
                        {detail.map(|detail| view! { <p class="gate-detail">{detail}</p> })}
                    }
                })
            }}
            {answer.product.clone().map(|product| view! { <p class="gate-product">{product}</p> })}
            {answer.age_group.clone().map(|group| view! { <p class="gate-age">{move || texts.get().age_group(&group)}</p> })}
            {answer.offline.then(|| view! { <p class="gate-offline">{move || texts.get().checked_offline.clone()}</p> })}
            <button class="button gate-next" node_ref=next on:click=move |_| on_next.run(())>
                {move || texts.get().next.clone()}
            </button>
        </section>
    }
}
