//! The Boxoffice server as a library, so that `main` stays thin and tests start the real
//! server on a random port.
//!
//! Where things are: `http/` holds the conventions every route shares (envelope, problems,
//! correlation id, locale, cursors, extractors) and assembles the router; `admin/` is the
//! operator API; `store/` is persistence on SQLite and Postgres; `frame.rs` serves the Leptos
//! webframe; `config.rs` is every setting.

pub mod admin;
pub mod config;
pub mod error;
pub mod frame;
pub mod http;
pub mod keys;
pub mod state;
pub mod store;

use std::{future::Future, sync::Arc, sync::OnceLock};

use anyhow::Context;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use secrecy::ExposeSecret;
use tokio::net::TcpListener;

use crate::{config::Config, state::AppState};

/// Connects the store (running migrations), loads shared keys and prepares everything the
/// handlers need.
pub async fn build_state(config: Config) -> anyhow::Result<AppState> {
    let database_url = match &config.database_url {
        Some(url) => url.expose_secret().to_owned(),
        None => {
            std::fs::create_dir_all(&config.data_dir).with_context(|| {
                format!("creating data directory {}", config.data_dir.display())
            })?;
            format!(
                "sqlite://{}",
                config.data_dir.join("boxoffice.db").display()
            )
        }
    };
    let store = store::connect(&database_url, config.db_max_connections)
        .await
        .context("opening the database")?;
    let cursors = keys::cursor_signer(store.as_ref()).await?;
    let leptos = leptos_options(&config);
    Ok(AppState {
        config: Arc::new(config),
        store,
        cursors,
        metrics: metrics_handle(),
        leptos,
    })
}

/// Serves `state` on `listener` until `shutdown` completes, then drains open requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (app, _) = http::router(state);
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .context("serving HTTP")
}

/// The OpenAPI document of every route, as `/openapi.json` serves it.
pub fn openapi(state: AppState) -> utoipa::openapi::OpenApi {
    http::router(state).1
}

/// Leptos settings: cargo-leptos passes `LEPTOS_*` at build and run time; a plain run of the
/// binary gets the defaults the workspace metadata names (`LEPTOS_OUTPUT_NAME` is compiled in
/// by `.cargo/config.toml`, the site root is `target/site` under the working directory).
fn leptos_options(config: &Config) -> leptos::config::LeptosOptions {
    let mut options = leptos::config::get_config_from_env()
        .map(|c| c.leptos_options)
        .unwrap_or_else(|_| {
            leptos::config::LeptosOptions::builder()
                .output_name("boxoffice")
                .site_root("target/site")
                .build()
        });
    if options.output_name.is_empty() {
        options.output_name = "boxoffice".into();
    }
    options.site_addr = config.listen;
    options
}

/// The process-wide Prometheus recorder (the `metrics` facade allows one per process).
fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .install_recorder()
                .expect("the metrics recorder is installed once")
        })
        .clone()
}

/// Logs to stderr as text or JSON lines, filtered by `BOXOFFICE_LOG`.
pub fn init_tracing(config: &Config) {
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    let _ = if config.log_json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}
