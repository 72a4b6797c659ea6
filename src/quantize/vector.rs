//! Translation and scale storage formats.

/// How a translation or scale sub-track's samples are stored by the `fixed` codec.
#[repr(u32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VectorFormat {
    /// x y z as f32 (96 bits).
    Float96 = 0,
    /// Range-reduced per track, 16/16/16 bits.
    RangeReduced48 = 1,
    /// Range-reduced per track, 11/11/10 bits.
    RangeReduced32 = 2,
}

impl VectorFormat {
    /// Every format, in id order.
    pub const ALL: [VectorFormat; 3] = [
        VectorFormat::Float96,
        VectorFormat::RangeReduced48,
        VectorFormat::RangeReduced32,
    ];

    /// Format from its integer id.
    pub fn from_u32(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }

    /// Short lowercase name (CLI and docs).
    pub fn name(self) -> &'static str {
        match self {
            VectorFormat::Float96 => "float96",
            VectorFormat::RangeReduced48 => "range48",
            VectorFormat::RangeReduced32 => "range32",
        }
    }

    /// Format from its [`name`](Self::name).
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|f| f.name() == s)
    }
}
