//! # animcomp
//!
//! Skeletal animation compression with a C ABI. The source tree shows what ships in a game and
//! what runs only in tools:
//!
//! - [`format`](mod@format): what both sides agree on: the blob header and [`format::CodecId`], the limits,
//!   the checksum, per codec the body layout and its linear-time validation, and the quantised
//!   formats (bit packing, rotation and vector formats) the decoders read.
//! - [`runtime`]: what a game ships: [`runtime::OpenBlob`] (validate once) and
//!   [`runtime::Decompressor`] (bind, seek, sample a pose, a joint or a subset, curves), the keys
//!   playback cursor, additive blending; per codec a decoder file. Sampling never allocates.
//! - [`offline`] (cargo feature `compress`, on by default): what runs in tools: the clip model and
//!   its validation, the error metric, the compression pipeline, per codec an encoder, `describe`.
//! - [`ffi`]: the `extern "C"` surface in `include/animcomp.h` over both; its compress entry
//!   points exist only with `compress`.
//!
//! The data flows one way: clip → validation → metric ← encoders (`offline`) → blob (`format`) →
//! validation → decoders (`runtime`) → C ABI. `cargo build --no-default-features` builds the
//! runtime-only library, which samples every blob the full build writes.
//!
//! ```
//! # #[cfg(feature = "compress")] {
//! use animcomp::{clip::{generate_clip, GenerateOptions}, compress, CompressSettings};
//! use animcomp::runtime::{Decompressor, DecompressOptions, Looping, Rounding};
//!
//! let clip = generate_clip(&GenerateOptions::default());
//! let settings = CompressSettings { codec: animcomp::CodecChoice::Fixed, ..Default::default() };
//! let blob = animcomp::AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
//! let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
//! d.seek(0.5, Looping::Clamp, Rounding::None).unwrap();
//! let mut pose = vec![0.0f32; clip.num_joints() * 10];
//! d.sample_pose(&mut pose, 10).unwrap();
//! # }
//! ```

#![warn(missing_docs)]

pub mod error;
pub mod ffi;
pub mod format;
pub mod math;
#[cfg(feature = "compress")]
pub mod offline;
pub mod runtime;

mod aligned;
// Whether the tests run under an emulator (qemu, `.ci/cross.sh`): the compressor's heaviest unit
// tests run shorter clips there (docs/ci.md). The file the integration tests use.
#[cfg(all(test, feature = "compress"))]
#[path = "../tests/support/emulated.rs"]
mod emulated;

// Older paths, kept for callers: `decompress` is the runtime, `clip` and `metric` live offline.
#[cfg(feature = "compress")]
pub use offline::{clip, metric};
pub use runtime as decompress;

pub use aligned::AlignedBlob;
pub use error::{Error, Result, Status};
pub use format::AdditiveFormat;
#[cfg(feature = "compress")]
pub use offline::additive::{compress_additive, AdditiveBase};
#[cfg(feature = "compress")]
pub use offline::{
    clip::RawClip, compress, compress_tiered, compress_tiered_budget, compress_with_curves,
    curves::Curve, CodecChoice, CompressSettings, TierBudget, TierSettings, TieredBlobs, VbrLayout,
};
