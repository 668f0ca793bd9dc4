//! The store's SQL, written once and compiled into each backend: `sqlite/mod.rs` and
//! `postgres/mod.rs` each load this folder as their module `sql` (`#[path]`). Inside, `SqlStore`,
//! `Db`, `Conn` and `Batch` are that backend's, and `ThisBackend` is its [`Backend`]: what the
//! SQL cannot say the same way on both databases.
//!
//! [`Backend`]: crate::store::backend::Backend

use super::{Batch, Conn, Db, SqlStore, ThisBackend};

/// The priced days of product `$1` from `$2` to `$3`, with their group's places: the rows
/// of `CalendarDay`.
macro_rules! priced_days {
    () => {
        "SELECT calendar_price.day, calendar_price.price, calendar_price.list_price,
                availability_day.capacity, COALESCE(availability_day.reserved, 0) AS reserved
         FROM calendar_price
         JOIN product ON product.product_id = calendar_price.product_id
         LEFT JOIN availability_day
           ON availability_day.availability_group_id = product.availability_group_id
          AND availability_day.day = calendar_price.day
         WHERE calendar_price.product_id = $1 AND calendar_price.day BETWEEN $2 AND $3"
    };
}

/// The arguments of a query on this backend.
type Args<'q> = <Db as sqlx::Database>::Arguments<'q>;

/// Binds `ids` into `query` as a comma-separated list, for an `IN (…)` around it.
fn push_ids(query: &mut sqlx::QueryBuilder<'_, Db>, ids: impl IntoIterator<Item = uuid::Uuid>) {
    let mut list = query.separated(", ");
    for id in ids {
        list.push_bind(id);
    }
}

impl SqlStore {
    /// The record `select` reads by its key, bound to `$1`, if there is one.
    async fn row_by_key<'k, R, K>(
        &self,
        select: &'k str,
        key: K,
    ) -> crate::store::StoreResult<Option<R>>
    where
        R: for<'r> sqlx::FromRow<'r, <Db as sqlx::Database>::Row> + Send + Unpin,
        K: 'k + sqlx::Encode<'k, Db> + sqlx::Type<Db> + Send,
    {
        Ok(sqlx::query_as(select)
            .bind(key)
            .fetch_optional(&self.pool)
            .await?)
    }
}

mod availability;
mod calendar;
mod campaigns;
mod checkout_tx;
mod checkouts;
mod clients;
mod customers;
mod events;
mod idempotency;
mod issuers;
mod keys;
mod mail;
mod memberships;
mod merchant_accounts;
mod merchants;
mod orders;
mod products;
mod references;
mod sessions;
mod store;
mod ticket_mail;
mod timeslots;
mod vouchers;
mod wallets;
