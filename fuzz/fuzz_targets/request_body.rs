//! `cargo fuzz run request_body`: see `server::fuzzing::request_body`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| server::fuzzing::request_body(data));
