//! Sub-track classification: default, constant over the clip, or animated (stored per segment).
//!
//! A channel that can be replaced by the default value or by one constant is removed when the
//! error it causes stays within a share of the precision. The error of replacing a channel of
//! joint `j` is measured with the metric's [`vertex_error`] in local space at `j`'s dominant shell
//! (which covers every descendant's vertices); along a chain such errors add up at most linearly,
//! so the removals of a joint and all its ancestors together must stay within
//! [`CONSTANT_BUDGET`] of the precision. The rest of the precision is left to quantisation.

use super::bitrate::{rotation_range, rotation_range_fields, ClipRange};
use super::layout::{KIND_ANIMATED, KIND_ANIMATED_PER_SEGMENT, KIND_CONSTANT, KIND_DEFAULT};
use super::rotation::{
    choose_dropped, conditioning, slot_component, to_stored, PER_SEGMENT_THRESHOLD,
};
use crate::math::{make_continuous, Quat, Transform, Vec3};
use crate::offline::metric::{vertex_error, DominantShell};
use crate::offline::EncodeContext;

/// Share of a joint's precision that removed (default or constant) channels of the joint and its
/// ancestors may use together.
pub const CONSTANT_BUDGET: f32 = 0.25;

/// One animated channel of one joint.
#[derive(Debug, Clone)]
pub struct SubTrack {
    /// Joint index.
    pub joint: usize,
    /// 0 rotation, 1 translation, 2 scale.
    pub channel: u32,
    /// Dropped rotation component (rotations with one drop per track).
    pub dropped: u8,
    /// Dropped rotation component of each segment (rotations with per-segment drops), else empty.
    pub segment_drops: Vec<u8>,
    /// The three stored components of every sample of the clip.
    pub values: Vec<[f32; 3]>,
    /// Clip ranges: per quaternion component x y z w for rotations, per slot for vectors.
    pub ranges: [ClipRange; 4],
    /// Rotations: the stored 16-bit (min, extent) of each component's range.
    pub rotation_fields: [(u16, u16); 4],
}

impl SubTrack {
    /// The dropped component in segment `seg`.
    #[inline]
    pub fn drop_in(&self, seg: usize) -> u8 {
        if self.segment_drops.is_empty() {
            self.dropped
        } else {
            self.segment_drops[seg]
        }
    }

    /// The clip range of stored slot `slot` when `dropped` is the dropped component.
    #[inline]
    pub fn slot_range(&self, slot: usize, dropped: u8) -> &ClipRange {
        if self.channel == 0 {
            &self.ranges[slot_component(slot, dropped)]
        } else {
            &self.ranges[slot]
        }
    }
}

/// What the encoder stores for each joint.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Kind of each channel per joint (`KIND_*`).
    pub kinds: Vec<[u8; 3]>,
    /// Dropped rotation component per joint.
    pub dropped: Vec<u8>,
    /// The values of removed channels (default or constant) per joint.
    pub fixed: Vec<Transform>,
    /// Animated sub-tracks in joint order, channel order.
    pub animated: Vec<SubTrack>,
    /// Dominant shells (for local-space estimates).
    pub shells: Vec<DominantShell>,
}

fn with_channel(t: &Transform, ch: u32, value: &Transform) -> Transform {
    let mut o = *t;
    match ch {
        0 => o.rotation = value.rotation,
        1 => o.translation = value.translation,
        _ => o.scale = value.scale,
    }
    o
}

fn constant_candidate(ctx: &EncodeContext, j: usize, ch: u32) -> Transform {
    let t = &ctx.clip.tracks[j];
    let mut o = Transform::IDENTITY;
    match ch {
        0 => {
            let mut qs = t.rotations.clone();
            make_continuous(&mut qs);
            let sum = qs
                .iter()
                .fold(glam::Vec4::ZERO, |a, q| a + glam::Vec4::from(*q));
            o.rotation = crate::math::vec4_try_normalize(sum)
                .map(Quat::from_vec4)
                .unwrap_or(qs[0]);
        }
        1 => o.translation = mid(&t.translations),
        _ => o.scale = mid(&t.scales),
    }
    o
}

fn mid(v: &[Vec3]) -> Vec3 {
    let lo = v.iter().fold(Vec3::splat(f32::INFINITY), |a, b| a.min(*b));
    let hi = v
        .iter()
        .fold(Vec3::splat(f32::NEG_INFINITY), |a, b| a.max(*b));
    (lo + hi) * 0.5
}

