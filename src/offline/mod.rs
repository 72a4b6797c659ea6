//! What runs in tools.

pub mod additive;
pub mod blob_writer;
pub mod clip;
pub mod compress;
pub mod curves;
pub mod fixed;
pub mod keys;
#[cfg(feature = "compress")]
pub mod metric;
#[cfg(feature = "compress")]
pub mod rotation_error;
pub mod settings;
pub mod vbr;

#[cfg(feature = "compress")]
pub use compress::{compress, compress_with_curves, EncodeContext};
pub use compress::{describe, BodyDescription, TrackDescription};
#[cfg(feature = "compress")]
pub use rotation_error::RotationStats;
pub use settings::{CodecChoice, CompressSettings, DefaultMode, Level};
