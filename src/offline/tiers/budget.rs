//! A set of clips sharing one byte budget per tier (docs/tiers.md, "A shared budget"): every
//! removable sample of every clip ranked by the error its removal adds, then one set-wide
//! threshold per level chosen so that the resident blobs together take at most a fraction of
//! the bytes of the blobs compressed without tiers.
//!
//! Three steps, each usable on its own (a distributed batch runs the first and the last on
//! workers and the second once):
//!
//! 1. [`tier_candidates`], per clip: the search of [`crate::compress()`], then in each segment
//!    the removal order of `rank` carried on without a bound. Step `k` of a segment gets the
//!    key `max(c_1..c_k)`, `c_i` the error of the `i`-th removal as a multiple of each joint's
//!    precision (the unit of [`TierSettings::resident_factor`]): the per-clip mode at factor
//!    `F` removes exactly the steps whose key is at most `F`, since its greedy takes the same
//!    samples in the same order and stops at the first removal above `F`. With each step, the
//!    frame bits it saves, so a resident blob's bytes are known for any threshold
//!    ([`TierCandidates::resident_bytes`], an upper bound within a few bytes per segment).
//! 2. [`plan_budget`], over the whole set: the smallest thresholds, at least the settings'
//!    factors, whose resident bytes (and, with a medium budget, resident + level 1 bytes) fit,
//!    the cheapest steps of the whole set removed first. A budget no threshold reaches removes
//!    every removable sample and says so ([`BudgetPlan::resident_reached`]).
//! 3. [`compress_tiered`] of each clip with the plan's thresholds as its factors
//!    ([`BudgetPlan::tiers`]): the same blobs, tier blobs and writer as the per-clip mode.
//!
//! A budget loose enough for the settings' factors changes nothing: every clip is compressed as
//! the per-clip mode compresses it. A tighter one raises the thresholds for every clip alike.

use super::{compress_tiered, write, TierSettings, TieredBlobs};
use crate::format::header::{Header, TierInfo};
use crate::format::CodecId;
use crate::offline::blob_writer::EncodedBody;
use crate::offline::clip::RawClip;
use crate::offline::compress::compress_pipeline;
use crate::offline::settings::{CodecChoice, CompressSettings};
use crate::offline::vbr;
use crate::offline::vbr::optimize::{Probe, Searcher};
use crate::runtime::vbr::grouped::body::{Counts, FLAG_SMALL_TABLE};
use crate::{Error, Result};

/// The byte budgets of a set of clips, as fractions of the bytes of the same clips compressed
/// without tiers ([`crate::compress()`], same settings).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TierBudget {
    /// The resident blobs together: at most this fraction (e.g. 0.5).
    pub resident: f64,
    /// With two levels: the resident blobs with level 1 attached, counted as blobs storing
    /// those samples, at most this fraction (at least `resident`); `None`: level 2 holds what
    /// [`TierSettings::medium_factor`] gives.
    pub medium: Option<f64>,
}

/// A segment's removable samples, in removal order.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentCandidates {
    /// Bits of one stored sample (a frame).
    pub frame_bits: u32,
    /// Samples the blob without tiers stores in this segment.
    pub stored: u32,
    /// The segment's error without any removal (the search's, as a multiple of the precision).
    pub base_error: f32,
    /// Step `k`'s key: the largest removal error of steps `0..=k` (non-decreasing; finite).
    pub keys: Vec<f32>,
}

/// What [`plan_budget`] needs of one clip ([`tier_candidates`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TierCandidates {
    /// Bytes of the blob without tiers (also the resident blob's when no sample leaves).
    pub full_bytes: u64,
    /// The resident blob's bytes apart from its frames, once a sample leaves (masks stored):
    /// measured on the resident blob without every removable sample.
    pub masked_base: u64,
    /// What the layout can add to `masked_base` at other thresholds (padding to 16 bytes,
    /// 4-byte segment offsets): [`Self::resident_bytes`] adds it, so it is an upper bound.
    pub slack: u64,
    /// Per segment.
    pub segments: Vec<SegmentCandidates>,
}

const MAGIC: [u8; 4] = *b"ACTC";
const VERSION: u32 = 1;

impl TierCandidates {
    /// Steps of segment `s` at threshold `t`.
    fn taken(&self, s: usize, t: f32) -> usize {
        self.segments[s].keys.partition_point(|&k| k <= t)
    }

    /// The resident blob's bytes (an upper bound) when the steps with a key at most `t` leave.
    pub fn resident_bytes(&self, t: f32) -> u64 {
        let mut any = false;
        let mut frames = 0u64;
        for (s, seg) in self.segments.iter().enumerate() {
            let n = self.taken(s, t);
            any |= n > 0;
            frames += ((seg.stored as u64 - n as u64) * seg.frame_bits as u64).div_ceil(8);
        }
        match any {
            false => self.full_bytes,
            true => self.masked_base + frames + self.slack,
        }
    }

