//! Pieces every screen uses: headings that take focus, the one way to read (`load`), loading
//! and error notices, prices, tickets, and cursor paging.

pub mod heading;
pub mod load;
pub mod notice;
pub mod paging;
pub mod price;
pub mod tickets;
