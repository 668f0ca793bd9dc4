//! Issuing and verifying our own JWTs: backend, public and merchant bearers.
//!
//! All three are EdDSA (Ed25519) with a `kid`, published in the JWKS. Each kind has its own
//! audience, and verification demands the audience of the place it is used, so none is accepted
//! where another belongs. The algorithm is pinned (no `alg: none`, no HS256 signed with our
//! public key), and `iss`, `aud` and `exp` are required claims, not checked only when present.

use std::{
    collections::HashMap,
    num::NonZeroUsize,
    sync::{
        atomic::{AtomicI64, Ordering},
        Arc, Mutex, RwLock,
    },
};

use chrono::Utc;
use jsonwebtoken::{
    decode, decode_header, encode, Algorithm, DecodingKey, EncodingKey, Header, Validation,
};
use serde::{de::DeserializeOwned, Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 30;

/// Which kind of bearer a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Audience {
    /// Server-to-server, from client credentials.
    Backend,
    /// Session-scoped, for browsers and the frame.
    Public,
    /// A merchant's, from the onboarding magic link.
    Merchant,
    /// Not a bearer: a paid order's receipt for the embedding page (`checkout::receipt`).
    Receipt,
    /// A merchant's gate, or a device paired with it (docs/gate.md).
    Gate,
}

impl Audience {
    pub fn as_str(self) -> &'static str {
        match self {
            Audience::Backend => "boxoffice-backend",
            Audience::Public => "boxoffice-public",
            Audience::Merchant => "boxoffice-merchant",
            Audience::Receipt => "boxoffice-receipt",
            Audience::Gate => "boxoffice-gate",
        }
    }
}

impl Audience {
    /// The audience named `aud`, if it is one of ours.
    fn from_aud(aud: &str) -> Option<Self> {
        [
            Audience::Backend,
            Audience::Public,
            Audience::Merchant,
            Audience::Receipt,
            Audience::Gate,
        ]
        .into_iter()
        .find(|a| a.as_str() == aud)
    }
}

/// Why a token was refused: `Expired` maps to `token-expired`, the others to `token-invalid`,
/// whose detail says which case it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenRejection {
    Expired,
    /// Not one of ours: malformed, signed by a key we do not hold, a bad signature.
    Invalid,
    /// Signed by our keys for another audience (a backend bearer where a public one belongs):
    /// the audience it was issued for.
    OtherAudience(Audience),
    /// Signed by our keys under another server address (`iss`), e.g. by a node with another
    /// `BOXOFFICE_PUBLIC_URL` over the same database.
    OtherIssuer(String),
}

/// The registered claims every bearer of ours carries.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Registered {
    pub iss: String,
    pub aud: String,
    pub sub: String,
    pub iat: i64,
    pub exp: i64,
    pub jti: Uuid,
}

/// A backend bearer's claims: the subject is the partner's `client_id`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BackendClaims {
    #[serde(flatten)]
    pub registered: Registered,
    /// The client secret it was issued under (`secrets::secret_version`).
    #[serde(default)]
    pub sv: String,
}

/// A public bearer's claims: the subject is the customer id, `sid` the session.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PublicClaims {
    #[serde(flatten)]
    pub registered: Registered,
    pub sid: Uuid,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub campaign_id: Option<Uuid>,
    pub mode: crate::store::SessionMode,
    #[serde(default)]
    pub integrator_params: serde_json::Map<String, serde_json::Value>,
}

/// A gate bearer's claims: the subject is the gate id; `cid` the client id it was issued to
/// (the gate's own or a paired device's) and `sv` that credential's secret version.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GateClaims {
    #[serde(flatten)]
    pub registered: Registered,
    pub cid: String,
    pub sv: String,
}

/// A merchant bearer's claims: the subject is the merchant account id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MerchantClaims {
    #[serde(flatten)]
    pub registered: Registered,
}

/// One Ed25519 key: the private half signs, the public half verifies and is published.
#[derive(Clone)]
pub struct Ed25519Key {
    pub kid: String,
    /// PKCS#8 DER.
    pub private_der: Vec<u8>,
    /// The raw 32-byte public key.
    pub public_raw: Vec<u8>,
}