    /// Samples stored when the steps with a key at most `t` leave.
    pub fn stored_samples(&self, t: f32) -> usize {
        (0..self.segments.len())
            .map(|s| self.segments[s].stored as usize - self.taken(s, t))
            .sum()
    }

    /// The largest error (the search's, as a multiple of each joint's precision) of a blob
    /// storing what remains when the steps with a key at most `t` leave.
    pub fn bound(&self, t: f32) -> f32 {
        (0..self.segments.len())
            .map(|s| {
                let seg = &self.segments[s];
                match self.taken(s, t) {
                    0 => seg.base_error,
                    n => seg.base_error.max(seg.keys[n - 1]),
                }
            })
            .fold(0.0, f32::max)
    }

    /// Each fidelity's bound (resident, + level 1, all levels) for a clip compressed with
    /// `tiers` (a [`BudgetPlan::tiers`]).
    pub fn bounds(&self, tiers: &TierSettings) -> Vec<f32> {
        let mut v = vec![self.bound(tiers.resident_factor)];
        if tiers.levels == 2 {
            v.push(self.bound(tiers.medium_factor));
        }
        v.push(self.bound(-1.0));
        v
    }

    /// A little-endian serialisation (for a distributed batch), read by [`Self::from_bytes`].
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(&MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        for v in [self.full_bytes, self.masked_base, self.slack] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&(self.segments.len() as u32).to_le_bytes());
        for s in &self.segments {
            b.extend_from_slice(&s.frame_bits.to_le_bytes());
            b.extend_from_slice(&s.stored.to_le_bytes());
            b.extend_from_slice(&s.base_error.to_le_bytes());
            b.extend_from_slice(&(s.keys.len() as u32).to_le_bytes());
            for k in &s.keys {
                b.extend_from_slice(&k.to_le_bytes());
            }
        }
        b
    }

    /// Reads [`Self::to_bytes`]; anything else is [`Error::InvalidArgument`].
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let bad = || Error::InvalidArgument("not tier candidates (TierCandidates::to_bytes)");
        let mut at = 0usize;
        let mut take = |n: usize| -> Result<&[u8]> {
            let s = b.get(at..at + n).ok_or_else(bad)?;
            at += n;
            Ok(s)
        };
        let u32_ = |s: &[u8]| u32::from_le_bytes(s.try_into().unwrap());
        let u64_ = |s: &[u8]| u64::from_le_bytes(s.try_into().unwrap());
        let f32_ = |s: &[u8]| f32::from_le_bytes(s.try_into().unwrap());
        if take(4)? != MAGIC || u32_(take(4)?) != VERSION {
            return Err(bad());
        }
        let full_bytes = u64_(take(8)?);
        let masked_base = u64_(take(8)?);
        let slack = u64_(take(8)?);
        let n = u32_(take(4)?) as usize;
        let mut segments = Vec::with_capacity(n.min(1 << 16));
        for _ in 0..n {
            let frame_bits = u32_(take(4)?);
            let stored = u32_(take(4)?);
            let base_error = f32_(take(4)?);
            let k = u32_(take(4)?) as usize;
            if k > stored as usize {
                return Err(bad());
            }
            let keys = (0..k)
                .map(|_| take(4).map(f32_))
                .collect::<Result<Vec<f32>>>()?;
            if keys.iter().any(|k| !k.is_finite()) || keys.windows(2).any(|w| w[0] > w[1]) {
                return Err(bad());
            }
            segments.push(SegmentCandidates {
                frame_bits,
                stored,
                base_error,
                keys,
            });
        }
        if at != b.len() {
            return Err(bad());
        }
        Ok(TierCandidates {
            full_bytes,
            masked_base,
            slack,
            segments,
        })
    }
}

/// The removal order of one segment without a bound (`rank::rank_segment`'s greedy: the
/// smallest error first, the earliest sample on a tie, NaN and infinite errors never taken):
/// each step's key (the running maximum of the removal errors).
fn removal_keys(probe: &mut Probe, count: usize) -> Vec<f32> {
    let mut keys = Vec::new();
    let mut steps = super::rank::Steps::new(count);
    let mut worst = 0.0f32;
    while let Some((c, _)) = steps.remove_cheapest(probe, f32::MAX) {
        worst = worst.max(c);
        keys.push(worst);
    }
    keys
}

