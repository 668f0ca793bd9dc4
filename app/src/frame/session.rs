//! The frame's session as the browser holds it: where it stands (`SessionState`), the
//! parameters the frame was opened with (`Opening`), and the bearer kept in sessionStorage for
//! a reload of the opening it began in (`browser::resumable`, `browser::keep`). How a session
//! begins (the code's exchange, the identity handoff) is `entry.rs`; the code is redeemed by a
//! server function in `server.rs`; a deep link is `deep_link`.

use leptos::prelude::*;
#[cfg(feature = "hydrate")]
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::{deep_link::DeepLink, server::FrameSession};
use crate::wire::Attribution;

/// A frame opened for the identity handoff: whose it is and where the token may come from.
#[derive(Debug, Clone, PartialEq)]
pub struct IdentityEntry {
    pub client_id: String,
    pub campaign_id: Uuid,
    pub frame_origins: Vec<String>,
    pub return_url: Option<String>,
    pub attribution: Option<Attribution>,
}

/// Where the session stands in the browser.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionState {
    /// Not looked at yet (server render and the first moment after hydration).
    Pending,
    Active(FrameSession),
    /// Waiting for the host's `boxoffice:identity-token`.
    AwaitingIdentity(IdentityEntry),
    /// The session code had expired before the frame could redeem it.
    CodeExpired,
    /// The bearer expired (or was revoked) while the customer was here.
    BearerExpired,
    /// No code, no kept session, no identity handoff: opened outside a partner's page.
    Missing,
}

impl SessionState {
    pub fn active(&self) -> Option<&FrameSession> {
        match self {
            SessionState::Active(session) => Some(session),
            _ => None,
        }
    }
}

/// Where this session's customer came from, for a new reservation.
pub fn attribution() -> Option<Attribution> {
    use_session()
        .get_untracked()
        .active()
        .and_then(|s| s.attribution.clone())
}

/// The attribution of the frame's parameters named by `param`: each field that is 1 to 200
/// printable characters (others are left out, so a mangled link never blocks a purchase).
pub fn attribution_of(param: impl Fn(&str) -> Option<String>) -> Option<Attribution> {
    let mut attribution = Attribution::default();
    for name in Attribution::NAMES {
        let value = param(name).map(|v| v.trim().to_owned()).filter(|v| {
            let n = v.chars().count();
            (1..=200).contains(&n) && !v.chars().any(char::is_control)
        });
        if let Some(field) = attribution.field_mut(name) {
            *field = value;
        }
    }
    (!attribution.is_empty()).then_some(attribution)
}

/// The frame's session signal.
pub fn use_session() -> RwSignal<SessionState> {
    expect_context::<RwSignal<SessionState>>()
}

pub fn provide_session() {
    provide_context(RwSignal::new(SessionState::Pending));
    provide_context(CustomerDraft::default());
}

/// What the customer typed into the checkout form, kept for this opening of the frame: a
/// reservation made again after its hold ran out (or repriced by a voucher) shows the form
/// as they left it.
#[derive(Debug, Clone, Copy)]
pub struct CustomerDraft {
    pub email: RwSignal<String>,
    pub first_name: RwSignal<String>,
    pub last_name: RwSignal<String>,
    pub newsletter: RwSignal<bool>,
}

impl Default for CustomerDraft {
    fn default() -> Self {
        Self {
            email: RwSignal::new(String::new()),
            first_name: RwSignal::new(String::new()),
            last_name: RwSignal::new(String::new()),
            newsletter: RwSignal::new(false),
        }
    }
}

/// The checkout form's draft of this opening.
pub fn use_draft() -> CustomerDraft {
    expect_context::<CustomerDraft>()
}

/// The parameters the frame was opened with (read once, before the code leaves the URL).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Opening {
    pub session_code: Option<String>,
    pub client_id: Option<String>,
    pub campaign_id: Option<Uuid>,
    pub return_url: Option<String>,
    /// Where the frame was asked to open, when not on the list.
    pub deep_link: Option<DeepLink>,
    /// The host page's `utm_*` and `ref`, as embed.js passes them.
    pub attribution: Option<Attribution>,
    /// The mark the frame put into its own address when its session began: present only on
    /// a reload (or a step back) of that opening, the one case a kept session resumes in.
    pub mark: Option<String>,
}

#[cfg(feature = "hydrate")]
pub mod browser {
    use super::*;
    use crate::frame::url::address::{self, params};

