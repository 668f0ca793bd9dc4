//! Reads the rest of a request body that the answer did not need, so that the answer arrives.
//!
//! A handler may answer before it read the body, or having read only part of it: a `401` from
//! the bearer extractor, a `413` once a token request passes its 16 KiB. hyper then stops
//! reading and closes the connection after writing the answer; the bytes the client is still
//! sending reach a socket closed with unread data, the kernel answers them with a reset, and a
//! reset makes the client's stack drop the answer it had not read yet (the reason HTTP/1.1
//! servers close "lingering", RFC 9112 §9.6). A client that sends the next request on that
//! connection before it sees it close gets no answer at all. hyper has no lingering close, so
//! this middleware does what it would: once the handler answered, it reads and drops what is
//! left of the body, up to `BOXOFFICE_BODY_LIMIT` in all and within the request timeout, before
//! the answer goes to hyper. The body then ended as HTTP expects, and the connection stays open
//! for the next request. A body beyond that bound is not read: the answer says
//! `connection: close`, which hyper honours and the client reads as "send nothing more here".
//!
//! The handler's body is shared with this middleware (`Shared`), since the handler consumes it;
//! a request without a body passes untouched.

use std::{
    pin::Pin,
    sync::{Arc, Mutex, MutexGuard, PoisonError},
    task::{Context, Poll},
    time::Duration,
};

use axum::{
    body::{Body, Bytes, HttpBody},
    extract::{Request, State},
    http::{header, HeaderValue},
    middleware::Next,
    response::Response,
};
use http_body::{Frame, SizeHint};
use http_body_util::BodyExt;

/// How much of a body may be read after an early answer, and for how long.
#[derive(Clone, Copy, Debug)]
pub struct Drain {
    /// `BOXOFFICE_BODY_LIMIT`: what the handler read counts towards it.
    pub limit: usize,
    /// The request timeout: a client that stops sending does not hold the answer longer.
    pub within: Duration,
}

/// The request body, shared by the handler (which reads it through `Shared`) and the drain.
struct Inner {
    body: Body,
    read: usize,
}

#[derive(Clone)]
struct Shared(Arc<Mutex<Inner>>);

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl HttpBody for Shared {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let mut inner = self.lock();
        let polled = Pin::new(&mut inner.body).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            inner.read += frame.data_ref().map_or(0, Bytes::len);
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.lock().body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.lock().body.size_hint()
    }
}

/// Hands the handler a shared body and, once it answered, reads what it left (module comment).
pub async fn middleware(State(drain): State<Drain>, request: Request, next: Next) -> Response {
    // A client that sent `Expect: 100-continue` waits for the verdict before it sends the body:
    // reading here would ask it for a body nobody wants. hyper closes that connection itself.
    let expects = request.headers().contains_key(header::EXPECT);
    if request.body().is_end_stream() || expects {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let shared = Shared(Arc::new(Mutex::new(Inner { body, read: 0 })));
    let mut response = next
        .run(Request::from_parts(parts, Body::new(shared.clone())))
        .await;
    if !drained(&shared, drain).await {
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    response
}

/// Reads the rest of the body within the bound; false when it did not end within it.
async fn drained(shared: &Shared, drain: Drain) -> bool {
    let (mut body, read) = {
        let mut inner = shared.lock();
        (std::mem::take(&mut inner.body), inner.read)
    };
    if body.is_end_stream() {
        return true;
    }
    let mut budget = drain.limit.saturating_sub(read);
    if body.size_hint().lower() > budget as u64 {
        return false;
    }
    let rest = async {
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return false };
            let length = frame.data_ref().map_or(0, Bytes::len);
            let Some(left) = budget.checked_sub(length) else {
                return false;
            };
            budget = left;
        }
        true
    };
    tokio::time::timeout(drain.within, rest)
        .await
        .unwrap_or(false)
}
