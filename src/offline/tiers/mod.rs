//! Quality tiers (docs/tiers.md): a clip compressed as a **resident blob**, which samples on its own at
//! the lowest fidelity, and one **tier blob** per level ([`crate::format::tier`]) holding the
//! samples the resident blob leaves out.
//!
//! The clip is compressed as [`crate::compress()`] compresses it (the `vbr` codec: rates and
//! ranges chosen for the full precision, at the settings' level). Then, with those rates fixed,
//! each segment's interior samples are removed greedily, the one whose removal adds the least
//! object-space error first (`rank`): removals while the segment stays within the medium bound
//! go to level 2, further ones while it stays within the resident bound to level 1. The bounds
//! are multiples of each joint's precision (the skeleton's), measured like the search measures
//! its own bound (with its `TARGET_MARGIN` of 0.98): the resident blob's error is at most
//! `resident_factor` times each joint's precision, and with level 1 attached `medium_factor`
//! times. With every level attached a pose decodes bit for bit like the blob compressed without
//! tiers (`write` copies the tiers' frames from it).
//!
//! A segment whose samples all stay resident stores no mask; when no segment of a clip drops a
//! sample, the resident body has no masks at all (the grouped layout stores them only when some
//! segment drops one) and every tier blob stores no frame.
//!
//! Measured (`tiers_table`, 2026-11-29): whole samples cost too much error to leave the resident
//! blob at 10x the precision. On cmu-cc removing one 60 Hz sample costs 10-180x the precision
//! at its worst joint (median 68x; fingertips and toes, at the ends of 13-joint chains), so the
//! resident blob keeps 99.8 % of the samples and 100 % of the bytes; on bandai 90.5 % of the
//! samples and 94.9 % of the bytes. At 100x: 60.5 % (cmu-cc) and 72.5 % (bandai) of the bytes.
//!
//! Files: this one (settings, entry points), `rank` (which level stores each sample),
//! `write` (the resident and tier blobs), `budget` (a set of clips sharing one byte budget),
//! `groups` (a measurement: samples removed per group or per sub-track instead of per segment).

pub mod budget;
#[doc(hidden)]
pub mod groups;
pub(crate) mod rank;
#[cfg(test)]
mod tests;
pub(crate) mod write;

use crate::format::header::{Header, TierInfo, MAX_TIER_LEVELS};
use crate::format::CodecId;
use crate::offline::blob_writer::EncodedBody;
use crate::offline::clip::RawClip;
use crate::offline::compress::compress_pipeline;
use crate::offline::settings::{CodecChoice, CompressSettings};
use crate::offline::vbr;
use crate::{Error, Result};
pub use budget::{
    compress_tiered_budget, plan_budget, tier_candidates, BudgetPlan, BudgetedSet, TierBudget,
    TierCandidates,
};
use rank::SegmentMasks;
#[doc(hidden)]
pub use write::{blob_bytes, BlobBytes};

/// How a clip is split into a resident blob and tier levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TierSettings {
    /// Tier levels: 1 (resident and one tier) or 2 (resident, level 1, level 2).
    pub levels: u8,
    /// The resident blob's error bound, as a multiple of each joint's precision (at least 1):
    /// 10 with the default precision of 0.01 keeps the resident blob within 0.1.
    pub resident_factor: f32,
    /// With two levels, the bound with level 1 attached, as a multiple of each joint's precision
    /// (at least 1, at most `resident_factor`). Not used with one level.
    pub medium_factor: f32,
}

impl Default for TierSettings {
    fn default() -> Self {
        TierSettings {
            levels: 2,
            resident_factor: 10.0,
            medium_factor: 3.0,
        }
    }
}

impl TierSettings {
    /// Checks the fields; the removal phases (bound, level), least lossy first.
    fn phases(&self) -> Result<Vec<(f32, usize)>> {
        let ok = |f: f32| f.is_finite() && f >= 1.0;
        if !(1..=MAX_TIER_LEVELS).contains(&self.levels) {
            return Err(Error::InvalidArgument("tier levels must be 1 or 2"));
        }
        if !ok(self.resident_factor) {
            return Err(Error::InvalidArgument(
                "resident_factor must be finite and at least 1",
            ));
        }
        Ok(if self.levels == 1 {
            vec![(self.resident_factor, 1)]
        } else {
            if !ok(self.medium_factor) || self.medium_factor > self.resident_factor {
                return Err(Error::InvalidArgument(
                    "medium_factor must be finite, at least 1 and at most resident_factor",
                ));
            }
            vec![(self.medium_factor, 2), (self.resident_factor, 1)]
        })
    }
}

/// A clip compressed with tiers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TieredBlobs {
    /// The resident blob (opens and samples on its own; 16-byte multiple like every blob).
    pub resident: Vec<u8>,
    /// The tier blobs, index 0 = level 1 (the more important samples).
    pub tiers: Vec<Vec<u8>>,
}

