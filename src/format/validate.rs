//! Validation of a blob from an untrusted source. Nothing reads a blob before this passes.
//!
//! Validation is linear in the blob's bytes whatever its header's counts say: no loop runs over a
//! count the bytes do not pay for. [`validate_blob_counting`] reports the work done (one unit
//! per loop iteration, per section) so tests can check that bound on forged blobs
//! (`tests/robust/linear_validation.rs`).

use super::checksum::blob_checksum;
use super::header::Header;
use super::CodecId;
use super::BLOB_ALIGNMENT;
use crate::{Error, Result};

/// Work done by [`validate_blob_counting`], per part of the blob: one unit per loop iteration
/// (the checksum: one per byte; the `vbr` body: the bytes its validator examined plus one per
/// track-table entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ValidationWork {
    /// Bytes the checksum read (0 when it is not verified).
    pub checksum: usize,
    /// The joint body's validation.
    pub body: usize,
    /// The curves section's validation.
    pub curves: usize,
    /// Padding bytes checked to be zero.
    pub padding: usize,
}

impl ValidationWork {
    /// All parts together.
    pub fn total(&self) -> usize {
        self.checksum + self.body + self.curves + self.padding
    }
}

/// Checks alignment, magic, version, sizes, (optionally) the checksum, and then every offset,
/// count and bit width in the codec body. Returns the header and the body slice. A `vbr` blob
/// with joints of format version 2 (the segments layout, which the runtime does not decode) is
/// refused with [`Error::UnsupportedVersion`]: [`crate::offline::regroup_blob`] converts it.
pub fn validate_blob(blob: &[u8], verify_checksum: bool) -> Result<(Header, &[u8])> {
    validate_blob_counting(blob, verify_checksum, &mut ValidationWork::default())
}

/// [`validate_blob`], adding the work it does to `work` (also when it fails).
pub fn validate_blob_counting<'a>(
    blob: &'a [u8],
    verify_checksum: bool,
    work: &mut ValidationWork,
) -> Result<(Header, &'a [u8])> {
    validate(blob, verify_checksum, work, false)
}

/// [`validate_blob`] that also accepts (and validates in full) a `vbr` blob of format version
/// 2, the input of the offline conversion ([`crate::offline::regroup_blob`]).
#[cfg(feature = "compress")]
pub fn validate_blob_for_regroup<'a>(
    blob: &'a [u8],
    verify_checksum: bool,
    work: &mut ValidationWork,
) -> Result<(Header, &'a [u8])> {
    validate(blob, verify_checksum, work, true)
}

/// Whether the runtime refuses `h` for its version: a `vbr` blob with joints in format version
/// 2 (its segments body has no decoder).
pub fn is_segments_vbr(h: &Header) -> bool {
    h.codec == CodecId::Vbr && h.num_joints > 0 && !h.grouped()
}

/// [`validate_blob_counting`]; `segments` accepts a `vbr` blob of format version 2.
fn validate<'a>(
    blob: &'a [u8],
    verify_checksum: bool,
    work: &mut ValidationWork,
    segments: bool,
) -> Result<(Header, &'a [u8])> {
    if !(blob.as_ptr() as usize).is_multiple_of(BLOB_ALIGNMENT) {
        return Err(Error::Misaligned);
    }
    let h = Header::parse(blob)?;
    if !segments && is_segments_vbr(&h) {
        return Err(Error::UnsupportedVersion(h.version as u32));
    }
    let blob = &blob[..h.total_size as usize];
    if verify_checksum {
        work.checksum += blob.len();
        if blob_checksum(blob) != h.checksum {
            return Err(Error::ChecksumMismatch);
        }
    }
    check_padding(&h, blob, &mut work.padding)?;
    let body = &blob[h.body_range()];
    validate_body_counting(&h, body, &mut work.body)?;
    crate::runtime::curves::CurvesSection::new_counting(
        &blob[h.curves_range()],
        h.num_curves,
        h.num_samples,
        &mut work.curves,
    )?;
    Ok((h, body))
}

/// The bytes of the declared size outside the header, the body and the curves section (the
/// alignment gap before the curves and the tail after the last section) are zero padding
/// (`docs/format.md`): anything else there is refused, so a blob carries no bytes that nothing
/// reads and the checksum does not vouch for meaningfully.
fn check_padding(h: &Header, blob: &[u8], work: &mut usize) -> Result<()> {
    let body_end = h.body_range().end;
    let aligned = |end: usize| end.div_ceil(BLOB_ALIGNMENT) * BLOB_ALIGNMENT;
    let (gap, tail) = if h.num_curves == 0 {
        (body_end..body_end, body_end..blob.len())
    } else {
        let c = h.curves_range();
        (body_end..c.start, c.end..blob.len())
    };
    // Exactly the padding the alignment needs: the curves start at the first multiple of 16
    // after the body, and the blob ends at the first one after its last section.
    if (h.num_curves != 0 && gap.end != aligned(gap.start)) || blob.len() != aligned(tail.start) {
        return Err(Error::CorruptBlob(
            "padding after the body or the curves longer than the alignment needs",
        ));
    }
    for r in [gap, tail] {
        *work += r.len();
        if blob[r].iter().any(|&b| b != 0) {
            return Err(Error::CorruptBlob(
                "non-zero bytes in the padding after the body or the curves",
            ));
        }
    }
    Ok(())
}

/// Checks every offset, count and bit width of a body against its length, adding its work to
/// `work`.
pub(crate) fn validate_body_counting(h: &Header, body: &[u8], work: &mut usize) -> Result<()> {
    if h.num_joints == 0 {
        // A curves-only blob: no joint body whatever the codec.
        return if body.is_empty() {
            Ok(())
        } else {
            Err(Error::CorruptBlob("joint body without joints"))
        };
    }
    match h.codec {
        CodecId::Fixed => super::fixed::validate::validate_counting(h, body, work),
        CodecId::Vbr if h.grouped() => {
            *work += body.len();
            crate::runtime::vbr::grouped::validate::validate(h, body)
        }
        #[cfg(feature = "compress")]
        CodecId::Vbr => {
            // The track table (one byte per joint, which must fit in the body before any loop
            // over it runs) is walked three times; the segments are counted by the validator.
            *work += 3 * (h.num_joints as usize).min(body.len());
            super::vbr::layout::validate_counting(h, body, work)
        }
        // Refused by the header check above: without the offline conversion nothing reads it.
        #[cfg(not(feature = "compress"))]
        CodecId::Vbr => Err(Error::UnsupportedVersion(h.version as u32)),
        CodecId::Keys => super::keys::layout::validate_counting(h, body, work),
    }
}
