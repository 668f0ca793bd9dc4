//! External providers behind traits, chosen by configuration: fulfilment (who holds a
//! product's capacity) and payments (and merchant KYC): the built-in sandbox, or Stripe.

pub mod fulfillment;
pub mod payment;
pub mod sandbox;
pub mod stripe;

pub use fulfillment::{
    Booking, BookingLine, FulfillmentError, FulfillmentProvider, FulfillmentProviders, Inventory,
};
pub use payment::{
    OpenedAtProvider, PaymentProvider, PaymentRequest, ProviderPayment, ProviderPaymentState,
    ProviderRefund, ProviderRefundState, ProvisionedAccount, RefundRequest,
};
