//! Assembles a header and a codec body into a blob, padding to 16 bytes and sealing the checksum.

use crate::format::checksum::blob_checksum;
use crate::format::header::{Header, FORMAT_VERSION, GROUPED_FORMAT_VERSION, HEADER_SIZE};
use crate::format::CodecId;
use crate::format::BLOB_ALIGNMENT;
use crate::{Error, Result};

/// What a codec's encoder produces: its id, header flags and body bytes.
#[derive(Debug, Clone, PartialEq)]
pub struct EncodedBody {
    /// The codec that wrote the body.
    pub codec: CodecId,
    /// [`crate::format::BlobFlags`] to set in the header.
    pub flags: u32,
    /// The body bytes.
    pub body: Vec<u8>,
}

/// What a blob carries besides the joint body: the additive format and the curves section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlobExtras {
    /// Additive format byte ([`crate::format::AdditiveFormat`] as u8; 0 = plain clip).
    pub additive: u8,
    /// Scalar curve count (0 = no curves section).
    pub num_curves: u32,
    /// The curves section bytes (empty when `num_curves` is 0).
    pub curves: Vec<u8>,
    /// A `vbr` body with joints is written as the encoder produced it (the segments layout,
    /// format version 2) instead of grouped (format version 5). The runtime refuses such a
    /// blob; [`crate::offline::regroup_blob`] converts it. For tests of that conversion only.
    pub segments: bool,
}

/// Builds the final blob bytes. The returned vector's length is a multiple of 16; copy it into a
/// 16-byte-aligned buffer to use it.
pub fn assemble_blob(
    encoded: &EncodedBody,
    num_joints: usize,
    num_samples: usize,
    sample_rate: f32,
) -> Result<Vec<u8>> {
    assemble_blob_with(
        encoded,
        num_joints,
        num_samples,
        sample_rate,
        &BlobExtras::default(),
    )
}

/// [`assemble_blob`] with an additive format and a curves section (placed after the body, at the
/// next multiple of 16).
pub fn assemble_blob_with(
    encoded: &EncodedBody,
    num_joints: usize,
    num_samples: usize,
    sample_rate: f32,
    extras: &BlobExtras,
) -> Result<Vec<u8>> {
    let mut h = Header {
        version: FORMAT_VERSION,
        codec: encoded.codec,
        total_size: 0,
        checksum: 0,
        flags: encoded.flags,
        num_joints: num_joints as u32,
        num_samples: num_samples as u32,
        sample_rate,
        body_offset: HEADER_SIZE as u32,
        body_size: encoded.body.len() as u32,
        additive: extras.additive,
        num_curves: extras.num_curves,
        curves_offset: 0,
        curves_size: 0,
    };
    // Format version 4: every `vbr` body with joints is written grouped.
    let grouped;
    let mut body = &encoded.body[..];
    if !extras.segments && encoded.codec == CodecId::Vbr && num_joints > 0 {
        grouped = crate::offline::vbr::regroup::regroup(&h, body)?;
        body = &grouped;
        h.version = GROUPED_FORMAT_VERSION;
    }
    let body_size = body.len();
    let body_end = (HEADER_SIZE + body_size).div_ceil(BLOB_ALIGNMENT) * BLOB_ALIGNMENT;
    let (curves_offset, curves_size) = if extras.num_curves == 0 {
        (0, 0)
    } else {
        (body_end, extras.curves.len())
    };
    let total = (body_end + curves_size).div_ceil(BLOB_ALIGNMENT) * BLOB_ALIGNMENT;
    if total > u32::MAX as usize {
        return Err(Error::Unsupported("blob would exceed 4 GiB"));
    }
    h.total_size = total as u32;
    h.body_size = body_size as u32;
    h.curves_offset = curves_offset as u32;
    h.curves_size = curves_size as u32;
    let mut out = vec![0u8; total];
    h.write(&mut out);
    out[HEADER_SIZE..HEADER_SIZE + body_size].copy_from_slice(body);
    out[curves_offset..curves_offset + curves_size].copy_from_slice(&extras.curves[..curves_size]);
    h.checksum = blob_checksum(&out);
    h.write(&mut out);
    Ok(out)
}
