//! The 64-byte blob header (format version 2's, which version 5 keeps). All fields
//! little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ACMP` |
//! | 4 | 2 | format version |
//! | 6 | 1 | codec id |
//! | 7 | 1 | additive format ([`AdditiveFormat`] as u8; 0 = not additive) |
//! | 8 | 4 | total size in bytes (multiple of 16) |
//! | 12 | 4 | CRC-32C of bytes 0..12 and 16..total size |
//! | 16 | 4 | flags ([`BlobFlags`]) |
//! | 20 | 4 | joint count |
//! | 24 | 4 | sample count |
//! | 28 | 4 | sample rate (f32, Hz) |
//! | 32 | 4 | body offset (64) |
//! | 36 | 4 | body size (joint tracks; may be 0 when there are no joints) |
//! | 40 | 4 | curve count (scalar curves; 0 when none) |
//! | 44 | 4 | curves offset (0 when no curves; else a multiple of 16 at or after the body's end) |
//! | 48 | 4 | curves size |
//! | 52 | 12 | reserved, 0 |
//!
//! A blob holds joints, curves or both: the joint count may be 0 only when the curve count is not.

use crate::format::CodecId;
use crate::{Error, Result};

/// The magic tag at the start of every blob.
pub const MAGIC: [u8; 4] = *b"ACMP";
/// Blob format version of `fixed` and `keys` blobs and of blobs without joints. Bumped
/// deliberately, never by accident. A `vbr` body with joints under this version (the segments
/// layout the encoder writes before regrouping) is read only by the offline conversion
/// (`offline::regroup_blob`): the runtime refuses it with [`Error::UnsupportedVersion`].
pub const FORMAT_VERSION: u16 = 2;
/// Blob format version of every `vbr` blob with joints (the grouped layout, body layout 4): the
/// newest version this library reads.
pub const GROUPED_FORMAT_VERSION: u16 = 5;
/// The grouped layout's format versions 3 and 4 (body layouts 2 and 3), which this library does
/// not read: such a blob is refused with [`Error::UnsupportedVersion`]; compress the clip again
/// (or regroup its format version 2 blob).
pub const RETIRED_GROUPED_FORMAT_VERSIONS: [u16; 2] = [3, 4];
/// Oldest blob format version this library reads.
pub const MIN_FORMAT_VERSION: u16 = 2;
/// Largest curve count a blob may hold.
pub const MAX_CURVES: usize = 65_535;
/// Header size in bytes.
pub const HEADER_SIZE: usize = 64;

/// Header flags.
pub struct BlobFlags;
impl BlobFlags {
    /// The clip has non-unit scale somewhere; scale is decoded rather than set to one.
    pub const HAS_SCALE: u32 = 1 << 0;
    /// Default sub-tracks equal the bind pose, which must be given to the decompressor.
    pub const DEFAULTS_ARE_BIND_POSE: u32 = 1 << 1;
    /// The clip was authored as a loop (last sample equals the first).
    pub const LOOPING: u32 = 1 << 2;
    /// The blob is the resident part of a clip compressed with quality tiers (a grouped `vbr`
    /// blob, format version 5): header bytes 52..60 hold the tier set's key and byte 60 its
    /// count of tier levels ([`TierInfo`]); tier blobs ([`crate::format::tier`]) name it.
    pub const HAS_TIERS: u32 = 1 << 3;
    /// Every flag this version defines.
    pub const ALL: u32 =
        Self::HAS_SCALE | Self::DEFAULTS_ARE_BIND_POSE | Self::LOOPING | Self::HAS_TIERS;
}

/// Most tier levels a resident blob can have.
pub const MAX_TIER_LEVELS: u8 = 2;

/// A resident blob's tier fields (header bytes 52..61, with [`BlobFlags::HAS_TIERS`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TierInfo {
    /// The tier set's key (not 0): every tier blob of the set stores it.
    pub key: u64,
    /// Tier levels of the set (1 or 2).
    pub levels: u8,
}

impl TierInfo {
    /// Reads the tier fields of a blob whose header [`Header::parse`] accepted, `None` without
    /// [`BlobFlags::HAS_TIERS`].
    pub fn read(h: &Header, blob: &[u8]) -> Option<TierInfo> {
        if !h.has(BlobFlags::HAS_TIERS) || blob.len() < HEADER_SIZE {
            return None;
        }
        Some(TierInfo {
            key: u64::from_le_bytes(blob[52..60].try_into().unwrap()),
            levels: blob[60],
        })
    }

