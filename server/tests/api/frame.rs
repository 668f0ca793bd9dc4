//! The hosted frame's server-rendered shell.

use crate::helpers::spawn_app;

#[tokio::test]
async fn the_frame_is_server_rendered_with_the_script_that_hydrates_it() {
    let app = spawn_app().await;

    let response = app.get("/frame").await;

    assert_eq!(response.status.as_u16(), 200, "body: {}", response.text);
    assert!(response
        .header("content-type")
        .is_some_and(|ct| ct.starts_with("text/html")));
    let html = &response.text;
    assert!(html.contains(r#"<html lang="nl-NL""#), "{html}");
    assert!(html.contains("Welkom bij Boxoffice"), "{html}");
    // The bundle names cargo-leptos writes (no wasm-bindgen `_bg` suffix), from any build.
    assert!(html.contains(r#"href="/pkg/boxoffice.js""#), "{html}");
    assert!(html.contains(r#"href="/pkg/boxoffice.wasm""#), "{html}");
    assert!(html.contains("mod.hydrate()"), "{html}");
    assert!(html.contains(r#"href="/pkg/boxoffice.css""#), "{html}");
}

#[tokio::test]
async fn a_missing_bundle_file_is_a_not_found_problem() {
    let app = spawn_app().await;

    let response = app.get("/pkg/no-such-file.js").await;

    response.assert_problem(404, "not-found");
}