/// Issues tokens with the active key and verifies them with any published key. The keys can
/// be replaced while the server runs (`replace_keys`): a rotation made through one node reaches
/// the others when they first meet a `kid` they do not know (`keys::verify_current`).
#[derive(Clone)]
pub struct TokenService {
    issuer: Arc<str>,
    keys: Arc<RwLock<Arc<KeySet>>>,
    /// When the keys were last reloaded for an unknown `kid`, in seconds since the epoch.
    reloaded_at: Arc<AtomicI64>,
}

/// Bearers a key set verified that are kept, at most (`KeySet::verified`).
const VERIFIED_KEPT: usize = 20_000;

/// The keys of one moment: the active one signs, every one verifies and is published.
struct KeySet {
    signing_kid: String,
    encoding: EncodingKey,
    verifying: HashMap<String, DecodingKey>,
    published: Vec<(String, Vec<u8>)>,
    /// Tokens whose signature these keys verified, by their SHA-256 and the audience they were
    /// verified for, with their claims: a session sends the same bearer with every call, and
    /// the signature check was most of what a cached read cost (docs/benchmarks.md). Only
    /// the expiry is checked again. New keys make a new set, so nothing outlives its keys.
    verified: Mutex<lru::LruCache<([u8; 32], Audience), Verified>>,
}

impl KeySet {
    fn new(active: &Ed25519Key, retired: &[Ed25519Key]) -> Self {
        let mut verifying = HashMap::new();
        let mut published = Vec::new();
        for key in std::iter::once(active).chain(retired) {
            verifying.insert(key.kid.clone(), DecodingKey::from_ed_der(&key.public_raw));
            published.push((key.kid.clone(), key.public_raw.clone()));
        }
        Self {
            signing_kid: active.kid.clone(),
            encoding: EncodingKey::from_ed_der(&active.private_der),
            verifying,
            published,
            verified: Mutex::new(lru::LruCache::new(
                NonZeroUsize::new(VERIFIED_KEPT).expect("not zero"),
            )),
        }
    }
}

impl KeySet {
    /// `token`'s header and the key of its `kid` that verifies it: EdDSA only (no `alg:
    /// none`, no HS256 made with a public key), and only a key of ours.
    fn verifier(&self, token: &str) -> Result<(Header, &DecodingKey), TokenRejection> {
        let header = decode_header(token).map_err(|_| TokenRejection::Invalid)?;
        if header.alg != Algorithm::EdDSA {
            return Err(TokenRejection::Invalid);
        }
        let key = header
            .kid
            .as_deref()
            .and_then(|kid| self.verifying.get(kid))
            .ok_or(TokenRejection::Invalid)?;
        Ok((header, key))
    }
}

/// A token whose signature, issuer and audience were verified: its expiry and claims.
#[derive(Clone)]
struct Verified {
    exp: i64,
    claims: Arc<serde_json::Value>,
}

impl Verified {
    /// The claims as `C`, unless the token expired since (with the leeway).
    fn claims<C: DeserializeOwned>(&self) -> Result<C, TokenRejection> {
        if Utc::now().timestamp() > self.exp.saturating_add(LEEWAY_SECS as i64) {
            return Err(TokenRejection::Expired);
        }
        C::deserialize(&*self.claims).map_err(|_| TokenRejection::Invalid)
    }
}

impl std::fmt::Debug for TokenService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenService")
            .field("issuer", &self.issuer)
            .field("signing_kid", &self.current().signing_kid)
            .finish_non_exhaustive()
    }
}

impl TokenService {
    /// `active` signs; it and every key in `retired` verify (so rotation does not cut sessions).
    pub fn new(issuer: impl Into<String>, active: &Ed25519Key, retired: &[Ed25519Key]) -> Self {
        Self {
            issuer: issuer.into().into(),
            keys: Arc::new(RwLock::new(Arc::new(KeySet::new(active, retired)))),
            reloaded_at: Arc::new(AtomicI64::new(0)),
        }
    }

    /// Whether the keys may be reloaded now for a token naming an unknown `kid`: once a second
    /// at most, so tokens with invented key ids cannot turn into a read of the database each.
    pub fn may_reload(&self) -> bool {
        let now = Utc::now().timestamp();
        let last = self.reloaded_at.load(Ordering::Relaxed);
        now > last
            && self
                .reloaded_at
                .compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
    }