    /// Writes the tier fields into a header written by [`Header::write`] (whose flags must have
    /// [`BlobFlags::HAS_TIERS`]); the checksum is computed after.
    pub fn write(&self, out: &mut [u8]) {
        out[52..60].copy_from_slice(&self.key.to_le_bytes());
        out[60] = self.levels;
        out[61..64].fill(0);
    }
}

/// The parsed header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Header {
    /// Format version.
    pub version: u16,
    /// Which codec wrote the body.
    pub codec: CodecId,
    /// Total blob size.
    pub total_size: u32,
    /// Stored checksum.
    pub checksum: u32,
    /// [`BlobFlags`].
    pub flags: u32,
    /// Joints.
    pub num_joints: u32,
    /// Samples.
    pub num_samples: u32,
    /// Sample rate in Hz.
    pub sample_rate: f32,
    /// Body offset (always [`HEADER_SIZE`] in version 1).
    pub body_offset: u32,
    /// Body size.
    pub body_size: u32,
    /// Additive format byte (0 = a plain clip; see [`AdditiveFormat`]).
    pub additive: u8,
    /// Scalar curve count.
    pub num_curves: u32,
    /// Byte offset of the curves section (0 when there are no curves).
    pub curves_offset: u32,
    /// Byte size of the curves section.
    pub curves_size: u32,
}

/// How an additive clip is applied to its base (stored in header byte 7). Names follow ACL.
#[repr(u8)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum AdditiveFormat {
    /// Not an additive clip.
    #[default]
    None = 0,
    /// `result = base * additive` (rotations, translations through the base, scales multiplied).
    Relative = 1,
    /// Rotations multiplied, translations added, scales multiplied.
    Additive0 = 2,
    /// Rotations multiplied, translations added, `scale = base * (1 + additive)` (Unreal).
    Additive1 = 3,
}

impl AdditiveFormat {
    /// From the stored byte.
    pub fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::None),
            1 => Some(Self::Relative),
            2 => Some(Self::Additive0),
            3 => Some(Self::Additive1),
            _ => None,
        }
    }
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}

