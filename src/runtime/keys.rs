//! Stateless sampling: per track, a binary search over that track's keys through the key index.
//!
//! Also holds the pieces the playback cursor shares with it (value decoding, slot evaluation), so
//! that both paths produce bit-identical poses.

use glam::Vec4;

use crate::format::limits::MAX_ABS_VALUE;
use crate::format::Header;
use crate::math::{Quat, Transform, Vec3};
use crate::runtime::{Defaults, PoseOut, SampleKey};

use crate::format::keys::interp::{eval, Interp};
use crate::format::keys::layout::{
    channels, range_stride, segment_len, Kind, Layout, Slot, CH_ROTATION, CH_TRANSLATION,
};
use crate::format::keys::quant::{
    range_ext, range_min, unpack_rotation, unpack_rotation_rr, unpack_vector,
};

/// Decodes the payload of a key at sample `time` for a slot.
#[inline]
pub(crate) fn decode_value(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    time: u16,
    payload: u64,
) -> Vec4 {
    if channel == CH_ROTATION && !slot.ranged {
        return unpack_rotation(payload);
    }
    // Validation guarantees every key time is below the sample count, so the segment's range
    // is inside the slot's pool entries.
    let stride = range_stride(channel);
    let p = match segment_len(slot.segments) {
        Some(len) => slot.pool + stride * (time as usize / len),
        None => slot.pool,
    };
    let mut r = [0.0f32; 7];
    for (i, v) in r.iter_mut().enumerate().take(stride) {
        *v = lay.pool_f32(body, p + i);
    }
    if channel == CH_ROTATION {
        unpack_rotation_rr(payload, &r)
    } else {
        unpack_vector(payload, range_min(&r), range_ext(&r))
    }
}

/// The constant value of a constant slot.
#[inline]
pub(crate) fn constant_value(lay: &Layout, body: &[u8], slot: &Slot, channel: usize) -> Vec4 {
    let p = slot.pool;
    let w = if channel == CH_ROTATION {
        lay.pool_f32(body, p + 3)
    } else {
        0.0
    };
    Vec4::new(
        lay.pool_f32(body, p),
        lay.pool_f32(body, p + 1),
        lay.pool_f32(body, p + 2),
        w,
    )
}

