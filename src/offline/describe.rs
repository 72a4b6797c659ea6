//! A human-readable account of a blob's body, for `animcomp inspect` (tools only: it allocates).

use crate::format::CodecId;
use crate::format::Header;
use crate::Result;

/// A human-readable account of a blob's body, for `animcomp inspect`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BodyDescription {
    /// Named sections and their sizes in bytes.
    pub sections: Vec<(String, usize)>,
    /// One entry per stored sub-track.
    pub tracks: Vec<TrackDescription>,
}

/// How one sub-track is stored.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackDescription {
    /// Joint index.
    pub joint: usize,
    /// "rotation", "translation" or "scale".
    pub channel: &'static str,
    /// "default", "constant", or the format / bit rate used.
    pub storage: String,
    /// Average stored bits per sample (0 for default and constant).
    pub bits_per_sample: f32,
}

/// Describes a validated body.
pub fn describe(h: &Header, body: &[u8]) -> Result<BodyDescription> {
    if h.num_joints == 0 {
        return Ok(BodyDescription::default());
    }
    match h.codec {
        CodecId::Fixed => super::fixed::describe(h, body),
        CodecId::Vbr if h.grouped() => crate::runtime::vbr::grouped::describe::describe(h, body),
        CodecId::Vbr => super::vbr::describe(h, body),
        CodecId::Keys => super::keys::describe(h, body),
    }
}
