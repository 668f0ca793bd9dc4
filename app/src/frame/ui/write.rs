//! The frame's one way to write: [`write`] makes an `Action` over one of `Api`'s calls, whose
//! `pending()` disables the button that dispatches it (`dispatch_local`, the futures being
//! the browser's). The call's answer is handled inside the action (navigate, a message, the
//! fields in error), so a write needs no signals of its own.

use std::{future::Future, pin::Pin};

use leptos::prelude::*;

/// A write taking `I`, e.g. the request its call sends.
pub type Write<I> = Action<I, ()>;

/// One future type for every write, so the actions share one copy of their polling code
/// instead of one per write's future.
type Running = Pin<Box<dyn Future<Output = ()>>>;

/// An action that runs `run(input)` for each dispatch.
pub fn write<I, Fut>(run: impl Fn(&I) -> Fut + 'static) -> Write<I>
where
    I: 'static,
    Fut: Future<Output = ()> + 'static,
{
    Action::new_local(move |input: &I| -> Running { Box::pin(run(input)) })
}