/// Classifies every channel and prepares the animated sub-tracks.
pub fn plan(ctx: &EncodeContext, force_drop_w: bool, seg_len: usize) -> Plan {
    let clip = ctx.clip;
    let nj = clip.num_joints();
    let n = clip.num_samples;
    // Additive clips: shells, removal errors and vertices are those of the pose players see
    // (the base with the additive applied), see `Metric::to_player`.
    let shells = ctx.metric.dominant_shells();
    let has_scale = ctx.has_scale;
    let metric_scale = ctx.metric.has_scale();
    let mut used = vec![0.0f32; nj];
    let mut kinds = vec![[KIND_DEFAULT; 3]; nj];
    let mut dropped = vec![3u8; nj];
    let mut fixed = ctx.defaults.clone();
    let mut animated = Vec::new();
    for j in 0..nj {
        let budget = shells[j].precision * CONSTANT_BUDGET;
        let mut u = clip.skeleton.parent(j).map_or(0.0, |p| used[p]);
        let track = &clip.tracks[j];
        let err_of = |value: &Transform, ch: u32| -> f32 {
            (0..n)
                .map(|i| {
                    let raw = track.get(i);
                    vertex_error(
                        &ctx.metric.to_player(i, j, &raw),
                        &ctx.metric.to_player(i, j, &with_channel(&raw, ch, value)),
                        shells[j].shell_distance,
                        metric_scale,
                    )
                })
                .fold(0.0f32, f32::max)
        };
        for ch in 0..3u32 {
            if ch == 2 && !has_scale {
                kinds[j][2] = KIND_DEFAULT;
                continue;
            }
            let e_def = err_of(&ctx.defaults[j], ch);
            if u + e_def <= budget {
                kinds[j][ch as usize] = KIND_DEFAULT;
                u += e_def;
                continue;
            }
            let c = constant_candidate(ctx, j, ch);
            let e_const = err_of(&c, ch);
            if u + e_const <= budget {
                kinds[j][ch as usize] = KIND_CONSTANT;
                fixed[j] = with_channel(&fixed[j], ch, &c);
                u += e_const;
                continue;
            }
            kinds[j][ch as usize] = KIND_ANIMATED;
            let mut segment_drops = Vec::new();
            let (drop, values): (u8, Vec<[f32; 3]>) = match ch {
                0 => {
                    let d = choose_dropped(&track.rotations, force_drop_w);
                    if !force_drop_w && conditioning(&track.rotations, d) < PER_SEGMENT_THRESHOLD {
                        kinds[j][0] = KIND_ANIMATED_PER_SEGMENT;
                        segment_drops = track
                            .rotations
                            .chunks(seg_len)
                            .map(|seg| choose_dropped(seg, false))
                            .collect();
                        let values = track
                            .rotations
                            .iter()
                            .enumerate()
                            .map(|(i, q)| to_stored(*q, segment_drops[i / seg_len]))
                            .collect();
                        (d, values)
                    } else {
                        (
                            d,
                            track.rotations.iter().map(|q| to_stored(*q, d)).collect(),
                        )
                    }
                }
                1 => (0, track.translations.iter().map(|v| v.to_array()).collect()),
                _ => (0, track.scales.iter().map(|v| v.to_array()).collect()),
            };
            if ch == 0 {
                dropped[j] = drop;
            }
            let mut ranges = [ClipRange::default(); 4];
            if ch == 0 {
                // Per quaternion component, over the samples where it is stored.
                for (c, r) in ranges.iter_mut().enumerate() {
                    *r = ClipRange::of(values.iter().enumerate().filter_map(|(i, v)| {
                        let dr = if segment_drops.is_empty() {
                            drop
                        } else {
                            segment_drops[i / seg_len]
                        };
                        (c != dr as usize).then(|| v[c - (c > dr as usize) as usize])
                    }));
                }
            } else {
                for (c, r) in ranges.iter_mut().enumerate().take(3) {
                    *r = ClipRange::of(values.iter().map(|v| v[c]));
                }
            }
            let mut rotation_fields = [(0u16, 0u16); 4];
            if ch == 0 {
                for (r, f) in ranges.iter_mut().zip(&mut rotation_fields) {
                    *f = rotation_range_fields(r);
                    *r = rotation_range(f.0, f.1);
                }
            }
            animated.push(SubTrack {
                joint: j,
                channel: ch,
                dropped: drop,
                rotation_fields,
                segment_drops,
                values,
                ranges,
            });
        }
        used[j] = u;
    }
    Plan {
        kinds,
        dropped,
        fixed,
        animated,
        shells,
    }
}

/// The track table byte of a joint.
pub fn kinds_byte(kinds: [u8; 3], dropped: u8) -> u8 {
    kinds[0] | (kinds[1] << 2) | (kinds[2] << 4) | ((dropped & 3) << 6)
}
