//! Per-node copies of what the frame reads on every screen: a page of a campaign's merchants
//! (as answered), whether a merchant is in a campaign, a product's priced days and the days it
//! has an open timeslot, and a group's timeslots and places on a day. Every customer who opens
//! a product reads a calendar, every change of date reads timeslots; from these copies neither
//! costs a query.
//!
//! Freshness is the catalog's (`catalog/mod.rs`): a copy is served only at the generation it
//! was read at, which every catalog change and every place taken or given back through this
//! node moves, and within `BOXOFFICE_CATALOG_CACHE_TTL`, which bounds how long a change made
//! through another node goes unseen here. What is computed from the clock (whether a day is
//! past, whether a slot has started) is computed per request from the copy. The checkout stays
//! the authority: it reads the day's places afresh and takes them in its transaction.

use std::{collections::HashSet, future::Future, sync::Arc, time::Duration};

use app::wire::Locale;
use chrono::{DateTime, NaiveDate, Utc};
use uuid::Uuid;

use super::Catalog;
use crate::cache::TtlCache;
use crate::store::{CalendarDay, DayCapacity, Store, StoreResult, Timeslot};

type Days = (NaiveDate, NaiveDate);

/// A page of merchants written as the API answers it: the items' JSON, how many they are, and
/// the key of the last one when another page follows (from which its cursor is signed).
pub struct MerchantPageAnswer {
    pub items_json: bytes::Bytes,
    pub item_count: usize,
    pub last_before_more: Option<Uuid>,
}

/// The copies, each kept as the store answered or as the API answers.
pub struct Reads {
    /// A page of a campaign's merchants as its answer, by campaign, the key it starts after,
    /// its limit and its language.
    merchant_pages: TtlCache<(Uuid, Option<Uuid>, u32, Locale), Arc<MerchantPageAnswer>>,
    merchants_in_campaign: TtlCache<(Uuid, Uuid), bool>,
    calendars: TtlCache<(Uuid, Days), Arc<[CalendarDay]>>,
    open_slot_days: TtlCache<(Uuid, Days), Arc<HashSet<NaiveDate>>>,
    timeslots: TtlCache<(Uuid, NaiveDate), Arc<[Timeslot]>>,
    day_capacities: TtlCache<(Uuid, NaiveDate), Option<DayCapacity>>,
    /// A calendar's answer as JSON, by product, days and the merchant's today (which decides
    /// what is past): what the product list's copy is to its list.
    calendar_answers: TtlCache<(Uuid, Days, NaiveDate), Arc<[u8]>>,
}

impl Reads {
    pub fn new(ttl: Duration) -> Self {
        Self {
            merchant_pages: TtlCache::new(ttl),
            merchants_in_campaign: TtlCache::new(ttl),
            calendars: TtlCache::new(ttl),
            open_slot_days: TtlCache::new(ttl),
            timeslots: TtlCache::new(ttl),
            day_capacities: TtlCache::new(ttl),
            calendar_answers: TtlCache::new(ttl),
        }
    }
}

impl Catalog {
    /// The copy of `key` in `cache`, or what `read` answers, kept at the generation read
    /// before it (a change landing during the read leaves the copy stale).
    async fn read_through<K, V, E, F, Fut>(
        &self,
        cache: &TtlCache<K, V>,
        key: K,
        read: F,
    ) -> Result<V, E>
    where
        K: Eq + std::hash::Hash + Send + Sync + 'static,
        V: Clone + Send + Sync + 'static,
        F: FnOnce() -> Fut,
        Fut: Future<Output = Result<V, E>>,
    {
        let generation = self.generation();
        if let Some(copy) = cache.get(&key, generation) {
            return Ok(copy);
        }
        let value = read().await?;
        cache.put(key, value.clone(), generation);
        Ok(value)
    }

    /// The JSON of `product_id`'s calendar over `days` as seen on `today`, or what `render`
    /// makes of it, kept like every copy here.
    pub async fn calendar_answer<F, Fut>(
        &self,
        product_id: Uuid,
        days: Days,
        today: NaiveDate,
        render: F,
    ) -> crate::error::Result<Arc<[u8]>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = crate::error::Result<Arc<[u8]>>>,
    {
        let key = (product_id, days, today);
        self.read_through(&self.reads.calendar_answers, key, render)
            .await
    }

    /// The page of `campaign_id`'s merchants after `after` in `locale`, or what `render`
    /// writes of it, kept like every copy here.
    pub async fn merchant_page_answer<F, Fut>(
        &self,
        (campaign_id, after, limit): (Uuid, Option<Uuid>, u32),
        locale: Locale,
        render: F,
    ) -> crate::error::Result<Arc<MerchantPageAnswer>>
    where
        F: FnOnce() -> Fut,
        Fut: Future<Output = crate::error::Result<Arc<MerchantPageAnswer>>>,
    {
        let key = (campaign_id, after, limit, locale);
        self.read_through(&self.reads.merchant_pages, key, render)
            .await
    }

    /// `MerchantStore::merchant_in_campaign`.
    pub async fn merchant_in_campaign(
        &self,
        store: &dyn Store,
        merchant_id: Uuid,
        campaign_id: Uuid,
    ) -> StoreResult<bool> {
        let read = || store.merchant_in_campaign(merchant_id, campaign_id);
        self.read_through(
            &self.reads.merchants_in_campaign,
            (merchant_id, campaign_id),
            read,
        )
        .await
    }

    /// `CalendarStore::calendar`.
    pub async fn calendar(
        &self,
        store: &dyn Store,
        product_id: Uuid,
        (from, until): Days,
    ) -> StoreResult<Arc<[CalendarDay]>> {
        let read = || async { Ok(Arc::from(store.calendar(product_id, from, until).await?)) };
        self.read_through(&self.reads.calendars, (product_id, (from, until)), read)
            .await
    }

    /// The days of `from..=until` on which a slot of `group_id` has a place left and had not
    /// started when the copy was read (`TimeslotStore::open_timeslot_days` at `now`).
    pub async fn open_slot_days(
        &self,
        store: &dyn Store,
        group_id: Uuid,
        (from, until): Days,
        now: DateTime<Utc>,
    ) -> StoreResult<Arc<HashSet<NaiveDate>>> {
        let read = || async {
            let open = store
                .open_timeslot_days(&[group_id], from, Some(until), now)
                .await?;
            Ok(Arc::new(open.into_iter().map(|(_, day)| day).collect()))
        };
        self.read_through(&self.reads.open_slot_days, (group_id, (from, until)), read)
            .await
    }

    /// `TimeslotStore::timeslots` of one day.
    pub async fn timeslots(
        &self,
        store: &dyn Store,
        group_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Arc<[Timeslot]>> {
        let read = || async { Ok(Arc::from(store.timeslots(group_id, day, day).await?)) };
        self.read_through(&self.reads.timeslots, (group_id, day), read)
            .await
    }

    /// `AvailabilityStore::day_capacity`.
    pub async fn day_capacity(
        &self,
        store: &dyn Store,
        group_id: Uuid,
        day: NaiveDate,
    ) -> StoreResult<Option<DayCapacity>> {
        let read = || store.day_capacity(group_id, day);
        self.read_through(&self.reads.day_capacities, (group_id, day), read)
            .await
    }
}
