//! Serves the hosted webframe: server-rendered Leptos pages, their server functions, and the
//! compiled WASM, JS and CSS under `/pkg`.

use axum::Router;
use leptos::prelude::provide_context;
use leptos_axum::{generate_route_list, LeptosRoutes};
use tower_http::services::ServeDir;

use crate::state::AppState;

pub fn router(state: &AppState) -> Router<AppState> {
    let options = state.leptos.clone();
    let routes = generate_route_list(app::App);
    let context_state = state.clone();
    let pkg_dir = format!("{}/{}", options.site_root, options.site_pkg_dir);
    Router::new()
        .leptos_routes_with_context(
            state,
            routes,
            move || provide_context(context_state.clone()),
            move || app::shell(options.clone()),
        )
        .nest_service("/pkg", ServeDir::new(pkg_dir))
}
