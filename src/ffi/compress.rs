//! `animcomp_compress_settings_default`, `animcomp_compress`, `animcomp_compress_bound`.

use std::os::raw::c_void;

use super::clip::{check_clip, raw_clip_from_c, ErrorOverrides};
use super::guard::{guard, in_ref, opt_ref, out_ptr, write_if_some};
use super::types::{AnimcompCompressSettings, AnimcompRawClip};
use crate::format::quantize::{RotationFormat, VectorFormat};
use crate::format::{BLOB_ALIGNMENT, HEADER_SIZE};
use crate::offline::{CodecChoice, CompressSettings, DefaultMode, Level, VbrLayout};
use crate::{Curve, Error, RawClip, Result, Status};

fn enum_err(what: &'static str, value: u32) -> Error {
    Error::InvalidEnum { what, value }
}

/// The C settings with every field range-checked.
pub(crate) fn settings_from_c(
    s: &AnimcompCompressSettings,
) -> Result<(CompressSettings, ErrorOverrides)> {
    let settings = CompressSettings {
        codec: CodecChoice::from_u32(s.codec).ok_or(enum_err("codec", s.codec))?,
        level: Level::from_u32(s.level).ok_or(enum_err("level", s.level))?,
        rotation_format: RotationFormat::from_u32(s.rotation_format)
            .ok_or(enum_err("rotation_format", s.rotation_format))?,
        translation_format: VectorFormat::from_u32(s.translation_format)
            .ok_or(enum_err("translation_format", s.translation_format))?,
        scale_format: VectorFormat::from_u32(s.scale_format)
            .ok_or(enum_err("scale_format", s.scale_format))?,
        default_mode: DefaultMode::from_u32(s.default_mode)
            .ok_or(enum_err("default_mode", s.default_mode))?,
        optimize_loops: match s.optimize_loops {
            0 => false,
            1 => true,
            v => return Err(enum_err("optimize_loops", v)),
        },
        vbr_layout: VbrLayout::from_u32(s.vbr_layout)
            .ok_or(enum_err("vbr_layout", s.vbr_layout))?,
    };
    if s.reserved.iter().any(|&r| r != 0) {
        return Err(Error::InvalidArgument(
            "reserved fields of AnimcompCompressSettings must be zero",
        ));
    }
    let non_negative = |v: f32| v.is_finite() && v >= 0.0;
    if !non_negative(s.curve_precision) || !non_negative(s.morph_position_precision) {
        return Err(Error::InvalidArgument(
            "curve_precision and morph_position_precision must be finite and >= 0",
        ));
    }
    let precision = match s.precision {
        0.0 => None,
        p if p.is_finite() && p > 0.0 => Some(p),
        _ => return Err(Error::InvalidPrecision(0)),
    };
    let shell_distance = match s.shell_distance {
        0.0 => None,
        d if d.is_finite() && d > 0.0 => Some(d),
        _ => return Err(Error::InvalidShellDistance(0)),
    };
    Ok((
        settings,
        ErrorOverrides {
            precision,
            shell_distance,
            curve_precision: match s.curve_precision {
                0.0 => crate::offline::curves::DEFAULT_CURVE_PRECISION,
                p => p,
            },
            morph_position_precision: (s.morph_position_precision > 0.0)
                .then_some(s.morph_position_precision),
        },
    ))
}

/// The C view of [`CompressSettings::default`].
pub(crate) fn default_settings() -> AnimcompCompressSettings {
    let d = CompressSettings::default();
    AnimcompCompressSettings {
        codec: d.codec as u32,
        level: d.level as u32,
        rotation_format: d.rotation_format as u32,
        translation_format: d.translation_format as u32,
        scale_format: d.scale_format as u32,
        default_mode: d.default_mode as u32,
        optimize_loops: d.optimize_loops as u32,
        precision: 0.0,
        shell_distance: 0.0,
        curve_precision: crate::offline::curves::DEFAULT_CURVE_PRECISION,
        morph_position_precision: 0.0,
        vbr_layout: d.vbr_layout as u32,
        reserved: [0; 4],
    }
}

