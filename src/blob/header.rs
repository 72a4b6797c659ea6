//! The 64-byte blob header (format version 1). All fields little-endian.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `ACMP` |
//! | 4 | 2 | format version |
//! | 6 | 1 | codec id |
//! | 7 | 1 | reserved, 0 |
//! | 8 | 4 | total size in bytes (multiple of 16) |
//! | 12 | 4 | CRC-32C of bytes 0..12 and 16..total size |
//! | 16 | 4 | flags ([`BlobFlags`]) |
//! | 20 | 4 | joint count |
//! | 24 | 4 | sample count |
//! | 28 | 4 | sample rate (f32, Hz) |
//! | 32 | 4 | body offset (64) |
//! | 36 | 4 | body size |
//! | 40 | 24 | reserved, 0 |

use crate::codec::CodecId;
use crate::{Error, Result};

/// The magic tag at the start of every blob.
pub const MAGIC: [u8; 4] = *b"ACMP";
/// Blob format version this library writes and reads. Bumped deliberately, never by accident.
pub const FORMAT_VERSION: u16 = 1;
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
    /// Every flag this version defines.
    pub const ALL: u32 = Self::HAS_SCALE | Self::DEFAULTS_ARE_BIND_POSE | Self::LOOPING;
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
        out[8..12].copy_from_slice(&self.total_size.to_le_bytes());
        out[12..16].copy_from_slice(&self.checksum.to_le_bytes());
        out[16..20].copy_from_slice(&self.flags.to_le_bytes());
        out[20..24].copy_from_slice(&self.num_joints.to_le_bytes());
        out[24..28].copy_from_slice(&self.num_samples.to_le_bytes());
        out[28..32].copy_from_slice(&self.sample_rate.to_le_bytes());
        out[32..36].copy_from_slice(&self.body_offset.to_le_bytes());
        out[36..40].copy_from_slice(&self.body_size.to_le_bytes());
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
        if version != FORMAT_VERSION {
            return Err(Error::UnsupportedVersion(version as u32));
        }
        let codec = CodecId::from_u8(blob[6]).ok_or(Error::CorruptBlob("unknown codec id"))?;
        if blob[7] != 0 || blob[40..64].iter().any(|&b| b != 0) {
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
        if h.num_joints == 0 || h.num_joints as usize > crate::clip::MAX_JOINTS {
            return Err(Error::CorruptBlob("joint count out of range"));
        }
        if h.num_samples == 0 || h.num_samples as usize > crate::clip::MAX_SAMPLES {
            return Err(Error::CorruptBlob("sample count out of range"));
        }
        let r = h.sample_rate;
        if !(r.is_finite()
            && (crate::clip::MIN_SAMPLE_RATE..=crate::clip::MAX_SAMPLE_RATE).contains(&r))
        {
            return Err(Error::CorruptBlob("sample rate out of range"));
        }
        Ok(h)
    }
}
