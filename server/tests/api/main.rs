//! API tests: each starts the real server on a random port and speaks HTTP to it. They run on
//! SQLite by default and on Postgres when `TEST_DATABASE_URL` is set (the test command runs both).

mod admin_availability;
mod admin_campaigns;
mod admin_catalog;
mod admin_clients;
mod admin_issuers;
mod admin_memberships;
mod admin_products;
mod admin_vouchers;
mod admin_wallets;
mod bench_baselines;
#[macro_use]
mod catalog_fixtures;
mod catalog_access;
mod catalog_availability;
mod catalog_merchants;
mod catalog_products;
mod catalog_search;
mod checkout_crash;
mod checkout_definitions;
mod checkout_express;
mod checkout_fixtures;
mod checkout_flow;
mod checkout_payments;
mod checkout_races;
mod conventions;
mod credentials;
mod db_reads;
mod demo;
mod events_attribution;
mod events_feed;
mod frame;
mod helpers;
mod identity_exchange;
mod onboarding;
mod partner_fixtures;
mod sandbox_switch;
mod smtp_server;
mod store_events;
mod store_places;
mod store_story;
mod token_attacks;
mod webhook_claims;
mod webhook_delivery;
