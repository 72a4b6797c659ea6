//! The codec id byte of the blob header.

/// Codec ids stored in blob headers.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodecId {
    /// Fixed per-channel formats.
    Fixed = 1,
    /// Variable bit rate.
    Vbr = 2,
    /// Key reduction / curves.
    Keys = 3,
}

impl CodecId {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            1 => Some(CodecId::Fixed),
            2 => Some(CodecId::Vbr),
            3 => Some(CodecId::Keys),
            _ => None,
        }
    }
    /// Lowercase name.
    pub fn name(self) -> &'static str {
        match self {
            CodecId::Fixed => "fixed",
            CodecId::Vbr => "vbr",
            CodecId::Keys => "keys",
        }
    }
}
