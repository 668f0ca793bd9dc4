//! Pieces every screen uses: headings that take focus, the one way to read (`load`), loading
//! and error notices, prices, tickets, cursor paging, and the one way to write (`write`).

pub mod heading;
pub mod load;
pub mod notice;
pub mod paging;
pub mod price;
pub mod tickets;
pub mod write;
