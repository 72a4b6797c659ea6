//! The robustness test binary: bad clip inputs, corrupted and forged blobs, the value rule of
//! valid blobs, threads, and the replay of the fuzz corpora through the fuzz harnesses (pulled in
//! from `fuzz/`, as the cargo-fuzz targets pull them in). One binary instead of one per file.

#[path = "../../fuzz/harness.rs"]
mod harness;
#[path = "../../fuzz/harness_rule.rs"]
mod harness_rule;

mod curves_hostile;
mod fuzz_corpus_replay;
mod robust_fixed;
mod robust_inputs;
mod robust_mutation;
mod robust_threads;
mod value_rule;
mod vbr_hostile;