/// Step 1: what [`plan_budget`] needs of `clip` compressed with `settings` and `tiers` (its
/// levels and factors are checked as [`compress_tiered`] checks them).
pub fn tier_candidates(
    clip: &RawClip,
    settings: &CompressSettings,
    tiers: &TierSettings,
) -> Result<TierCandidates> {
    tiers.phases()?;
    if settings.codec != CodecChoice::Vbr {
        return Err(Error::Unsupported(
            "quality tiers need the vbr codec (CodecChoice::Vbr)",
        ));
    }
    if clip.num_joints() == 0 {
        return Err(Error::Unsupported("quality tiers need a clip with joints"));
    }
    let mut work = None;
    let full = compress_pipeline(clip, &[], settings, None, |ctx| {
        let mut searched = vbr::search(ctx)?;
        let searcher = Searcher::new(ctx.clip, ctx.metric, &searched.plan, ctx.has_scale);
        let n = ctx.clip.num_samples;
        let len = searched.seg_len;
        let mut segments = Vec::with_capacity(searched.segments.len());
        let mut least = searched.segments.clone();
        for (s, choice) in searched.segments.iter().enumerate() {
            let start = s * len;
            let count = (n - start).min(len);
            let mut probe = searcher.probe(start, count, len, choice);
            let base_error = probe.max_error();
            let keys = removal_keys(&mut probe, count);
            least[s].mask = probe.mask();
            segments.push(SegmentCandidates {
                frame_bits: choice
                    .rates
                    .iter()
                    .flatten()
                    .map(|&r| crate::format::vbr::bitrate::rate_bits(r))
                    .sum(),
                stored: choice.mask.count_ones(),
                base_error,
                keys,
            });
        }
        let least = vbr::write::body(ctx.clip, &searched.plan, &least, len)?;
        work = Some((segments, least));
        Ok(EncodedBody {
            codec: CodecId::Vbr,
            flags: ctx.flags,
            body: std::mem::take(&mut searched.body),
        })
    })?;
    let (segments, least) = work.expect("the clip has joints: the encoder ran");
    let h = Header::parse(&full)?;
    let info = TierInfo {
        key: 1,
        levels: tiers.levels,
    };
    let least = write::blob(&h, least, Some(info))?;
    let lh = Header::parse(&least)?;
    let small_table = Counts::read(&least[lh.body_range()]).has(FLAG_SMALL_TABLE);
    let frames: u64 = segments
        .iter()
        .map(|s| ((s.stored as u64 - s.keys.len() as u64) * s.frame_bits as u64).div_ceil(8))
        .sum();
    Ok(TierCandidates {
        full_bytes: full.len() as u64,
        masked_base: least.len() as u64 - frames,
        slack: 15
            + if small_table {
                2 * segments.len() as u64
            } else {
                0
            },
        segments,
    })
}

/// Step 2's result: the thresholds of a set and what they give.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetPlan {
    /// The settings every clip of the set is compressed with ([`compress_tiered`]): the
    /// levels, and the thresholds as `resident_factor` and `medium_factor` (`f32::MAX`: every
    /// removable sample leaves).
    pub tiers: TierSettings,
    /// Whether the resident budget is met ([`Self::resident_bytes`] within it); if not, every
    /// removable sample left the resident blobs and they are still above the budget.
    pub resident_reached: bool,
    /// Likewise for the medium budget (true without one).
    pub medium_reached: bool,
    /// The blobs without tiers, all clips.
    pub full_bytes: u64,
    /// The resident blobs at the plan, all clips ([`TierCandidates::resident_bytes`]: an upper
    /// bound of what the writer writes).
    pub resident_bytes: u64,
    /// Blobs storing the resident and level-1 samples, all clips (as `resident_bytes`; with
    /// one level, the full bytes).
    pub medium_bytes: u64,
}

/// The smallest threshold, at least `floor`, at which the clips' resident bytes are at most
/// `target`; `None`: none (the bytes with every removable sample gone are above it).
fn threshold(cands: &[&TierCandidates], floor: f32, target: f64) -> Option<f32> {
    // Each clip's bytes are updated as steps are taken, cheapest first across the set.
    let mut steps: Vec<(f32, u32, u32)> = Vec::new();
    for (c, cand) in cands.iter().enumerate() {
        for (s, seg) in cand.segments.iter().enumerate() {
            steps.extend(seg.keys.iter().map(|&k| (k, c as u32, s as u32)));
        }
    }
    steps.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut taken: Vec<Vec<u32>> = cands.iter().map(|c| vec![0; c.segments.len()]).collect();
    let mut any: Vec<usize> = vec![0; cands.len()];
    let mut frames: Vec<u64> = cands
        .iter()
        .map(|c| {
            c.segments
                .iter()
                .map(|s| (s.stored as u64 * s.frame_bits as u64).div_ceil(8))
                .sum()
        })
        .collect();
    let bytes = |c: usize, any: &[usize], frames: &[u64]| match any[c] {
        0 => cands[c].full_bytes,
        _ => cands[c].masked_base + frames[c] + cands[c].slack,
    };
    let mut total: u64 = (0..cands.len()).map(|c| bytes(c, &any, &frames)).sum();
    let mut i = 0;
    let mut t = floor;
    loop {
        // Every step with a key at most `t`.
        while i < steps.len() && steps[i].0 <= t {
            let (_, c, s) = steps[i];
            let (c, s) = (c as usize, s as usize);
            total -= bytes(c, &any, &frames);
            let seg = &cands[c].segments[s];
            let stored = seg.stored as u64 - taken[c][s] as u64;
            frames[c] -= (stored * seg.frame_bits as u64).div_ceil(8)
                - ((stored - 1) * seg.frame_bits as u64).div_ceil(8);
            taken[c][s] += 1;
            any[c] += 1;
            total += bytes(c, &any, &frames);
            i += 1;
        }
        if total as f64 <= target {
            return Some(t);
        }
        if i == steps.len() {
            return None;
        }
        t = steps[i].0;
    }
}

