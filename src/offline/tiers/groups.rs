//! A measurement, not a format: how many frame bits a resident part would keep within a bound
//! if samples were removed per set of sub-tracks (per group of the grouped layout, or per
//! sub-track) instead of per segment. Each set gets a keyframe mask of its own per segment; the
//! greedy of `rank` runs over every (set, sample) of a segment, the removal that adds the least
//! error at the joints its set reaches first, with the search's decode and metric
//! ([`SetProbe`]). `benches/examples/mask_probe.rs` turns it into bytes and judges the poses.

use crate::format::vbr::bitrate::rate_bits;
use crate::math::Transform;
use crate::offline::blob_writer::EncodedBody;
use crate::offline::clip::RawClip;
use crate::offline::compress::compress_pipeline;
use crate::offline::settings::{CodecChoice, CompressSettings};
use crate::offline::vbr;
use crate::offline::vbr::optimize::{Searcher, SetProbe};
use crate::offline::vbr::tracks::Plan;
use crate::{Error, Result};

/// What shares a keyframe mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MaskUnit {
    /// Every sub-track of a segment (the format's masks).
    Segment,
    /// The sub-tracks of one group of the grouped layout (up to eight of one channel).
    Group,
    /// One sub-track.
    SubTrack,
}

/// The sets of animated sub-tracks sharing a mask under `unit`. Groups are the grouped
/// layout's (`vbr::regroup`): rotations, translations, scales, each in sub-track order with
/// per-track rotation drops before per-segment ones, eight to a group.
fn sets(plan: &Plan, unit: MaskUnit) -> Vec<Vec<usize>> {
    let n = plan.animated.len();
    match unit {
        MaskUnit::Segment => vec![(0..n).collect()],
        MaskUnit::SubTrack => (0..n).map(|t| vec![t]).collect(),
        MaskUnit::Group => {
            let mut order: Vec<usize> = (0..n).collect();
            let key = |t: usize| {
                let s = &plan.animated[t];
                (s.channel * 2 + !s.segment_drops.is_empty() as u32, t)
            };
            order.sort_by_key(|&t| key(t));
            let mut out: Vec<Vec<usize>> = Vec::new();
            let mut class = u32::MAX;
            for t in order {
                let c = plan.animated[t].channel;
                if c != class || out.last().is_none_or(|g| g.len() == 8) {
                    out.push(Vec::new());
                    class = c;
                }
                out.last_mut().expect("a group").push(t);
            }
            out
        }
    }
}

/// One segment's removals under one mask unit.
#[derive(Debug, Clone, PartialEq)]
pub struct SetSegment {
    /// Samples the segment covers.
    pub samples: u32,
    /// Samples the blob without tiers stores (every set's).
    pub stored: u32,
    /// Bits of one stored sample of each set.
    pub set_bits: Vec<u32>,
    /// The segment's error before any removal (the search's unit).
    pub base_error: f32,
    /// The removals in order: the set, and the step's key (the largest removal error so far).
    pub steps: Vec<(u32, f32)>,
}

impl SetSegment {
    /// Frame bits the segment keeps when the steps with a key at most `t` leave.
    pub fn frame_bits(&self, t: f32) -> u64 {
        let mut bits: u64 =
            self.set_bits.iter().map(|&b| b as u64).sum::<u64>() * self.stored as u64;
        for &(g, k) in &self.steps {
            if k > t {
                break;
            }
            bits -= self.set_bits[g as usize] as u64;
        }
        bits
    }
}

/// [`set_removals`]' result for one clip.
#[derive(Debug, Clone)]
pub struct SetRemovals {
    /// The blob [`crate::compress()`] writes for the clip.
    pub full: Vec<u8>,
    /// Samples per segment.
    pub seg_len: usize,
    /// Per unit asked for: the number of sets, and each segment's removals.
    pub units: Vec<(usize, Vec<SetSegment>)>,
}

/// What receives the decoded poses: `(unit, bound, sample, local pose)`.
pub type PoseSink<'p> = dyn FnMut(usize, usize, usize, &[Transform]) + 'p;

