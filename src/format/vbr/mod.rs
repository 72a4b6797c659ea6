//! The `vbr` codec's body: layout and validation, bit rates, stored rotations (see
//! `docs/vbr.md`).

pub mod bitrate;
pub mod keyframe;
pub mod layout;
pub mod rotation;
