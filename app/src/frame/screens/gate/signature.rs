//! Checking a compact JWS's Ed25519 signature in the browser, with WebCrypto (Chromium 137+,
//! Firefox 129+, Safari 17+): no signature code in the WASM, and the keys are the server's
//! published ones (`/.well-known/jwks.json`, by `kid`).

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::{client::Jwk, offline::Jws};

fn object(pairs: &[(&str, &str)]) -> Object {
    let object = Object::new();
    for (key, value) in pairs {
        let _ = Reflect::set(&object, &(*key).into(), &(*value).into());
    }
    object
}

/// Whether `jws` is signed by one of `keys` (its `kid`'s).
pub async fn verifies<T>(jws: &Jws<T>, keys: &[Jwk]) -> bool {
    let Some(key) = keys.iter().find(|key| key.kid == jws.kid) else {
        return false;
    };
    check(jws, key).await.unwrap_or(false)
}

async fn check<T>(jws: &Jws<T>, key: &Jwk) -> Result<bool, JsValue> {
    let (Some("Ed25519"), Some(x)) = (key.crv.as_deref(), key.x.as_deref()) else {
        return Ok(false);
    };
    let subtle = web_sys::window().ok_or(JsValue::NULL)?.crypto()?.subtle();
    let algorithm = object(&[("name", "Ed25519")]);
    let jwk = object(&[("kty", "OKP"), ("crv", "Ed25519"), ("x", x)]);
    let usages = Array::of1(&"verify".into());
    let imported =
        JsFuture::from(subtle.import_key_with_object("jwk", &jwk, &algorithm, false, &usages)?)
            .await?;
    let key: web_sys::CryptoKey = imported.unchecked_into();
    let verified = JsFuture::from(subtle.verify_with_object_and_u8_array_and_u8_array(
        &algorithm,
        &key,
        &jws.signature,
        jws.signing_input.as_bytes(),
    )?)
    .await?;
    Ok(verified.as_bool().unwrap_or(false))
}
