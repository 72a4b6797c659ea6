//! Rotation storage formats: full float, Unreal's NoW formats, smallest-three.
//!
//! Bit layouts and worst-case errors are documented in `docs/formats.md`.

/// How a rotation sub-track's samples are stored by the `fixed` codec.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RotationFormat {
    /// x y z w as four f32 (128 bits).
    Float128 = 0,
    /// x y z as f32, w reconstructed non-negative (Unreal Float96NoW, 96 bits).
    Float96NoW = 1,
    /// x y z in [-1, 1] on 16 bits each (Unreal Fixed48NoW).
    Fixed48NoW = 2,
    /// x y z in [-1, 1] on 11/11/10 bits (Unreal Fixed32NoW).
    Fixed32NoW = 3,
    /// x y z range-reduced per track on 11/11/10 bits (Unreal IntervalFixed32NoW).
    IntervalFixed32NoW = 4,
    /// x y z as small floats on 11/11/10 bits (Unreal Float32NoW).
    Float32NoW = 5,
    /// Smallest three: 2-bit index of the dropped largest component + 3 x 15 bits (48 bits).
    SmallestThree48 = 6,
    /// Smallest three: 2-bit index + 10/10/10 bits (32 bits).
    SmallestThree32 = 7,
}

impl RotationFormat {
    /// Every format, in id order.
    pub const ALL: [RotationFormat; 8] = [
        RotationFormat::Float128,
        RotationFormat::Float96NoW,
        RotationFormat::Fixed48NoW,
        RotationFormat::Fixed32NoW,
        RotationFormat::IntervalFixed32NoW,
        RotationFormat::Float32NoW,
        RotationFormat::SmallestThree48,
        RotationFormat::SmallestThree32,
    ];

    /// Format from its integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }

    /// Short lowercase name (CLI and docs).
    pub fn name(self) -> &'static str {
        match self {
            RotationFormat::Float128 => "float128",
            RotationFormat::Float96NoW => "float96-now",
            RotationFormat::Fixed48NoW => "fixed48-now",
            RotationFormat::Fixed32NoW => "fixed32-now",
            RotationFormat::IntervalFixed32NoW => "interval-fixed32-now",
            RotationFormat::Float32NoW => "float32-now",
            RotationFormat::SmallestThree48 => "smallest3-48",
            RotationFormat::SmallestThree32 => "smallest3-32",
        }
    }

    /// Format from its [`name`](Self::name).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|f| f.name() == s)
    }
}
