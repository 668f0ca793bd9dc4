use axum::http::HeaderMap;
use standardwebhooks::Webhook;

/// The delivered CloudEvent, or an error unless Boxoffice signed it. `secret` is your client's
/// webhook secret (`whsec_…`); `body` the request body exactly as received.
pub fn verified_event(
    secret: &str,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    Webhook::new(secret)?.verify(body, headers)?;
    Ok(serde_json::from_slice(body)?)
}
