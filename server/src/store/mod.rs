//! Persistence. One set of traits per aggregate (`CampaignStore`, …), one implementation per
//! database. The SQL lives once, in `sql/`, and is compiled twice: as the module `sql` of
//! `sqlite/` and of `postgres/`, each with its own concrete `Db` type, pool and migrations. The
//! two backends differ only in what their [`backend::Backend`] says (how a write transaction
//! begins and batches, how places are taken and committed: the no-oversell rule) and in how
//! their migrations spell the column types; [`DbDecimal`] hides the one type sqlx maps
//! differently (NUMERIC on Postgres, decimal TEXT on SQLite).

mod after_sale;
mod availability;
mod backend;
mod batch;
mod calendar;
mod campaigns;
mod checkout_tx;
mod checkouts;
mod clients;
mod customers;
mod db_decimal;
mod dialect;
mod events;
mod gates;
mod holds;
mod idempotency;
mod images;
mod issuers;
mod keys;
mod ledger;
mod mail;
mod memberships;
mod merchant_accounts;
mod merchants;
mod octo;
mod orders;
mod payments;
mod places;
pub mod postgres;
mod products;
mod sessions;
pub mod sqlite;
mod stored_names;
mod ticket_mail;
mod timeslots;
pub mod two_decimals;
mod vouchers;
mod wallets;

use std::sync::Arc;

pub use after_sale::{
    AfterSaleStore, AfterSaleTx, FrozenLine, HeldMove, HeldPlaces, NewDifferencePayment,
    OrderChangeRecord, PendingRebookingRecord,
};
pub use availability::{AvailabilityGroup, AvailabilityGroupInput, AvailabilityStore, DayCapacity};
pub use calendar::{
    days, CalendarDay, CalendarInput, CalendarStore, ProductCalendarDay, MAX_CALENDAR_DAYS,
};
pub use campaigns::{Campaign, CampaignInput, CampaignStore};
pub use checkout_tx::{
    CheckoutRowTx, CheckoutTx, IdempotencyTx, LoyaltyTx, OrderTx, OutboxTx, PlacesTx, TicketTx,
    VoucherTx, WalletTx,
};
pub use checkouts::{
    CheckoutLineRecord, CheckoutRecord, CheckoutStore, CheckoutVoucherRecord, ClientOrigins,
    CustomerFields, NewCheckout, NewCheckoutLine, StoredAnswer,
};
pub use clients::{
    ClientSecrets, ClientStore, PartnerClient, PartnerClientInput, PartnerClientSecrets, Settlement,
};
pub use customers::{Customer, CustomerDetails, CustomerKey, CustomerStore};
pub use db_decimal::DbDecimal;
pub use events::{DeliveryOutcome, DueDelivery, EventRecord, EventStore, FeedPosition};
pub use gates::{
    nonce_taken, DayCodes, Gate, GateCredential, GateInput, GateSecrets, GateStore, GateTx, LetIn,
    RedemptionRecord, ScannedTicket, DEFAULT_EARLY_MINUTES,
};
pub use holds::{Held, HoldLimits, Holder};
pub(crate) use idempotency::KeyClaim;
pub use idempotency::{IdempotencyClaim, IdempotencyStore, IdempotentRequest, KeyState};
pub use images::{
    AddImage, ImageFileBytes, ImageFileRef, ImageOwner, ImageStore, NewImageFile, StoredImage,
    MAX_IMAGES,
};
pub use issuers::{IdentityIssuer, IdentityIssuerInput, IssuerStore};
pub use keys::{KeyPurpose, KeyStore, SigningKey};
pub use ledger::{CancelledCount, LedgerFilter, LedgerStore, LedgerTx, NewLedgerEntry};
pub use mail::{MailClaim, MailContent, MailFilter, MailOutcome, MailRecord, MailStore, NewMail};
pub use memberships::{Membership, MembershipInput, MembershipStore};
pub use merchant_accounts::{MerchantAccount, MerchantAccountStore};
pub use merchants::{
    Address, LocalizedMerchant, Location, Merchant, MerchantInput, MerchantStore,
    MerchantTranslation,
};
pub use octo::{OctoBooking, OctoBookingFilter, OctoContact, OctoStore, OctoTx};
pub use orders::{
    LoyaltyEntryKey, LoyaltyEntryRecord, NewOrder, NewTicket, OrderRecord, OrderStore,
    OrderVersion, PaymentRecord, TicketRecord,
};
pub use payments::{NewRefund, PaymentStore, RefundRecord};
pub use places::Places;
pub use products::{
    LocalizedProduct, Product, ProductFilter, ProductInput, ProductStore, ProductTranslation,
    INVENTORY_PROVIDER, TICKET, VALIDITY_PERIOD,
};
pub use sessions::{NewSession, Redemption, Session, SessionMode, SessionStore};
pub use ticket_mail::{ResendLimit, ResendOutcome, TicketMailStore};
pub use timeslots::{NewTimeslot, Timeslot, TimeslotStore};
pub use vouchers::{
    normalize_voucher_code, Voucher, VoucherInput, VoucherKind, VoucherStore, VoucherUpdate,
};
pub use wallets::{Wallet, WalletInput, WalletStore};

