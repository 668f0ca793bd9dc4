//! The node's copies of what customers read of their own, their orders
//! (`GET /v2/me/fulfillment/orders`) and their loyalty ledger
//! (`GET /v2/me/loyalty/ledger/entries`), as the API writes them: a page reads only which rows
//! it holds and the version of each, and writes every row whose copy is of that version from
//! the copy (`cache::item_copies`).
//!
//! Why: a page of twenty orders read them, their lines and their tickets afresh, three queries
//! and some sixty rows, each row a hand-off from SQLite's worker thread; it reached 6 % of its
//! limit (docs/benchmarks.md, "The frame's reads and the customer's reads").
//!
//! Freshness: the versions are read from the database with every page, so a row changed
//! through any node is written afresh on the next page. Whatever changes an order moves its
//! version ([`OrderVersion`]); a ledger entry never changes. A ticket's entry window also
//! depends on the timeslot and the merchant's time zone, which only the admin API changes: an
//! order's copy is dropped at this node's catalog changes (the definitions' generation) and
//! lives `BOXOFFICE_CATALOG_CACHE_TTL`, as every catalog copy does; zero turns the copies off.

use std::time::Duration;

use app::wire::LoyaltyEntry;
use uuid::Uuid;

use super::order_view::order_views;
use super::Commerce;
use crate::{
    cache::item_copies::{ItemCopies, ItemsJson, Written},
    error::Result,
    store::{LoyaltyEntryRecord, OrderVersion},
};

pub struct CustomerCopies {
    orders: ItemCopies<Uuid, OrderVersion>,
    ledger: ItemCopies<Uuid, ()>,
}

impl CustomerCopies {
    /// Copies that live `ttl`; zero turns them off.
    pub fn new(ttl: Duration) -> Self {
        Self {
            orders: ItemCopies::new(ttl),
            ledger: ItemCopies::new(ttl),
        }
    }

    /// The orders of `versions`, in their order, as a JSON array of `wire::Order`.
    pub async fn orders(&self, state: &Commerce, versions: &[OrderVersion]) -> Result<ItemsJson> {
        let wanted: Vec<_> = versions.iter().map(|v| (v.customer_order_id, *v)).collect();
        let generation = state.catalog.definitions.generation();
        let read = |ids: Vec<Uuid>| async move {
            let records = state.store.orders_by_id(&ids).await?;
            let mut views = order_views(state.store.as_ref(), &records).await?;
            for view in views.iter_mut().filter(|v| v.status.is_paid()) {
                with_qr_tokens(state, view).await?;
            }
            records
                .iter()
                .zip(&views)
                .map(|(record, view)| {
                    Ok(Written {
                        key: record.customer_order_id,
                        version: OrderVersion::from(record),
                        json: serde_json::to_vec(view).map_err(anyhow::Error::from)?,
                    })
                })
                .collect()
        };
        self.orders.write(&wanted, generation, read).await
    }

    /// The ledger entries `ids`, in their order, as a JSON array of `wire::LoyaltyEntry`.
    pub async fn ledger(&self, state: &Commerce, ids: &[Uuid]) -> Result<ItemsJson> {
        let wanted: Vec<_> = ids.iter().map(|id| (*id, ())).collect();
        let read = |ids: Vec<Uuid>| async move {
            let entries = state.store.loyalty_entries_by_id(&ids).await?;
            entries
                .into_iter()
                .map(|entry| {
                    Ok(Written {
                        key: entry.loyalty_entry_id,
                        version: (),
                        json: serde_json::to_vec(&wire_entry(entry))
                            .map_err(anyhow::Error::from)?,
                    })
                })
                .collect()
        };
        // An entry never changes, so no generation ever makes its copy stale.
        self.ledger.write(&wanted, 0, read).await
    }
}

/// Puts the QR tokens of a paid order's tickets into its view (`gate::code::attach`): a copy
/// is written once per version of the order, so each token is signed once per change.
pub async fn with_qr_tokens(state: &Commerce, view: &mut app::wire::Order) -> Result<()> {
    let store = state.store.as_ref();
    if let Some(merchant) = state
        .catalog
        .definitions
        .merchant(store, view.merchant_id)
        .await?
    {
        crate::gate::code::attach(&state.ticket_tokens, merchant.zone()?, view)?;
    }
    Ok(())
}

fn wire_entry(e: LoyaltyEntryRecord) -> LoyaltyEntry {
    LoyaltyEntry {
        id: e.loyalty_entry_id,
        occurred_at: e.occurred_at,
        kind: e.kind,
        points: e.points,
        balance_after: e.balance_after,
        description: e.description,
        order_id: e.customer_order_id,
        order_display_id: e.order_display_id,
    }
}