/// For each of `units`: `clip` compressed as [`crate::compress()`] compresses it (`vbr`), then
/// in each segment the greedy removal over every (set, interior sample), the least error first,
/// up to `cap` (a multiple of each joint's precision, the unit of
/// [`super::TierSettings::resident_factor`]). Then for each unit and each of `bounds`, `pose`
/// gets every sample's decoded local pose with the steps whose key is at most the bound removed:
/// `pose(unit, bound, sample, local)`.
pub fn set_removals(
    clip: &RawClip,
    settings: &CompressSettings,
    units: &[MaskUnit],
    cap: f32,
    bounds: &[f32],
    pose: &mut PoseSink,
) -> Result<SetRemovals> {
    if settings.codec != CodecChoice::Vbr || clip.num_joints() == 0 {
        return Err(Error::Unsupported("needs the vbr codec and joints"));
    }
    let mut work = None;
    let full = compress_pipeline(clip, &[], settings, None, |ctx| {
        let mut searched = vbr::search(ctx)?;
        let searcher = Searcher::new(ctx.clip, ctx.metric, &searched.plan, ctx.has_scale);
        let n = ctx.clip.num_samples;
        let len = searched.seg_len;
        let mut out = Vec::new();
        for (u, &unit) in units.iter().enumerate() {
            let sets = sets(&searched.plan, unit);
            let mut segs = Vec::new();
            for (s, choice) in searched.segments.iter().enumerate() {
                let start = s * len;
                let count = (n - start).min(len);
                let mut probe = searcher.set_probe(start, count, len, choice, &sets);
                let base_error = probe.max_error();
                let steps = greedy(&mut probe, sets.len(), count, cap);
                for (b, &bound) in bounds.iter().enumerate() {
                    let mut p = searcher.set_probe(start, count, len, choice, &sets);
                    for &(g, i, k) in &steps {
                        if k > bound {
                            break;
                        }
                        p.remove(g, i);
                    }
                    for i in 0..count {
                        pose(u, b, start + i, p.local(i));
                    }
                }
                let set_bits = sets
                    .iter()
                    .map(|set| {
                        set.iter()
                            .flat_map(|&t| choice.rates[t])
                            .map(rate_bits)
                            .sum()
                    })
                    .collect();
                segs.push(SetSegment {
                    samples: count as u32,
                    stored: choice.mask.count_ones(),
                    set_bits,
                    base_error,
                    steps: steps.iter().map(|&(g, _, k)| (g as u32, k)).collect(),
                });
            }
            out.push((sets.len(), segs));
        }
        work = Some((out, len));
        Ok(EncodedBody {
            codec: crate::format::CodecId::Vbr,
            flags: ctx.flags,
            body: std::mem::take(&mut searched.body),
        })
    })?;
    let (units, seg_len) = work.expect("the clip has joints: the encoder ran");
    Ok(SetRemovals {
        full,
        seg_len,
        units,
    })
}