/// The histogram of how many checkouts shared a group commit on SQLite (its buckets: `lib.rs`).
pub const GROUP_COMMIT_MEMBERS: &str = "store_group_commit_members";

/// A failure of the store that callers may want to tell apart.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The write conflicts with what is stored: a duplicate, a record still in use, a capacity
    /// below what is already taken, a change a concurrent one made impossible (a CHECK's
    /// backstop), or an Idempotency-Key a retry took over. The text says which; it answers 409
    /// `conflict`.
    #[error("conflict: {0}")]
    Conflict(String),
    /// A foreign key named a record that does not exist; the text names the field.
    #[error("missing reference: {0}")]
    MissingReference(String),
    /// A reference names a record that exists but may not be used there (a group of another
    /// merchant); `field` names the input field.
    #[error("invalid reference {field}: {message}")]
    InvalidReference { field: String, message: String },
    /// Fewer places were left than a commit was to take (the first such take); nothing was
    /// kept.
    #[error("fewer than {quantity} places are left {0}", quantity = .0.quantity())]
    Short(Places),
    #[error(transparent)]
    Database(sqlx::Error),
}

/// The name under which both backends refuse to complete an idempotency key a retry took
/// over (`sql/idempotency.rs`, migration 0006).
const KEY_TAKEN_OVER: &str = "idempotency_record_owned";

impl From<sqlx::Error> for StoreError {
    fn from(err: sqlx::Error) -> Self {
        let taken_over = matches!(&err, sqlx::Error::Database(db)
            if db.constraint() == Some(KEY_TAKEN_OVER) || db.message().contains(KEY_TAKEN_OVER));
        if taken_over {
            return StoreError::Conflict(
                "This request's Idempotency-Key was taken over by a retry after its lock ran out; the retry's outcome stands.".into(),
            );
        }
        StoreError::Database(err)
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// Classifies constraint violations; `what` names the field or record for the message.
    pub fn classify(err: sqlx::Error, what: &str) -> StoreError {
        if let sqlx::Error::Database(db) = &err {
            match db.kind() {
                sqlx::error::ErrorKind::UniqueViolation => {
                    return StoreError::Conflict(format!("{what} already exists"))
                }
                sqlx::error::ErrorKind::ForeignKeyViolation => {
                    return StoreError::MissingReference(what.to_owned())
                }
                _ => {}
            }
        }
        StoreError::Database(err)
    }

    /// Classifies the failure of a delete: a foreign key still pointing at the record means
    /// it is in use, a conflict with the current state rather than bad input.
    pub fn classify_delete(err: sqlx::Error, what: &str) -> StoreError {
        if let sqlx::Error::Database(db) = &err {
            if db.kind() == sqlx::error::ErrorKind::ForeignKeyViolation {
                return StoreError::Conflict(format!("{what} is still in use"));
            }
        }
        StoreError::Database(err)
    }

    /// A CHECK violation as a `Conflict` saying `message`: the backstop behind a conditional
    /// write, reached when a concurrent change slipped between the condition and the constraint.
    pub fn check_as_conflict(err: sqlx::Error, message: &str) -> StoreError {
        if is_check_violation(&err) {
            StoreError::Conflict(message.to_owned())
        } else {
            StoreError::Database(err)
        }
    }
}

/// Whether a statement failed a CHECK constraint.
fn is_check_violation(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::CheckViolation)
}

