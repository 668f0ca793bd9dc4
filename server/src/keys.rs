//! Keys shared by every node: created on first start and kept in the database (for the
//! embedded default that is the data directory), or, for JWTs, read from a configured file.

use anyhow::Context;
use rand::RngCore;

use crate::{
    auth::authn::Authn,
    auth::tokens::{generate_ed25519, Audience, Ed25519Key, TokenRejection, TokenService},
    config::Config,
    http::cursor::CursorSigner,
    keyed::KeyedValues,
    store::{KeyPurpose, SigningKey, Store},
};

/// The cursor signer over the database's active cursor secret.
pub async fn cursor_signer(store: &dyn Store) -> anyhow::Result<CursorSigner> {
    Ok(CursorSigner::new(cursor_secret(store).await?))
}

/// The secret of every keyed value (`crate::keyed`: the keys in the URLs we hand out, the
/// pseudonyms we keep): the shared cursor secret, from which each purpose derives a key of its
/// own, so every node makes and checks the same values.
pub async fn keyed_values(store: &dyn Store) -> anyhow::Result<KeyedValues> {
    Ok(KeyedValues::new(cursor_secret(store).await?))
}

/// The database's active cursor secret, made on first start.
async fn cursor_secret(store: &dyn Store) -> anyhow::Result<Vec<u8>> {
    let mut secret = vec![0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut secret);
    let candidate = SigningKey {
        signing_key_id: crate::ids::random_id().to_string(),
        algorithm: "HS256".to_owned(),
        secret,
        public_key: None,
        active: true,
        created_at: chrono::Utc::now(),
    };
    let key = store
        .ensure_active_key(KeyPurpose::Cursor, candidate)
        .await
        .context("loading the cursor secret")?;
    Ok(key.secret)
}

/// The bearer token service: the configured key file, else the database's active Ed25519 key
/// (generated on first start), with retired database keys still verifying.
pub async fn token_service(store: &dyn Store, config: &Config) -> anyhow::Result<TokenService> {
    let issuer = config.base_url();
    if let Some(path) = &config.jwt_key_file {
        let active = key_from_pem_file(path)?;
        return Ok(TokenService::new(issuer, &active, &[]));
    }
    let fresh = generate_ed25519()?;
    store
        .ensure_active_key(KeyPurpose::Jwt, key_record(&fresh))
        .await
        .context("loading the JWT signing key")?;
    let (active, retired) = database_keys(store).await?;
    Ok(TokenService::new(issuer, &active, &retired))
}

/// Rotates the JWT signing key (operator API): a new key signs from now on, the one it
/// replaces still verifies, and both are in the JWKS. Other nodes take the new key when they
/// first meet a token signed with it (`verify`). Refused when the key comes from a file.
pub async fn rotate_jwt_key(state: &Authn) -> anyhow::Result<(String, Option<String>)> {
    anyhow::ensure!(
        state.config.jwt_key_file.is_none(),
        "the signing key comes from BOXOFFICE_JWT_KEY_FILE; rotate it by deploying a new file"
    );
    let next = generate_ed25519()?;
    let retired = state
        .store
        .rotate_key(KeyPurpose::Jwt, key_record(&next))
        .await?;
    reload(state).await?;
    Ok((next.kid, retired))
}

/// Verifies one of our bearers. A token naming a key this node does not hold (another node
/// rotated the keys since this one loaded them) makes the node reload its keys from the
/// database first, at most once a second.
pub async fn verify<C: serde::de::DeserializeOwned>(
    state: &Authn,
    token: &str,
    audience: Audience,
) -> Result<C, TokenRejection> {
    reload_for(state, token).await;
    state.tokens.verify(token, audience)
}

/// Verifies a signed document of header type `typ` (a ticket's QR token), taking a key made
/// on another node first, as [`verify`] does.
pub async fn verify_typed<C: serde::de::DeserializeOwned>(
    state: &Authn,
    token: &str,
    typ: &str,
) -> Result<C, TokenRejection> {
    reload_for(state, token).await;
    state.tokens.verify_typed(token, typ)
}

/// Reloads the keys when `token` names one this node does not hold (at most once a second).
async fn reload_for(state: &Authn, token: &str) {
    let tokens = &state.tokens;
    if tokens.names_unknown_key(token) && state.config.jwt_key_file.is_none() && tokens.may_reload()
    {
        if let Err(err) = reload(state).await {
            tracing::warn!(error = ?err, "reloading the JWT keys failed");
        }
    }
}

/// Replaces the node's JWT keys with the database's.
async fn reload(state: &Authn) -> anyhow::Result<()> {
    let (active, retired) = database_keys(state.store.as_ref()).await?;
    state.tokens.replace_keys(&active, &retired);
    Ok(())
}

/// The database's active JWT key and its retired ones.
async fn database_keys(store: &dyn Store) -> anyhow::Result<(Ed25519Key, Vec<Ed25519Key>)> {
    let keys = store.keys(KeyPurpose::Jwt).await?;
    let active = keys
        .iter()
        .find(|k| k.active)
        .cloned()
        .context("an active JWT key")?;
    let retired = keys
        .into_iter()
        .filter(|k| !k.active)
        .filter_map(|k| ed25519_from_record(k).ok())
        .collect();
    Ok((ed25519_from_record(active)?, retired))
}

fn key_record(key: &Ed25519Key) -> SigningKey {
    SigningKey {
        signing_key_id: key.kid.clone(),
        algorithm: "EdDSA".to_owned(),
        secret: key.private_der.clone(),
        public_key: Some(key.public_raw.clone()),
        active: true,
        created_at: chrono::Utc::now(),
    }
}

fn ed25519_from_record(key: SigningKey) -> anyhow::Result<Ed25519Key> {
    Ok(Ed25519Key {
        public_raw: key
            .public_key
            .context("an Ed25519 key record has its public key")?,
        kid: key.signing_key_id,
        private_der: key.secret,
    })
}

fn key_from_pem_file(path: &std::path::Path) -> anyhow::Result<Ed25519Key> {
    use ed25519_dalek::pkcs8::{DecodePrivateKey, EncodePrivateKey};
    use sha2::Digest;
    let pem = std::fs::read_to_string(path)
        .with_context(|| format!("reading BOXOFFICE_JWT_KEY_FILE {}", path.display()))?;
    let signing = ed25519_dalek::SigningKey::from_pkcs8_pem(&pem)
        .context("BOXOFFICE_JWT_KEY_FILE must hold an Ed25519 private key in PKCS#8 PEM")?;
    let public_raw = signing.verifying_key().to_bytes().to_vec();
    // A kid derived from the public key stays the same on every node and restart.
    let kid = hex::encode(&sha2::Sha256::digest(&public_raw)[..16]);
    Ok(Ed25519Key {
        kid,
        private_der: signing.to_pkcs8_der()?.as_bytes().to_vec(),
        public_raw,
    })
}
