//! URLs: a query value's encoding, and the frame's own address in the browser (its
//! parameters, rewritten in place by `history.replaceState`, so a reload keeps what the frame
//! chose to keep and nothing else).

/// Percent-encodes a query value.
pub fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[cfg(feature = "hydrate")]
pub mod address {
    /// The path of the frame's address (`/frame/…`).
    pub fn path() -> Option<String> {
        web_sys::window()?.location().pathname().ok()
    }

    /// The query parameters of the frame's address.
    pub fn params() -> Option<web_sys::UrlSearchParams> {
        let search = web_sys::window()?.location().search().ok()?;
        web_sys::UrlSearchParams::new_with_str(&search).ok()
    }

    /// Replaces the frame's address with its parameters as `change` leaves them.
    pub fn rewrite(change: impl FnOnce(&web_sys::UrlSearchParams)) {
        let Some(params) = params() else {
            return;
        };
        change(&params);
        let path = path().unwrap_or_else(|| "/frame".into());
        let query = String::from(params.to_string());
        if query.is_empty() {
            replace(&path);
        } else {
            replace(&format!("{path}?{query}"));
        }
    }

    /// Replaces the frame's address with `url`, without a step in the history.
    pub fn replace(url: &str) {
        if let Some(history) = web_sys::window().and_then(|w| w.history().ok()) {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(url));
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(
            super::encode("Den Haag & co/ü"),
            "Den%20Haag%20%26%20co%2F%C3%BC"
        );
    }
}
