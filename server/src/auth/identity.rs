//! Verification of identity tokens that retail partners' identity providers issue (the iframe
//! handoff). The issuer must be on the allow-list before anything touches the network; the
//! issuer's keys are fetched from its JWKS URL (templated by the token's `apiKey`) and cached per
//! (issuer, apiKey, kid); an unknown kid triggers at most one refetch a minute per issuer and
//! apiKey, so forged kids cannot make us hammer the provider.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use jsonwebtoken::{jwk::JwkSet, Algorithm, DecodingKey, Validation};
use serde::Deserialize;

/// How long a failed lookup for an unknown kid blocks another fetch for the same issuer and apiKey.
const REFETCH_INTERVAL: Duration = Duration::from_secs(60);
/// How long fetched keys are trusted before they are fetched again, so a key the provider
/// withdrew stops verifying.
const KEY_TTL: Duration = Duration::from_secs(3600);
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
const LEEWAY_SECS: u64 = 30;

/// An allow-listed issuer, as the operator configured it.
#[derive(Debug, Clone)]
pub struct TrustedIssuer {
    pub issuer: String,
    /// The JWKS URL; `{apiKey}` is replaced by the token's `apiKey` claim.
    pub jwks_url_template: String,
    pub audience: Option<String>,
}

/// A verified identity.
#[derive(Debug, Clone, PartialEq)]
pub struct Identity {
    pub issuer: String,
    pub accountuid: String,
    pub loyalty_card: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// The token is malformed, from an unknown issuer, badly signed, expired, or lacks claims.
    #[error("identity token rejected: {0}")]
    Rejected(&'static str),
    /// The issuer's key endpoint could not be reached or answered nonsense.
    #[error("identity provider unavailable")]
    ProviderUnavailable,
}

#[derive(Deserialize)]
struct UnverifiedClaims {
    iss: Option<String>,
    #[serde(rename = "apiKey")]
    api_key: Option<String>,
}

#[derive(Deserialize)]
struct IdentityClaims {
    accountuid: Option<String>,
    loyalty_card: Option<serde_json::Value>,
}

type CacheKey = (String, String);

/// A provider key as fetched, with when it was fetched.
struct CachedKey {
    alg: Algorithm,
    key: DecodingKey,
    fetched: Instant,
}

/// Verifies identity tokens; holds the key cache, so keep one per process.
pub struct IdentityVerifier {
    http: reqwest::Client,
    keys: Mutex<HashMap<(CacheKey, String), CachedKey>>,
    last_fetch: Mutex<HashMap<CacheKey, Instant>>,
}

impl Default for IdentityVerifier {
    fn default() -> Self {
        Self {
            http: reqwest::Client::builder()
                .timeout(FETCH_TIMEOUT)
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("HTTP client builds"),
            keys: Mutex::default(),
            last_fetch: Mutex::default(),
        }
    }
}

impl std::fmt::Debug for IdentityVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("IdentityVerifier")
    }
}

/// The issuer a token claims, read without verifying it, so the allow-list can be consulted
/// before any key is fetched.
pub fn claimed_issuer(token: &str) -> Result<String, IdentityError> {
    unverified(token)?
        .iss
        .ok_or(IdentityError::Rejected("the token has no iss claim"))
}

fn unverified(token: &str) -> Result<UnverifiedClaims, IdentityError> {
    let payload = token
        .split('.')
        .nth(1)
        .ok_or(IdentityError::Rejected("the token is not a JWT"))?;
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| IdentityError::Rejected("the token is not a JWT"))?;
    serde_json::from_slice(&bytes).map_err(|_| IdentityError::Rejected("the token is not a JWT"))
}

