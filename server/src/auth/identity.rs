//! Verification of identity tokens that retail partners' identity providers issue (the iframe
//! handoff). The issuer must be on the allow-list before anything touches the network. The
//! token's `apiKey` claim, read before verification, is bounded in length and charset and must
//! be one the issuer lists when its JWKS URL template uses `{apiKey}` (an attacker's own
//! tenant at the same provider must not be trusted). The issuer's keys are fetched from its
//! JWKS URL (templated by that apiKey; a body of at most [`MAX_JWKS_BYTES`], only to public
//! addresses unless `BOXOFFICE_ALLOW_PRIVATE_OUTBOUND`) and cached per (issuer, apiKey) in a
//! bounded LRU; an unknown kid triggers at most one refetch a minute per issuer and apiKey, so
//! forged kids cannot make us hammer the provider.

use std::{
    collections::HashMap,
    num::NonZeroUsize,
    sync::Mutex,
    time::{Duration, Instant},
};

use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
use jsonwebtoken::{jwk::JwkSet, Algorithm, DecodingKey, Validation};
use lru::LruCache;
use serde::Deserialize;

use crate::outbound::{self, OutboundPolicy};

/// How long a failed lookup for an unknown kid blocks another fetch for the same issuer and apiKey.
const REFETCH_INTERVAL: Duration = Duration::from_secs(60);
/// How long fetched keys are trusted before they are fetched again, so a key the provider
/// withdrew stops verifying.
const KEY_TTL: Duration = Duration::from_secs(3600);
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
const LEEWAY_SECS: u64 = 30;
/// The largest JWKS body read from a provider.
pub const MAX_JWKS_BYTES: usize = 64 * 1024;
/// Keys kept from one JWKS; a provider rotating keys publishes two or three.
const MAX_KEYS_PER_SET: usize = 16;
/// Key sets (and fetch times) kept per process, one per (issuer, apiKey), least recently used
/// first out.
const CACHE_ENTRIES: usize = 1024;
/// The longest `apiKey` and `kid` accepted; both are read before the signature is checked.
pub const MAX_API_KEY_LEN: usize = 128;
const MAX_KID_LEN: usize = 128;

/// An allow-listed issuer, as the operator configured it.
#[derive(Debug, Clone)]
pub struct TrustedIssuer {
    pub issuer: String,
    /// The JWKS URL; `{apiKey}` is replaced by the token's `apiKey` claim.
    pub jwks_url_template: String,
    pub audience: Option<String>,
    /// The apiKeys whose keys are trusted. When the template uses `{apiKey}`, a token's apiKey
    /// must be listed here; no list then refuses every token.
    pub api_keys: Option<Vec<String>>,
}

impl TrustedIssuer {
    fn keys_depend_on_api_key(&self) -> bool {
        self.jwks_url_template.contains("{apiKey}")
    }
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

/// (issuer, apiKey); the apiKey is empty for an issuer whose keys do not depend on it.
type CacheKey = (String, String);

/// One issuer's (and apiKey's) keys by kid, as fetched, with when they were fetched.
struct KeySet {
    keys: HashMap<String, (Algorithm, DecodingKey)>,
    fetched: Instant,
}

/// `true` for an apiKey of 1 to [`MAX_API_KEY_LEN`] ASCII letters, digits, `.`, `_`, `~` or `-`
/// (the characters that travel unescaped in a URL).
pub fn is_valid_api_key(api_key: &str) -> bool {
    (1..=MAX_API_KEY_LEN).contains(&api_key.len())
        && api_key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'~' | b'-'))
}

fn bounded<K: std::hash::Hash + Eq, V>() -> Mutex<LruCache<K, V>> {
    Mutex::new(LruCache::new(
        NonZeroUsize::new(CACHE_ENTRIES).expect("non-zero"),
    ))
}

