//! Writes whose results nobody reads, kept by a checkout transaction and sent together just
//! before the next statement that needs a result, or the commit.
//!
//! Why: every statement is a round trip, and on SQLite that is a hand-off to the writer
//! connection's worker thread and back while every other checkout waits for that one writer.
//! With the checkout (written confirmed), its lines, order, payment, stored response, events
//! and deliveries sent together, a guest's express checkout makes, on Postgres, 5 round trips
//! with the writer: the claim, `BEGIN`, the batch, the places with `COMMIT` (one message, see
//! `postgres.rs`) and the test sqlx makes of the connection when it is returned. On SQLite,
//! where the checkout is a member of the writer's group commit, 2: its savepoint with the
//! claim, and the batch with the places taken last in it (`sqlite/backend.rs`); the group's
//! `COMMIT` is shared. Before the batch it was 13 (docs/benchmarks.md). SQLite gets one
//! multi-statement query; Postgres, which prepares one statement per query, one statement of
//! data-modifying `WITH` parts, whose parts run in no set order and are checked against
//! constraints at its end, so no two parts of a batch may touch the same row. Either way each
//! statement is written with its own `$1, $2, …` and binds one value per number, in order;
//! the batch renumbers them into one argument list.
//!
//! A statement's error surfaces at the flush, from whichever later call sent the batch; the
//! transaction is rolled back all the same.

/// Statements and their arguments, kept until a flush; the dialect joins them
/// (`dialect::flush`).
pub struct Batch<A> {
    statements: Vec<String>,
    args: A,
    error: Option<sqlx::error::BoxDynError>,
}

impl<A: Default> Default for Batch<A> {
    fn default() -> Self {
        Self {
            statements: Vec::new(),
            args: A::default(),
            error: None,
        }
    }
}

impl<A: sqlx::Arguments<'static>> Batch<A> {
    /// Adds a statement written with its own `$1, $2, …`; bind one value per number next,
    /// in order.
    pub fn statement(&mut self, sql: &str) -> &mut Self {
        self.statements.push(renumber(sql, self.args.len()));
        self
    }

    pub fn bind<T>(&mut self, value: T) -> &mut Self
    where
        T: 'static + sqlx::Encode<'static, A::Database> + sqlx::Type<A::Database>,
    {
        if let Err(e) = self.args.add(value) {
            self.error.get_or_insert(e);
        }
        self
    }

    /// The statements added and their arguments, emptying the batch; `None` when it is empty.
    pub fn take(&mut self) -> sqlx::Result<Option<(Vec<String>, A)>> {
        let batch = std::mem::take(self);
        if let Some(e) = batch.error {
            return Err(sqlx::Error::Encode(e));
        }
        Ok((!batch.statements.is_empty()).then_some((batch.statements, batch.args)))
    }
}

/// `sql` with every placeholder `$n` turned into `$(n + offset)`, so statements written
/// with their own `$1, $2, …` can share one argument list.
pub fn renumber(sql: &str, offset: usize) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - at - 1);
        match rest[at + 1..at + 1 + digits].parse::<usize>() {
            Ok(n) => out.push_str(&format!("${}", n + offset)),
            Err(_) => out.push('$'),
        }
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
}

/// `($1, …, $columns), ($columns+1, …), …` for a multi-row `VALUES` of `rows` rows.
pub fn values(rows: usize, columns: usize) -> String {
    let row = |r: usize| {
        let cells: Vec<String> = (1..=columns)
            .map(|c| format!("${}", r * columns + c))
            .collect();
        format!("({})", cells.join(", "))
    };
    (0..rows).map(row).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::{renumber, values};

    #[test]
    fn multi_row_values_number_their_cells_row_by_row() {
        assert_eq!(values(1, 2), "($1, $2)");
        assert_eq!(values(2, 3), "($1, $2, $3), ($4, $5, $6)");
    }

    #[test]
    fn placeholders_move_by_the_offset_and_nothing_else_changes() {
        assert_eq!(
            renumber("UPDATE t SET a = $1, b = $12 WHERE c = $2", 10),
            "UPDATE t SET a = $11, b = $22 WHERE c = $12"
        );
        assert_eq!(renumber("VALUES ($1, $1)", 0), "VALUES ($1, $1)");
        assert_eq!(renumber("no placeholders", 3), "no placeholders");
        assert_eq!(renumber("a lone $ stays", 3), "a lone $ stays");
        assert_eq!(renumber("ends with $9", 1), "ends with $10");
    }
}
