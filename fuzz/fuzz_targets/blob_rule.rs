//! Fuzz target `blob_rule`: see `fuzz/harness_rule.rs` (`harness_rule::blob_rule`): mutants of
//! valid blobs, checksum re-sealed, must decode to finite, unit-rotation, in-limit poses when they
//! validate (`ANIMCOMP_RULE_CODECS=fixed,keys` restricts the codecs).
#![no_main]

#[path = "../harness.rs"]
mod harness;
#[path = "../harness_rule.rs"]
mod harness_rule;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness_rule::blob_rule(data);
});
