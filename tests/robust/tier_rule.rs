//! Hostile tier blobs (docs/tiers.md): mutants of a resident blob and its two tier blobs,
//! checksums re-sealed, then attaches, detaches and poses in any order; every pose keeps the value
//! rule and a refused tier leaves the tier set as it was. The checks are `fuzz/harness_tiers.rs`,
//! shared with the cargo-fuzz target `tier_rule`. Inputs: `ANIMCOMP_TIER_CASES` (default 400).

use crate::harness_tiers::tier_rule;

#[test]
fn mutated_tiers_keep_the_value_rule() {
    let cases: usize = std::env::var("ANIMCOMP_TIER_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        // Under qemu (.ci/cross.sh) 200 cases: this sweep was 14 s of CPU there.
        .unwrap_or(if crate::emulated::emulated() {
            200
        } else {
            400
        });
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (mut opened, mut attached, mut tiered) = (0, 0, 0);
    for case in 0..cases {
        // Mostly tier mutations (bits 1 and 2), sometimes the resident blob's too; one to eight
        // mutations; 24 operations.
        let which = [2u8, 4, 6, 6, 7][case % 5];
        let mut data = vec![which, 1 + (next() % 8) as u8];
        for _ in 0..8 * 4 + 24 {
            data.push(next() as u8);
        }
        let o = tier_rule(&data);
        opened += o.opened as usize;
        attached += o.attached;
        tiered += o.tiered_checks;
    }
    // The run proves something only if mutants got past the checksums and were sampled.
    assert!(
        opened * 2 > cases,
        "{opened} of {cases} resident blobs opened"
    );
    assert!(
        attached > 0 && tiered > cases,
        "{attached} mutated tiers attached, {tiered} checks"
    );
    eprintln!("{cases} inputs: {opened} opened, {attached} mutated tiers attached, {tiered} checks with tiers");
}
