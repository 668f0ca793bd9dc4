//! `cargo fuzz run accept_language`: see `server::fuzzing::accept_language`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| server::fuzzing::accept_language(data));
