//! Additive clips on the tools side: bases and compression.

mod base;
#[cfg(feature = "compress")]
mod compress;

pub use base::{make_additive_clip, AdditiveBase, BasePoses};
#[cfg(feature = "compress")]
pub use compress::compress_additive;
