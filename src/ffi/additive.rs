//! `animcomp_compress_additive` and `animcomp_apply_additive`: additive clips through the C ABI.

#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

use std::os::raw::c_void;

#[cfg(feature = "compress")]
use super::clip::{raw_clip_from_c, ErrorOverrides};
#[cfg(feature = "compress")]
use super::compress::{compress_into, inputs};
use super::guard::{guard, in_ref, in_slice, out_slice};
use super::types::{AnimcompCompressSettings, AnimcompRawClip};
use crate::format::AdditiveFormat;
use crate::math::{Transform, FLOATS_PER_JOINT};
#[cfg(feature = "compress")]
use crate::offline::additive::AdditiveBase;
use crate::runtime::additive;
use crate::{Error, Result, Status};

/// Not an additive clip (reported by `AnimcompBlobInfo::additive_format` for plain blobs; not
/// accepted by `animcomp_compress_additive` or `animcomp_apply_additive`).
pub const ANIMCOMP_ADDITIVE_NONE: u32 = 0;
/// ACL's `relative`: `result = base * additive` as transforms (rotation `b.r * a.r`, translation
/// `b.r * (b.s * a.t) + b.t`, scale `b.s * a.s`). Identity scale 1.
pub const ANIMCOMP_ADDITIVE_RELATIVE: u32 = 1;
/// ACL's `additive0` (ozz): rotation `b.r * a.r`, translation `b.t + a.t`, scale `b.s * a.s`.
/// Identity scale 1.
pub const ANIMCOMP_ADDITIVE_ADDITIVE0: u32 = 2;
/// ACL's `additive1` (Unreal): rotation `b.r * a.r`, translation `b.t + a.t`, scale
/// `b.s * (1 + a.s)`. Identity scale 0.
pub const ANIMCOMP_ADDITIVE_ADDITIVE1: u32 = 3;

const _: () = {
    assert!(ANIMCOMP_ADDITIVE_NONE == AdditiveFormat::None as u32);
    assert!(ANIMCOMP_ADDITIVE_RELATIVE == AdditiveFormat::Relative as u32);
    assert!(ANIMCOMP_ADDITIVE_ADDITIVE0 == AdditiveFormat::Additive0 as u32);
    assert!(ANIMCOMP_ADDITIVE_ADDITIVE1 == AdditiveFormat::Additive1 as u32);
};

/// A format from C: one of the three additive formats (NONE and unknown values are refused).
fn format_from_c(format: u32) -> Result<AdditiveFormat> {
    match AdditiveFormat::from_u32(format) {
        Some(f) if f != AdditiveFormat::None => Ok(f),
        _ => Err(Error::InvalidEnum {
            what: "additive format",
            value: format,
        }),
    }
}

/// Floats a pose of `joints` joints at `stride` floats per joint occupies (overflow-checked).
fn pose_floats(joints: usize, stride: usize) -> Result<usize> {
    if joints == 0 {
        return Ok(0);
    }
    (joints - 1)
        .checked_mul(stride)
        .and_then(|v| v.checked_add(FLOATS_PER_JOINT))
        .ok_or(Error::InvalidArgument("num_joints * stride overflows"))
}

