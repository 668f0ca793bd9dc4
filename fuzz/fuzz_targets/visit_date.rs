//! `cargo fuzz run visit_date`: see `server::fuzzing::visit_date`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| server::fuzzing::visit_date(data));
