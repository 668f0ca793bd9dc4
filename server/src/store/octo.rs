//! `OctoStore`: what OCTO keeps of a reseller's booking beside its checkout (docs/octo.md).

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::StoreResult;

/// The contact a reseller gives for a booking (OCTO's `Contact`), kept as given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OctoContact {
    #[serde(default)]
    pub full_name: Option<String>,
    #[serde(default)]
    pub first_name: Option<String>,
    #[serde(default)]
    pub last_name: Option<String>,
    #[serde(default)]
    pub email_address: Option<String>,
    #[serde(default)]
    pub phone_number: Option<String>,
    #[serde(default)]
    pub locales: Vec<String>,
    #[serde(default)]
    pub postal_code: Option<String>,
    #[serde(default)]
    pub country: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// A booking as OCTO knows it: its uuid, the checkout it is, the reseller's references.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct OctoBooking {
    pub uuid: Uuid,
    pub checkout_id: Uuid,
    pub partner_client_id: Uuid,
    pub merchant_id: Uuid,
    pub reseller_reference: Option<String>,
    pub notes: Option<String>,
    pub contact: Option<sqlx::types::Json<OctoContact>>,
    /// The reseller's uuid of each unit item, by ticket place.
    pub unit_items: Option<sqlx::types::Json<Vec<Option<Uuid>>>>,
    /// The visit day in the merchant's zone.
    pub local_date: String,
    /// When the reseller cancelled it while it was held.
    pub cancelled_at: Option<DateTime<Utc>>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl OctoBooking {
    pub fn contact(&self) -> OctoContact {
        self.contact
            .as_ref()
            .map(|c| c.0.clone())
            .unwrap_or_default()
    }
}

/// Which bookings a reseller's search names; `None` matches all.
#[derive(Debug, Clone, Default)]
pub struct OctoBookingFilter {
    pub reseller_reference: Option<String>,
    /// An order's display id (or a booking's checkout id, before it is an order).
    pub supplier_reference: Option<String>,
    pub local_date: Option<NaiveDate>,
}

#[async_trait::async_trait]
pub trait OctoStore {
    async fn octo_booking(&self, uuid: Uuid) -> StoreResult<Option<OctoBooking>>;
    /// The reseller's bookings at the merchant that `filter` names, newest first, at most 500.
    async fn octo_bookings(
        &self,
        partner_client_id: Uuid,
        merchant_id: Uuid,
        filter: &OctoBookingFilter,
    ) -> StoreResult<Vec<OctoBooking>>;
    /// Replaces what the reseller may change of a booking by itself: its reference, notes,
    /// contact and when it cancelled its hold. Its checkout, day and unit items change only
    /// with the places ([`OctoTx::move_octo_booking`], [`OctoStore::set_octo_booking_day`]).
    async fn update_octo_booking(&self, booking: &OctoBooking) -> StoreResult<()>;
    /// The visit day of a confirmed booking whose tickets moved (the after-sale date change,
    /// which knows nothing of OCTO, moved them).
    async fn set_octo_booking_day(&self, uuid: Uuid, local_date: NaiveDate) -> StoreResult<()>;
    /// Ends the hold of a `RESERVED` checkout at `until` when that is sooner than its end now
    /// (a reseller's `expirationMinutes`); `false` when it did not.
    async fn shorten_hold(&self, checkout_id: Uuid, until: DateTime<Utc>) -> StoreResult<bool>;
}

/// The booking's part of the checkout transaction that reserves it (`octo::bookings`) or
/// reserves it again (`checkout::rehold`): a booking is written, or pointed at its new hold,
/// in the transaction that makes the hold.
#[async_trait::async_trait]
pub trait OctoTx: Send {
    /// Keeps `booking`; `false` when its uuid is taken.
    async fn insert_octo_booking(&mut self, booking: &OctoBooking) -> StoreResult<bool>;
    /// Points the booking `uuid` at its new checkout `to`, on `local_date`, with the
    /// reseller's uuid of each unit item, unless another change moved it from `from` first:
    /// `false` then.
    async fn move_octo_booking(
        &mut self,
        uuid: Uuid,
        from: Uuid,
        to: Uuid,
        local_date: NaiveDate,
        unit_items: &[Option<Uuid>],
    ) -> StoreResult<bool>;
}
