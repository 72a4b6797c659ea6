//! The codecs test binary: round trips, sampling, reports and golden blobs of `fixed`, `vbr` and
//! `keys`, and the keys cursor, fitting and hostile bodies. One binary instead of one per file.

#[cfg(feature = "compress")]
mod curves_roundtrip;
#[path = "../support/emulated.rs"]
mod emulated;
mod golden_blobs;
#[cfg(feature = "compress")]
mod golden_generate;
#[cfg(feature = "compress")]
mod keys_cursor;
#[cfg(feature = "compress")]
mod keys_fit;
#[cfg(feature = "compress")]
mod keys_hostile;
#[cfg(feature = "compress")]
mod keys_roundtrip;
#[cfg(feature = "compress")]
mod report_fixed;
#[path = "../support/reseal.rs"]
mod reseal;
#[cfg(feature = "compress")]
mod roundtrip_fixed;
#[cfg(feature = "compress")]
mod sampling_fixed;
#[cfg(feature = "compress")]
mod support_fixed;
#[cfg(feature = "compress")]
mod vbr_roundtrip;
