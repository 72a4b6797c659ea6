//! Fuzz target `blob_decode`: see `fuzz/harness.rs` (`harness::blob_decode`) for what it checks.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::blob_decode(data);
});
