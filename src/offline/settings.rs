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

/// How a `vbr` blob lays out its body: what the runtime pays per call (`docs/runtime.md`).
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum VbrLayout {
    /// Segments of tracks, joint after joint (format version 2, read by every version of the
    /// library): the fastest joint subsets.
    #[default]
    Segments = 0,
    /// Tracks in groups of eight that SIMD lanes decode together, with a playback cache
    /// (format version 4, which libraries from this version on read): faster whole poses and
    /// playback on rigs of about 20 joints or more, slower joint subsets; 0.3-2.3 % larger on
    /// the shared mocap sets, 3.3 % on short clips of a few KB, 6.9 % (and slower) on the glTF
    /// samples' small rigs (docs/grouped.md).
    Grouped = 1,
    /// Chosen per clip: grouped for a rig of 16 joints or more (`AUTO_GROUPED_JOINTS`),
    /// segments below, where the grouped layout measured slower whole poses and larger blobs
    /// (the crossover lies between 9 and 19 joints: docs/grouped.md, "Speed"). Later
    /// versions may refine the rule.
    Auto = 2,
}

/// Joints from which [`VbrLayout::Auto`] writes the grouped layout: two full groups of
/// rotations. The grouped layout measured faster whole poses than the default on every shared
/// rig of 19 joints or more (19 to 100 joints, 1.17-2.58x per clip) and slower on every rig of
/// 9 or fewer (2 to 9, 0.56-0.82x; 0.75-1.05x since one-lane groups are decoded alone), where
/// it also stores 30-42 % more; on generated rigs whose every joint rotates, 1.05-1.08x at 8
/// and 12 joints and 1.27x at 16 (measured 2026-11-27 at 66063a8, docs/grouped.md).
pub const AUTO_GROUPED_JOINTS: usize = 16;

impl VbrLayout {
    /// Every layout, in id order.
    pub const ALL: [VbrLayout; 3] = [VbrLayout::Segments, VbrLayout::Grouped, VbrLayout::Auto];

    /// Whether a `vbr` blob of a clip of `joints` joints is written grouped.
    pub fn grouped_for(self, joints: usize) -> bool {
        match self {
            VbrLayout::Segments => false,
            VbrLayout::Grouped => true,
            VbrLayout::Auto => joints >= AUTO_GROUPED_JOINTS,
        }
    }

    /// From the integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
    /// Lowercase name (`segments`, `grouped`), as the CLI and the Python package spell it.
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
    /// `vbr` blobs: the body's layout (other codecs ignore it).
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

    #[test]
    fn auto_groups_rigs_from_sixteen_joints() {
        for j in [0, 1, 9, 15, 16, 19, 100] {
            assert!(!VbrLayout::Segments.grouped_for(j));
            assert!(VbrLayout::Grouped.grouped_for(j));
            assert_eq!(VbrLayout::Auto.grouped_for(j), j >= 16, "{j} joints");
        }
    }
}
