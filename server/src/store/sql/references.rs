//! Checks that a record a write names exists and may be used there.

use uuid::Uuid;

use super::Db;
use crate::store::{StoreError, StoreResult};

/// Fails with `MissingReference(field)` unless `table` has a row keyed `id` (keys are
/// `<table>_id`). Writes check their references this way inside their transaction so the
/// error names the exact input field; the foreign key stays as the backstop, but its
/// violation cannot say which of several references failed.
pub(super) async fn require_row(
    conn: &mut <Db as sqlx::Database>::Connection,
    table: &'static str,
    id: Uuid,
    field: &str,
) -> StoreResult<()> {
    let found = sqlx::query(&format!("SELECT 1 FROM {table} WHERE {table}_id = $1"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    match found {
        Some(_) => Ok(()),
        None => Err(StoreError::MissingReference(field.to_owned())),
    }
}
