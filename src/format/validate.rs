//! Validation of a blob from an untrusted source. Nothing reads a blob before this passes.

use super::checksum::blob_checksum;
use super::header::Header;
use super::CodecId;
use super::BLOB_ALIGNMENT;
use crate::{Error, Result};

/// Checks alignment, magic, version, sizes, (optionally) the checksum, and then every offset,
/// count and bit width in the codec body. Returns the header and the body slice.
pub fn validate_blob(blob: &[u8], verify_checksum: bool) -> Result<(Header, &[u8])> {
    if !(blob.as_ptr() as usize).is_multiple_of(BLOB_ALIGNMENT) {
        return Err(Error::Misaligned);
    }
    let h = Header::parse(blob)?;
    let blob = &blob[..h.total_size as usize];
    if verify_checksum && blob_checksum(blob) != h.checksum {
        return Err(Error::ChecksumMismatch);
    }
    let body = &blob[h.body_range()];
    validate_body(&h, body)?;
    crate::runtime::curves::CurvesSection::new(
        &blob[h.curves_range()],
        h.num_curves,
        h.num_samples,
    )?;
    Ok((h, body))
}

/// Checks every offset, count and bit width of a body against its length.
pub(crate) fn validate_body(h: &Header, body: &[u8]) -> Result<()> {
    if h.num_joints == 0 {
        // A curves-only blob: no joint body whatever the codec.
        return if body.is_empty() {
            Ok(())
        } else {
            Err(Error::CorruptBlob("joint body without joints"))
        };
    }
    match h.codec {
        CodecId::Fixed => super::fixed::validate::validate(h, body),
        CodecId::Vbr => super::vbr::layout::validate(h, body),
        CodecId::Keys => super::keys::layout::validate(h, body),
    }
}