/// Reads the clip, its curves and the settings (NULL settings = defaults).
pub(crate) unsafe fn inputs(
    clip: *const AnimcompRawClip,
    settings: *const AnimcompCompressSettings,
) -> Result<(RawClip, Vec<Curve>, CompressSettings)> {
    let clip = in_ref(clip, "clip")?;
    let c_settings = opt_ref(settings)?.copied().unwrap_or_else(default_settings);
    let (settings, overrides) = settings_from_c(&c_settings)?;
    let curves = super::curves::curves_from_c(clip, &overrides)?;
    Ok((raw_clip_from_c(clip, overrides)?, curves, settings))
}

/// Writes the default settings (codec `ANIMCOMP_CODEC_VBR`, level automatic, fixed-codec formats
/// smallest-three 48 / range-reduced 48 / range-reduced 48, identity defaults, no loop
/// optimisation, per-joint precision and shell distance) into `*settings`.
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_compress_settings_default(
    settings: *mut AnimcompCompressSettings,
) -> Status {
    guard(|| {
        out_ptr(settings, "settings")?.write(default_settings());
        Ok(())
    })
}

/// Compresses `clip` into the caller's buffer `out` (16-byte aligned, `out_capacity` bytes).
///
/// On success writes the blob size to `*out_size`. When the blob does not fit, returns
/// `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`, writes the required size to `*out_size` and leaves `out`
/// untouched: pass `out = NULL, out_capacity = 0` to query the size, then call again with a buffer
/// of exactly that size (compression is deterministic). On any other error `*out_size` is 0.
/// `settings` may be NULL (defaults). A non-NULL `out` that is not 16-byte aligned gives
/// `ANIMCOMP_STATUS_MISALIGNED`. Thread-safe; allocates working memory internally.
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_compress(
    clip: *const AnimcompRawClip,
    settings: *const AnimcompCompressSettings,
    out: *mut c_void,
    out_capacity: usize,
    out_size: *mut usize,
) -> Status {
    compress_into(out, out_capacity, out_size, || {
        let (clip, curves, settings) = inputs(clip, settings)?;
        crate::compress_with_curves(&clip, &curves, &settings)
    })
}

/// Rewrites the `vbr` blob `blob` (`size` bytes, 16-byte aligned; validated first, checksum
/// included) of format version 2 (the segments layout, which the runtime refuses) in the grouped
/// layout (format version 5) without recompressing: its poses bit for bit (`animcomp_compress`,
/// which also tries longer segments, may write a smaller blob of the clip). A blob already
/// grouped is copied; a blob of another codec, or without joints, gives
/// `ANIMCOMP_STATUS_INVALID_ARGUMENT`. The output protocol is `animcomp_compress`'s (`out`,
/// `out_capacity`, `*out_size`, `ANIMCOMP_STATUS_BUFFER_TOO_SMALL` with the required size).
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_regroup_blob(
    blob: *const c_void,
    size: usize,
    out: *mut c_void,
    out_capacity: usize,
    out_size: *mut usize,
) -> Status {
    compress_into(out, out_capacity, out_size, || {
        crate::offline::regroup_blob(super::handles::blob_slice(blob, size)?)
    })
}

