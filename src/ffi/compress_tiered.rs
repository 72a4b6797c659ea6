//! `animcomp_tier_settings_default`, `animcomp_compress_tiered`: a clip compressed as a resident
//! blob and tier blobs (quality tiers, `crate::offline::tiers`).

use std::os::raw::c_void;

use super::compress::inputs;
use super::guard::{guard, opt_ref, out_ptr, write_if_some};
use super::types::{AnimcompCompressSettings, AnimcompRawClip};
use crate::format::header::MAX_TIER_LEVELS;
use crate::format::BLOB_ALIGNMENT;
use crate::offline::tiers::{compress_tiered, TierSettings};
use crate::{Error, Result, Status};

/// How `animcomp_compress_tiered` splits a clip. Initialise with
/// `animcomp_tier_settings_default`, then change fields.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AnimcompTierSettings {
    /// Tier levels: 1 or 2 (default 2).
    pub levels: u32,
    /// The resident blob's error bound as a multiple of each joint's precision, at least 1
    /// (default 10: within 0.1 at a precision of 0.01).
    pub resident_factor: f32,
    /// With two levels, the bound with level 1 attached, as a multiple of each joint's
    /// precision, from 1 to `resident_factor` (default 3). Not read with one level.
    pub medium_factor: f32,
    /// Must be zero.
    pub reserved: [u32; 4],
}

fn default_tier_settings() -> AnimcompTierSettings {
    let d = TierSettings::default();
    AnimcompTierSettings {
        levels: d.levels as u32,
        resident_factor: d.resident_factor,
        medium_factor: d.medium_factor,
        reserved: [0; 4],
    }
}

fn tier_settings_from_c(s: &AnimcompTierSettings) -> Result<TierSettings> {
    if s.reserved.iter().any(|&r| r != 0) {
        return Err(Error::InvalidArgument(
            "reserved fields of AnimcompTierSettings must be zero",
        ));
    }
    if s.levels == 0 || s.levels > MAX_TIER_LEVELS as u32 {
        return Err(Error::InvalidArgument("tier levels must be 1 or 2"));
    }
    // The factors are checked by the compressor.
    Ok(TierSettings {
        levels: s.levels as u8,
        resident_factor: s.resident_factor,
        medium_factor: s.medium_factor,
    })
}

/// Writes the default tier settings (two levels, resident within 10 times each joint's
/// precision, level 1 attached within 3 times) into `*settings`.
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_tier_settings_default(
    settings: *mut AnimcompTierSettings,
) -> Status {
    guard(|| {
        out_ptr(settings, "settings")?.write(default_tier_settings());
        Ok(())
    })
}

