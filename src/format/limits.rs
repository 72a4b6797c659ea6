//! Limits every blob and clip obeys (the decoder relies on them as much as the encoder).

pub use crate::offline::clip::{
    MAX_ABS_VALUE, MAX_JOINTS, MAX_SAMPLES, MAX_SAMPLE_RATE, MIN_SAMPLE_RATE,
};