/// The greedy over every (set, stored interior sample) of a segment of `count` samples, the
/// least removal error first (the first set, then the earliest sample, on a tie), while it is
/// at most `cap`: (set, sample, key) per step, the key the largest removal error so far.
#[allow(clippy::needless_range_loop)]
fn greedy(probe: &mut SetProbe, sets: usize, count: usize, cap: f32) -> Vec<(usize, usize, f32)> {
    let interact: Vec<Vec<bool>> = (0..sets)
        .map(|g| (0..sets).map(|h| probe.interact(g, h)).collect())
        .collect();
    let mut cost: Vec<Vec<Option<f32>>> = vec![vec![None; count]; sets];
    let mut steps = Vec::new();
    let mut worst = 0.0f32;
    loop {
        let mut best: Option<(f32, usize, usize)> = None;
        for g in 0..sets {
            let mask = probe.mask(g);
            for i in 1..count.saturating_sub(1) {
                if mask & (1 << i) == 0 {
                    continue;
                }
                let c = match cost[g][i] {
                    Some(c) => c,
                    None => {
                        let c = probe.removal_error(g, i);
                        cost[g][i] = Some(c);
                        c
                    }
                };
                if c <= cap && best.is_none_or(|(b, ..)| c < b) {
                    best = Some((c, g, i));
                }
            }
        }
        let Some((c, g, i)) = best else {
            break;
        };
        let (prev, next) = probe.neighbours(g, i);
        probe.remove(g, i);
        worst = worst.max(c);
        steps.push((g, i, worst));
        cost[g][i] = None;
        // Every cached cost whose samples the removal changed (at joints both sets reach).
        for h in (0..sets).filter(|&h| interact[g][h]) {
            let mask = probe.mask(h);
            for j in 1..count.saturating_sub(1) {
                if mask & (1 << j) == 0 || cost[h][j].is_none() {
                    continue;
                }
                let (p, n) = probe.neighbours(h, j);
                if p + 1 < next && prev + 1 < n {
                    cost[h][j] = None;
                }
            }
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::offline::clip::{generate_clip, GenerateOptions};
    use crate::offline::tiers::{tier_candidates, TierSettings};
    use crate::runtime::{DecompressOptions, Decompressor};
    use crate::AlignedBlob;

    /// One set for the whole segment is the format's greedy: the same keys as the shared
    /// budget's ranking; without removals the poses are the full blob's, bit for bit; finer
    /// sets remove at least as many frame bits within a bound.
    #[test]
    fn one_set_is_the_segment_greedy() {
        let clip = generate_clip(&GenerateOptions {
            joints: 12,
            samples: 70,
            sample_rate: 120.0,
            bone_length: 1.0,
            animated_translation: true,
            seed: 5,
            ..Default::default()
        });
        let settings = CompressSettings::default();
        let nj = clip.num_joints();
        let mut poses = vec![vec![Transform::IDENTITY; clip.num_samples * nj]; 3];
        let units = [MaskUnit::Segment, MaskUnit::Group, MaskUnit::SubTrack];
        let r = set_removals(&clip, &settings, &units, 1e9, &[-1.0], &mut |u, _, s, l| {
            poses[u][s * nj..(s + 1) * nj].copy_from_slice(l)
        })
        .unwrap();
        assert_eq!(r.full, crate::compress(&clip, &settings).unwrap());
        let cands = tier_candidates(&clip, &settings, &TierSettings::default()).unwrap();
        let (sets, segs) = &r.units[0];
        assert_eq!(*sets, 1);
        for (a, b) in segs.iter().zip(&cands.segments) {
            let keys: Vec<f32> = a.steps.iter().map(|s| s.1).collect();
            assert_eq!(keys, b.keys);
            assert_eq!(a.set_bits[0], b.frame_bits);
        }
        let blob = AlignedBlob::from_bytes(&r.full);
        let mut d = Decompressor::new(blob.as_bytes(), &DecompressOptions::default()).unwrap();
        let mut floats = vec![0.0f32; nj * crate::math::FLOATS_PER_JOINT];
        for s in 0..clip.num_samples {
            d.seek_sample(s as u32);
            d.sample_pose(&mut floats, crate::math::FLOATS_PER_JOINT)
                .unwrap();
            for (u, unit) in poses.iter().enumerate() {
                for j in 0..nj {
                    let t = Transform::read_from(&floats[j * 10..(j + 1) * 10]);
                    let p = unit[s * nj + j];
                    assert_eq!(
                        (t.rotation.to_array(), t.translation.to_array()),
                        (p.rotation.to_array(), p.translation.to_array()),
                        "unit {u} sample {s} joint {j}"
                    );
                }
            }
        }
        for t in [2.0, 10.0, 100.0] {
            let bits = |u: usize| -> u64 { r.units[u].1.iter().map(|s| s.frame_bits(t)).sum() };
            assert!(bits(1) <= bits(0) && bits(2) <= bits(1), "at {t}");
        }
    }
}
