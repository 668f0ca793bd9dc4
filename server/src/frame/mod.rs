//! Serves the hosted webframe: server-rendered Leptos pages, their server functions, and the
//! compiled WASM, JS and CSS under `/pkg`.
//!
//! The site (what `cargo leptos build` writes: `pkg/` and the files of `public/`) is read from
//! `LEPTOS_SITE_ROOT`, default `target/site` relative to the working directory. cargo-leptos
//! runs the server from the workspace root with that variable set; a plain run of the binary
//! must start in the workspace root too (or set `LEPTOS_SITE_ROOT`).

mod backend;
pub mod first_page;
pub mod headers;
mod server_fn_errors;

use std::{
    path::Path,
    sync::{Arc, LazyLock},
};

use app::frame::server::FrameBackend;
use axum::{
    extract::{Request, State},
    middleware::{self, Next},
    response::{IntoResponse, Response},
    Router,
};
use leptos::prelude::{provide_context, use_context};
use leptos_axum::{generate_route_list, AxumRouteListing, LeptosRoutes};
use tower_http::services::{ServeDir, ServeFile};

use self::{
    backend::ServerFrameBackend,
    headers::{security_headers, CspNonce},
    server_fn_errors::server_fn_input_errors,
};
use crate::{
    error::{Error, ProblemType},
    http::rate_limit::{self, RateLimit},
    payments::page::gate as payment_page_gate,
    state::AppState,
};

/// Files of `public/` served from the site root: the frame's icon and the partners' embed
/// script.
const PUBLIC_FILES: &[&str] = &["favicon.svg", "embed.js"];

/// The app's routes, listed once per process. Listing them runs the app with every
/// `Resource` held back by a process-wide switch (`leptos_server`'s `SuppressResourceLoad`),
/// and a resource first polled while it is on waits forever: a page rendered for another
/// server in the same process (the API tests start hundreds, two nodes in one test) then
/// never finished its body.
static ROUTES: LazyLock<Vec<AxumRouteListing>> = LazyLock::new(|| generate_route_list(app::App));

pub fn router(state: &AppState) -> Router<AppState> {
    let options = state.leptos.clone();
    let routes = ROUTES.clone();
    let context_state = state.clone();
    let backend: Arc<dyn FrameBackend> = Arc::new(ServerFrameBackend(state.clone()));
    let site_root = Path::new(&*options.site_root).to_owned();
    let pkg = options.site_pkg_dir.trim_matches('/').to_owned();
    let pkg_dir = site_root.join(&pkg);
    let script = pkg_dir.join(format!("{}.js", options.output_name));
    if !script.is_file() {
        tracing::warn!(
            path = %script.display(),
            "the frame's WASM bundle is missing, so /frame will not hydrate: build with \
             `cargo leptos build` and start the server in the workspace root (or set LEPTOS_SITE_ROOT)"
        );
    }

    // Written into every page's head (`app::frame::SiteStyle`); read once, as the build left it.
    let site_style = std::fs::read_to_string(pkg_dir.join(format!("{}.css", options.output_name)))
        .ok()
        .map(|css| app::frame::SiteStyle(css.into()));
    let pages = Router::new()
        .leptos_routes_with_context(
            state,
            routes,
            move || {
                provide_context(context_state.clone());
                provide_context(backend.clone());
                if let Some(style) = &site_style {
                    provide_context(style.clone());
                }
                provide_response_nonce();
                provide_from_request::<app::frame::ThemeStyle>();
                provide_from_request::<app::frame::first_page::FirstPage>();
                provide_from_request::<app::frame::screens::gate::texts::GateTexts>();
            },
            move || app::shell(options.clone()),
        )
        .layer(middleware::from_fn_with_state(
            state.clone(),
            security_headers,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            payment_page_gate,
        ))
        .layer(middleware::from_fn(server_fn_input_errors))
        .layer(middleware::from_fn_with_state(
            RateLimit::per_minute(state.config.auth_rate_per_minute),
            limit_server_functions,
        ))
        .layer(middleware::from_fn_with_state(
            state.config.body_limit_bytes,
            body_limit,
        ));
    // The build writes brotli and gzip twins of every file (`.ci/precompress`); they are sent
    // as they are, so the WASM is compressed once at the highest level, not on every request.
    let pkg_files = ServeDir::new(pkg_dir)
        .precompressed_br()
        .precompressed_gzip();
    let mut router = pages.nest_service(&format!("/{pkg}"), pkg_files);
    for file in PUBLIC_FILES {
        let served = ServeFile::new(site_root.join(file))
            .precompressed_br()
            .precompressed_gzip();
        router = router.route_service(&format!("/{file}"), served);
    }
    router
}

/// The frame's server functions (`/frame/api/*`: the code exchange among them) are limited
/// per client address like the token and exchange endpoints, so the frame is no way around
/// their limit; its pages are not.
async fn limit_server_functions(
    State(limit): State<RateLimit>,
    request: Request,
    next: Next,
) -> Response {
    if request.uri().path().starts_with("/frame/api/") {
        rate_limit::middleware(State(limit), request, next).await
    } else {
        next.run(request).await
    }
}

/// Hands Leptos the nonce of this response's script policy (`headers`), in place of the
/// one leptos_axum makes for every render, so the hydration script it writes carries the nonce
/// the header names. Runs after leptos_axum's own contexts, so this one is the one used.
fn provide_response_nonce() {
    let nonce = use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<CspNonce>().cloned());
    if let Some(CspNonce(nonce)) = nonce {
        provide_context(leptos::nonce::Nonce::from_value(nonce));
    }
}

/// Hands the render what `headers` found for this page, if it found it: a frame page's
/// partner's look (`ThemeStyle`) and first screen's data (`FirstPage`), the scanner's texts
/// (`GateTexts`).
fn provide_from_request<T: Clone + Send + Sync + 'static>() {
    let found = use_context::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<T>().cloned());
    if let Some(found) = found {
        provide_context(found);
    }
}

/// Holds a frame request's body to `BOXOFFICE_BODY_LIMIT`, answering 413 `payload-too-large`
/// beyond it, as every other route does. Server functions stop reading at axum's
/// `DefaultBodyLimit` too, but report it as a deserialization error (a 400 naming `body`), so
/// the limit is applied here first, to declared and streamed bodies alike.
async fn body_limit(State(limit): State<usize>, request: Request, next: Next) -> Response {
    let too_large = || {
        Error::new(
            ProblemType::PayloadTooLarge,
            format!("The request body is larger than {limit} bytes."),
        )
        .into_response()
    };
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return too_large();
    }
    let (parts, body) = request.into_parts();
    match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => {
            next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
                .await
        }
        Err(_) => too_large(),
    }
}