impl Header {
    /// Whether a flag is set.
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }

    /// Duration in seconds of the clip when clamped: `(samples - 1) / rate`.
    pub fn duration(&self) -> f32 {
        (self.num_samples.saturating_sub(1)) as f32 / self.sample_rate
    }

    /// Serialises into the first 64 bytes of `out` (checksum written as stored in `self`).
    pub fn write(&self, out: &mut [u8]) {
        out[..HEADER_SIZE].fill(0);
        out[0..4].copy_from_slice(&MAGIC);
        out[4..6].copy_from_slice(&self.version.to_le_bytes());
        out[6] = self.codec as u8;
        out[7] = self.additive;
        out[8..12].copy_from_slice(&self.total_size.to_le_bytes());
        out[12..16].copy_from_slice(&self.checksum.to_le_bytes());
        out[16..20].copy_from_slice(&self.flags.to_le_bytes());
        out[20..24].copy_from_slice(&self.num_joints.to_le_bytes());
        out[24..28].copy_from_slice(&self.num_samples.to_le_bytes());
        out[28..32].copy_from_slice(&self.sample_rate.to_le_bytes());
        out[32..36].copy_from_slice(&self.body_offset.to_le_bytes());
        out[36..40].copy_from_slice(&self.body_size.to_le_bytes());
        out[40..44].copy_from_slice(&self.num_curves.to_le_bytes());
        out[44..48].copy_from_slice(&self.curves_offset.to_le_bytes());
        out[48..52].copy_from_slice(&self.curves_size.to_le_bytes());
    }

    /// Byte range of the joint body within the blob (checked by [`Header::parse`]).
    pub fn body_range(&self) -> std::ops::Range<usize> {
        self.body_offset as usize..self.body_offset as usize + self.body_size as usize
    }

    /// Byte range of the curves section within the blob (empty when there are no curves).
    pub fn curves_range(&self) -> std::ops::Range<usize> {
        self.curves_offset as usize..self.curves_offset as usize + self.curves_size as usize
    }

    /// Whether the body is a grouped `vbr` body (format version 5).
    #[inline(always)]
    pub fn grouped(&self) -> bool {
        self.codec == CodecId::Vbr && self.version >= GROUPED_FORMAT_VERSION
    }

    /// Parses and checks the header fields on their own (not the checksum, not the body).
    pub fn parse(blob: &[u8]) -> Result<Header> {
        if blob.len() < HEADER_SIZE {
            return Err(if blob.len() >= 4 && blob[..4] != MAGIC {
                Error::BadMagic
            } else {
                Error::BadSize("blob shorter than its header")
            });
        }
        if blob[0..4] != MAGIC {
            return Err(Error::BadMagic);
        }
        let version = u16::from_le_bytes([blob[4], blob[5]]);
        if !(MIN_FORMAT_VERSION..=GROUPED_FORMAT_VERSION).contains(&version)
            || RETIRED_GROUPED_FORMAT_VERSIONS.contains(&version)
        {
            return Err(Error::UnsupportedVersion(version as u32));
        }
        let codec = CodecId::from_u8(blob[6]).ok_or(Error::CorruptBlob("unknown codec id"))?;
        if version == GROUPED_FORMAT_VERSION && codec != CodecId::Vbr {
            // The grouped version holds only the grouped `vbr` body: no other codec writes it.
            return Err(Error::CorruptBlob("format version 5 is for vbr blobs only"));
        }
        let additive = blob[7];
        if AdditiveFormat::from_u8(additive).is_none() {
            return Err(Error::CorruptBlob("unknown additive format"));
        }
        let flags = u32_at(blob, 16);
        if flags & BlobFlags::HAS_TIERS != 0 {
            let key = u64::from_le_bytes(blob[52..60].try_into().unwrap());
            if version != GROUPED_FORMAT_VERSION || codec != CodecId::Vbr {
                return Err(Error::CorruptBlob(
                    "tiers in a blob that is not grouped vbr",
                ));
            }
            if key == 0 || !(1..=MAX_TIER_LEVELS).contains(&blob[60]) {
                return Err(Error::CorruptBlob("tier key 0 or tier levels out of range"));
            }
            if blob[61..64].iter().any(|&b| b != 0) {
                return Err(Error::CorruptBlob("reserved header bytes are not zero"));
            }
        } else if blob[52..64].iter().any(|&b| b != 0) {
            return Err(Error::CorruptBlob("reserved header bytes are not zero"));
        }
        let h = Header {
            version,
            codec,
            total_size: u32_at(blob, 8),
            checksum: u32_at(blob, 12),
            flags: u32_at(blob, 16),
            num_joints: u32_at(blob, 20),
            num_samples: u32_at(blob, 24),
            sample_rate: f32::from_le_bytes(blob[28..32].try_into().unwrap()),
            body_offset: u32_at(blob, 32),
            body_size: u32_at(blob, 36),
            additive,
            num_curves: u32_at(blob, 40),
            curves_offset: u32_at(blob, 44),
            curves_size: u32_at(blob, 48),
        };
        let total = h.total_size as usize;
        if total > blob.len() {
            return Err(Error::BadSize(
                "blob is shorter than its header's total size (truncated)",
            ));
        }
        if !total.is_multiple_of(super::BLOB_ALIGNMENT) || total < HEADER_SIZE {
            return Err(Error::BadSize("total size is not a multiple of 16"));
        }
        if h.body_offset as usize != HEADER_SIZE
            || (h.body_offset as u64 + h.body_size as u64) > total as u64
        {
            return Err(Error::CorruptBlob("body offset or size out of bounds"));
        }
        if h.flags & !BlobFlags::ALL != 0 {
            return Err(Error::CorruptBlob("unknown header flags"));
        }
        if h.num_curves as usize > MAX_CURVES {
            return Err(Error::CorruptBlob("curve count out of range"));
        }
        if h.num_curves == 0 {
            if h.curves_offset != 0 || h.curves_size != 0 {
                return Err(Error::CorruptBlob("curves section without curves"));
            }
        } else {
            let body_end = h.body_offset as u64 + h.body_size as u64;
            let off = h.curves_offset as u64;
            if !off.is_multiple_of(super::BLOB_ALIGNMENT as u64)
                || off < body_end
                || off + h.curves_size as u64 > total as u64
            {
                return Err(Error::CorruptBlob("curves offset or size out of bounds"));
            }
        }
        if (h.num_joints == 0 && h.num_curves == 0)
            || h.num_joints as usize > crate::format::limits::MAX_JOINTS
        {
            return Err(Error::CorruptBlob("joint count out of range"));
        }
        if h.grouped() && h.num_joints == 0 {
            return Err(Error::CorruptBlob("format version 5 without joints"));
        }
        if h.num_samples == 0 || h.num_samples as usize > crate::format::limits::MAX_SAMPLES {
            return Err(Error::CorruptBlob("sample count out of range"));
        }
        let r = h.sample_rate;
        if !(r.is_finite()
            && (crate::format::limits::MIN_SAMPLE_RATE..=crate::format::limits::MAX_SAMPLE_RATE)
                .contains(&r))
        {
            return Err(Error::CorruptBlob("sample rate out of range"));
        }
        Ok(h)
    }
}