/// Step 2: the thresholds of the set `cands` (every clip's [`tier_candidates`] at the same
/// `tiers`) for `budget`. `tiers`' factors are the least thresholds: a budget they already meet
/// gives back `tiers` itself.
pub fn plan_budget(
    cands: &[&TierCandidates],
    tiers: &TierSettings,
    budget: &TierBudget,
) -> Result<BudgetPlan> {
    tiers.phases()?;
    let ok = |f: f64| f.is_finite() && f > 0.0;
    if !ok(budget.resident) {
        return Err(Error::InvalidArgument(
            "the resident budget must be a finite fraction above 0",
        ));
    }
    if let Some(m) = budget.medium {
        if tiers.levels != 2 {
            return Err(Error::InvalidArgument(
                "a medium budget needs two tier levels",
            ));
        }
        if !ok(m) || m < budget.resident {
            return Err(Error::InvalidArgument(
                "the medium budget must be finite and at least the resident budget",
            ));
        }
    }
    let full: u64 = cands.iter().map(|c| c.full_bytes).sum();
    let resident = threshold(cands, tiers.resident_factor, budget.resident * full as f64);
    let mut plan = *tiers;
    plan.resident_factor = resident.unwrap_or(f32::MAX);
    let mut medium_reached = true;
    if let (Some(m), 2) = (budget.medium, tiers.levels) {
        let t = threshold(cands, tiers.medium_factor, m * full as f64);
        medium_reached = t.is_some();
        plan.medium_factor = t.unwrap_or(f32::MAX);
    }
    // A medium budget at least the resident one is met by the resident threshold already.
    plan.medium_factor = plan.medium_factor.min(plan.resident_factor);
    let sum = |t: f32| cands.iter().map(|c| c.resident_bytes(t)).sum::<u64>();
    Ok(BudgetPlan {
        tiers: plan,
        resident_reached: resident.is_some(),
        medium_reached,
        full_bytes: full,
        resident_bytes: sum(plan.resident_factor),
        medium_bytes: match plan.levels {
            2 => sum(plan.medium_factor),
            _ => full,
        },
    })
}

/// A set of clips compressed with tiers under one budget ([`compress_tiered_budget`]).
#[derive(Debug, Clone)]
pub struct BudgetedSet {
    /// The thresholds and the set's bytes.
    pub plan: BudgetPlan,
    /// Each clip's blobs, in the clips' order.
    pub clips: Vec<TieredBlobs>,
    /// Each clip's bounds per fidelity (resident, + level 1, all levels): the largest error the
    /// compressor's metric measures, as a multiple of each joint's precision. No longer
    /// guaranteed by the factors: they depend on the set.
    pub bounds: Vec<Vec<f32>>,
}

/// The three steps on one thread: `clips` compressed with tiers, their resident blobs (and
/// with a medium budget, resident + level 1) together within `budget` when it can be met.
pub fn compress_tiered_budget(
    clips: &[&RawClip],
    settings: &CompressSettings,
    tiers: &TierSettings,
    budget: &TierBudget,
) -> Result<BudgetedSet> {
    let cands = clips
        .iter()
        .map(|c| tier_candidates(c, settings, tiers))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&TierCandidates> = cands.iter().collect();
    let plan = plan_budget(&refs, tiers, budget)?;
    let blobs = clips
        .iter()
        .map(|c| compress_tiered(c, settings, &plan.tiers))
        .collect::<Result<Vec<_>>>()?;
    Ok(BudgetedSet {
        plan,
        clips: blobs,
        bounds: cands.iter().map(|c| c.bounds(&plan.tiers)).collect(),
    })
}
