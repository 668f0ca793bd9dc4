//! Types that cross the wire, shared by the server (serialisation, OpenAPI) and the frame.

mod after_sale;
mod availability;
mod checkout;
mod credentials;
mod envelope;
#[cfg(feature = "ssr")]
mod formats;
mod gate;
mod image;
mod locale;
mod merchant;
mod money;
mod order;
mod origin;
mod percentage;
mod problem;
mod product;
mod question;
#[cfg(feature = "ssr")]
mod settlement;
mod status;
mod url_pattern;

pub use after_sale::{
    AfterSaleOutcome, AfterSalePolicy, CancellationRequest, ManagedCancellationRequest,
    OrderAfterSale, OrderRefund, RebookingRequest, RefundRule, WithdrawalRequest,
};
pub use availability::{CalendarEntry, TimeslotEntry, TimeslotQuery};
pub use checkout::{
    AppliedVoucher, Attribution, BasketLine, Checkout, CheckoutLine, CheckoutRequest,
    CheckoutTotals, ConfirmRequest, ExpressCheckoutRequest, PaymentSummary, PlacedOrder,
    ShippingAddress, TimeslotWindow,
};
pub use credentials::{
    IdentityExchange, IssuedToken, Me, MerchantToken, OnboardingCode, OnboardingStatus, Prefill,
};
pub use envelope::{Envelope, Feed, Meta, Pagination};
#[cfg(feature = "ssr")]
pub use formats::{country_code, newsletters, return_url, visit_date, voucher_codes, NOT_BLANK};
pub use gate::{
    code_hash, BatchResult, BatchResults, GateManifest, ManifestProduct, OfflineScan, PairedDevice,
    PairingRequest, Redemption, RedemptionBatch, RedemptionRequest, TicketClaims, WindowKind,
    MANIFEST_TYPE, TICKET_TOKEN_TYPE,
};
pub use image::{cover, Image, ImageRole};
pub use locale::Locale;
pub use merchant::{GeoPoint, Merchant, MerchantAddress, MerchantMatch};
pub use money::Money;
pub use order::{LoyaltyEntry, Order, OrderItem, OrderReceipt, ReceiptLine, Ticket};
pub use origin::origin_matches;
pub use problem::GateRefusal;
pub use problem::{FieldError, Problem, ProblemType, PROBLEM_TYPE_PREFIX};
pub use product::Product;
pub use question::{Answer, AskedPer, AskedQuestion, Choice, GivenAnswer, InputType};
#[cfg(feature = "ssr")]
pub use question::{LocalizedText, Question, QuestionOption};
#[cfg(feature = "ssr")]
pub use settlement::{
    Buyer, Charge, EntryKind, FixedAmount, LedgerEntry, TaxAmount, TaxRate, TaxSettings, VatRow,
};
pub use status::{
    CheckoutStatus, DeliveryStatus, LoyaltyKind, MailKind, MailStatus, MerchantAccountStatus,
    OrderStatus, PaymentStatus, RedemptionStatus, TicketStatus, Transition, UnknownState,
};
pub use url_pattern::{
    HTTP_URL_PATTERN, JWKS_URL_TEMPLATE_PATTERN, ORIGIN_PATTERN, RETURN_URL_PATTERN,
};
