use clap::Parser;
use server::config::Config;

/// mimalloc over the system's allocator: a request allocates and frees many small blocks on
/// two threads at once, where glibc's bins and their consolidation took a tenth of a read's
/// time once the node held a large catalog (docs/benchmarks.md, "The frame's reads and the
/// customer's reads").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let config = Config::parse();
    server::init_tracing(&config);
    let listen = config.listen;
    let state = server::build_state(config).await?;
    // Only in demo mode: the demo's published credentials, for a newcomer to try the API.
    if let Some(banner) = server::demo::at_start(&state).await? {
        println!("{banner}");
    }
    let listener = tokio::net::TcpListener::bind(listen).await?;
    tracing::info!(address = %listen, backend = state.store.backend(), "Boxoffice is listening");
    server::serve(listener, state, shutdown_signal()).await
}

/// Completes on SIGTERM or Ctrl-C, so in-flight requests finish before the process exits.
async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        if let Ok(mut signal) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            signal.recv().await;
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
