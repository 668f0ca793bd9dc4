//! The Boxoffice server as a library, so that `main` stays thin and tests start the real
//! server on a random port.
//!
//! Where things are: `auth/` issues and checks credentials; `http/` holds the conventions every route shares (envelope, problems,
//! correlation id, locale, cursors, extractors) and assembles the router; `admin/` is the
//! operator API; `store/` is persistence on SQLite and Postgres; `frame.rs` serves the Leptos
//! webframe; `config.rs` is every setting.

pub mod admin;
pub mod after_sale;
pub mod api;
pub mod auth;
pub mod bench_baseline;
pub mod cache;
pub mod catalog;
pub mod checkout;
pub mod config;
pub mod credentials;
pub mod demo;
pub mod display_code;
pub mod error;
pub mod events;
pub mod frame;
pub mod fuzzing;
pub mod gate;
pub mod http;
pub mod ids;
pub mod images;
pub mod keyed;
pub mod keys;
pub mod mail;
pub mod octo;
pub mod onboarding;
pub mod outbound;
pub mod payments;
pub mod providers;
pub mod retry;
pub mod router;
pub mod sandbox;
pub mod secrets;
pub mod settlement;
pub mod state;
pub mod store;
pub mod sweeper;
pub mod text;
pub mod theme;
pub mod tickets;
pub mod time;
pub mod validate;

use std::{future::Future, sync::Arc, sync::OnceLock};

use anyhow::Context;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use secrecy::ExposeSecret;
use tokio::net::TcpListener;

use crate::{config::Config, keyed::Purpose, state::AppState};

/// Connects the store (running migrations), loads shared keys and prepares everything the
/// handlers need.
pub async fn build_state(config: Config) -> anyhow::Result<AppState> {
    config.check().map_err(anyhow::Error::msg)?;
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
    let tokens = keys::token_service(store.as_ref(), &config).await?;
    let mailer = mail::Mailer::new(&config)?;
    let keyed = keys::keyed_values(store.as_ref()).await?;
    let (sandbox_pay, sandbox_kyc) = if config.sandbox_payments {
        (
            Some(providers::sandbox::PaymentPageKey::new(
                keyed.key(Purpose::PaymentPage),
            )),
            Some(providers::sandbox::KycPageKey::new(
                keyed.key(Purpose::KycPage),
            )),
        )
    } else {
        (None, None)
    };
    let ticket_pages = tickets::TicketPageKey::new(keyed.key(Purpose::TicketPage));
    let hold_addresses = keyed.key(Purpose::HoldAddress);
    let google_wallet = tickets::google_wallet::GoogleWallet::from_config(&config)?;
    let apple_wallet = tickets::apple_wallet::AppleWallet::from_config(&config)?;
    let stripe = match config.payment_provider {
        config::PaymentProviderKind::Stripe => Some(Arc::new(
            providers::stripe::StripePayments::new(
                &config.stripe,
                config.base_url(),
                providers::sandbox::PaymentPageKey::new(keyed.key(Purpose::PaymentPage)),
                providers::sandbox::KycPageKey::new(keyed.key(Purpose::KycPage)),
            )
            .context("configuring Stripe")?,
        )),
        config::PaymentProviderKind::Sandbox => None,
    };
    let payments: Arc<dyn providers::PaymentProvider> = match &stripe {
        Some(stripe) => stripe.clone(),
        None => Arc::new(providers::sandbox::SandboxPayments::new(
            config.base_url(),
            sandbox_pay.clone(),
            sandbox_kyc.clone(),
        )),
    };
    let leptos = leptos_options(&config);
    let catalog = Arc::new(catalog::Catalog::new(&config));
    let identity = Arc::new(auth::identity::IdentityVerifier::new(config.outbound()));
    let auth = Arc::new(auth::cache::AuthCache::new(
        std::time::Duration::from_millis(config.auth_revision_interval_ms),
    ));
    let customer_copies = Arc::new(checkout::customer_copies::CustomerCopies::new(
        std::time::Duration::from_secs(config.catalog_cache_ttl_secs),
    ));
    let config = Arc::new(config);
    let authn = auth::Authn {
        config: config.clone(),
        store: store.clone(),
        tokens,
        auth: auth.clone(),
        identity,
    };
    let commerce = checkout::Commerce {
        config: config.clone(),
        store: store.clone(),
        catalog,
        fulfillment: Arc::default(),
        payments,
        stripe,
        auth,
        customer_copies,
        hold_addresses,
        ticket_tokens: authn.tokens.clone(),
    };
    let tickets = tickets::Tickets {
        config: config.clone(),
        store: store.clone(),
        tokens: authn.tokens.clone(),
        ticket_pages,
        google_wallet,
        apple_wallet,
    };
    let outbox = mail::outbox::Outbox {
        store: store.clone(),
        mailer,
        tickets: tickets.clone(),
    };
    Ok(AppState::new(state::Shared {
        config,
        store,
        cursors,
        authn,
        commerce,
        tickets,
        outbox,
        sandbox_pay,
        sandbox_kyc,
        metrics: metrics_handle(),
        leptos,
    }))
}

