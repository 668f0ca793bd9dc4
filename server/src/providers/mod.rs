//! External providers behind traits, chosen by configuration: fulfilment (who holds a
//! product's capacity) and payments (and merchant KYC).

pub mod fulfillment;
pub mod payment;
pub mod sandbox;

pub use fulfillment::{
    Booking, BookingLine, FulfillmentError, FulfillmentProvider, FulfillmentProviders, Inventory,
};
pub use payment::{PaymentProvider, PaymentRequest, ProvisionedAccount};