/// Verifies identity tokens; holds the key cache, so keep one per process.
pub struct IdentityVerifier {
    http: reqwest::Client,
    policy: OutboundPolicy,
    keys: Mutex<LruCache<CacheKey, KeySet>>,
    last_fetch: Mutex<LruCache<CacheKey, Instant>>,
}

impl IdentityVerifier {
    /// A verifier whose key fetches follow `policy`.
    pub fn new(policy: OutboundPolicy) -> Self {
        Self {
            http: outbound::client(policy, FETCH_TIMEOUT),
            policy,
            keys: bounded(),
            last_fetch: bounded(),
        }
    }

    /// How many (issuer, apiKey) key sets and fetch times are held (bounded by the LRU).
    pub fn cached_entries(&self) -> (usize, usize) {
        (
            self.keys.lock().expect("key cache lock").len(),
            self.last_fetch.lock().expect("fetch log lock").len(),
        )
    }
}

impl Default for IdentityVerifier {
    fn default() -> Self {
        Self::new(OutboundPolicy::PUBLIC_ONLY)
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
        if kid.is_empty() || kid.len() > MAX_KID_LEN {
            return Err(IdentityError::Rejected("the token's kid is malformed"));
        }
        let claims = unverified(token)?;
        if claims.iss.as_deref() != Some(issuer.issuer.as_str()) {
            return Err(IdentityError::Rejected("the token's issuer is not allowed"));
        }
        let api_key = trusted_api_key(issuer, claims.api_key)?;
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
            .get(cache_key)
            .filter(|set| set.fetched.elapsed() < KEY_TTL)
            .and_then(|set| set.keys.get(kid).cloned())
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
            last.put(cache_key.clone(), Instant::now());
        }
        let url = jwks_url(&issuer.jwks_url_template, api_key)?;
        if outbound::check_url(url.as_str(), self.policy).is_err() {
            tracing::warn!(issuer = %issuer.issuer, "identity provider key URL refused: not a public address");
            return Err(IdentityError::ProviderUnavailable);
        }
        // Errors are logged without their URL: it carries the apiKey.
        let response = self.http.get(url).send().await.map_err(|err| {
            tracing::warn!(issuer = %issuer.issuer, error = %err.without_url(), "identity provider key fetch failed");
            IdentityError::ProviderUnavailable
        })?;
        if !response.status().is_success() {
            tracing::warn!(issuer = %issuer.issuer, status = %response.status(), "identity provider key fetch refused");
            return Err(IdentityError::ProviderUnavailable);
        }
        let body = outbound::read_capped(response, MAX_JWKS_BYTES)
            .await
            .map_err(|err| {
                tracing::warn!(issuer = %issuer.issuer, error = %err, "identity provider key set unreadable");
                IdentityError::ProviderUnavailable
            })?;
        let set: JwkSet =
            serde_json::from_slice(&body).map_err(|_| IdentityError::ProviderUnavailable)?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            if keys.len() >= MAX_KEYS_PER_SET {
                break;
            }
            let (Some(kid), Ok(key)) = (jwk.common.key_id.clone(), DecodingKey::from_jwk(jwk))
            else {
                continue;
            };
            if kid.len() > MAX_KID_LEN {
                continue;
            }
            let alg = match &jwk.algorithm {
                jsonwebtoken::jwk::AlgorithmParameters::RSA(_) => Algorithm::RS256,
                jsonwebtoken::jwk::AlgorithmParameters::EllipticCurve(ec)
                    if ec.curve == jsonwebtoken::jwk::EllipticCurve::P256 =>
                {
                    Algorithm::ES256
                }
                _ => continue,
            };
            keys.insert(kid, (alg, key));
        }
        // The fetched set replaces what this issuer and apiKey had: withdrawn keys go.
        self.keys.lock().expect("key cache lock").put(
            cache_key.clone(),
            KeySet {
                keys,
                fetched: Instant::now(),
            },
        );
        Ok(())
    }
}