/// Serves `state` on `listener` until `shutdown` completes, then drains open requests.
pub async fn serve(
    listener: TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let (stop_workers, workers_stopped) = tokio::sync::watch::channel(false);
    let workers = tokio::spawn(events::webhooks::run(
        state.store.clone(),
        state.config.base_url(),
        std::time::Duration::from_millis(state.config.worker_interval_ms),
        workers_stopped,
        state.config.outbound(),
    ));
    let sweeper = tokio::spawn(sweeper::run(
        state.commerce.clone(),
        std::time::Duration::from_millis(state.config.worker_interval_ms),
        stop_workers.subscribe(),
    ));
    let mails = tokio::spawn(mail::outbox::run(
        state.outbox.clone(),
        std::time::Duration::from_millis(state.config.worker_interval_ms),
        stop_workers.subscribe(),
    ));
    // Built ahead, so the first search does not wait for the index.
    tokio::spawn({
        let (catalog, store) = (state.commerce.catalog.clone(), state.store.clone());
        async move {
            if let Err(err) = catalog.search_index(&store).await {
                tracing::warn!(error = ?err, "building the search index failed");
            }
        }
    });
    let store = state.store.clone();
    let (app, _) = router::router(state);
    // The peer address feeds the per-address rate limits of the credential endpoints.
    let app = app.into_make_service_with_connect_info::<std::net::SocketAddr>();
    // Answers leave at once: without TCP_NODELAY a response written in two parts can wait for
    // the client's delayed acknowledgement of the first (Nagle's algorithm).
    let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
        if let Err(err) = tcp.set_nodelay(true) {
            tracing::debug!(error = %err, "TCP_NODELAY could not be set");
        }
    });
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
        .context("serving HTTP");
    let _ = stop_workers.send(true);
    let _ = workers.await;
    let _ = sweeper.await;
    let _ = mails.await;
    // Last, when nothing uses the store: a cold copy of the database taken after a clean stop
    // is then complete (docs/operating.md, "Backups").
    store.close().await;
    served
}

/// The OpenAPI document of every route, as `/openapi.json` serves it.
pub fn openapi(state: AppState) -> serde_json::Value {
    router::router(state).1
}

/// Leptos settings: cargo-leptos passes `LEPTOS_*` at build and run time; a plain run of the
/// binary gets the defaults the workspace metadata names (`LEPTOS_OUTPUT_NAME` is compiled in
/// by `.cargo/config.toml`, the site root is `target/site` under the working directory).
fn leptos_options(config: &Config) -> leptos::config::LeptosOptions {
    let from_cargo_leptos = option_env!("LEPTOS_OUTPUT_NAME").is_some()
        || std::env::var_os("LEPTOS_OUTPUT_NAME").is_some();
    let mut options = from_cargo_leptos
        .then(|| leptos::config::get_config_from_env().ok())
        .flatten()
        .map(|c| c.leptos_options)
        .unwrap_or_else(|| {
            leptos::config::LeptosOptions::builder()
                .output_name("boxoffice")
                .site_root("target/site")
                .build()
        });
    options.site_addr = config.listen;
    options
}

/// The upper bounds, in seconds, of [`http::ops::REQUEST_DURATION`]'s buckets: from a cached
/// read (well under a millisecond) to a checkout waiting on a slow disk or provider.
pub const DURATION_BUCKETS: [f64; 14] = [
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// How many checkouts shared a group commit (`store/sqlite/group_commit.rs`).
pub const GROUP_BUCKETS: [f64; 8] = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0];

/// The process-wide Prometheus recorder (the `metrics` facade allows one per process). Request
/// durations and group commits' sizes are histograms, not summaries: buckets add up across
/// nodes, quantiles do not.
fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Full(http::ops::REQUEST_DURATION.into()),
                    &DURATION_BUCKETS,
                )
                .expect("the buckets are not empty")
                .set_buckets_for_metric(
                    metrics_exporter_prometheus::Matcher::Full(store::GROUP_COMMIT_MEMBERS.into()),
                    &GROUP_BUCKETS,
                )
                .expect("the buckets are not empty")
                .install_recorder()
                .expect("the metrics recorder is installed once")
        })
        .clone()
}

/// Logs to stderr as text or JSON lines, filtered by `BOXOFFICE_LOG`; text is coloured only
/// on a terminal and without `NO_COLOR` (no escape codes in a log file or a collector).
pub fn init_tracing(config: &Config) {
    use std::io::IsTerminal;
    let filter = tracing_subscriber::EnvFilter::try_new(&config.log)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let colour = log_in_colour(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR").as_deref(),
    );
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr);
    let _ = if config.log_json {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// Whether text logs get ANSI colours: only on a terminal, and not when `NO_COLOR` is set to
/// anything but the empty string (no-color.org).
pub fn log_in_colour(terminal: bool, no_color: Option<&std::ffi::OsStr>) -> bool {
    terminal && no_color.is_none_or(|value| value.is_empty())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    #[test]
    fn logs_are_coloured_only_on_a_terminal_without_no_color() {
        assert!(super::log_in_colour(true, None));
        assert!(super::log_in_colour(true, Some(OsStr::new(""))));
        assert!(!super::log_in_colour(true, Some(OsStr::new("1"))));
        assert!(!super::log_in_colour(false, None));
    }
}
