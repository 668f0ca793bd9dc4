//! The paired scanner's screen: the network and upload status, the camera, the typed code,
//! and the answer over everything.

use std::sync::Arc;

use leptos::{html, prelude::*};

use super::{
    answer::{Answer, AnswerPanel, TimeFormat},
    texts::{fill, Texts},
};
use crate::wire::PairedDevice;

/// What the status line says about the network and the uploads.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Status {
    pub online: bool,
    /// When today's list was made (Unix seconds), if the device has it.
    pub list_made_at: Option<i64>,
    pub waiting: usize,
    /// An upload went through since the last offline scan.
    pub uploaded: bool,
    /// Uploaded scans the server kept as double entries or refused.
    pub reported: usize,
}

#[cfg_attr(not(feature = "hydrate"), allow(dead_code))]
#[derive(Debug, Clone, Copy, PartialEq)]
enum CameraState {
    Starting,
    On,
    Off,
}

/// The screen of a paired device. `on_revoked` runs when the gate no longer accepts it.
#[component]
pub fn Scanner(
    device: PairedDevice,
    texts: Signal<Arc<Texts>>,
    time: TimeFormat,
    on_revoked: Callback<()>,
) -> impl IntoView {
    let answer = RwSignal::new(None::<Answer>);
    let checking = RwSignal::new(false);
    let status = RwSignal::new(Status {
        online: true,
        ..Status::default()
    });
    let camera_state = RwSignal::new(CameraState::Starting);
    let video = NodeRef::<html::Video>::new();
    let typed = NodeRef::<html::Input>::new();
    // The last answer came from a typed code: "Next scan" puts the cursor back there.
    let last_typed = StoredValue::new(false);

    #[cfg(feature = "hydrate")]
    let read = work::start(
        device,
        work::Signals {
            answer,
            checking,
            status,
            camera_state,
        },
        video,
        on_revoked,
    );
    #[cfg(not(feature = "hydrate"))]
    let read = {
        let _ = (device, on_revoked, video);
        Callback::new(|_: (String, f64)| {})
    };

    let on_next = Callback::new(move |()| {
        answer.set(None);
        if last_typed.get_value() {
            if let Some(input) = typed.get() {
                let _ = input.focus();
            }
        }
    });
    let submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let Some(input) = typed.get() else { return };
        let code = input.value().trim().to_owned();
        if code.is_empty() {
            return;
        }
        input.set_value("");
        last_typed.set_value(true);
        #[cfg(feature = "hydrate")]
        read.run((code, super::browser::now_ms()));
        #[cfg(not(feature = "hydrate"))]
        read.run((code, 0.0));
    };
    let status_line = move || status_text(&texts.get(), status.get(), time);
    view! {
        <p class="gate-status" class:offline=move || !status.get().online role="status">
            {status_line}
        </p>
        <div class="gate-camera-box">
            <video
                class="gate-camera"
                node_ref=video
                aria-label=move || texts.get().camera.clone()
                playsinline=true
                autoplay=true
                muted=true
                hidden=move || camera_state.get() == CameraState::Off
            ></video>
            <p class="gate-hint">
                {move || match camera_state.get() {
                    CameraState::Off => texts.get().camera_off.clone(),
                    _ => texts.get().camera_hint.clone(),
                }}
            </p>
        </div>
        <form class="gate-typed" on:submit=submit>
            <label for="gate-code">{move || texts.get().code_label.clone()}</label>
            <div class="gate-typed-row">
                <input
                    id="gate-code"
                    node_ref=typed
                    type="text"
                    autocomplete="off"
                    autocapitalize="characters"
                    spellcheck="false"
                    enterkeyhint="go"
                />
                <button type="submit" class="button primary">{move || texts.get().check.clone()}</button>
            </div>
        </form>
        <p class="gate-checking" aria-live="polite">
            {move || checking.get().then(|| texts.get().checking.clone())}
        </p>
        {move || answer.get().map(|answer| view! { <AnswerPanel answer texts time on_next/> })}
    }
}

/// The status line: online or not, the list's age, what waits and what the last upload found.
fn status_text(texts: &Texts, status: Status, time: TimeFormat) -> String {
    let mut parts = vec![if status.online {
        texts.online.clone()
    } else {
        texts.offline.clone()
    }];
    parts.push(match status.list_made_at {
        Some(at) => fill(&texts.list_from, &[("time", &time.run(at * 1000))]),
        None => texts.no_list.clone(),
    });
    if status.waiting > 0 {
        parts.push(Texts::counted(
            &texts.waiting_one,
            &texts.waiting_other,
            status.waiting,
        ));
    } else if status.uploaded {
        parts.push(texts.uploaded.clone());
    }
    if status.reported > 0 {
        parts.push(Texts::counted(
            &texts.reported_one,
            &texts.reported_other,
            status.reported,
        ));
    }
    parts.join(" · ")
}