/// The apiKey the token's keys are looked up under: checked for shape, and for an issuer whose
/// keys depend on it, listed by the operator. An issuer whose keys do not depend on it ignores
/// the claim (its keys are cached under the empty apiKey).
fn trusted_api_key(
    issuer: &TrustedIssuer,
    claimed: Option<String>,
) -> Result<String, IdentityError> {
    if !issuer.keys_depend_on_api_key() {
        return Ok(String::new());
    }
    let api_key = claimed.ok_or(IdentityError::Rejected("the token has no apiKey claim"))?;
    if !is_valid_api_key(&api_key) {
        return Err(IdentityError::Rejected("the token's apiKey is malformed"));
    }
    let listed = issuer
        .api_keys
        .as_ref()
        .is_some_and(|keys| keys.contains(&api_key));
    if !listed {
        return Err(IdentityError::Rejected(
            "the token's apiKey is not one its issuer is trusted for",
        ));
    }
    Ok(api_key)
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

    fn issuer_listing(api_keys: Option<Vec<String>>) -> TrustedIssuer {
        TrustedIssuer {
            issuer: "https://idp.example/".into(),
            // A closed port on loopback: under the public-only policy never even connected to.
            jwks_url_template: "http://127.0.0.1:9/keys?apiKey={apiKey}".into(),
            audience: None,
            api_keys,
        }
    }

    fn unsigned_token(api_key: &str) -> String {
        let header = URL_SAFE_NO_PAD.encode(br#"{"alg":"RS256","kid":"k1"}"#);
        let claims = serde_json::json!({ "iss": "https://idp.example/", "apiKey": api_key });
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        format!("{header}.{payload}.c2ln")
    }

    #[test]
    fn api_keys_are_bounded_in_length_and_charset() {
        assert!(is_valid_api_key("3_R-etail.key~1"));
        assert!(is_valid_api_key(&"k".repeat(MAX_API_KEY_LEN)));
        for bad in [
            String::new(),
            "k".repeat(MAX_API_KEY_LEN + 1),
            "a b".into(),
            "a/b".into(),
            "sleutel€".into(),
        ] {
            assert!(!is_valid_api_key(&bad), "{bad}");
        }
    }

    #[tokio::test]
    async fn an_unlisted_or_malformed_api_key_is_refused_before_any_fetch() {
        let verifier = IdentityVerifier::default();
        let issuer = issuer_listing(Some(vec!["listed".into()]));
        for api_key in ["unlisted", &"x".repeat(2000)] {
            let err = verifier
                .verify(&unsigned_token(api_key), &issuer)
                .await
                .unwrap_err();
            assert!(matches!(err, IdentityError::Rejected(_)), "{err:?}");
        }
        // No list while the template uses {apiKey}: nothing is trusted.
        let err = verifier
            .verify(&unsigned_token("listed"), &issuer_listing(None))
            .await
            .unwrap_err();
        assert!(matches!(err, IdentityError::Rejected(_)), "{err:?}");
        assert_eq!(verifier.cached_entries(), (0, 0), "nothing was fetched");
    }

    #[tokio::test]
    async fn the_key_cache_and_fetch_log_stay_bounded() {
        let verifier = IdentityVerifier::default();
        let many: Vec<String> = (0..CACHE_ENTRIES + 500).map(|i| format!("k{i}")).collect();
        let issuer = issuer_listing(Some(many.clone()));
        for api_key in &many {
            // The loopback JWKS URL is refused by the public-only policy: unavailable.
            let err = verifier
                .verify(&unsigned_token(api_key), &issuer)
                .await
                .unwrap_err();
            assert_eq!(err, IdentityError::ProviderUnavailable);
        }
        let (keys, fetches) = verifier.cached_entries();
        assert!(
            keys <= CACHE_ENTRIES && fetches <= CACHE_ENTRIES,
            "{keys} {fetches}"
        );
        assert_eq!(fetches, CACHE_ENTRIES);
    }
}