    /// Makes `active` the signing key and `active` with `retired` the verifying ones.
    pub fn replace_keys(&self, active: &Ed25519Key, retired: &[Ed25519Key]) {
        let next = Arc::new(KeySet::new(active, retired));
        *self.keys.write().unwrap_or_else(|e| e.into_inner()) = next;
    }

    /// Whether `token` names a key this service does not hold (it may have been made since).
    pub fn names_unknown_key(&self, token: &str) -> bool {
        decode_header(token)
            .ok()
            .and_then(|h| h.kid)
            .is_some_and(|kid| !self.current().verifying.contains_key(&kid))
    }

    fn current(&self) -> Arc<KeySet> {
        self.keys.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// Registered claims for a new token of `audience` about `sub`, valid for `ttl_secs`.
    pub fn registered(
        &self,
        audience: Audience,
        sub: impl Into<String>,
        ttl_secs: u64,
    ) -> Registered {
        let now = Utc::now().timestamp();
        Registered {
            iss: self.issuer.to_string(),
            aud: audience.as_str().to_owned(),
            sub: sub.into(),
            iat: now,
            exp: now + ttl_secs as i64,
            jti: crate::ids::random_id(),
        }
    }

    /// Signs `claims` with the active key (a bearer: header type `JWT`).
    pub fn sign<C: Serialize>(&self, claims: &C) -> anyhow::Result<String> {
        self.sign_typed("JWT", claims)
    }

    /// Signs `claims` with the active key under the header type `typ`: a signed document that
    /// is no bearer (it has no audience, so no bearer check accepts it).
    pub fn sign_typed<C: Serialize>(&self, typ: &str, claims: &C) -> anyhow::Result<String> {
        let keys = self.current();
        let mut header = Header::new(Algorithm::EdDSA);
        header.typ = Some(typ.to_owned());
        header.kid = Some(keys.signing_kid.clone());
        Ok(encode(&header, claims, &keys.encoding)?)
    }

    /// A detached JWS (RFC 7515, appendix F) over `body` with the active key, header type
    /// `typ`: `header..signature`, the payload left out, so a reader checks it against the
    /// exact bytes it received (the statements' `Boxoffice-Signature`).
    pub fn sign_detached(&self, typ: &str, body: &[u8]) -> anyhow::Result<String> {
        use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
        let keys = self.current();
        let header = serde_json::json!({ "alg": "EdDSA", "kid": keys.signing_kid, "typ": typ });
        let header = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&header)?);
        let input = format!("{header}.{}", URL_SAFE_NO_PAD.encode(body));
        let signature =
            jsonwebtoken::crypto::sign(input.as_bytes(), &keys.encoding, Algorithm::EdDSA)?;
        Ok(format!("{header}..{signature}"))
    }

    /// Verifies a document of `sign_typed` with header type `typ` by any published key and
    /// returns its claims. Only the signature, the algorithm and the type are checked: what
    /// the claims mean is the caller's (a ticket's validity is the gate's to judge).
    pub fn verify_typed<C: DeserializeOwned>(
        &self,
        token: &str,
        typ: &str,
    ) -> Result<C, TokenRejection> {
        let keys = self.current();
        let (header, key) = keys.verifier(token)?;
        if header.typ.as_deref() != Some(typ) {
            return Err(TokenRejection::Invalid);
        }
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.set_required_spec_claims::<&str>(&[]);
        validation.validate_exp = false;
        validation.validate_aud = false;
        decode::<C>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|_| TokenRejection::Invalid)
    }

    /// Verifies a token of `audience` and returns its claims.
    pub fn verify<C: DeserializeOwned>(
        &self,
        token: &str,
        audience: Audience,
    ) -> Result<C, TokenRejection> {
        let keys = self.current();
        let seen = (Sha256::digest(token.as_bytes()).into(), audience);
        let known = keys
            .verified
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&seen)
            .cloned();
        if let Some(verified) = known {
            return verified.claims();
        }
        let (_, key) = keys.verifier(token)?;
        let mut validation = Validation::new(Algorithm::EdDSA);
        validation.leeway = LEEWAY_SECS;
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.set_audience(&[audience.as_str()]);
        validation.set_issuer(&[&*self.issuer]);
        let claims = decode::<serde_json::Value>(token, key, &validation)
            .map(|data| data.claims)
            .map_err(|err| match err.kind() {
                jsonwebtoken::errors::ErrorKind::ExpiredSignature => TokenRejection::Expired,
                jsonwebtoken::errors::ErrorKind::InvalidIssuer
                | jsonwebtoken::errors::ErrorKind::InvalidAudience => {
                    misplaced(token, key, validation.clone(), &self.issuer)
                }
                _ => TokenRejection::Invalid,
            })?;
        let exp = claims["exp"].as_i64().ok_or(TokenRejection::Invalid)?;
        let verified = Verified {
            exp,
            claims: Arc::new(claims),
        };
        let parsed = verified.claims()?;
        let mut kept = keys.verified.lock().unwrap_or_else(|e| e.into_inner());
        kept.put(seen, verified);
        Ok(parsed)
    }

    /// The public keys as a JWK Set (RFC 7517, OKP keys per RFC 8037).
    pub fn jwks(&self) -> serde_json::Value {
        use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};
        let keys: Vec<_> = self
            .current()
            .published
            .iter()
            .map(|(kid, public)| {
                serde_json::json!({
                    "kty": "OKP",
                    "crv": "Ed25519",
                    "alg": "EdDSA",
                    "use": "sig",
                    "kid": kid,
                    "x": URL_SAFE_NO_PAD.encode(public),
                })
            })
            .collect();
        serde_json::json!({ "keys": keys })
    }
}

