//! `cargo fuzz run cursor`: see `server::fuzzing::cursor`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| server::fuzzing::cursor(data));