/// Whether a statement failed a UNIQUE constraint or a primary key.
fn is_unique_violation(err: &sqlx::Error) -> bool {
    matches!(err, sqlx::Error::Database(db) if db.kind() == sqlx::error::ErrorKind::UniqueViolation)
}

/// Everything the server persists.
#[async_trait::async_trait]
pub trait Store:
    CampaignStore
    + CheckoutStore
    + ClientStore
    + CustomerStore
    + EventStore
    + IdempotencyStore
    + IssuerStore
    + KeyStore
    + MailStore
    + MembershipStore
    + MerchantAccountStore
    + OrderStore
    + PaymentStore
    + SessionStore
    + VoucherStore
    + WalletStore
    + MerchantStore
    + AvailabilityStore
    + ProductStore
    + CalendarStore
    + TimeslotStore
    + TicketMailStore
    + AfterSaleStore
    + GateStore
    + LedgerStore
    + OctoStore
    + ImageStore
    + Send
    + Sync
    + 'static
{
    /// Whether the database answers, for `/readyz`.
    async fn ping(&self) -> StoreResult<()>;
    /// Which backend this is, for logs.
    fn backend(&self) -> &'static str;
    /// Ends the store at a clean stop, after the last request and worker: the database's
    /// files are left complete (SQLite's write-ahead log checkpointed into the database file
    /// and emptied) and the connections closed. Nothing may use the store after.
    async fn close(&self);
}

/// Opens the store a URL names: `postgres://…` or `sqlite://…`, and runs its migrations.
/// `max_connections` is the pool's size; `None` takes the backend's default.
pub async fn connect(url: &str, max_connections: Option<u32>) -> anyhow::Result<Arc<dyn Store>> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let size = max_connections.unwrap_or_else(postgres::default_pool_size);
        Ok(Arc::new(postgres::PostgresStore::connect(url, size).await?))
    } else if url.starts_with("sqlite:") {
        Ok(Arc::new(
            sqlite::SqliteStore::connect(url, max_connections.unwrap_or(sqlite::DEFAULT_READERS))
                .await?,
        ))
    } else {
        anyhow::bail!("DATABASE_URL must start with postgres:// or sqlite:")
    }
}

/// How a store failure answers: a problem of its own where it is the caller's, else a 500.
impl From<StoreError> for crate::error::Error {
    fn from(err: StoreError) -> Self {
        use crate::error::{Error, ProblemType};
        match err {
            StoreError::Conflict(what) => Error::new(ProblemType::Conflict, what),
            StoreError::MissingReference(what) => Error::invalid_field(
                &what,
                "unknown_reference",
                format!("`{what}` refers to a record that does not exist"),
            ),
            StoreError::InvalidReference { field, message } => {
                Error::invalid_field(&field, "invalid_reference", message)
            }
            StoreError::Short(places) => Error::new(
                ProblemType::CheckoutProductNotFulfillable,
                format!("Fewer than {} places are left {places}.", places.quantity()),
            ),
            StoreError::Database(err) => err.into(),
        }
    }
}
