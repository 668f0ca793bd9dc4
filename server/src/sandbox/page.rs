use axum::response::Html;
use html_escape::encode_text;

/// A minimal, accessible HTML page; `body` is trusted markup, `title` is escaped.
pub fn page(title: &str, body: &str) -> Html<String> {
    Html(format!(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>body{{font-family:system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}}\
         button{{font-size:1rem;padding:.6rem 1.2rem;margin-right:.5rem}}.sandbox{{color:#8a4b00}}</style></head>\
         <body><p class=\"sandbox\">Sandbox payment provider</p><main>{body}</main></body></html>",
        title = encode_text(title),
    ))
}
