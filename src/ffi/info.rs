//! `animcomp_validate_blob`, `animcomp_blob_info` and `animcomp_decompressor_info`.

use std::os::raw::c_void;

use super::guard::{guard, out_ptr};
use super::handles::blob_slice;
use super::types::{AnimcompBlobInfo, AnimcompDecompressor};
use crate::format::{validate_blob, Header};
use crate::runtime::clip_duration;
use crate::Status;

/// The info of a validated header.
pub(crate) fn info_of(h: &Header) -> AnimcompBlobInfo {
    let (j, n) = (h.num_joints as u64, h.num_samples as u64);
    AnimcompBlobInfo {
        format_version: h.version as u32,
        codec: h.codec as u32,
        flags: h.flags,
        num_joints: h.num_joints,
        num_samples: h.num_samples,
        sample_rate: h.sample_rate,
        duration: clip_duration(h) as f32,
        num_curves: h.num_curves,
        blob_size: h.total_size as u64,
        raw_size: 40 * j * n,
        additive_format: h.additive as u32,
        reserved1: 0,
        curves_size: h.curves_size as u64,
    }
}

// The blob's codec ids are reported with the ANIMCOMP_CODEC_* values of the settings.
#[cfg(feature = "compress")]
const _: () = {
    use crate::format::CodecId;
    use crate::offline::CodecChoice;
    assert!(CodecId::Fixed as u32 == CodecChoice::Fixed as u32);
    assert!(CodecId::Vbr as u32 == CodecChoice::Vbr as u32);
    assert!(CodecId::Keys as u32 == CodecChoice::Keys as u32);
};

/// Fully validates a blob of `size` bytes: 16-byte alignment, magic, format version, sizes, the
/// checksum (always), and every offset, count and bit width of the codec body. Returns
/// `ANIMCOMP_STATUS_OK` when the blob can be decompressed.
#[no_mangle]
pub unsafe extern "C" fn animcomp_validate_blob(blob: *const c_void, size: usize) -> Status {
    guard(|| {
        validate_blob(blob_slice(blob, size)?, true)?;
        Ok(())
    })
}

/// Validates the blob as `animcomp_validate_blob` does, then describes it in `*out` (counts,
/// rate, duration, codec, flags, sizes). On failure `*out` is zeroed.
#[no_mangle]
pub unsafe extern "C" fn animcomp_blob_info(
    blob: *const c_void,
    size: usize,
    out: *mut AnimcompBlobInfo,
) -> Status {
    guard(|| {
        let out = out_ptr(out, "out")?;
        out.write(AnimcompBlobInfo::default());
        let (h, _) = validate_blob(blob_slice(blob, size)?, true)?;
        out.write(info_of(&h));
        Ok(())
    })
}

/// Describes the blob an initialised decompressor is bound to (no validation needed: it was
/// validated by `animcomp_decompressor_init`).
#[no_mangle]
pub unsafe extern "C" fn animcomp_decompressor_info(
    ctx: *const AnimcompDecompressor,
    out: *mut AnimcompBlobInfo,
) -> Status {
    guard(|| {
        let out = out_ptr(out, "out")?;
        out.write(AnimcompBlobInfo::default());
        let d = super::handles::decompressor(ctx)?;
        out.write(info_of(d.header()));
        Ok(())
    })
}
