//! The grouped layout's portable decoder: one sub-track (lane) at a time, in plain `f32` arithmetic,
//! each lane performing the SIMD decoders' operations in their order (so poses are bit for bit
//! theirs and the `vbr` decoder's). Clarity over speed; no allocation.

use super::common::{positions, split, write_statics, Far, Here, Pos, Record, Split, Src};
use super::common::{ONE_SAMPLE, SAME_SEGMENT, TWO_SEGMENTS};
use super::{View, LANES};
use crate::format::bytes::{read_u16, read_u32};
use crate::format::limits::MAX_ABS_VALUE;
use crate::format::quantize::bits::read_bits;
use crate::format::vbr::bitrate::RATE_RAW;
use crate::runtime::{PoseRows, SampleKey};

/// The raw `f32` rate index.
const RAW: u32 = RATE_RAW as u32;

/// One group's decode in one segment, per component and lane.
#[derive(Clone, Copy)]
struct Coef {
    mul: [[f32; LANES]; 3],
    add: [[f32; LANES]; 3],
    /// Rate index.
    rate: [[u32; LANES]; 3],
    /// Bit width: 0, the rate + 2, or 32 for a raw `f32`.
    bits: [[u32; LANES]; 3],
    /// Bit of the field relative to the group's first bit in a frame.
    off: [[usize; LANES]; 3],
    /// Bits of the group in a frame.
    total: usize,
    /// Dropped component (rotations).
    drop: [u32; LANES],
}

impl Coef {
    /// Whether lane `l` stores nothing per sample (constant over the segment).
    fn constant(&self, l: usize) -> bool {
        self.bits[0][l] | self.bits[1][l] | self.bits[2][l] == 0
    }
}

/// The clip range (min, extent) of a rotation component from its stored word.
fn rotation_range(w: u32) -> (f32, f32) {
    let k = 2.0 / 65535.0;
    ((w & 0xFFFF) as f32 * k - 1.0, (w >> 16) as f32 * k)
}

/// The coefficients of the group `g` in the segment whose group metadata is at `meta`.
fn coef(data: &[u8], g: &Record, meta: usize) -> Coef {
    let n = g.n;
    let rb = (5 * n).div_ceil(8);
    let mut c = Coef {
        mul: [[0.0; LANES]; 3],
        add: [[0.0; LANES]; 3],
        rate: [[0; LANES]; 3],
        bits: [[0; LANES]; 3],
        off: [[0; LANES]; 3],
        total: 0,
        drop: [0; LANES],
    };
    let drops = if g.per_segment {
        read_u16(data, meta + 3 * rb + 6 * n) as u32
    } else {
        g.drops
    };
    for l in 0..n {
        c.drop[l] = (drops >> (2 * l)) & 3;
    }
    for k in 0..3 {
        let mut w = 0u64;
        for (i, &b) in data[meta + rb * k..meta + rb * (k + 1)].iter().enumerate() {
            w |= (b as u64) << (8 * i);
        }
        for l in 0..n {
            // The clip range of the component stored in slot `k`.
            let (min, ext) = if g.class == 0 {
                let slot = if g.per_segment {
                    k + (k >= c.drop[l] as usize) as usize
                } else {
                    k
                };
                rotation_range(read_u32(data, g.ranges + 4 * (n * slot + l)))
            } else {
                (
                    f32::from_bits(read_u32(data, g.ranges + 4 * (n * k + l))),
                    f32::from_bits(read_u32(data, g.ranges + 4 * (n * (3 + k) + l))),
                )
            };
            let r = ((w >> (5 * l)) & 31) as u32;
            let bits = match r {
                0 => 0,
                RAW => 32,
                _ => r + 2,
            };
            // 1 / (2^bits - 1) for the quantised rates, else 0.
            let inv_q = if r == 0 || r == RAW {
                0.0
            } else {
                1.0 / (f32::from_bits((bits + 127) << 23) - 1.0)
            };
            let f = read_u16(data, meta + 3 * rb + 2 * (n * k + l)) as u32;
            let smin = (f & 0xFF) as f32 * (1.0 / 255.0);
            let sext = (f >> 8) as f32 * (1.0 / 255.0);
            let cfrac = f as f32 * (1.0 / 65535.0);
            let frac = if inv_q == 0.0 { cfrac } else { smin };
            c.mul[k][l] = inv_q * sext * ext;
            c.add[k][l] = frac * ext + min;
            c.rate[k][l] = r;
            c.bits[k][l] = bits;
            c.off[k][l] = c.total;
            c.total += bits as usize;
        }
    }
    c
}

