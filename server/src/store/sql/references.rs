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

/// A table linking records of one kind to campaigns, `table (owner_column, campaign_id)`. Both
/// names are its callers' constants, never input.
pub(super) struct CampaignLinks {
    pub table: &'static str,
    pub owner_column: &'static str,
}

impl CampaignLinks {
    /// Replaces the campaigns linked to `owner` with `campaign_ids`, each checked to exist and
    /// named by its index when it does not.
    pub async fn replace(
        &self,
        conn: &mut <Db as sqlx::Database>::Connection,
        owner: Uuid,
        campaign_ids: &[Uuid],
    ) -> StoreResult<()> {
        let Self {
            table,
            owner_column,
        } = self;
        sqlx::query(&format!("DELETE FROM {table} WHERE {owner_column} = $1"))
            .bind(owner)
            .execute(&mut *conn)
            .await?;
        for (i, campaign_id) in campaign_ids.iter().enumerate() {
            let field = format!("campaign_ids[{i}]");
            require_row(conn, "campaign", *campaign_id, &field).await?;
            sqlx::query(&format!(
                "INSERT INTO {table} ({owner_column}, campaign_id) VALUES ($1, $2)"
            ))
            .bind(owner)
            .bind(campaign_id)
            .execute(&mut *conn)
            .await
            .map_err(|e| StoreError::classify(e, &field))?;
        }
        Ok(())
    }
}
