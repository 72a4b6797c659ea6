//! What runs in tools (cargo feature `compress`, on by default; absent from the runtime-only
//! library a game ships).
//!
//! [`clip`] (skeleton + raw tracks, validation) → [`metric`] (the virtual-vertex error, the only
//! judge of error) → [`compress`](mod@compress) (the pipeline) → per codec an encoder
//! ([`fixed`], [`vbr`], [`keys`]) built from the quantisers of [`crate::format::quantize`] →
//! [`blob_writer`] (header, checksum). [`describe`](mod@describe) accounts for a blob's bytes;
//! [`relayout`] rewrites a `vbr` blob in the grouped layout without recompressing.

pub mod additive;
pub mod blob_writer;
pub mod clip;
pub mod compress;
pub mod curves;
pub mod describe;
mod encode_context;
pub mod fixed;
pub mod keys;
pub mod metric;
pub mod relayout;
pub mod rotation_error;
pub mod settings;
pub mod tiers;
pub mod vbr;

pub use compress::{compress, compress_keys_with, compress_with_curves};
pub use describe::{describe, BodyDescription, TrackDescription};
pub use encode_context::EncodeContext;
pub use relayout::regroup_blob;
pub use rotation_error::RotationStats;
pub use settings::{CodecChoice, CompressSettings, DefaultMode, Level, VbrLayout};
pub use tiers::{compress_tiered, compress_tiered_budget, TierBudget, TierSettings, TieredBlobs};
