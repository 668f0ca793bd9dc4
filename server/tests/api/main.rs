//! API tests: each starts the real server on a random port and speaks HTTP to it. They run on
//! SQLite by default and on Postgres when `TEST_DATABASE_URL` is set (the test command runs both).

mod admin_campaigns;
mod conventions;
mod frame;
mod helpers;