/// Compresses the additive clip `clip` in `format` (`ANIMCOMP_ADDITIVE_RELATIVE`, `_ADDITIVE0` or
/// `_ADDITIVE1`), measuring error on its base with the additive applied (object space, the
/// clip's per-joint precision and shell distance, as `animcomp_compress` does for plain clips).
///
/// The base is exactly one of: `base_clip`, a clip with the same joint count (sampled at the
/// additive clip's sample times; a clip of another length is stretched over the additive clip's
/// duration and interpolated), or `base_pose`, one local pose of `base_pose_len` floats, 10 per
/// joint (`qx qy qz qw tx ty tz sx sy sz`, packed), at least `10 * num_joints`. The other must be
/// NULL (both or neither: `ANIMCOMP_STATUS_INVALID_ARGUMENT`). The base is not stored in the blob.
///
/// The blob records the format (`AnimcompBlobInfo::additive_format`); decompress it as any blob
/// and apply each sampled pose with `animcomp_apply_additive`. `settings` (NULL = defaults):
/// `default_mode` and `optimize_loops` are ignored for additive clips. `out`, `out_capacity` and
/// `out_size` behave as in `animcomp_compress` (BUFFER_TOO_SMALL with the required size).
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[cfg(feature = "compress")]
#[no_mangle]
pub unsafe extern "C" fn animcomp_compress_additive(
    clip: *const AnimcompRawClip,
    format: u32,
    base_clip: *const AnimcompRawClip,
    base_pose: *const f32,
    base_pose_len: usize,
    settings: *const AnimcompCompressSettings,
    out: *mut c_void,
    out_capacity: usize,
    out_size: *mut usize,
) -> Status {
    compress_into(out, out_capacity, out_size, || {
        let format = format_from_c(format)?;
        let (clip, curves, settings) = inputs(clip, settings)?;
        if !curves.is_empty() {
            return Err(Error::InvalidArgument(
                "an additive clip carries no curves (compress them in their own blob)",
            ));
        }
        match (base_clip.is_null(), base_pose.is_null()) {
            (false, true) => {
                let base =
                    raw_clip_from_c(in_ref(base_clip, "base_clip")?, ErrorOverrides::default())?;
                crate::compress_additive(&clip, &AdditiveBase::Clip(&base), format, &settings)
            }
            (true, false) => {
                let nj = clip.num_joints();
                let need = nj
                    .checked_mul(FLOATS_PER_JOINT)
                    .ok_or(Error::InvalidArgument("num_joints * 10 overflows"))?;
                if base_pose_len < need {
                    return Err(Error::InvalidArgument(
                        "base_pose must hold 10 floats per joint",
                    ));
                }
                let floats = in_slice(base_pose, need, "base_pose")?;
                let pose: Vec<Transform> = floats
                    .chunks_exact(FLOATS_PER_JOINT)
                    .map(Transform::read_from)
                    .collect();
                crate::compress_additive(&clip, &AdditiveBase::Pose(&pose), format, &settings)
            }
            _ => Err(Error::InvalidArgument(
                "give exactly one of base_clip and base_pose",
            )),
        }
    })
}

/// Applies an additive pose to a base pose with a blend weight, for every joint:
/// `out = apply(format, base, lerp(identity, additive, weight))` (formulas in docs/additive.md;
/// weight 0 gives the base, 1 the full additive).
///
/// The three buffers hold `num_joints` joints of 10 floats (`qx qy qz qw tx ty tz sx sy sz`)
/// at `stride_floats` floats apart (0 = packed, 10); each must hold
/// `(num_joints - 1) * stride + 10` floats. `out_pose` may be `base_pose` or `additive_pose`
/// (in place); other overlaps give unspecified values. `format` is `ANIMCOMP_ADDITIVE_RELATIVE`,
/// `_ADDITIVE0` or `_ADDITIVE1`; `weight` must be finite and in [0, 1]
/// (`ANIMCOMP_STATUS_INVALID_ARGUMENT` otherwise, with `out_pose` untouched). Allocates nothing;
/// thread-safe. `num_joints = 0` does nothing (pointers are still checked).
#[no_mangle]
pub unsafe extern "C" fn animcomp_apply_additive(
    format: u32,
    base_pose: *const f32,
    additive_pose: *const f32,
    weight: f32,
    out_pose: *mut f32,
    num_joints: usize,
    stride_floats: usize,
) -> Status {
    guard(|| {
        let format = format_from_c(format)?;
        additive::check_weight(weight)?;
        let stride = match stride_floats {
            0 => FLOATS_PER_JOINT,
            s if s >= FLOATS_PER_JOINT => s,
            _ => {
                return Err(Error::InvalidArgument(
                    "stride must be 0 or at least 10 floats",
                ))
            }
        };
        let len = pose_floats(num_joints, stride)?;
        // Checks (null, alignment, address range) through short-lived slices; the loop below
        // uses raw pointers so that `out_pose` may alias an input.
        let base = in_slice(base_pose, len, "base_pose")?.as_ptr();
        let add = in_slice(additive_pose, len, "additive_pose")?.as_ptr();
        let out = out_slice(out_pose, len, "out_pose")?.as_mut_ptr();
        for j in 0..num_joints {
            let o = j * stride;
            let mut b = [0.0f32; FLOATS_PER_JOINT];
            let mut a = [0.0f32; FLOATS_PER_JOINT];
            // SAFETY: o + 10 <= len for every joint; the regions were checked above.
            std::ptr::copy(base.add(o), b.as_mut_ptr(), FLOATS_PER_JOINT);
            std::ptr::copy(add.add(o), a.as_mut_ptr(), FLOATS_PER_JOINT);
            let x = additive::apply_floats(format, &b, &a, weight);
            std::ptr::copy(x.as_ptr(), out.add(o), FLOATS_PER_JOINT);
        }
        Ok(())
    })
}
