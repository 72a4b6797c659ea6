//! # animcomp
//!
//! Skeletal animation compression with a C ABI. The data flows one way:
//!
//! [`clip`] (skeleton + raw tracks, validation) → [`metric`] (the virtual-vertex error, the only
//! judge of error) → [`codec`] (fixed formats, variable bit rate, key reduction; built from
//! [`quantize`]) → [`blob`] (header, checksum, bounds-checked reading) → [`decompress`] (seek and
//! sample) → [`ffi`] (the `extern "C"` surface in `include/animcomp.h`).
//!
//! ```
//! use animcomp::{clip::{generate_clip, GenerateOptions}, compress, CompressSettings};
//! use animcomp::decompress::{Decompressor, DecompressOptions, Looping, Rounding};
//!
//! let clip = generate_clip(&GenerateOptions::default());
//! let settings = CompressSettings { codec: animcomp::CodecChoice::Fixed, ..Default::default() };
//! let blob = animcomp::AlignedBlob::from_bytes(&compress(&clip, &settings).unwrap());
//! let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
//! d.seek(0.5, Looping::Clamp, Rounding::None).unwrap();
//! let mut pose = vec![0.0f32; clip.num_joints() * 10];
//! d.sample_pose(&mut pose, 10).unwrap();
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
    clip::RawClip, compress, compress_with_curves, curves::Curve, CodecChoice, CompressSettings,
};
