//! Fuzz target `tier_rule`: see `fuzz/harness_tiers.rs` (`harness_tiers::tier_rule`): a resident
//! blob and its tier blobs mutated (checksums re-sealed), then attaches, detaches and poses; every
//! pose keeps the value rule whatever is attached, and a refused tier leaves the set unchanged.
#![no_main]

#[path = "../harness.rs"]
mod harness;
#[path = "../harness_rule.rs"]
mod harness_rule;
#[path = "../harness_tiers.rs"]
mod harness_tiers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = harness_tiers::tier_rule(data);
});