    const STORAGE_KEY: &str = "boxoffice.session";
    /// The address parameter carrying the opening's mark (`Opening::mark`).
    const MARK_PARAM: &str = "opening";

    /// A session kept in this tab with the mark of the opening it began in.
    #[derive(Serialize, Deserialize)]
    struct Kept {
        mark: String,
        session: FrameSession,
    }

    /// sessionStorage, when the browser lets a framed page have it.
    fn storage() -> Option<web_sys::Storage> {
        web_sys::window()?.session_storage().ok().flatten()
    }

    /// The session this tab kept, when `opening` is a reload of the opening it began in: the
    /// same mark, partner client and campaign, and not expired. Any other opening of the
    /// frame (the partner's next customer on a shared device) starts afresh.
    pub fn resumable(opening: &Opening) -> Option<FrameSession> {
        let text = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
        let kept: Kept = serde_json::from_str(&text).ok()?;
        let session = kept.session;
        let same_opening = opening.mark.as_deref() == Some(kept.mark.as_str())
            && opening.client_id.as_deref() == Some(session.client_id.as_str())
            && opening
                .campaign_id
                .is_none_or(|c| session.campaign_id == Some(c));
        let live = session.expires_at.is_none_or(|at| at > chrono::Utc::now());
        (same_opening && live).then_some(session)
    }

    /// Keeps `session` for a reload of this opening: stored under a fresh mark, and the
    /// address rewritten without the code, with the mark and the client id (so a reload is
    /// framed under the same partner's origins, CSP) and every other parameter as it was.
    pub fn keep(session: &FrameSession) {
        let mark = format!(
            "{:012x}{:012x}",
            (js_sys::Math::random() * 2f64.powi(48)) as u64,
            (js_sys::Math::random() * 2f64.powi(48)) as u64
        );
        let kept = Kept {
            mark: mark.clone(),
            session: session.clone(),
        };
        if let (Some(storage), Ok(text)) = (storage(), serde_json::to_string(&kept)) {
            let _ = storage.set_item(STORAGE_KEY, &text);
        }
        address::rewrite(|params| {
            params.delete("session_code");
            params.set("client_id", &session.client_id);
            params.set(MARK_PARAM, &mark);
        });
    }

    /// The frame's address at `path` that resumes this tab's kept session, as a reload of
    /// its opening does (`resumable`): for a page that leaves the app and comes back.
    pub fn reopening(path: &str) -> Option<String> {
        let text = storage()?.get_item(STORAGE_KEY).ok().flatten()?;
        let kept: Kept = serde_json::from_str(&text).ok()?;
        let encode = crate::frame::url::encode;
        Some(format!(
            "{path}?client_id={}&{MARK_PARAM}={}",
            encode(&kept.session.client_id),
            encode(&kept.mark)
        ))
    }

    pub fn forget_stored() {
        if let Some(storage) = storage() {
            let _ = storage.remove_item(STORAGE_KEY);
        }
    }

    /// The frame's opening parameters from its address.
    pub fn opening() -> Opening {
        let Some(params) = params() else {
            return Opening::default();
        };
        let uuid = |name: &str| params.get(name).and_then(|v| v.parse().ok());
        Opening {
            session_code: params.get("session_code").filter(|c| !c.is_empty()),
            client_id: params.get("client_id").filter(|c| !c.is_empty()),
            campaign_id: uuid("campaign_id"),
            return_url: params.get("return_url").filter(|u| u.starts_with("http")),
            deep_link: DeepLink::parse(|name| params.get(name)),
            attribution: attribution_of(|name| params.get(name)),
            mark: params.get(MARK_PARAM).filter(|m| !m.is_empty()),
        }
    }

    /// Takes the code (and any mark) out of the address: a failed handoff leaves nothing
    /// to resume.
    pub fn forget_code() {
        address::rewrite(|params| {
            params.delete("session_code");
            params.delete(MARK_PARAM);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::attribution_of;

    #[test]
    fn attribution_keeps_printable_values_of_at_most_200_characters() {
        let long = "x".repeat(201);
        let a = attribution_of(|name| match name {
            "utm_source" => Some("newsletter".into()),
            "utm_medium" => Some(long.clone()),
            "utm_term" => Some("a\u{7}b".into()),
            "ref" => Some(" friend ".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(a.utm_source.as_deref(), Some("newsletter"));
        assert_eq!(a.utm_medium, None, "too long");
        assert_eq!(a.utm_term, None, "not printable");
        assert_eq!(a.reference.as_deref(), Some("friend"));
        assert_eq!(attribution_of(|_| None), None);
    }
}