/// Why a token whose issuer or audience did not match was refused: its claims are read again
/// without those two checks (the signature and the expiry still checked, so only a token of
/// ours is described), to say whose it is. Only a refused token pays for the second decode.
fn misplaced(
    token: &str,
    key: &DecodingKey,
    mut validation: Validation,
    issuer: &str,
) -> TokenRejection {
    validation.validate_aud = false;
    validation.iss = None;
    let Ok(claims) = decode::<serde_json::Value>(token, key, &validation).map(|d| d.claims) else {
        return TokenRejection::Invalid;
    };
    match (claims["iss"].as_str(), claims["aud"].as_str()) {
        (Some(iss), _) if iss != issuer => TokenRejection::OtherIssuer(iss.to_owned()),
        (_, Some(aud)) => {
            Audience::from_aud(aud).map_or(TokenRejection::Invalid, TokenRejection::OtherAudience)
        }
        _ => TokenRejection::Invalid,
    }
}

/// A fresh Ed25519 key with a random `kid`.
pub fn generate_ed25519() -> anyhow::Result<Ed25519Key> {
    use ed25519_dalek::pkcs8::EncodePrivateKey;
    let signing = ed25519_dalek::SigningKey::generate(&mut rand::rngs::OsRng);
    Ok(Ed25519Key {
        kid: crate::ids::random_id().simple().to_string(),
        private_der: signing.to_pkcs8_der()?.as_bytes().to_vec(),
        public_raw: signing.verifying_key().to_bytes().to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use base64::{engine::general_purpose::URL_SAFE_NO_PAD, Engine};

    use super::*;

    fn service() -> TokenService {
        TokenService::new("http://issuer.test", &generate_ed25519().unwrap(), &[])
    }

    fn backend_claims(s: &TokenService, ttl: u64) -> BackendClaims {
        BackendClaims {
            sv: String::new(),
            registered: s.registered(Audience::Backend, "client-1", ttl),
        }
    }

    /// Asserts that `token`, a backend bearer of client-1, verifies as one and as nothing else.
    fn assert_backend_only(s: &TokenService, token: &str) {
        let claims: BackendClaims = s.verify(token, Audience::Backend).unwrap();
        assert_eq!(claims.registered.sub, "client-1");
        for other in [Audience::Public, Audience::Merchant] {
            assert_eq!(
                s.verify::<BackendClaims>(token, other).unwrap_err(),
                TokenRejection::OtherAudience(Audience::Backend)
            );
        }
    }

    #[test]
    fn a_token_verifies_for_its_own_audience_only() {
        let s = service();
        assert_backend_only(&s, &s.sign(&backend_claims(&s, 60)).unwrap());
    }

    #[test]
    fn a_token_verified_before_keeps_its_audience_and_still_expires() {
        let s = service();
        let token = s.sign(&backend_claims(&s, 60)).unwrap();
        // The second time from the verified tokens: the same answers.
        assert_backend_only(&s, &token);
        assert_backend_only(&s, &token);
        // A verified token past its expiry (and the leeway) is refused as expired.
        let past = Verified {
            exp: Utc::now().timestamp() - LEEWAY_SECS as i64 - 1,
            claims: Arc::new(serde_json::json!({})),
        };
        assert_eq!(
            past.claims::<serde_json::Value>().unwrap_err(),
            TokenRejection::Expired
        );
        // New keys start with nothing verified: a token of the old ones is checked again.
        s.replace_keys(&generate_ed25519().unwrap(), &[]);
        assert_eq!(
            s.verify::<BackendClaims>(&token, Audience::Backend)
                .unwrap_err(),
            TokenRejection::Invalid
        );
    }

    #[test]
    fn an_expired_token_is_told_apart_from_an_invalid_one() {
        let s = service();
        let mut claims = backend_claims(&s, 0);
        claims.registered.exp -= 120;
        let token = s.sign(&claims).unwrap();
        assert_eq!(
            s.verify::<BackendClaims>(&token, Audience::Backend)
                .unwrap_err(),
            TokenRejection::Expired
        );
    }

    #[test]
    fn another_issuers_key_or_name_is_refused() {
        let s = service();
        let other = service();
        let token = other.sign(&backend_claims(&other, 60)).unwrap();
        assert!(s
            .verify::<BackendClaims>(&token, Audience::Backend)
            .is_err());
        assert_eq!(
            s.verify::<BackendClaims>(&token, Audience::Backend)
                .unwrap_err(),
            TokenRejection::Invalid
        );
        let renamed = TokenService::new("http://elsewhere.test", &generate_ed25519().unwrap(), &[]);
        let token = renamed.sign(&backend_claims(&renamed, 60)).unwrap();
        assert!(renamed
            .verify::<BackendClaims>(&token, Audience::Backend)
            .is_ok());
        assert!(s
            .verify::<BackendClaims>(&token, Audience::Backend)
            .is_err());
    }

    #[test]
    fn a_token_of_our_key_under_another_address_names_that_address() {
        let key = generate_ed25519().unwrap();
        let here = TokenService::new("http://issuer.test", &key, &[]);
        let there = TokenService::new("http://elsewhere.test", &key, &[]);
        let token = there.sign(&backend_claims(&there, 60)).unwrap();
        assert_eq!(
            here.verify::<BackendClaims>(&token, Audience::Public)
                .unwrap_err(),
            TokenRejection::OtherIssuer("http://elsewhere.test".into())
        );
    }

    #[test]
    fn alg_none_and_tokens_without_required_claims_are_refused() {
        let s = service();
        let kid = s.current().signing_kid.clone();
        let header =
            URL_SAFE_NO_PAD.encode(format!(r#"{{"alg":"none","typ":"JWT","kid":"{kid}"}}"#));
        let body = URL_SAFE_NO_PAD.encode(serde_json::to_vec(&backend_claims(&s, 60)).unwrap());
        let unsigned = format!("{header}.{body}.");
        assert_eq!(
            s.verify::<BackendClaims>(&unsigned, Audience::Backend)
                .unwrap_err(),
            TokenRejection::Invalid
        );

        let now = Utc::now().timestamp();
        let no_aud = serde_json::json!({ "iss": s.issuer(), "sub": "x", "iat": now, "exp": now + 60, "jti": crate::ids::random_id() });
        let token = s.sign(&no_aud).unwrap();
        assert!(s
            .verify::<serde_json::Value>(&token, Audience::Backend)
            .is_err());
        let no_iss = serde_json::json!({ "aud": "boxoffice-backend", "sub": "x", "iat": now, "exp": now + 60 });
        let token = s.sign(&no_iss).unwrap();
        assert!(s
            .verify::<serde_json::Value>(&token, Audience::Backend)
            .is_err());
    }

    #[test]
    fn a_retired_key_still_verifies_and_is_published() {
        let old = generate_ed25519().unwrap();
        let before = TokenService::new("http://issuer.test", &old, &[]);
        let token = before.sign(&backend_claims(&before, 60)).unwrap();
        let after = TokenService::new("http://issuer.test", &generate_ed25519().unwrap(), &[old]);
        assert!(after
            .verify::<BackendClaims>(&token, Audience::Backend)
            .is_ok());
        assert_eq!(after.jwks()["keys"].as_array().unwrap().len(), 2);
    }
}
