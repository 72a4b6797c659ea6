//! The robustness test binary: bad clip inputs, corrupted and forged blobs, the value rule of
//! valid blobs, threads, and the replay of the fuzz corpora through the fuzz harnesses (pulled in
//! from `fuzz/`, as the cargo-fuzz targets pull them in). One binary instead of one per file.

#[cfg(feature = "compress")]
#[path = "../../fuzz/harness.rs"]
mod harness;
#[cfg(feature = "compress")]
#[path = "../../fuzz/harness_rule.rs"]
mod harness_rule;
#[cfg(feature = "compress")]
#[path = "../../fuzz/harness_tiers.rs"]
mod harness_tiers;

#[cfg(feature = "compress")]
#[path = "../support/emulated.rs"]
mod emulated;

#[cfg(feature = "compress")]
mod curves_hostile;
#[cfg(feature = "compress")]
mod fuzz_corpus_replay;
#[cfg(feature = "compress")]
mod grown_sections;
#[cfg(feature = "compress")]
mod linear_validation;
#[cfg(feature = "compress")]
mod robust_fixed;
#[cfg(feature = "compress")]
mod robust_inputs;
#[cfg(feature = "compress")]
mod robust_mutation;
#[cfg(feature = "compress")]
mod robust_threads;
#[cfg(feature = "compress")]
mod tier_rule;
#[cfg(feature = "compress")]
mod value_rule;
#[cfg(feature = "compress")]
mod vbr_hostile;
