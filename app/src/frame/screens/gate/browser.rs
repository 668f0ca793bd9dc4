//! What the scanner asks of the browser beyond the network: the clock, local storage, the
//! merchant's calendar through `Intl`, and nonces.

use serde::{de::DeserializeOwned, Serialize};
use wasm_bindgen::JsValue;

/// The wall clock in milliseconds, for measuring read to answer.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The wall clock, Unix seconds.
pub fn unix_now() -> i64 {
    (js_sys::Date::now() / 1000.0) as i64
}

/// Whether the browser believes it is online (a failed request says so too).
pub fn online() -> bool {
    web_sys::window().is_none_or(|w| w.navigator().on_line())
}

/// A new scan's nonce.
pub fn nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok()?
}

/// A JSON value kept in local storage under `key`.
pub fn load<T: DeserializeOwned>(key: &str) -> Option<T> {
    let text = storage()?.get_item(key).ok()??;
    serde_json::from_str(&text).ok()
}

/// Keeps `value` under `key` (a full storage is not the scan's failure: it goes on).
pub fn store<T: Serialize>(key: &str, value: &T) {
    if let (Some(storage), Ok(text)) = (storage(), serde_json::to_string(value)) {
        let _ = storage.set_item(key, &text);
    }
}

pub fn forget(key: &str) {
    if let Some(storage) = storage() {
        let _ = storage.remove_item(key);
    }
}

fn zone_options(zone: &str) -> js_sys::Object {
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"timeZone".into(), &zone.into());
    options
}

/// Today's date in `zone` (an IANA name), `YYYY-MM-DD`: the Canadian English format is ISO's.
pub fn today_in(zone: &str) -> String {
    let options = zone_options(zone);
    for (key, value) in [
        ("year", "numeric"),
        ("month", "2-digit"),
        ("day", "2-digit"),
    ] {
        let _ = js_sys::Reflect::set(&options, &key.into(), &value.into());
    }
    String::from(js_sys::Date::new_0().to_locale_string("en-CA", &options))
}

/// `millis` (Unix milliseconds) as a day and time in `zone`, in the `locale`'s words.
pub fn day_and_time(millis: i64, locale: &str, zone: &str) -> String {
    let date = js_sys::Date::new(&JsValue::from_f64(millis as f64));
    let options = zone_options(zone);
    for (key, value) in [
        ("day", "numeric"),
        ("month", "short"),
        ("hour", "2-digit"),
        ("minute", "2-digit"),
    ] {
        let _ = js_sys::Reflect::set(&options, &key.into(), &value.into());
    }
    String::from(date.to_locale_string(locale, &options))
}
