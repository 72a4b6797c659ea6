//! The value rule (docs/robustness.md, "What a valid blob decodes to"), as property tests: mutants
//! of valid blobs of each codec, checksum re-sealed so they reach the codec validators; every
//! mutant that validates must decode, at many times, with both looping policies, interpolating,
//! for every joint, through `sample_pose`, `sample_joint` and (keys) the cursor, to finite values,
//! unit rotations (within 1e-3) and translations and scales within `MAX_ABS_VALUE`. The checks are
//! `fuzz/harness_rule.rs`, shared with the cargo-fuzz target `blob_rule`.
//!
//! One test per codec, so each can be run on its own (`cargo test --test robust value_rule::vbr`).
//! Cases: `PROPTEST_CASES` (default 400 per codec).

use crate::harness_rule::{check_rule, mutant, violation};
use animcomp::format::CodecId;
use proptest::prelude::*;

/// Mutation input: clip kind, settings, then 1..=8 mutations of 4 bytes each.
fn input() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<[u8; 2]>(),
        proptest::collection::vec(any::<[u8; 4]>(), 1..=8),
    )
        .prop_map(|(h, m)| {
            let mut v = h.to_vec();
            m.iter().for_each(|x| v.extend_from_slice(x));
            v
        })
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// Runs one mutant; returns whether it validated (the rule is asserted inside).
fn run(codec: CodecId, data: &[u8]) -> bool {
    mutant(codec, data).is_some_and(|m| check_rule(&m))
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn fixed(data in input()) {
        run(CodecId::Fixed, &data);
    }

    #[test]
    fn keys(data in input()) {
        run(CodecId::Keys, &data);
    }

    #[test]
    fn vbr(data in input()) {
        run(CodecId::Vbr, &data);
    }
}

/// Every unmutated base blob validates and keeps the rule (so the property tests above start
/// from blobs that decode), and the rule's own check catches each kind of violation.
#[test]
fn base_blobs_keep_the_rule_and_violations_are_caught() {
    for codec in [CodecId::Fixed, CodecId::Vbr, CodecId::Keys] {
        let mut validated = 0;
        for kind in 0..6u8 {
            for settings in [0u8, 4, 36, 128] {
                if let Some(b) = mutant(codec, &[kind, settings]) {
                    assert!(
                        check_rule(&b),
                        "{codec:?} base blob {kind}/{settings} must validate"
                    );
                    validated += 1;
                }
            }
        }
        assert!(validated >= 6, "{codec:?}: {validated} base blobs");
    }
    let ok = [0.0, 0.0, 0.0, 1.0, 1.0, 2.0, 3.0, 1.0, 1.0, 1.0];
    assert_eq!(violation(&ok), None);
    let mut bad = ok;
    bad[5] = f32::NAN;
    assert!(violation(&bad).is_some());
    let mut bad = ok;
    bad[3] = 1.01;
    assert!(violation(&bad).is_some());
    let mut bad = ok;
    bad[8] = 1.0e8;
    assert!(violation(&bad).is_some());
}

/// Finding 6 (docs/robustness.md): a keys mutant whose constant rotation has tiny components (its
/// squared length subnormal) validated and decoded to a rotation of length 0.9906. Constant
/// rotations must now be of unit length to validate; whatever this mutant becomes, it keeps the
/// rule.
#[test]
fn keys_constant_rotation_of_tiny_components() {
    let data = [135, 128, 33, 228, 0, 0, 214, 0, 0, 27];
    if let Some(m) = mutant(CodecId::Keys, &data) {
        check_rule(&m);
    }
}
