//! Fuzz target `compress_clip`: see `fuzz/harness.rs` (`harness::compress_clip`) for what it checks.
#![no_main]

#[path = "../harness.rs"]
mod harness;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness::compress_clip(data);
});