impl IdentityVerifier {
    /// Verifies `token` as issued by `issuer` (already found on the allow-list).
    pub async fn verify(
        &self,
        token: &str,
        issuer: &TrustedIssuer,
    ) -> Result<Identity, IdentityError> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| IdentityError::Rejected("the token header is malformed"))?;
        if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
            return Err(IdentityError::Rejected(
                "only RS256 and ES256 tokens are accepted",
            ));
        }
        let kid = header
            .kid
            .ok_or(IdentityError::Rejected("the token has no kid"))?;
        let claims = unverified(token)?;
        if claims.iss.as_deref() != Some(issuer.issuer.as_str()) {
            return Err(IdentityError::Rejected("the token's issuer is not allowed"));
        }
        let api_key = claims.api_key.unwrap_or_default();
        let cache_key = (issuer.issuer.clone(), api_key.clone());

        let (alg, key) = match self.cached(&cache_key, &kid) {
            Some(found) => found,
            None => {
                self.refresh(issuer, &cache_key, &api_key).await?;
                self.cached(&cache_key, &kid)
                    .ok_or(IdentityError::Rejected("the token's key is unknown"))?
            }
        };
        if alg != header.alg {
            return Err(IdentityError::Rejected(
                "the token's algorithm does not match its key",
            ));
        }
        let mut validation = Validation::new(alg);
        validation.leeway = LEEWAY_SECS;
        validation.validate_nbf = true;
        validation.set_issuer(&[&issuer.issuer]);
        match &issuer.audience {
            Some(aud) => {
                validation.set_audience(&[aud]);
                validation.set_required_spec_claims(&["exp", "iss", "aud"]);
            }
            None => {
                validation.validate_aud = false;
                validation.set_required_spec_claims(&["exp", "iss"]);
            }
        }
        let data =
            jsonwebtoken::decode::<IdentityClaims>(token, &key, &validation).map_err(|_| {
                IdentityError::Rejected("the token's signature or claims are not valid")
            })?;
        let accountuid = data
            .claims
            .accountuid
            .filter(|a| !a.is_empty())
            .ok_or(IdentityError::Rejected("the token has no accountuid claim"))?;
        let loyalty_card = data.claims.loyalty_card.and_then(|v| match v {
            serde_json::Value::String(s) => Some(s),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        });
        Ok(Identity {
            issuer: issuer.issuer.clone(),
            accountuid,
            loyalty_card,
        })
    }

    fn cached(&self, cache_key: &CacheKey, kid: &str) -> Option<(Algorithm, DecodingKey)> {
        self.keys
            .lock()
            .expect("key cache lock")
            .get(&(cache_key.clone(), kid.to_owned()))
            .filter(|cached| cached.fetched.elapsed() < KEY_TTL)
            .map(|cached| (cached.alg, cached.key.clone()))
    }

    /// Fetches the issuer's JWKS unless it was fetched within the refetch interval.
    async fn refresh(
        &self,
        issuer: &TrustedIssuer,
        cache_key: &CacheKey,
        api_key: &str,
    ) -> Result<(), IdentityError> {
        {
            let mut last = self.last_fetch.lock().expect("fetch log lock");
            if last
                .get(cache_key)
                .is_some_and(|at| at.elapsed() < REFETCH_INTERVAL)
            {
                return Ok(());
            }
            last.insert(cache_key.clone(), Instant::now());
        }
        let url = jwks_url(&issuer.jwks_url_template, api_key)?;
        let response = self.http.get(url).send().await.map_err(|err| {
            tracing::warn!(issuer = %issuer.issuer, error = %err, "identity provider key fetch failed");
            IdentityError::ProviderUnavailable
        })?;
        if !response.status().is_success() {
            tracing::warn!(issuer = %issuer.issuer, status = %response.status(), "identity provider key fetch refused");
            return Err(IdentityError::ProviderUnavailable);
        }
        let set: JwkSet = response
            .json()
            .await
            .map_err(|_| IdentityError::ProviderUnavailable)?;
        let mut keys = self.keys.lock().expect("key cache lock");
        // The fetched set replaces what this issuer and apiKey had: withdrawn keys go.
        keys.retain(|(owner, _), _| owner != cache_key);
        let fetched = Instant::now();
        for jwk in &set.keys {
            let (Some(kid), Ok(key)) = (jwk.common.key_id.clone(), DecodingKey::from_jwk(jwk))
            else {
                continue;
            };
            let alg = match &jwk.algorithm {
                jsonwebtoken::jwk::AlgorithmParameters::RSA(_) => Algorithm::RS256,
                jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(ec)
                    if ec.curve == jsonwebtoken::jwk::EllipticCurve::P256 =>
                {
                    Algorithm::ES256
                }
                _ => continue,
            };
            keys.insert((cache_key.clone(), kid), CachedKey { alg, key, fetched });
        }
        Ok(())
    }
}

/// The JWKS URL for an apiKey; the key is percent-encoded so it cannot change the URL's shape.
pub fn jwks_url(template: &str, api_key: &str) -> Result<url::Url, IdentityError> {
    let encoded: String = url::form_urlencoded::byte_serialize(api_key.as_bytes()).collect();
    url::Url::parse(&template.replace("{apiKey}", &encoded))
        .map_err(|_| IdentityError::ProviderUnavailable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_claimed_issuer_is_read_without_verification() {
        let payload = URL_SAFE_NO_PAD.encode(br#"{"iss":"https://idp.example/","apiKey":"k"}"#);
        let token = format!("e30.{payload}.sig");
        assert_eq!(claimed_issuer(&token).unwrap(), "https://idp.example/");
        assert!(claimed_issuer("not-a-jwt").is_err());
        assert!(claimed_issuer(&format!("e30.{}.x", URL_SAFE_NO_PAD.encode(b"{}"))).is_err());
    }

    #[test]
    fn the_api_key_cannot_change_the_shape_of_the_jwks_url() {
        let url = jwks_url("https://idp.example/keys?apiKey={apiKey}", "a&b=c/../d").unwrap();
        assert_eq!(url.host_str(), Some("idp.example"));
        assert_eq!(url.path(), "/keys");
        assert_eq!(url.query_pairs().count(), 1);
    }
}