/// Compresses `clip` (joints only: a clip with curves gives `ANIMCOMP_STATUS_UNSUPPORTED`) with
/// quality tiers: a resident blob, which opens and samples on its own within
/// `resident_factor` times each joint's precision, and one tier blob per level holding the
/// samples it leaves out (with every level attached, poses decode bit for bit like
/// `animcomp_compress`'s blob at the same settings). Only `ANIMCOMP_CODEC_VBR` supports tiers;
/// another codec gives `ANIMCOMP_STATUS_UNSUPPORTED`. `settings` and `tier_settings` may be NULL
/// (defaults).
///
/// Outputs: the resident blob into `resident_out` (`resident_capacity` bytes) and tier level
/// `k + 1` into `tier_outs[k]` (`tier_capacities[k]` bytes) for `k` below the levels; every
/// buffer 16-byte aligned. `tier_outs` and `tier_capacities` point to 2 entries each (entries
/// past the levels are not read) or are both NULL (no tier buffers: capacities 0).
/// `sizes_out` points to 3 entries: the resident size, then each level's (0 past the levels).
///
/// As `animcomp_compress`: on success writes the sizes. When some blob does not fit its buffer,
/// returns `ANIMCOMP_STATUS_BUFFER_TOO_SMALL`, writes every required size to `sizes_out` and
/// leaves every buffer untouched: pass NULL buffers and capacities 0 to query the sizes, then
/// call again with buffers of those sizes (compression is deterministic). On any other error
/// the sizes are 0. A non-NULL buffer that is not 16-byte aligned gives
/// `ANIMCOMP_STATUS_MISALIGNED`, a NULL one with a non-zero capacity
/// `ANIMCOMP_STATUS_NULL_POINTER`. Thread-safe; allocates working memory internally.
///
/// Needs the compressor (cargo feature `compress`; absent from the runtime-only library).
#[no_mangle]
pub unsafe extern "C" fn animcomp_compress_tiered(
    clip: *const AnimcompRawClip,
    settings: *const AnimcompCompressSettings,
    tier_settings: *const AnimcompTierSettings,
    resident_out: *mut c_void,
    resident_capacity: usize,
    tier_outs: *const *mut c_void,
    tier_capacities: *const usize,
    sizes_out: *mut usize,
) -> Status {
    let status = guard(|| {
        let sizes_out = out_ptr(sizes_out, "sizes_out")?;
        // SAFETY: `sizes_out` is non-null and points to 3 entries (the contract).
        let sizes = std::slice::from_raw_parts_mut(sizes_out, 3);
        sizes.fill(0);
        let n = MAX_TIER_LEVELS as usize;
        let (outs, caps): (Vec<*mut c_void>, Vec<usize>) =
            match (tier_outs.is_null(), tier_capacities.is_null()) {
                (true, true) => (vec![std::ptr::null_mut(); n], vec![0; n]),
                (false, false) => (
                    // SAFETY: both point to 2 entries (the contract).
                    std::slice::from_raw_parts(tier_outs, n).to_vec(),
                    std::slice::from_raw_parts(tier_capacities, n).to_vec(),
                ),
                _ => {
                    return Err(Error::NullPointer(
                        "tier_outs and tier_capacities (both NULL or neither)",
                    ))
                }
            };
        let tiers = opt_ref(tier_settings)?
            .copied()
            .unwrap_or_else(default_tier_settings);
        let tiers = tier_settings_from_c(&tiers)?;
        let levels = tiers.levels as usize;
        let buffers: Vec<(*mut c_void, usize, &'static str)> =
            std::iter::once((resident_out, resident_capacity, "resident_out"))
                .chain(
                    outs.iter()
                        .zip(&caps)
                        .take(levels)
                        .map(|(&o, &c)| (o, c, "tier_outs")),
                )
                .collect();
        for &(out, cap, what) in &buffers {
            if out.is_null() && cap != 0 {
                return Err(Error::NullPointer(what));
            }
            if !out.is_null() && !(out as usize).is_multiple_of(BLOB_ALIGNMENT) {
                return Err(Error::Misaligned);
            }
        }
        let (clip, curves, settings) = inputs(clip, settings)?;
        if !curves.is_empty() {
            return Err(Error::Unsupported("quality tiers: clips with curves"));
        }
        let blobs = compress_tiered(&clip, &settings, &tiers)?;
        let all: Vec<&Vec<u8>> = std::iter::once(&blobs.resident)
            .chain(&blobs.tiers)
            .collect();
        for (s, b) in sizes.iter_mut().zip(&all) {
            *s = b.len();
        }
        if let Some((b, _)) = all
            .iter()
            .zip(&buffers)
            .find(|(b, &(_, cap, _))| b.len() > cap)
        {
            return Err(Error::BufferTooSmall { required: b.len() });
        }
        for (b, &(out, _, _)) in all.iter().zip(&buffers) {
            // SAFETY: `out` is non-null (capacity >= len > 0) and holds its capacity's bytes.
            std::ptr::copy_nonoverlapping(b.as_ptr(), out as *mut u8, b.len());
        }
        Ok(())
    });
    if !matches!(status, Status::Ok | Status::BufferTooSmall) && !sizes_out.is_null() {
        for k in 0..3 {
            write_if_some(sizes_out.add(k), 0);
        }
    }
    status
}
