use chrono::{DateTime, Utc};

use super::StoreResult;

/// What a key is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPurpose {
    /// Signs the bearer JWTs (Ed25519, published in the JWKS).
    Jwt,
    /// Signs pagination cursors (HMAC-SHA256).
    Cursor,
}

impl KeyPurpose {
    pub fn as_str(self) -> &'static str {
        match self {
            KeyPurpose::Jwt => "jwt",
            KeyPurpose::Cursor => "cursor",
        }
    }
}

/// A secret shared by every server node, kept in the database so that nodes agree.
#[derive(Clone, sqlx::FromRow)]
pub struct SigningKey {
    /// The key id (`kid` for JWTs).
    pub signing_key_id: String,
    pub algorithm: String,
    /// The private key (PKCS#8 DER for Ed25519) or the HMAC secret.
    pub secret: Vec<u8>,
    pub public_key: Option<Vec<u8>>,
    pub active: bool,
    pub created_at: DateTime<Utc>,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("signing_key_id", &self.signing_key_id)
            .field("algorithm", &self.algorithm)
            .field("active", &self.active)
            .finish_non_exhaustive()
    }
}

#[async_trait::async_trait]
pub trait KeyStore {
    /// The active key for `purpose`, creating `candidate` as that key if there is none yet.
    /// Several nodes starting at once converge on one key.
    async fn ensure_active_key(
        &self,
        purpose: KeyPurpose,
        candidate: SigningKey,
    ) -> StoreResult<SigningKey>;
    /// Every key of `purpose`, newest first (retired ones still verify until removed).
    async fn keys(&self, purpose: KeyPurpose) -> StoreResult<Vec<SigningKey>>;
    /// Retires the active key of `purpose` and makes `next` the active one, in one
    /// transaction; returns the id of the key retired, if there was one.
    async fn rotate_key(
        &self,
        purpose: KeyPurpose,
        next: SigningKey,
    ) -> StoreResult<Option<String>>;
}