/// Component `k` of lane `l` in the stored frame whose group fields start at `bit`.
fn value(data: &[u8], bit: usize, c: &Coef, k: usize, l: usize, limit: f32) -> f32 {
    let at = bit + c.off[k][l];
    if c.rate[k][l] == RAW {
        super::common::raw_value(read_bits(data, at, 32), limit)
    } else {
        (read_bits(data, at, c.bits[k][l]) as i32) as f32 * c.mul[k][l] + c.add[k][l]
    }
}

/// Lane `l` of a group at a sample: its stored frame, blended towards the next one for a dropped
/// sample.
fn sample<'a, S: Src<'a>>(
    data: &'a [u8],
    pos: &Pos<S>,
    first_bit: usize,
    c: &Coef,
    l: usize,
    limit: f32,
) -> [f32; 3] {
    let a = [0, 1, 2].map(|k| value(pos.data(data), pos.bit + first_bit, c, k, l, limit));
    if pos.t > 0.0 {
        let (next, bit) = pos.next(data);
        let n = [0, 1, 2].map(|k| value(next, bit + first_bit, c, k, l, limit));
        [0, 1, 2].map(|k| a[k] + (n[k] - a[k]) * pos.t)
    } else {
        a
    }
}

/// A rotation from its stored slots and dropped component.
fn rebuild(stored: [f32; 3], dropped: u32) -> [f32; 4] {
    let len2 = (stored[0] * stored[0] + stored[1] * stored[1]) + stored[2] * stored[2];
    let inside = len2 <= 1.0;
    let dropped_value = if inside { (1.0 - len2).sqrt() } else { 0.0 };
    let r = 1.0 / len2.sqrt();
    let stored = if inside {
        stored
    } else {
        stored.map(|x| x * r)
    };
    match dropped {
        0 => [dropped_value, stored[0], stored[1], stored[2]],
        1 => [stored[0], dropped_value, stored[1], stored[2]],
        2 => [stored[0], stored[1], dropped_value, stored[2]],
        _ => [stored[0], stored[1], stored[2], dropped_value],
    }
}

fn dot(p: &[f32; 4], q: &[f32; 4]) -> f32 {
    (p[0] * q[0] + p[2] * q[2]) + (p[1] * q[1] + p[3] * q[3])
}

/// `nlerp_shortest` (the operations of `blend::nlerp4`).
fn nlerp(a: [f32; 4], b: [f32; 4], t: f32) -> [f32; 4] {
    let b = if dot(&a, &b) < 0.0 { b.map(|x| -x) } else { b };
    let v = [0, 1, 2, 3].map(|k| a[k] + (b[k] - a[k]) * t);
    let len2 = dot(&v, &v);
    if len2 > 0.0 {
        let r = 1.0 / len2.sqrt();
        v.map(|x| x * r)
    } else {
        a
    }
}

/// Samples every joint at `key` into `out` (10 floats per joint at `stride`). The caller checks
/// the key; `out` must hold every joint.
pub(super) fn sample_pose(view: &View, key: &SampleKey, out: &mut [f32], stride: usize) {
    let joints = view.num_joints;
    assert!(stride >= 10 && out.len() >= crate::runtime::PoseOut::required_len(joints, stride));
    // SAFETY: `out` holds every joint's ten floats at `stride` (checked above).
    unsafe { sample_rows(view, key, PoseRows::ten(out.as_mut_ptr(), stride), 7) }
}

