//! Pieces every screen uses: headings that take focus, the one way to read (`load`), loading
//! and error notices, pictures, prices, tickets, cursor paging, the route's ids (`route`), the one way to write (`write`), the API's
//! values in the customer's words (`words`) and the funnel steps several screens tell the host
//! (`funnel`).

pub mod funnel;
pub mod heading;
pub mod load;
pub mod notice;
pub mod paging;
pub mod picture;
pub mod price;
pub mod route;
pub mod tickets;
pub mod words;
pub mod write;
