//! The catalog partners read: merchants, products with stock-aware prices, calendars and
//! timeslots.

pub mod availability;
