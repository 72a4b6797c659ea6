//! Compression settings shared by every codec.

use crate::format::quantize::{RotationFormat, VectorFormat};

/// Which codec to compress with.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodecChoice {
    /// The smaller of `vbr` and `keys` for this clip at the same precision.
    Auto = 0,
    /// Fixed per-channel formats chosen by the caller (Unreal-style).
    Fixed = 1,
    /// Error-driven variable bit rates (the default).
    Vbr = 2,
    /// Key reduction and curve fitting, playback-ordered key stream.
    Keys = 3,
}

impl CodecChoice {
    /// Every choice, in id order.
    pub const ALL: [CodecChoice; 4] = [
        CodecChoice::Auto,
        CodecChoice::Fixed,
        CodecChoice::Vbr,
        CodecChoice::Keys,
    ];
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            CodecChoice::Auto => "auto",
            CodecChoice::Fixed => "fixed",
            CodecChoice::Vbr => "vbr",
            CodecChoice::Keys => "keys",
        }
    }
    /// The codec id a blob records for this choice when there is no joint body to encode
    /// (a curves-only clip): `auto` records `vbr`.
    pub fn stored_id(self) -> crate::format::CodecId {
        match self {
            CodecChoice::Fixed => crate::format::CodecId::Fixed,
            CodecChoice::Keys => crate::format::CodecId::Keys,
            CodecChoice::Auto | CodecChoice::Vbr => crate::format::CodecId::Vbr,
        }
    }
    /// From the lowercase name.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|c| c.name() == s)
    }
}

/// How hard the optimiser searches (codecs that search).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// The codec picks from the clip's size.
    Automatic = 0,
    /// Quickest.
    Fast = 1,
    /// Balanced.
    Default = 2,
    /// Smallest output.
    Best = 3,
}

impl Level {
    /// Every level, in id order.
    pub const ALL: [Level; 4] = [Level::Automatic, Level::Fast, Level::Default, Level::Best];
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
}

/// What a "default" sub-track (one the blob does not store) equals.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefaultMode {
    /// Identity rotation, zero translation, unit scale.
    Identity = 0,
    /// The skeleton's bind pose (the decompressor must then be given the bind pose).
    BindPose = 1,
}

impl DefaultMode {
    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        match v {
            0 => Some(DefaultMode::Identity),
            1 => Some(DefaultMode::BindPose),
            _ => None,
        }
    }
}

/// Reserved; every `vbr` blob is written in the grouped layout. Kept so that existing callers
/// compile and the C settings keep their size: every defined value writes the same blob, and an
/// undefined one is still refused (`InvalidEnum`). A `vbr` blob with joints is format version 5
/// (docs/grouped.md); one without joints (curves only) is format version 2, like every blob of
/// the other codecs.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VbrLayout {
    /// Reserved (the default value); written grouped like the others.
    #[default]
    Segments = 0,
    /// Reserved; written grouped like the others.
    Grouped = 1,
    /// Reserved; written grouped like the others.
    Auto = 2,
}

impl VbrLayout {
    /// Every value, in id order.
    pub const ALL: [VbrLayout; 3] = [VbrLayout::Segments, VbrLayout::Grouped, VbrLayout::Auto];

    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
    /// Lowercase name (`segments`, `grouped`, `auto`), as the CLI and the Python package spell
    /// it.
    pub fn name(self) -> &'static str {
        match self {
            VbrLayout::Segments => "segments",
            VbrLayout::Grouped => "grouped",
            VbrLayout::Auto => "auto",
        }
    }
    /// From [`VbrLayout::name`].
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|l| l.name() == s)
    }
}

/// Everything a caller can choose about compression. Per-joint precision and shell distance live
/// in the [`crate::offline::clip::Skeleton`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompressSettings {
    /// Codec.
    pub codec: CodecChoice,
    /// Search effort.
    pub level: Level,
    /// `fixed` codec: rotation format.
    pub rotation_format: RotationFormat,
    /// `fixed` codec: translation format.
    pub translation_format: VectorFormat,
    /// `fixed` codec: scale format.
    pub scale_format: VectorFormat,
    /// What default sub-tracks equal.
    pub default_mode: DefaultMode,
    /// Drop the last sample when it repeats the first (within precision) and mark the blob
    /// looping, so wrap playback neither stores nor shows the repeated pose.
    pub optimize_loops: bool,
    /// Reserved; every `vbr` blob is written in the grouped layout ([`VbrLayout`]).
    pub vbr_layout: VbrLayout,
}

impl Default for CompressSettings {
    fn default() -> Self {
        CompressSettings {
            codec: CodecChoice::Vbr,
            level: Level::Automatic,
            rotation_format: RotationFormat::SmallestThree48,
            translation_format: VectorFormat::RangeReduced48,
            scale_format: VectorFormat::RangeReduced48,
            default_mode: DefaultMode::Identity,
            optimize_loops: false,
            vbr_layout: VbrLayout::Segments,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_round_trip_through_their_ids_and_names() {
        for (i, l) in VbrLayout::ALL.into_iter().enumerate() {
            assert_eq!(l as u32, i as u32);
            assert_eq!(VbrLayout::from_u32(i as u32), Some(l));
            assert_eq!(VbrLayout::from_name(l.name()), Some(l));
        }
        assert_eq!(VbrLayout::from_u32(3), None);
        assert_eq!(VbrLayout::from_name("Grouped"), None);
        assert_eq!(VbrLayout::default(), VbrLayout::Segments);
    }
}