/// The output protocol of `animcomp_compress` (and `animcomp_compress_additive`): checks `out`
/// and `out_size`, runs `make`, writes the size, copies the blob when it fits, else
/// BUFFER_TOO_SMALL with the required size; `*out_size` is 0 on any other error.
///
/// # Safety
/// As `animcomp_compress` for `out`, `out_capacity` and `out_size`.
pub(crate) unsafe fn compress_into(
    out: *mut c_void,
    out_capacity: usize,
    out_size: *mut usize,
    make: impl FnOnce() -> Result<Vec<u8>>,
) -> Status {
    let status = guard(|| {
        let out_size = out_ptr(out_size, "out_size")?;
        out_size.write(0);
        if out.is_null() && out_capacity != 0 {
            return Err(Error::NullPointer("out (with a non-zero out_capacity)"));
        }
        if !out.is_null() && !(out as usize).is_multiple_of(BLOB_ALIGNMENT) {
            return Err(Error::Misaligned);
        }
        let blob = make()?;
        out_size.write(blob.len());
        if blob.len() > out_capacity {
            return Err(Error::BufferTooSmall {
                required: blob.len(),
            });
        }
        // SAFETY: `out` is non-null (capacity >= blob.len() > 0) and holds `out_capacity` bytes.
        std::ptr::copy_nonoverlapping(blob.as_ptr(), out as *mut u8, blob.len());
        Ok(())
    });
    if !matches!(status, Status::Ok | Status::BufferTooSmall) {
        write_if_some(out_size, 0);
    }
    status
}

/// Largest blob the `fixed` codec writes for a clip of `joints` x `samples` with these formats,
/// from its body layout (`src/format/fixed/layout.rs`, docs/formats.md): a 48-byte codec header;
/// one kind byte per joint; per channel either a constant (at most 4 floats) or, when animated
/// with a range-reduced format, a range (6 floats), so at most 18 floats per joint for both
/// sections; one byte-aligned frame per sample of at most `joints x (r + t + s)` bits; 8 bytes of
/// read-ahead padding; each of the four sections padded to 16 bytes; then the 64-byte blob header
/// and padding of the blob to 16 bytes. Saturates instead of overflowing.
pub(crate) fn fixed_bound(joints: u64, samples: u64, s: &CompressSettings) -> u64 {
    let bits = s.rotation_format.bits_per_sample() as u64
        + s.translation_format.bits_per_sample() as u64
        + s.scale_format.bits_per_sample() as u64;
    let frame = joints.saturating_mul(bits).div_ceil(8);
    let fixed_part = 48 + joints + joints * 18 * 4 + 8 + 4 * 15;
    let body = frame.saturating_mul(samples).saturating_add(fixed_part);
    (HEADER_SIZE as u64).saturating_add(body).saturating_add(15) / 16 * 16
}

/// Writes to `*out_bound` a size in bytes that the blob of `clip` compressed with `settings`
/// (NULL = defaults) will not exceed.
///
/// For `ANIMCOMP_CODEC_FIXED` without curves the bound is a formula over the counts and formats (no track value
/// is read, nothing is compressed: it assumes every channel is animated, so it is close to the
/// real size for fully animated clips and looser for clips with constant channels); only the clip's shape is checked (counts, layout, strides,
/// pointers), value errors are reported by `animcomp_compress`. For the other codecs the clip is
/// compressed and the exact size returned, with the same statuses as `animcomp_compress`.
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_compress_bound(
    clip: *const AnimcompRawClip,
    settings: *const AnimcompCompressSettings,
    out_bound: *mut usize,
) -> Status {
    guard(|| {
        let out_bound = out_ptr(out_bound, "out_bound")?;
        out_bound.write(0);
        let c_clip = in_ref(clip, "clip")?;
        let c_settings = opt_ref(settings)?.copied().unwrap_or_else(default_settings);
        let (s, _) = settings_from_c(&c_settings)?;
        // The formula covers joints only: with curves, compress and return the exact size.
        let bound = if s.codec == CodecChoice::Fixed && c_clip.num_curves == 0 {
            let checked = check_clip(c_clip)?;
            let b = fixed_bound(
                checked.num_joints() as u64,
                checked.num_samples() as u64,
                &s,
            );
            usize::try_from(b).unwrap_or(usize::MAX)
        } else {
            let (clip, curves, settings) = inputs(clip, settings)?;
            crate::compress_with_curves(&clip, &curves, &settings)?.len()
        };
        out_bound.write(bound);
        Ok(())
    })
}
