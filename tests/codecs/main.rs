//! The codecs test binary: round trips, sampling, reports and golden blobs of `fixed`, `vbr` and
//! `keys`, and the keys cursor, fitting and hostile bodies. One binary instead of one per file.

mod curves_roundtrip;
mod golden_blobs;
mod keys_cursor;
mod keys_fit;
mod keys_hostile;
mod keys_roundtrip;
mod report_fixed;
mod roundtrip_fixed;
mod sampling_fixed;
mod support_fixed;
mod vbr_roundtrip;
