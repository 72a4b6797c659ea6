//! Scalar curves in the C API: reading the curves of an `AnimcompRawClip`, and sampling the
//! curves of a blob through an initialised `AnimcompDecompressor` (no allocation).

#![cfg_attr(not(feature = "compress"), allow(unused_imports))]

#[cfg(feature = "compress")]
use super::clip::{strided, ErrorOverrides, Shape};
use super::guard::{guard, in_slice, out_ptr, out_slice};
use super::types::{AnimcompCurveDesc, AnimcompDecompressor, AnimcompLayout, AnimcompRawClip};
#[cfg(feature = "compress")]
use crate::offline::curves::{apply_position_precision, Curve};
use crate::{Error, Result, Status};

/// The clip's curves (empty when `num_curves` is 0), shape-checked: counts, layout, stride,
/// pointers and overflow-checked lengths. Values are judged by compression.
///
/// # Safety
/// `curve_values` and `curves`, when non-null, must point to as many elements as the counts,
/// layout and stride imply.
#[cfg(feature = "compress")]
pub(crate) unsafe fn curves_from_c(c: &AnimcompRawClip, ov: &ErrorOverrides) -> Result<Vec<Curve>> {
    let nc = c.num_curves as usize;
    if nc == 0 {
        return Ok(Vec::new());
    }
    if nc > crate::format::MAX_CURVES {
        return Err(Error::InvalidArgument(
            "num_curves exceeds ANIMCOMP_MAX_CURVES",
        ));
    }
    let samples = c.num_samples as usize;
    if samples == 0 {
        return Err(Error::NoSamples);
    }
    if samples > crate::format::limits::MAX_SAMPLES {
        return Err(Error::TooManySamples(samples));
    }
    let layout = AnimcompLayout::from_u32(c.layout).ok_or(Error::InvalidEnum {
        what: "AnimcompRawClip::layout",
        value: c.layout,
    })?;
    let count = nc
        .checked_mul(samples)
        .ok_or(Error::InvalidArgument("curves x samples overflows"))?;
    let values = strided(
        c.curve_values,
        count,
        c.curve_stride,
        1,
        "AnimcompRawClip::curve_values",
    )?;
    let descs: Option<&[AnimcompCurveDesc]> = if c.curves.is_null() {
        None
    } else {
        Some(in_slice(c.curves, nc, "AnimcompRawClip::curves")?)
    };
    let shape = Shape {
        joints: nc,
        samples,
        layout,
    };
    let mut out = Vec::with_capacity(nc);
    for k in 0..nc {
        let d = descs.map_or_else(
            || AnimcompCurveDesc {
                id: k as u32,
                ..Default::default()
            },
            |d| d[k],
        );
        if d.reserved != 0 || d.has_default > 1 {
            return Err(Error::InvalidArgument(
                "AnimcompCurveDesc: has_default must be 0 or 1 and reserved 0",
            ));
        }
        if !(d.precision.is_finite() && d.precision >= 0.0) {
            return Err(Error::InvalidArgument(
                "AnimcompCurveDesc::precision must be >= 0",
            ));
        }
        let vals = (0..samples)
            .map(|i| values.at(shape.index(k, i), 1)[0])
            .collect();
        out.push(Curve {
            name: String::new(),
            id: d.id,
            values: vals,
            precision: if d.precision == 0.0 {
                ov.curve_precision
            } else {
                d.precision
            },
            default_value: (d.has_default == 1).then_some(d.default_value),
            magnitude: (d.magnitude != 0.0).then_some(d.magnitude),
        });
    }
    if let Some(p) = ov.morph_position_precision {
        apply_position_precision(&mut out, p);
    }
    Ok(out)
}

/// Samples every curve of the blob at the context's current time into `out[0..num_curves]`
/// (`out_len` floats available; `ANIMCOMP_STATUS_BUFFER_TOO_SMALL` when fewer than the blob's
/// curve count, see `AnimcompBlobInfo::num_curves`). Allocates nothing; thread-safe on a shared
/// blob with one context per thread. A blob without curves writes nothing.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_curves(
    ctx: *const AnimcompDecompressor,
    out: *mut f32,
    out_len: usize,
) -> Status {
    guard(|| {
        let d = super::handles::decompressor(ctx)?;
        let need = d.num_curves();
        if out_len < need {
            return Err(Error::BufferTooSmall { required: need * 4 });
        }
        if need == 0 {
            return Ok(());
        }
        let out = out_slice(out, need, "out")?;
        d.sample_curves(out)
    })
}

/// Samples curve `index` (0-based, < the blob's curve count) at the context's current time into
/// `*out_value`. Costs one pass over the curves before it; allocates nothing.
#[no_mangle]
pub unsafe extern "C" fn animcomp_sample_curve(
    ctx: *const AnimcompDecompressor,
    index: u32,
    out_value: *mut f32,
) -> Status {
    guard(|| {
        let out = out_ptr(out_value, "out_value")?;
        let d = super::handles::decompressor(ctx)?;
        out.write(d.sample_curve(index)?);
        Ok(())
    })
}

/// Writes the engine id of curve `index` (as given at compression) to `*out_id`.
#[no_mangle]
pub unsafe extern "C" fn animcomp_curve_id(
    ctx: *const AnimcompDecompressor,
    index: u32,
    out_id: *mut u32,
) -> Status {
    guard(|| {
        let out = out_ptr(out_id, "out_id")?;
        let d = super::handles::decompressor(ctx)?;
        out.write(d.curves().id(index)?);
        Ok(())
    })
}
