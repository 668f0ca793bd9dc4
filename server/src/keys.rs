//! Keys shared by every node, created on first start and kept in the database.

use anyhow::Context;
use rand::RngCore;

use crate::{
    http::cursor::CursorSigner,
    store::{KeyPurpose, SigningKey, Store},
};

/// The cursor signer over the database's active cursor secret.
pub async fn cursor_signer(store: &dyn Store) -> anyhow::Result<CursorSigner> {
    let mut secret = vec![0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut secret);
    let candidate = SigningKey {
        signing_key_id: uuid::Uuid::new_v4().to_string(),
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
    Ok(CursorSigner::new(key.secret))
}