/// Samples every joint's channels of `channels` (1, 3 or 7; the walk stops at the first group
/// of a channel not asked for, as the groups are in channel order) at `key` with each
/// channel's rows at `rows`.
///
/// # Safety
/// The key is the clip's; `rows` hold every joint's rows.
pub(super) unsafe fn sample_rows(view: &View, key: &SampleKey, rows: PoseRows, channels: u32) {
    debug_assert!(matches!(channels, 1 | 3 | 7));
    // The joints are validated below the joint count; the copies read three or four floats of
    // the body or `DEFAULT_VALUES`.
    write_statics(
        view,
        rows,
        channels,
        |dst, src| std::ptr::copy_nonoverlapping(src, dst, 4),
        |dst, src| std::ptr::copy_nonoverlapping(src, dst, 3),
    );
    let key_split = split(view, key);
    if view.tiers.is_some() {
        walk::<Far>(view, key, &key_split, rows, channels)
    } else {
        walk::<Here>(view, key, &key_split, rows, channels)
    }
}

/// The groups' lanes of [`sample_rows`], with the frames where `S` places them.
unsafe fn walk<'a, S: Src<'a>>(
    view: &View<'a>,
    key: &SampleKey,
    key_split: &Split,
    rows: PoseRows,
    channels: u32,
) {
    let case = key_split.case;
    let data = view.data;
    let (a, b) = positions::<S>(view, key_split);
    let (mut meta_a, mut meta_b, mut first_bit_a, mut first_bit_b) =
        (a.meta, b.meta, 0usize, 0usize);
    let alpha = key.alpha;
    let mut record_offset = 0;
    for _ in 0..view.num_groups {
        let group = Record::read(data, record_offset);
        if channels & (1 << group.class) == 0 {
            break;
        }
        record_offset += group.size;
        let limit = if group.class == 0 { 1.0 } else { MAX_ABS_VALUE };
        let coef_a = coef(data, &group, meta_a);
        let coef_b_storage;
        let coef_b = if case == TWO_SEGMENTS {
            coef_b_storage = coef(data, &group, meta_b);
            &coef_b_storage
        } else {
            &coef_a
        };
        let channel = group.class as usize % 3;
        for l in 0..group.n {
            let va = sample(data, &a, first_bit_a, &coef_a, l, limit);
            let vb = if case == ONE_SAMPLE {
                va
            } else {
                sample(data, &b, first_bit_b, coef_b, l, limit)
            };
            let dst = rows.at(group.joint(data, l), channel);
            if group.class == 0 {
                let qa = rebuild(va, coef_a.drop[l]);
                let q = if case == ONE_SAMPLE || (case == SAME_SEGMENT && coef_a.constant(l)) {
                    // Constant over the segment: both samples are the same, not blended.
                    qa
                } else {
                    nlerp(qa, rebuild(vb, coef_b.drop[l]), alpha)
                };
                std::ptr::copy_nonoverlapping(q.as_ptr(), dst, 4);
            } else {
                let v = if case == ONE_SAMPLE {
                    va
                } else {
                    [0, 1, 2].map(|k| va[k] * (1.0 - alpha) + vb[k] * alpha)
                };
                for (k, x) in v.iter().enumerate() {
                    // `maxps` then `minps` (not `clamp`): a NaN gives `-MAX_ABS_VALUE`.
                    #[allow(clippy::manual_clamp)]
                    dst.add(k).write(x.max(-MAX_ABS_VALUE).min(MAX_ABS_VALUE));
                }
            }
        }
        first_bit_a += coef_a.total;
        meta_a += group.meta;
        if case != ONE_SAMPLE {
            first_bit_b += coef_b.total;
        }
        if case == TWO_SEGMENTS {
            meta_b += group.meta;
        }
    }
}
