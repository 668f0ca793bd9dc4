//! External providers behind traits, chosen by configuration: payments (and merchant KYC).

pub mod payment;
pub mod sandbox;

pub use payment::{PaymentProvider, ProvisionedAccount};
