//! The blob container: a fixed 64-byte header followed by a codec-specific body.
//!
//! See `docs/format.md`. [`header`] defines the header; [`validate`] checks a blob
//! before anything else reads it (`offline::blob_writer` assembles one); [`bytes`] holds the bounds-checked
//! little-endian readers every codec uses to parse its body.

pub mod bytes;
pub mod checksum;
pub mod codec_id;
pub mod curves;
pub mod fixed;
pub mod header;
pub mod keys;
pub mod limits;
pub mod quantize;
pub mod tier;
pub mod validate;
pub mod vbr;

pub use codec_id::CodecId;
pub use header::{
    AdditiveFormat, BlobFlags, Header, TierInfo, FORMAT_VERSION, HEADER_SIZE, MAGIC, MAX_CURVES,
    MAX_TIER_LEVELS,
};
pub use validate::{validate_blob, validate_blob_counting, ValidationWork};

/// Alignment of blobs and of the buffers they are written into.
pub const BLOB_ALIGNMENT: usize = 16;