/// The browser side: the station, the camera, and the events that drive uploads.
#[cfg(feature = "hydrate")]
mod work {
    use std::rc::Rc;

    use leptos::{html, prelude::*, task::spawn_local};

    use super::{super::answer::Answer, CameraState, Status};
    use crate::{
        frame::screens::gate::{camera, client::Failure, station::Station},
        wire::PairedDevice,
    };

    /// How often the day's list is fetched again while online.
    const REFRESH_MS: u64 = 5 * 60 * 1000;
    /// How often waiting scans are tried again.
    const RETRY_MS: u64 = 30 * 1000;

    #[derive(Clone, Copy)]
    pub struct Signals {
        pub answer: RwSignal<Option<Answer>>,
        pub checking: RwSignal<bool>,
        pub status: RwSignal<Status>,
        pub camera_state: RwSignal<CameraState>,
    }

    /// Starts the station; the callback checks one read (a code and when it was read).
    pub fn start(
        device: PairedDevice,
        signals: Signals,
        video: NodeRef<html::Video>,
        on_revoked: Callback<()>,
    ) -> Callback<(String, f64)> {
        let station = Rc::new(Station::new(device));
        let shared = StoredValue::new_local(station.clone());
        let show = move || {
            let station = shared.get_value();
            signals.status.update(|s| {
                s.waiting = station.waiting();
                s.list_made_at = station.list_made_at();
            });
        };
        show();
        let failed = move |failure: Failure| match failure {
            Failure::Revoked => on_revoked.run(()),
            Failure::Offline => signals.status.update(|s| s.online = false),
            _ => {}
        };
        // Online again (or at start): upload what waits, then fetch the day's list.
        let sync = move || {
            let station = shared.get_value();
            spawn_local(async move {
                match station.upload().await {
                    Ok(uploaded) => signals.status.update(|s| {
                        s.online = true;
                        s.uploaded |= s.waiting > 0 && station.waiting() == 0;
                        s.reported += uploaded.reported;
                    }),
                    Err(failure) => return failed(failure),
                }
                match station.refresh().await {
                    Ok(()) => signals.status.update(|s| s.online = true),
                    Err(failure) => failed(failure),
                }
                show();
            });
        };
        sync();
        listen("online", sync);
        listen("offline", move || {
            signals.status.update(|s| s.online = false)
        });
        let retry = set_interval_with_handle(
            move || {
                if shared.get_value().waiting() > 0 && super::super::browser::online() {
                    sync();
                }
            },
            std::time::Duration::from_millis(RETRY_MS),
        );
        let refresh = set_interval_with_handle(sync, std::time::Duration::from_millis(REFRESH_MS));
        on_cleanup(move || {
            for handle in [retry, refresh].into_iter().flatten() {
                handle.clear();
            }
        });

        let i18n = crate::i18n::use_i18n();
        let read = Callback::new(move |(code, read_ms): (String, f64)| {
            let Signals {
                answer,
                checking,
                status,
                ..
            } = signals;
            if checking.get_untracked() {
                return;
            }
            if answer.with_untracked(|a| a.as_ref().is_some_and(|a| a.code == code)) {
                return;
            }
            checking.set(true);
            let station = shared.get_value();
            spawn_local(async move {
                let locale = leptos_i18n::Locale::as_str(i18n.get_locale_untracked());
                let result = station.check(&code, read_ms, locale).await;
                checking.set(false);
                match result {
                    Ok(found) => {
                        status.update(|s| {
                            s.online = !found.offline;
                            s.waiting = station.waiting();
                            if found.offline && found.verdict.is_ok() {
                                s.uploaded = false;
                            }
                        });
                        answer.set(Some(found));
                    }
                    Err(failure) => failed(failure),
                }
            });
        });
        start_camera(video, signals.camera_state, read);
        read
    }

    /// Starts the camera once the video element is there; it stops with the screen.
    fn start_camera(
        video: NodeRef<html::Video>,
        state: RwSignal<CameraState>,
        read: Callback<(String, f64)>,
    ) {
        let running = StoredValue::new_local(None::<camera::Camera>);
        Effect::new(move || {
            let Some(element) = video.get() else { return };
            spawn_local(async move {
                match camera::start(element, move |code, at| read.run((code, at))).await {
                    Ok(started) => {
                        running.set_value(Some(started));
                        state.set(CameraState::On);
                    }
                    Err(_) => state.set(CameraState::Off),
                }
            });
        });
        on_cleanup(move || running.set_value(None));
    }

    /// Runs `then` on each of the window's `event`s while the screen lives.
    fn listen(event: &'static str, then: impl Fn() + 'static) {
        let handle = window_event_listener_untyped(event, move |_| then());
        on_cleanup(move || handle.remove());
    }
}
