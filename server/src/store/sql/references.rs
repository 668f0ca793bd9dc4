// Compiled into both `store::sqlite` and `store::postgres` by `include!` (see store/mod.rs).

/// Fails with `MissingReference(field)` unless `table` has a row keyed `id` (keys are
/// `<table>_id`). Writes check their references this way inside their transaction so the
/// error names the exact input field; the foreign key stays as the backstop, but its
/// violation cannot say which of several references failed.
async fn require_row(
    conn: &mut <Db as sqlx::Database>::Connection,
    table: &'static str,
    id: uuid::Uuid,
    field: &str,
) -> crate::store::StoreResult<()> {
    let found = sqlx::query(&format!("SELECT 1 FROM {table} WHERE {table}_id = $1"))
        .bind(id)
        .fetch_optional(&mut *conn)
        .await?;
    match found {
        Some(_) => Ok(()),
        None => Err(crate::store::StoreError::MissingReference(field.to_owned())),
    }
}
