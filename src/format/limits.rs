//! Limits every clip and blob obeys: the encoder rejects input beyond them, the validator
//! rejects blobs beyond them, and the decoder relies on both.

/// Most joints a clip may have (joint indices fit in 14 bits).
pub const MAX_JOINTS: usize = 16_383;
/// Most samples a clip may have.
pub const MAX_SAMPLES: usize = 1 << 24;
/// Lowest accepted sample rate in Hz.
pub const MIN_SAMPLE_RATE: f32 = 1.0e-4;
/// Highest accepted sample rate in Hz.
pub const MAX_SAMPLE_RATE: f32 = 1.0e5;
/// Largest accepted magnitude of any translation or scale component (clip units).
/// Larger values are rejected as [`crate::Error::NonFiniteValue`]: at 1e7 an `f32` has a
/// resolution of 1, far coarser than any precision a codec can promise.
pub const MAX_ABS_VALUE: f32 = 1.0e7;