/// Compresses `clip` into a resident blob and `tiers.levels` tier blobs. Only the `vbr` codec
/// (`settings.codec`) with joints supports tiers; other codecs give [`Error::Unsupported`].
pub fn compress_tiered(
    clip: &RawClip,
    settings: &CompressSettings,
    tiers: &TierSettings,
) -> Result<TieredBlobs> {
    Ok(build(clip, settings, tiers, false)?.blobs)
}

/// [`compress_tiered`] with what measurement and tests compare it with.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct TieredBuild {
    /// The resident and tier blobs.
    pub blobs: TieredBlobs,
    /// The blob [`crate::compress()`] writes for the clip at the same settings.
    pub full: Vec<u8>,
    /// Index `k`: a plain blob (without `HAS_TIERS`) storing the samples of the resident blob
    /// and of levels `1..=k`: index 0 decodes like the resident blob, the last like `full`.
    pub fidelities: Vec<Vec<u8>>,
    /// Stored samples at each fidelity, as `fidelities`.
    pub stored: Vec<usize>,
    /// Samples per segment.
    pub seg_len: usize,
}

/// [`compress_tiered`], with the full blob and a plain blob per fidelity (for measurement and
/// tests).
#[doc(hidden)]
pub fn compress_tiered_fidelities(
    clip: &RawClip,
    settings: &CompressSettings,
    tiers: &TierSettings,
) -> Result<TieredBuild> {
    build(clip, settings, tiers, true)
}

/// What the encoder hands out of the pipeline.
struct Work {
    masks: Vec<SegmentMasks>,
    /// The segments bodies: resident, then (with `fidelities`) with levels `1..=k` attached.
    bodies: Vec<Vec<u8>>,
    seg_len: usize,
}

fn build(
    clip: &RawClip,
    settings: &CompressSettings,
    tiers: &TierSettings,
    fidelities: bool,
) -> Result<TieredBuild> {
    let phases = tiers.phases()?;
    if settings.codec != CodecChoice::Vbr {
        return Err(Error::Unsupported(
            "quality tiers need the vbr codec (CodecChoice::Vbr)",
        ));
    }
    if clip.num_joints() == 0 {
        return Err(Error::Unsupported("quality tiers need a clip with joints"));
    }
    let levels = tiers.levels as usize;
    let mut work = None;
    let full = compress_pipeline(clip, &[], settings, None, |ctx| {
        let mut searched = vbr::search(ctx)?;
        let masks = rank::rank(ctx, &searched, &phases);
        let attached: Vec<usize> = match fidelities {
            true => (0..=levels).collect(),
            false => vec![0],
        };
        let mut bodies = Vec::with_capacity(attached.len());
        for k in attached {
            let mut segments = searched.segments.clone();
            for (seg, m) in segments.iter_mut().zip(&masks) {
                seg.mask = m.with_levels(k);
            }
            bodies.push(vbr::write::body(
                ctx.clip,
                &searched.plan,
                &segments,
                searched.seg_len,
            )?);
        }
        work = Some(Work {
            masks,
            bodies,
            seg_len: searched.seg_len,
        });
        Ok(EncodedBody {
            codec: CodecId::Vbr,
            flags: ctx.flags,
            body: std::mem::take(&mut searched.body),
        })
    })?;
    let work = work.expect("the clip has joints: the encoder ran");
    let h = Header::parse(&full)?;
    let full_body = &full[h.body_range()];
    let key = write::key(full_body, tiers.levels, &work.masks);
    let mut bodies = work.bodies;
    let resident_body = match fidelities {
        true => bodies[0].clone(),
        false => bodies.pop().expect("the resident body"),
    };
    let resident = write::blob(
        &h,
        resident_body,
        Some(TierInfo {
            key,
            levels: tiers.levels,
        }),
    )?;
    let samples = h.num_samples as usize;
    let tier_blobs = (1..=tiers.levels)
        .map(|l| {
            write::tier_blob(
                l,
                tiers.levels,
                key,
                &resident,
                full_body,
                samples,
                &work.masks,
            )
        })
        .collect::<Result<Vec<_>>>()?;
    let fidelities = bodies
        .into_iter()
        .map(|b| write::blob(&h, b, None))
        .collect::<Result<Vec<_>>>()?;
    let stored = (0..=levels)
        .map(|k| {
            work.masks
                .iter()
                .map(|m| m.with_levels(k).count_ones() as usize)
                .sum()
        })
        .collect();
    Ok(TieredBuild {
        blobs: TieredBlobs {
            resident,
            tiers: tier_blobs,
        },
        full,
        fidelities,
        stored,
        seg_len: work.seg_len,
    })
}