/// The last of `n` keys (strictly increasing `time(i)`) whose time is at most `t`, or 0 when
/// none is. Starts from a guess proportional to `t` and gallops from there, so tracks with evenly
/// spread keys need a couple of probes instead of a full binary search.
#[inline]
pub(crate) fn find_key(n: usize, t: f32, time: impl Fn(usize) -> f32) -> usize {
    if n <= 1 {
        return 0;
    }
    let (t0, t1) = (time(0), time(n - 1));
    if t < t0 {
        return 0;
    }
    if t >= t1 {
        return n - 1;
    }
    if n == 2 {
        return 0;
    }
    // Invariant: time(lo) <= t < time(hi).
    let (mut lo, mut hi) = (0usize, n - 1);
    let g = (((t - t0) / (t1 - t0)) * (n - 1) as f32) as usize;
    let g = g.clamp(1, n - 2);
    if time(g) <= t {
        lo = g;
        let mut step = 1;
        while lo + step < hi {
            if time(lo + step) <= t {
                lo += step;
                step *= 2;
            } else {
                hi = lo + step;
                break;
            }
        }
    } else {
        hi = g;
        let mut step = 1;
        while hi - lo > step {
            if time(hi - step) > t {
                hi -= step;
                step *= 2;
            } else {
                lo = hi - step;
                break;
            }
        }
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if time(mid) <= t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Evaluates an animated slot at time `t` (in samples) by binary search over its keys.
pub(crate) fn eval_slot_stateless(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    t: f32,
) -> Vec4 {
    let n = slot.count;
    let time = |i: usize| lay.entry_time(body, lay.key_pos(body, slot, i)) as f32;
    let k = find_key(n, t, time);
    let mut ts = [0.0f32; 4];
    let mut vs = [Vec4::ZERO; 4];
    // Linear spans only read keys k and k+1.
    let range = match slot.interp {
        Interp::Linear => 1..3,
        Interp::CatmullRom => 0..4,
    };
    for i in range {
        let key = (k as isize + i as isize - 1).clamp(0, n as isize - 1) as usize;
        let e = lay.key_pos(body, slot, key);
        let time = lay.entry_time(body, e);
        ts[i] = time as f32;
        vs[i] = decode_value(lay, body, slot, channel, time, lay.entry_payload(body, e));
    }
    eval(slot.interp, ts, vs, t, channel == CH_ROTATION)
}

/// Blends two values of a channel (wrap-around between the last and the first sample).
#[inline]
pub(crate) fn blend(a: Vec4, b: Vec4, alpha: f32, channel: usize) -> Vec4 {
    crate::format::keys::interp::linear(0.0, a, 1.0, b, alpha, channel == CH_ROTATION)
}

/// Writes a channel value into a transform.
#[inline]
pub(crate) fn set_channel(t: &mut Transform, channel: usize, v: Vec4) {
    match channel {
        CH_ROTATION => t.rotation = Quat::from_vec4(v),
        CH_TRANSLATION => t.translation = Vec3::new(v.x, v.y, v.z),
        _ => t.scale = Vec3::new(v.x, v.y, v.z),
    }
}

/// The value of one channel of joint `j` at a sample key, stateless.
#[inline]
fn channel_value(
    lay: &Layout,
    body: &[u8],
    slot: &Slot,
    channel: usize,
    key: &SampleKey,
) -> Option<Vec4> {
    match slot.kind {
        Kind::Default => None,
        Kind::Constant => Some(constant_value(lay, body, slot, channel)),
        Kind::Animated => Some(
            if key.i0.checked_add(1) == Some(key.i1) || key.i1 == key.i0 {
                eval_slot_stateless(lay, body, slot, channel, key.i0 as f32 + key.alpha)
            } else {
                let a = eval_slot_stateless(lay, body, slot, channel, key.i0 as f32);
                let b = eval_slot_stateless(lay, body, slot, channel, key.i1 as f32);
                blend(a, b, key.alpha, channel)
            },
        ),
    }
}

/// Finishes a decoded transform: rotations are normalised (constant rotations may be stored
/// unnormalised by a hostile body); translations and scales are clamped to
/// [`MAX_ABS_VALUE`] (Catmull-Rom spans overshoot their keys, and validation bounds key ranges
/// only to a few times that limit).
#[inline]
pub(crate) fn finish(mut t: Transform) -> Transform {
    let lim = Vec3::splat(MAX_ABS_VALUE);
    t.translation = t.translation.clamp(-lim, lim);
    t.scale = t.scale.clamp(-lim, lim);
    let l2 = crate::math::quat_length_squared(t.rotation);
    // Interpolated rotations leave `eval` normalised: keep those as they are (a second
    // normalisation per joint is measurable in playback), fix anything else.
    t.rotation = if (l2 - 1.0).abs() <= 1e-6 {
        t.rotation
    } else if l2 > 0.0 && l2.is_finite() {
        t.rotation * l2.sqrt().recip()
    } else {
        Quat::IDENTITY
    };
    t
}

/// Samples joint `j`.
pub(crate) fn sample_joint(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    j: usize,
    d: &Defaults,
) -> Transform {
    let lay = Layout::read(body);
    let nch = channels(h);
    let mut t = d.get(j);
    for c in 0..nch {
        let slot = lay.slot(body, j * nch + c);
        if let Some(v) = channel_value(&lay, body, &slot, c, key) {
            set_channel(&mut t, c, v);
        }
    }
    if nch < 3 {
        t.scale = Vec3::ONE;
    }
    finish(t)
}

/// Samples every joint.
pub(crate) fn sample_pose(
    h: &Header,
    body: &[u8],
    key: &SampleKey,
    d: &Defaults,
    out: &mut PoseOut,
) {
    for j in 0..h.num_joints as usize {
        let t = sample_joint(h, body, key, j, d);
        out.write(j, &t);
    }
}

#[cfg(test)]
mod tests {
    use super::find_key;

    #[test]
    fn find_key_matches_linear_scan() {
        let sets: [&[u16]; 4] = [
            &[0],
            &[0, 1, 2, 3, 4, 5],
            &[0, 3, 4, 20, 21, 22, 90, 200],
            &[0, 199],
        ];
        for keys in sets {
            for t10 in 0..2100 {
                let t = t10 as f32 * 0.1 - 1.0;
                let expect = keys.iter().rposition(|&k| k as f32 <= t).unwrap_or(0);
                assert_eq!(
                    find_key(keys.len(), t, |i| keys[i] as f32),
                    expect,
                    "{keys:?} t {t}"
                );
            }
        }
    }
}
