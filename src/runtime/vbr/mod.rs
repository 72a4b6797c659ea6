//! The `vbr` decoder. Every `vbr` blob with joints holds the grouped layout (format version 5):
//! a body whose sub-tracks sit in groups of eight SIMD lanes, with its own validator, decoders
//! and playback cache ([`grouped`], `docs/grouped.md`). A format version 2 `vbr` body (the
//! segments layout the encoder writes before regrouping) has no decoder here: validation refuses
//! it, and `offline::regroup_blob` converts it.

pub mod grouped;
